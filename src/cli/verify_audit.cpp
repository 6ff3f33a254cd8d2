// `hookinbox verify-audit FILE`: PRAGMA integrity_check and the audit hash
// chains (store/audit_chain.h) of any copy of a hookinbox database — the live
// file, a backup or a download. Opens it read-only and never needs a config.
// Exit 0 when sound, 1 naming the first broken row as "<table> rowid <n>",
// 2 when FILE cannot be opened or is not a hookinbox database with chains.
#include <SQLiteCpp/SQLiteCpp.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "store/audit_chain.h"
#include "store/sql/sqlite_connection.h"

namespace hookinbox::cli {
namespace {

using nlohmann::json;

json ToJson(const store::AuditReport& r) {
  json chains = json::array();
  for (const auto& c : r.chains) {
    chains.push_back({{"table", c.table}, {"sealed", c.sealed}, {"unsealed", c.unsealed}, {"purged", c.purged},
                      {"checkpoints", c.checkpoints}, {"head_seq", c.head_seq}, {"head_hash", c.head_hash}});
  }
  return {{"ok", r.ok}, {"integrity_check", r.integrity},
          {"broken", r.broken.empty() ? json(nullptr) : json(r.broken)},
          {"detail", r.detail.empty() ? json(nullptr) : json(r.detail)}, {"chains", chains}};
}

}  // namespace

int RunVerifyAudit(const std::string& file, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    err << "hookinbox verify-audit: " << file << ": no such file\n";
    return kExitUsage;
  }
  Result<store::AuditReport> report = Internal("not run");
  try {
    auto db = std::make_unique<SQLite::Database>(file, SQLite::OPEN_READONLY);
    db->setBusyTimeout(5000);
    store::sql::SqliteConnection connection(std::move(db));
    report = store::VerifyAudit(connection);
  } catch (const SQLite::Exception& e) {
    err << "hookinbox verify-audit: " << file << ": " << e.what() << "\n";
    return kExitUsage;
  }
  if (!report.ok()) {
    err << "hookinbox verify-audit: " << file << ": " << report.status().message() << "\n";
    return kExitUsage;
  }
  if (common.json) {
    out << ToJson(*report).dump(2) << "\n";
  } else if (report->ok) {
    out << "ok: integrity_check ok";
    for (const auto& c : report->chains) {
      out << "; " << c.table << " " << c.sealed << " rows chained";
      if (c.purged > 0) out << ", " << c.purged << " purged (" << c.checkpoints << " checkpoints)";
      if (c.unsealed > 0) out << ", " << c.unsealed << " not yet sealed";
      out << ", head " << c.head_seq << " " << c.head_hash;
    }
    out << "\n";
  } else {
    err << "broken: " << report->broken << ": " << report->detail << "\n";
  }
  return report->ok ? kExitOk : kExitFailure;
}

}  // namespace hookinbox::cli
