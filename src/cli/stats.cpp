// `hookinbox stats [--json]`: the dashboard's per-endpoint figures, read
// from the config's database file (also while serve runs: the reads take a
// snapshot and never block the server's writes). --json prints exactly what
// GET /admin/api/stats answers; the text form adds configured endpoints that
// have no rows yet, with zeros.
#include <iomanip>
#include <map>
#include <string_view>
#include <nlohmann/json.hpp>

#include "admin/metrics.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "common/clock.h"
#include "store/sql_store.h"

namespace hookinbox::cli {
namespace {

void PrintTable(const nlohmann::json& stats, const config::Config& config, std::ostream& out) {
  std::map<std::string, nlohmann::json> rows;
  for (const auto& e : stats["endpoints"]) rows[e["endpoint"].get<std::string>() + "\t" + e["provider"].get<std::string>()] = e;
  for (const auto& e : config.endpoints) {
    bool seen = false;
    for (const auto& [key, row] : rows) seen = seen || row["endpoint"] == e.name;
    if (!seen) {
      rows[e.name + "\t" + e.provider] = {{"endpoint", e.name}, {"provider", e.provider}, {"received", 0},
                                          {"duplicates", 0}, {"conflicts", 0}, {"rejected", 0}, {"backlog", 0},
                                          {"oldest_pending_age_seconds", 0}, {"dead_lettered", 0}, {"unknown", 0},
                                          {"completed", 0}, {"has_action", e.HasAction()}};
    }
  }
  const char* columns[] = {"received", "duplicates", "conflicts", "rejected", "backlog",
                           "oldest_pending_age_seconds", "dead_lettered", "unknown", "completed"};
  const char* titles[] = {"RECEIVED", "DUP", "CONFLICT", "REJECTED", "BACKLOG", "OLDEST_S", "DLQ", "UNKNOWN", "DONE"};
  out << std::left << std::setw(20) << "ENDPOINT" << std::setw(12) << "PROVIDER" << std::right;
  for (const char* t : titles) out << std::setw(10) << t;
  out << "\n";
  for (const auto& [key, row] : rows) {
    std::string endpoint = row["endpoint"].get<std::string>();
    out << std::left << std::setw(20) << (endpoint.empty() ? "(no endpoint)" : endpoint) << std::setw(12)
        << row["provider"].get<std::string>() << std::right;
    for (const char* c : columns) {
      const bool waiting_figure = std::string_view(c) == "backlog" || std::string_view(c) == "oldest_pending_age_seconds";
      if (waiting_figure && !row.value("has_action", false)) {
        out << std::setw(10) << "-";  // no action: its events wait for nothing
      } else if (row[c].is_number_float()) {
        out << std::setw(10) << std::fixed << std::setprecision(0) << row[c].get<double>();
      } else {
        out << std::setw(10) << row[c].get<int64_t>();
      }
    }
    out << "\n";
  }
}

}  // namespace

int RunStats(const CommonOptions& common, std::ostream& out, std::ostream& err) {
  auto opened = OpenForCommand(common, {.verb = "stats", .open_store = true}, err);
  if (!opened) return kExitFailure;
  const config::Config& config = opened->config;
  std::vector<std::string> configured;
  for (const auto& e : config.endpoints) configured.push_back(e.name);
  auto body = admin::RenderStatsJson(*opened->store, SystemClock().NowMs(), config.EndpointsWithAction(), configured);
  opened->store->Close();
  if (!body.ok()) {
    err << "hookinbox stats: " << body.status().message() << "\n";
    return kExitFailure;
  }
  if (common.json) {
    out << *body << "\n";
  } else {
    PrintTable(nlohmann::json::parse(*body), config, out);
  }
  return kExitOk;
}

}  // namespace hookinbox::cli
