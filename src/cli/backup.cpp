// `hookinbox backup OUT.db [--without-payloads]`: a consistent copy of the
// config's database for an auditor, taken while `serve` keeps receiving
// (store/snapshot.h). The copy is one self-contained SQLite file (mode 0600)
// with a README table; an existing OUT is never overwritten.
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "store/snapshot.h"

namespace hookinbox::cli {

int RunBackup(const BackupOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  auto opened = OpenForCommand(common, {.verb = "backup"}, err);
  if (!opened) return kExitFailure;
  const auto started = std::chrono::steady_clock::now();
  store::SnapshotOptions snapshot;
  snapshot.with_payloads = !options.without_payloads;
  const config::StorageConfig& storage = opened->config.storage;
  Status st = Status::Ok();
  if (storage.backend == "postgres") {
    // The same SQLite audit file, copied row by row from one snapshot of the database.
    if (!opened->OpenStore(err)) return kExitFailure;
    st = opened->store->Snapshot(options.out_path, snapshot);
  } else {
    // The file directly: no writer, no migration, whatever version wrote it.
    st = store::WriteSnapshot(storage.path, options.out_path, snapshot);
  }
  if (!st.ok()) {
    err << "hookinbox backup: " << st.message() << "\n";
    return kExitFailure;
  }
  const auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(options.out_path, ec);
  if (common.json) {
    nlohmann::json j = {{"path", options.out_path},
                        {"bytes", ec ? nlohmann::json(nullptr) : nlohmann::json(bytes)},
                        {"with_payloads", snapshot.with_payloads},
                        {"elapsed_ms", elapsed_ms}};
    out << j.dump(2) << "\n";
  } else {
    out << "wrote " << options.out_path << " (" << (ec ? 0 : bytes) << " bytes, payload bodies "
        << (snapshot.with_payloads ? "included" : "left out") << ") in " << elapsed_ms << " ms\n";
  }
  return kExitOk;
}

}  // namespace hookinbox::cli
