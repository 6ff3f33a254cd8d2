// admin/metrics.cpp — see metrics.h.
#include "admin/metrics.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/metrics.h"

namespace hookinbox::admin {
namespace {

double OldestPendingAgeSeconds(const store::EndpointStats& s, int64_t now_ms) {
  if (s.backlog == 0 || s.oldest_pending_received_at_ms == 0) return 0;
  return static_cast<double>(std::max<int64_t>(0, now_ms - s.oldest_pending_received_at_ms)) / 1000.0;
}

double OldestDeadLetterAgeSeconds(const store::EndpointStats& s, int64_t now_ms) {
  if (s.dead_lettered == 0 || s.oldest_dead_letter_at_ms == 0) return 0;
  return static_cast<double>(std::max<int64_t>(0, now_ms - s.oldest_dead_letter_at_ms)) / 1000.0;
}

// One gauge family over every endpoint the database knows.
template <typename F>
void AppendGauge(std::string& out, const char* name, const char* help, const store::Stats& stats, F value) {
  metrics::AppendHeader(out, name, metrics::Type::kGauge, help);
  for (const auto& s : stats.endpoints) {
    metrics::AppendSample(out, name, {{"endpoint", s.endpoint}, {"provider", s.provider}}, value(s));
  }
}

// webhook_endpoint_paused and webhook_breaker_open: one series per endpoint
// an action processes (the others dispatch nothing to pause or break), 0
// for one the database has no row for.
Status AppendEndpointStates(std::string& out, store::EndpointStates& states, const std::vector<std::string>& with_action) {
  auto rows = states.ListEndpointStates();
  if (!rows.ok()) return rows.status();
  auto find = [&](const std::string& name) -> const store::EndpointState* {
    for (const auto& s : *rows) {
      if (s.endpoint == name) return &s;
    }
    return nullptr;
  };
  metrics::AppendHeader(out, "webhook_endpoint_paused", metrics::Type::kGauge,
                        "1 while an operator has paused the endpoint's deliveries (they are still received), else 0.");
  for (const auto& name : with_action) {
    const store::EndpointState* s = find(name);
    metrics::AppendSample(out, "webhook_endpoint_paused", {{"endpoint", name}}, s != nullptr && s->paused() ? 1 : 0);
  }
  metrics::AppendHeader(out, "webhook_breaker_open", metrics::Type::kGauge,
                        "1 while the endpoint's circuit breaker is open or half_open (deliveries held), else 0.");
  for (const auto& name : with_action) {
    const store::EndpointState* s = find(name);
    const bool open = s != nullptr && s->breaker != store::BreakerState::kClosed;
    metrics::AppendSample(out, "webhook_breaker_open", {{"endpoint", name}}, open ? 1 : 0);
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> RenderMetricsText(store::Maintenance& store, store::EndpointStates& states, int64_t now_ms,
                                      std::vector<std::string> with_action) {
  store::StatsOptions options;
  options.with_action = with_action;
  auto stats = store.ReadStats(options);
  if (!stats.ok()) return stats.status();
  std::string out = metrics::Registry::Default().Render();
  AppendGauge(out, "webhook_backlog",
              "Events an action will process, waiting or in progress (received + retryable_failed + processing).",
              *stats, [](const store::EndpointStats& s) { return static_cast<double>(s.backlog); });
  AppendGauge(out, "webhook_dead_lettered", "Events dead-lettered, waiting for a person (replay or resolve).",
              *stats, [](const store::EndpointStats& s) { return static_cast<double>(s.dead_lettered); });
  AppendGauge(out, "webhook_oldest_pending_age_seconds",
              "Age of the oldest event in the backlog since it was received; 0 when the backlog is empty.",
              *stats,
              [now_ms](const store::EndpointStats& s) { return OldestPendingAgeSeconds(s, now_ms); });
  AppendGauge(out, "webhook_dead_letter_oldest_age_seconds",
              "How long the oldest dead letter has waited for a person (since its last attempt); 0 when none.",
              *stats, [now_ms](const store::EndpointStats& s) { return OldestDeadLetterAgeSeconds(s, now_ms); });
  AppendGauge(out, "webhook_unknown", "Events whose outcome downstream cannot be known, waiting for a person.",
              *stats, [](const store::EndpointStats& s) { return static_cast<double>(s.unknown); });
  if (Status st = AppendEndpointStates(out, states, with_action); !st.ok()) return st;
  return out;
}

void AppendStorageGauges(std::string& out, store::Maintenance& store, const std::string& sqlite_path) {
  if (auto bytes = store.DatabaseBytes(); bytes.ok()) {
    metrics::AppendHeader(out, "webhook_database_bytes", metrics::Type::kGauge,
                          "Size of the database: the SQLite file and its WAL, or pg_database_size.");
    metrics::AppendSample(out, "webhook_database_bytes", {}, static_cast<double>(*bytes));
  }
  if (sqlite_path.empty()) return;
  const std::string dir = std::filesystem::path(sqlite_path).parent_path().string();
  struct statvfs fs {};
  if (statvfs(dir.empty() ? "." : dir.c_str(), &fs) != 0) return;
  metrics::AppendHeader(out, "webhook_disk_free_bytes", metrics::Type::kGauge,
                        "Free space (for unprivileged writers) on the filesystem holding the SQLite database.");
  metrics::AppendSample(out, "webhook_disk_free_bytes", {},
                        static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize));
}

Result<std::string> RenderStatsJson(store::Maintenance& store, int64_t now_ms, std::vector<std::string> with_action,
                                    const std::vector<std::string>& configured) {
  store::StatsOptions options;
  options.with_totals = true;
  options.with_action = std::move(with_action);
  auto stats = store.ReadStats(options);
  if (!stats.ok()) return stats.status();
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& s : stats->endpoints) {
    list.push_back({{"endpoint", s.endpoint},
                    {"provider", s.provider},
                    {"received", s.received},
                    {"duplicates", s.duplicates},
                    {"conflicts", s.conflicts},
                    {"rejected", s.rejected},
                    {"configured", std::find(configured.begin(), configured.end(), s.endpoint) != configured.end()},
                    {"has_action", s.has_action},
                    {"backlog", s.backlog},
                    {"oldest_pending_age_seconds", OldestPendingAgeSeconds(s, now_ms)},
                    {"dead_lettered", s.dead_lettered},
                    {"unknown", s.unknown},
                    {"completed", s.completed}});
  }
  return nlohmann::ordered_json{{"now_ms", now_ms}, {"endpoints", std::move(list)}}.dump();
}

}  // namespace hookinbox::admin
