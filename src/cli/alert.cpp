// `hookinbox alert test [CHANNEL]`: one test notification to the named
// [[alert.channel]], or to each in config order, and one line per channel
// saying whether it was sent. Sends directly (not through the outbox): the
// person running it wants to know now whether the channel works.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "alert/channel.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "common/clock.h"

namespace hookinbox::cli {
namespace {

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "this host";
  return buf;
}

alert::Notification TestNotification(const config::AlertConfig& config, const std::string& channel) {
  alert::Notification n;
  n.kind = alert::NotificationKind::kTest;
  n.title = "hookinbox: test alert";
  n.text = "This is a test message from `hookinbox alert test`. If you can read it, alerts sent to channel " +
           channel + " reach you.";
  n.facts = {{"Channel", channel}, {"Host", HostName()}};
  n.link = config.ui_url;
  n.at_ms = SystemClock().NowMs();
  return n;
}

std::string Names(const config::AlertConfig& config) {
  std::string out;
  for (const auto& c : config.channels) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

}  // namespace

int RunAlertTest(const std::string& channel, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  OpenOptions options;
  options.verb = "alert test";
  options.check = ConfigCheck::kParsed;  // only [alert] is used: no TLS pair or store is needed
  std::optional<OpenedCommand> opened = OpenForCommand(common, options, err);
  if (!opened) return kExitFailure;
  const config::AlertConfig& config = opened->config.alert;
  if (config.channels.empty()) {
    err << "hookinbox alert test: no [[alert.channel]] in " << opened->config_path << "\n";
    return kExitUsage;
  }
  std::vector<std::unique_ptr<alert::Channel>> channels = alert::MakeChannels(config);
  if (!channel.empty()) {
    std::erase_if(channels, [&](const auto& c) { return c->name() != channel; });
    if (channels.empty()) {
      err << "hookinbox alert test: no channel named " << channel << " (configured: " << Names(config) << ")\n";
      return kExitUsage;
    }
  }
  bool all_sent = true;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& c : channels) {
    const Status sent = c->Send(TestNotification(config, c->name()));
    all_sent = all_sent && sent.ok();
    if (common.json) {
      results.push_back({{"name", c->name()}, {"sent", sent.ok()}, {"error", sent.ok() ? "" : sent.message()}});
    } else {
      out << c->name() << ": " << (sent.ok() ? "sent" : "failed: " + sent.message()) << "\n";
    }
  }
  if (common.json) out << nlohmann::json{{"ok", all_sent}, {"channels", results}}.dump(2) << "\n";
  return all_sent ? kExitOk : kExitFailure;
}

}  // namespace hookinbox::cli
