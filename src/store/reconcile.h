// store/reconcile.h — compare the event ids a provider says it sent for an
// endpoint with what the inbox holds (`hookinbox reconcile`, the admin API).
//
// Owns: the read that sorts provider ids into received-and-completed, never
// received, received but not completed, and `unknown`. Read-only.
#pragma once

#include "store/sql/sql.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::store {

struct ReconcileEntry { std::string event_id; int64_t id = 0; std::string status; };  // id 0 = never received
struct ReconcileReport { std::vector<ReconcileEntry> never_received, not_completed, unknown; size_t completed = 0; };
Result<ReconcileReport> Reconcile(sql::Connection& db, const std::string& endpoint, const std::string& tenant, const std::vector<std::string>& event_ids);

}  // namespace hookinbox::store
