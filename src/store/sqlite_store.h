// store/sqlite_store.h — the Store on one SQLite file (the embedded default).
//
// Owns: the claim statement (one INSERT … ON CONFLICT DO NOTHING RETURNING —
// never SELECT-then-INSERT), payload rows and delivery-audit rows, all written
// through the single Writer (group commit). Knows nothing of HTTP.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "store/store.h"
#include "store/writer.h"

namespace hookinbox::store {

struct SqliteOptions {
  std::string path;            // database file; created with its directory when absent
  int busy_timeout_ms = 5000;  // wait for another process's lock, then Unavailable
  int max_batch = 256;         // most operations in one commit
};

class SqliteStore final : public Store {
 public:
  // Opens the file, applies migrations and starts the writer thread.
  static Result<std::unique_ptr<SqliteStore>> Open(const SqliteOptions& options);
  ~SqliteStore() override;

  Result<ClaimResult> Claim(const NewEvent& event, DeliveryRecord delivery) override;
  Result<std::vector<ClaimResult>> ClaimBatch(const std::vector<NewEvent>& events,
                                              DeliveryRecord delivery) override;
  Status RecordRejected(DeliveryRecord delivery) override;
  Status RecordIgnored(DeliveryRecord delivery) override;
  Status CheckWritable() override;
  void Close() override;

  Writer& writer() { return *writer_; }  // for fault-injection tests

 private:
  explicit SqliteStore(std::unique_ptr<Writer> writer) : writer_(std::move(writer)) {}

  std::unique_ptr<Writer> writer_;
};

}  // namespace hookinbox::store
