// `hookinbox purge [--dry-run] [--json]` and the hourly purge of `serve`.
//
// The database is the config's, opened like `events` opens it, so purge may
// run while the server does: both write through SQLite's write lock, one
// bounded batch at a time.
#include "cli/purge.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "common/log.h"

namespace hookinbox::cli {
namespace {

using nlohmann::json;

json ToJson(const store::PurgeCounts& c) {
  return {{"payloads", c.payloads}, {"step_results", c.steps}, {"events", c.events}, {"deliveries", c.deliveries},
          {"attempts", c.attempts}, {"kept", c.kept}};
}

std::string Name(const std::string& endpoint) { return endpoint.empty() ? "(no configured endpoint)" : endpoint; }

void PrintText(const store::PurgeReport& report, bool dry_run, std::ostream& out) {
  const char* verb = dry_run ? "would remove" : "removed";
  for (const auto& [endpoint, c] : report.endpoints) {
    out << Name(endpoint) << ": ";
    if (!c.any()) {
      out << "nothing to remove";
    } else {
      out << verb << " " << c.events << " events, " << c.deliveries << " deliveries, " << c.attempts
          << " attempts, " << c.payloads << " payloads, " << c.steps << " step results";
    }
    if (c.kept > 0) out << "; " << c.kept << " expired events kept (they guard a business key, version or effect)";
    out << "\n";
  }
  if (!dry_run) out << report.checkpoints << " audit checkpoints written\n";
}

}  // namespace

bool HasRetention(const config::Config& config) {
  return std::any_of(config.endpoints.begin(), config.endpoints.end(), [](const config::EndpointConfig& e) {
    return e.retention.payload_days > 0 || e.retention.key_days > 0;
  });
}

store::PurgeOptions PurgeOptionsFor(const config::Config& config, int64_t now_ms) {
  store::PurgeOptions options;
  options.now_ms = now_ms;
  for (const auto& e : config.endpoints) {
    options.endpoints.push_back({e.name, e.retention.payload_days, e.retention.key_days});
    options.orphan_key_days = std::max(options.orphan_key_days, e.retention.key_days);
  }
  return options;
}

void PurgeLoop::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Run(); });
}

void PurgeLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PurgeLoop::Run() {
  auto wait = first_delay_;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (wake_.wait_for(lock, wait, [this] { return stopping_; })) return;
    }
    wait = interval_;
    store::PurgeOptions options = PurgeOptionsFor(config_, clock_.NowMs());
    options.stop = [this] {
      std::lock_guard<std::mutex> lock(mu_);
      return stopping_;
    };
    auto report = store_.Purge(options);
    if (!report.ok()) {
      log::Warn("purge_failed", {{"error", report.status().message()}});
      continue;
    }
    for (const auto& [endpoint, c] : report->endpoints) {
      if (!c.any()) continue;
      log::Info("purged", {{"endpoint", Name(endpoint)}, {"events", c.events}, {"deliveries", c.deliveries},
                           {"attempts", c.attempts}, {"payloads", c.payloads}, {"step_results", c.steps}});
    }
  }
}

int RunPurge(bool dry_run, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  // kComplete, unlike the other verbs on stored events: purge has always
  // refused a config whose named files (TLS pair, exec command) are unusable.
  auto opened = OpenForCommand(common, {.verb = "purge", .check = ConfigCheck::kComplete, .open_store = true}, err);
  if (!opened) return kExitFailure;
  const config::Config& config = opened->config;
  store::PurgeOptions options = PurgeOptionsFor(config, SystemClock().NowMs());
  options.dry_run = dry_run;
  auto report = opened->store->Purge(options);
  if (!report.ok()) {
    err << "hookinbox purge: " << report.status().message() << "\n";
    return kExitFailure;
  }
  if (common.json) {
    json endpoints = json::object();
    for (const auto& [endpoint, c] : report->endpoints) endpoints[Name(endpoint)] = ToJson(c);
    out << json{{"dry_run", dry_run}, {"endpoints", endpoints}, {"checkpoints", report->checkpoints}}.dump(2)
        << "\n";
  } else {
    if (!HasRetention(config)) out << "no endpoint sets [endpoint.retention]: nothing is ever purged\n";
    PrintText(*report, dry_run, out);
  }
  return kExitOk;
}

}  // namespace hookinbox::cli
