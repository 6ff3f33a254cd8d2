#include "cli/open_command.h"

#include "cli/load_config.h"
#include "cli/open_store.h"
#include "common/log.h"

namespace hookinbox::cli {
namespace {

bool Sound(const CheckedConfig& checked, ConfigCheck check) {
  return check == ConfigCheck::kParsed ? checked.loaded.ok() : checked.ok();
}

void LogProblems(const CheckedConfig& checked, const std::string& path, bool sound) {
  for (const auto& w : checked.loaded.warnings) log::Warn("config_warning", {{"detail", config::Describe(w, path)}});
  for (const auto& e : checked.errors) log::Error("config_error", {{"detail", config::Describe(e, path)}});
  if (!sound) {
    log::Error("refusing_to_start",
               {{"detail", "refusing to start with an invalid config (see `hookinbox check-config`)"}});
  }
}

void PrintRefusal(const CheckedConfig& checked, const std::string& path, const OpenOptions& options,
                  std::ostream& err) {
  PrintProblems(checked, path, err);
  if (options.point_to_check_config) {
    err << "hookinbox " << options.verb << ": cannot use " << path << " (see `hookinbox check-config`)\n";
  }
}

}  // namespace

bool OpenedCommand::OpenStore(std::ostream& err) {
  auto opened = OpenConfiguredStore(config.storage);
  if (!opened.ok()) {
    err << "hookinbox " << verb << ": " << opened.status().message() << "\n";
    return false;
  }
  store = std::move(opened).value();
  return true;
}

std::string ConfigPath(const CommonOptions& common) {
  return common.config_path.empty() ? kDefaultConfigPath : common.config_path;
}

std::optional<OpenedCommand> OpenForCommand(const CommonOptions& common, const OpenOptions& options,
                                            std::ostream& err) {
  const std::string path = ConfigPath(common);
  CheckedConfig checked = LoadAndCheck(path, /*tls_pairs=*/options.check == ConfigCheck::kServable);
  const bool sound = Sound(checked, options.check);
  if (options.report_to_log) {
    LogProblems(checked, path, sound);
  } else if (!sound) {
    PrintRefusal(checked, path, options, err);
  }
  if (!sound) return std::nullopt;
  OpenedCommand opened{options.verb, path, std::move(checked.loaded.config), nullptr};
  if (options.open_store && !opened.OpenStore(err)) return std::nullopt;
  return opened;
}

}  // namespace hookinbox::cli
