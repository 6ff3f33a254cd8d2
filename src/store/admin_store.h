// store/admin_store.h — the store as the admin listener sees it: the handler
// API's ledger (/v1), the operator's queries and verbs (/admin/api, the UI)
// maintenance (stats, /metrics, purge, reconcile, export), and each
// endpoint's pause and circuit breaker (endpoint_states.h), and the alert
// engine's incidents with their notification outbox (incidents.h). One interface
// so admin/ depends on what it uses, never on a backend (SqlStore).
#pragma once

#include "store/admin_queries.h"
#include "store/endpoint_states.h"
#include "store/incidents.h"
#include "store/ledger.h"
#include "store/maintenance.h"

namespace hookinbox::store {

class AdminStore : public Ledger, public AdminQueries, public Maintenance, public EndpointStates,
                   public Incidents {};

}  // namespace hookinbox::store
