// store/maintenance.h — keeping a store healthy and accountable over months:
// per-endpoint figures (stats.h) and counts over time (activity.h), retention (purge.h), reconciliation against
// a provider's export (reconcile.h), the auditor's snapshot (snapshot.h), the
// database's size and clock. The admin API, `/metrics` and the CLI's
// maintenance verbs use it. Knows nothing of HTTP.
// Thread-safety: all methods may be called from any thread concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/activity.h"
#include "store/purge.h"
#include "store/reconcile.h"
#include "store/snapshot.h"
#include "store/stats.h"

namespace hookinbox::store {

class Maintenance {
 public:
  virtual ~Maintenance() = default;

  // Per-endpoint figures on a reader, from one consistent snapshot.
  virtual Result<Stats> ReadStats(const StatsOptions& options) = 0;

  // Per-endpoint counts in time buckets (activity.h), on a reader, from one
  // consistent snapshot.
  virtual Result<std::vector<EndpointActivity>> ReadActivity(const ActivityOptions& options) = 0;

  // Removes what `options` says has expired, one bounded batch per writer
  // transaction; a dry run only counts, on a reader.
  virtual Result<PurgeReport> Purge(const PurgeOptions& options) = 0;

  // Sorts provider-exported event ids of one endpoint and tenant, on a reader.
  virtual Result<ReconcileReport> Reconcile(const std::string& endpoint, const std::string& tenant,
                                            const std::vector<std::string>& ids) = 0;

  // A self-contained SQLite copy of the whole store for an auditor: the
  // file's online backup on SQLite, a row copy from one snapshot on
  // PostgreSQL. Errors as for WriteSnapshot.
  virtual Status Snapshot(const std::string& out_path, const SnapshotOptions& options) = 0;

  // The database's size in bytes: on SQLite its file and WAL, on PostgreSQL
  // pg_database_size. Errors: Unavailable when it cannot be read.
  virtual Result<int64_t> DatabaseBytes() = 0;

  // The database's wall clock in ms since the epoch (store/database_clock.h):
  // PostgreSQL's clock_timestamp(); SQLite's is this host's. Never waits for
  // a free reader: Unavailable while all are busy.
  virtual Result<int64_t> ServerNowMs() = 0;
};

}  // namespace hookinbox::store
