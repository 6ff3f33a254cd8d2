#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/load_config.h"
#include "cli/open_command.h"
#include "config/duration.h"
#include "config/size.h"

namespace hookinbox::cli {
namespace {

nlohmann::json ToJson(const std::vector<config::Problem>& problems) {
  auto list = nlohmann::json::array();
  for (const auto& p : problems) list.push_back({{"key", p.key}, {"line", p.line}, {"message", p.message}});
  return list;
}

// Each endpoint's effective retry horizon: how long, and after how many
// attempts at most, a transient failure is retried before it is
// dead-lettered. max_attempts null = no limit but the horizon.
nlohmann::json Horizons(const config::Config& c) {
  auto list = nlohmann::json::array();
  for (const auto& e : c.endpoints) {
    nlohmann::json max_attempts = nullptr;
    if (c.worker.max_attempts) max_attempts = *c.worker.max_attempts;
    list.push_back({{"name", e.name},
                    {"action", e.HasAction() ? nlohmann::json(e.action.type) : nlohmann::json(nullptr)},
                    {"retry_for_seconds", static_cast<double>(c.RetryForMs(e)) / 1000.0},
                    {"max_attempts", max_attempts}});
  }
  return list;
}

// "  payments: retried for 3d, at most 5 attempts" for each endpoint with an action.
void PrintHorizons(const config::Config& c, std::ostream& out) {
  for (const auto& e : c.endpoints) {
    if (!e.HasAction()) continue;
    out << "  " << e.name << ": retried for " << config::FormatDurationMs(c.RetryForMs(e));
    if (c.worker.max_attempts) out << ", at most " << *c.worker.max_attempts << " attempts";
    out << "\n";
  }
}

// A threshold as written in the file: a count, "15m", "1GB" or false (off).
nlohmann::json Limit(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(false); }
nlohmann::json LimitMs(const std::optional<int64_t>& v) {
  return v ? nlohmann::json(config::FormatDurationMs(*v)) : nlohmann::json(false);
}
nlohmann::json LimitBytes(const std::optional<int64_t>& v) {
  return v ? nlohmann::json(config::FormatSizeBytes(*v)) : nlohmann::json(false);
}

nlohmann::json Thresholds(const config::AlertThresholds& t) {
  return {{"dead_letters", Limit(t.dead_letters)},       {"unknown", Limit(t.unknown)},
          {"conflicts", Limit(t.conflicts)},             {"backlog_age", LimitMs(t.backlog_age_ms)},
          {"signature_failures", Limit(t.signature_failures)}, {"silence", LimitMs(t.silence_ms)},
          {"breaker_open", LimitMs(t.breaker_open_ms)}};
}

// The channels (name and type only: a channel's URL is a credential) and
// the thresholds, installation-wide and per endpoint.
nlohmann::json Alerts(const config::Config& c) {
  const config::AlertConfig& a = c.alert;
  auto channels = nlohmann::json::array();
  for (const auto& ch : a.channels) channels.push_back({{"name", ch.name}, {"type", ch.type}});
  nlohmann::json thresholds = Thresholds(a.thresholds);
  thresholds["certificate_days"] = Limit(a.certificate_days);
  thresholds["disk_free"] = LimitBytes(a.disk_free_bytes);
  thresholds["database_size"] = LimitBytes(a.database_size_bytes);
  thresholds["storage_failures"] = Limit(a.storage_failures);
  nlohmann::json endpoints = nlohmann::json::object();
  for (const auto& e : c.endpoints) endpoints[e.name] = Thresholds(e.alert);
  return {{"channels", channels},
          {"thresholds", thresholds},
          {"endpoints", endpoints},
          {"remind_every", a.remind_every_ms > 0 ? nlohmann::json(config::FormatDurationMs(a.remind_every_ms))
                                                 : nlohmann::json(false)},
          {"digest_at", a.digest_at},
          {"digest_channel", a.digest_channel}};
}

// "  alert channels: ops (slack), mail (email)" and the thresholds, "false" = off.
void PrintAlerts(const config::Config& c, std::ostream& out) {
  nlohmann::json alerts = Alerts(c);
  out << "  alert channels:";
  if (c.alert.channels.empty()) out << " none";
  for (size_t i = 0; i < c.alert.channels.size(); ++i) {
    out << (i > 0 ? ", " : " ") << c.alert.channels[i].name << " (" << c.alert.channels[i].type << ")";
  }
  out << "\n  alert thresholds:";
  bool first = true;
  for (const auto& [key, value] : alerts["thresholds"].items()) {
    out << (first ? " " : ", ") << key << " " << (value.is_string() ? value.get<std::string>() : value.dump());
    first = false;
  }
  out << "\n";
}

}  // namespace

int RunCheckConfig(const CommonOptions& common, std::ostream& out, std::ostream& err) {
  // Not OpenForCommand: this verb reports every problem instead of refusing.
  const std::string path = ConfigPath(common);
  CheckedConfig checked = LoadAndCheck(path, /*tls_pairs=*/true);
  const auto& errors = checked.errors;
  const auto& loaded = checked.loaded;
  if (common.json) {
    // The horizons of a config with errors would describe a config that is not used.
    out << nlohmann::json{{"ok", errors.empty()},
                          {"file", path},
                          {"errors", ToJson(errors)},
                          {"warnings", ToJson(loaded.warnings)},
                          {"endpoints", errors.empty() ? Horizons(loaded.config) : nlohmann::json::array()},
                          {"alert", errors.empty() ? Alerts(loaded.config) : nlohmann::json(nullptr)}}
               .dump(2)
        << "\n";
    return errors.empty() ? kExitOk : kExitFailure;
  }
  PrintProblems(checked, path, err);
  if (!errors.empty()) {
    err << path << ": " << errors.size() << (errors.size() == 1 ? " error" : " errors") << "\n";
    return kExitFailure;
  }
  out << path << ": ok (" << loaded.config.endpoints.size()
      << (loaded.config.endpoints.size() == 1 ? " endpoint" : " endpoints") << ")\n";
  PrintHorizons(loaded.config, out);
  PrintAlerts(loaded.config, out);
  return kExitOk;
}

}  // namespace hookinbox::cli
