// `hookinbox migrate-to-postgres --from FILE --to URL` (or --to-env NAME):
// copies an SQLite installation into PostgreSQL with its ids and audit
// history (store/copy.h), then verifies the audit chains on the copy. Both
// are migrated to this binary's schema first. Idempotent: run it again to
// finish a failed copy or catch up before switching over; run it with every
// server stopped. Exit 0 copied and verified, 1 refused, failed or the copy's
// audit chain broken, 2 usage (no such file, no URL).
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "common/process_secrets.h"
#include "store/audit_chain.h"
#include "store/copy.h"
#include "store/database.h"
#include "store/sql/sqlite_connection.h"
#include "store/sql_store.h"

namespace hookinbox::cli {
namespace {

// Brings a database to this binary's schema (and seals what an older version
// left unsealed) by opening it as a store once.
Status Migrate(const std::string& what, Result<std::unique_ptr<store::SqlStore>> opened) {
  if (!opened.ok()) return Status(opened.status().code(), what + ": " + opened.status().message());
  (*opened)->Close();
  return Status::Ok();
}

Result<std::string> TargetUrl(const MigrateToPostgresOptions& o) {
  if (o.to.empty() == o.to_env.empty()) return InvalidArgument("name the target with exactly one of --to or --to-env");
  if (!o.to.empty()) return o.to;
  const char* value = std::getenv(o.to_env.c_str());
  if (value == nullptr || *value == '\0') return InvalidArgument("--to-env: " + o.to_env + " is not set");
  std::string url = value;
  ScrubEnvironment({o.to_env});  // the URL may carry a password (common/process_secrets.h)
  return url;
}

}  // namespace

int RunMigrateToPostgres(const MigrateToPostgresOptions& o, const CommonOptions& common, std::ostream& out,
                         std::ostream& err) {
  const std::string prefix = "hookinbox migrate-to-postgres: ";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.from, ec)) {
    err << prefix << o.from << ": no such file\n";
    return kExitUsage;
  }
  auto url = TargetUrl(o);
  if (!url.ok()) {
    err << prefix << url.status().message() << "\n";
    return ExitFor(url.status());  // --to/--to-env missing or unset: a usage error
  }
  for (Status st : {Migrate("source " + o.from, store::SqlStore::Open({o.from, 5000, 1})),
                    Migrate("target", store::SqlStore::OpenPostgres({*url, 5000, 1, 2}))}) {
    if (!st.ok()) {
      err << prefix << st.message() << "\n";
      return kExitFailure;
    }
  }
  auto from = store::OpenDatabase(o.from, {5000, false});
  auto to = store::OpenPostgres(*url, false);
  if (!from.ok() || !to.ok()) {
    err << prefix << (from.ok() ? to.status() : from.status()).message() << "\n";
    return kExitFailure;
  }
  nlohmann::json tables = nlohmann::json::object();
  auto report = store::CopyDatabase(**from, **to, [&](const store::CopiedTable& t) {
    tables[t.table] = t.rows;
    if (!common.json) out << t.table << ": " << t.rows << " rows\n";
  });
  if (!report.ok()) {
    err << prefix << report.status().message() << "\n";
    return kExitFailure;
  }
  auto audit = store::VerifyAudit(**to);
  const bool sound = audit.ok() && audit->ok;
  const std::string why = !audit.ok() ? audit.status().message() : audit->broken + ": " + audit->detail;
  if (common.json) {
    out << nlohmann::json{{"ok", sound}, {"tables", tables}, {"audit_broken", sound ? "" : why}}.dump(2) << "\n";
  } else if (sound) {
    out << "copied; the audit chains verify on the copy\n";
  }
  if (!sound) err << prefix << "the copy's audit chain does not verify: " << why << "\n";
  return sound ? kExitOk : kExitFailure;
}

}  // namespace hookinbox::cli
