// GET /admin/api/export.db[?payloads=0]: the "Download audit database" of
// the UI. A consistent snapshot (store/snapshot.h; on PostgreSQL a row copy
// into a fresh SQLite file) is written to a temporary file beside the
// database (on PostgreSQL, in the installation's directory) — never /tmp, which may be
// small or shared — then streamed in chunks, so a multi-GB database never
// sits in memory. The file is unlinked as soon as it is open: the open
// descriptor keeps the bytes until the download ends, and a crash or a
// client that goes away leaves nothing behind. See admin_api.h.
//
// Guards, because the copy shares the database's disk and takes a while:
// one export at a time (a second gets 409 while the first is written or
// downloaded); before anything is written, the free space of the directory
// must cover what the snapshot may hold at its peak (store::SnapshotPeakBytes)
// plus kSpareBytes the live database keeps for deliveries meanwhile (507
// otherwise); and the whole export — writing and download — ends at
// kDeadline: the copy stops, or the download is cut, and the slot is free.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "admin/admin_api.h"
#include "common/log.h"
#include "common/secret.h"
#include "http/respond.h"
#include "store/snapshot.h"

namespace hookinbox::admin {
namespace {

constexpr size_t kChunkBytes = 256 * 1024;
constexpr int kHttpInsufficientStorage = 507;

// Owns the open snapshot and the export slot until the response is gone.
struct OpenSnapshot {
  int fd = -1;
  std::atomic<bool>* running = nullptr;
  ~OpenSnapshot() {
    if (fd >= 0) ::close(fd);
    if (running != nullptr) running->store(false);
  }
};

// Why the export would not fit beside the database, or "" when it fits.
std::string SpaceProblem(store::Maintenance& store, const std::filesystem::path& dir,
                         const store::SnapshotOptions& options) {
  auto db_bytes = store.DatabaseBytes();
  if (!db_bytes.ok()) return "export: " + db_bytes.status().message();
  auto free_bytes = store::FreeBytes(dir.string());
  if (!free_bytes.ok()) return "export: " + free_bytes.status().message();
  const int64_t needed = store::SnapshotPeakBytes(*db_bytes, options) + AdminApi::kExportSpareBytes;
  if (*free_bytes >= needed) return "";
  constexpr int64_t kMiB = 1024 * 1024;
  return "not enough free space for the export in " + dir.string() + ": it needs about " +
         std::to_string((needed + kMiB - 1) / kMiB) + " MiB (the copy" +
         (options.with_payloads ? "" : ", its journal and its vacuumed rewrite") + ", and " +
         std::to_string(AdminApi::kExportSpareBytes / kMiB) + " MiB left for deliveries); " +
         std::to_string(*free_bytes / kMiB) + " MiB are free";
}

Result<bool> WantsPayloads(const httplib::Request& req) {
  for (const auto& [name, value] : req.params) {
    if (name != "payloads") return InvalidArgument("unknown parameter " + name);
  }
  std::string v = req.get_param_value("payloads");
  if (v.empty() || v == "1") return true;
  if (v == "0") return false;
  return InvalidArgument("parameter payloads: must be 0 or 1");
}

std::string AttachmentName(int64_t now_ms, bool with_payloads) {
  std::time_t secs = static_cast<std::time_t>(now_ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return std::string("hookinbox-audit-") + buf + (with_payloads ? "" : "-without-payloads") + ".db";
}

// Writes the snapshot to a fresh hidden file in `dir` and opens it; the
// name is gone from the directory when this returns.
Result<int> SnapshotToOpenFile(store::Maintenance& store, const std::filesystem::path& dir,
                               const store::SnapshotOptions& options) {
  namespace fs = std::filesystem;
  fs::path tmp = dir / (".hookinbox-export-" + RandomHex(8) + ".db");
  Status st = store.Snapshot(tmp.string(), options);
  if (!st.ok()) {
    std::error_code ec;
    fs::remove(tmp, ec);
    return st;
  }
  int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  int open_errno = errno;
  std::error_code ec;
  fs::remove(tmp, ec);
  if (fd < 0) return Unavailable(std::string("export: cannot open the snapshot: ") + std::strerror(open_errno));
  return fd;
}

}  // namespace

void AdminApi::Export(const httplib::Request& req, httplib::Response& res) const {
  auto with_payloads = WantsPayloads(req);
  if (!with_payloads.ok()) return http::ReplyError(res, with_payloads.status());
  auto holder = std::make_shared<OpenSnapshot>();
  if (exporting_.exchange(true)) {
    return http::ReplyJson(res, http::HttpStatusFor(Code::kConflict),
                           R"({"error":"another export is running; retry when it has finished"})");
  }
  holder->running = &exporting_;
  const int64_t deadline_ms = clock_.MonotonicMs() + kExportDeadlineMs;
  auto past_deadline = [this, deadline_ms] { return clock_.MonotonicMs() >= deadline_ms; };
  store::SnapshotOptions options{*with_payloads, past_deadline};
  // Beside the SQLite file; on PostgreSQL, in the installation's directory
  // (the start config's: the database open is the one loaded at start).
  const config::Config& config = *start_;
  const std::filesystem::path dir = config.storage.backend == "sqlite"
                                        ? std::filesystem::path(config.storage.path).parent_path()
                                        : std::filesystem::path(config.base_dir);
  if (std::string problem = SpaceProblem(store_, dir, options); !problem.empty()) {
    log::Warn("admin_export_refused", {{"error", problem}});
    return http::ReplyJson(res, kHttpInsufficientStorage, nlohmann::json{{"error", problem}}.dump());
  }
  auto fd = SnapshotToOpenFile(store_, dir, options);
  if (!fd.ok()) {
    log::Error("admin_export_failed", {{"error", fd.status().message()}});
    return http::ReplyError(res, fd.status());
  }
  holder->fd = *fd;
  struct stat sb {};
  if (::fstat(holder->fd, &sb) != 0) return http::ReplyError(res, Unavailable("export: cannot stat the snapshot"));
  res.set_header("Content-Disposition",
                 "attachment; filename=\"" + AttachmentName(clock_.NowMs(), *with_payloads) + "\"");
  res.set_header("Cache-Control", "no-store");
  res.status = 200;
  res.set_content_provider(
      static_cast<size_t>(sb.st_size), "application/vnd.sqlite3",
      [holder, past_deadline](size_t offset, size_t length, httplib::DataSink& sink) {
        if (past_deadline()) {
          log::Warn("admin_export_cut", {{"reason", "deadline passed"}, {"sent_bytes", static_cast<int64_t>(offset)}});
          return false;  // the library closes the connection; the holder frees the slot
        }
        std::string chunk(std::min(length, kChunkBytes), '\0');
        ssize_t n = ::pread(holder->fd, chunk.data(), chunk.size(), static_cast<off_t>(offset));
        if (n <= 0) return false;  // the library then closes the connection
        return sink.write(chunk.data(), static_cast<size_t>(n));
      },
      [holder](bool) {});  // the holder closes the file when the last copy of it goes
}

}  // namespace hookinbox::admin
