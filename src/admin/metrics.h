// admin/metrics.h — what GET /metrics and GET /admin/api/stats answer.
//
// Owns: rendering only. Process counters come from common/metrics (the
// registry the receive path and the worker count into); state (backlog, oldest
// pending, dead letters, unknown, per-endpoint totals) is read from the
// database at call time through Maintenance::ReadStats, so it is right after a
// restart. Each endpoint's pause and breaker come from the database too
// (EndpointStates), so every replica reports the shared state.
// The routes and their auth live in admin/routes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/endpoint_states.h"
#include "store/maintenance.h"

namespace hookinbox::admin {
// `with_action`: the endpoints an action processes (config::Config::
// EndpointsWithAction); backlog and oldest pending count only their events.
// Prometheus text exposition for GET /metrics (process counters + state read
// from the database); webhook_endpoint_paused and webhook_breaker_open have
// one series per endpoint of `with_action`.
Result<std::string> RenderMetricsText(store::Maintenance& store, store::EndpointStates& states, int64_t now_ms,
                                      std::vector<std::string> with_action);
// Appends webhook_database_bytes (the database's size: SQLite file and WAL,
// or pg_database_size) and, on SQLite (`sqlite_path` not empty),
// webhook_disk_free_bytes: the space left to an unprivileged writer on the
// file's filesystem. A figure that cannot be read is left out, not an error:
// the scrape's other figures still count.
void AppendStorageGauges(std::string& out, store::Maintenance& store, const std::string& sqlite_path);
// JSON body for GET /admin/api/stats: one row per endpoint with stored
// deliveries or events. `configured`: the endpoints of the config in force;
// a row's "configured" is false for the others (an endpoint removed from the
// config whose events stay stored, and the "" row of requests that named no
// configured endpoint).
Result<std::string> RenderStatsJson(store::Maintenance& store, int64_t now_ms, std::vector<std::string> with_action,
                                    const std::vector<std::string>& configured);
}  // namespace hookinbox::admin
