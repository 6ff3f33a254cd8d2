// store/ingest.h — the door of the durable inbox, behind a small interface.
//
// Owns: recording an event under its idempotency key (the first delivery
// stores it, later ones find it), the event payload, and the audit row of
// every HTTP delivery. SqlStore implements it on SQLite and on PostgreSQL
// (sql_store.h). Knows nothing of HTTP: callers pass plain records.
//
// Durability contract: when a write call returns ok, its transaction is
// committed durably (SQLite synchronous=FULL, PostgreSQL synchronous_commit) — the
// caller may acknowledge it.
// Thread-safety: all methods may be called from any thread concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/event_status.h"

namespace hookinbox::store {

// One row of webhook_deliveries: what arrived and what we answered.
// Never holds a secret, a signature or the body.
struct DeliveryRecord {
  int64_t received_at_ms = 0;
  std::string remote_addr;
  std::string method;
  std::string path;
  std::string endpoint;      // empty when the path named no known endpoint
  std::string tenant_id;
  std::string provider;
  std::string event_id;
  std::string event_type;
  std::string content_type;
  std::string user_agent;
  std::string payload_hash;
  int64_t body_bytes = 0;
  int http_status = 0;       // filled by the store for recorded events (always 200)
  DeliveryOutcome outcome = DeliveryOutcome::kRejected;  // set by the store for recorded events
  std::string reason;        // why a delivery was rejected ("unauthenticated", "too_large", …)
};

// An authenticated, identified delivery to record.
struct NewEvent {
  std::string provider;
  std::string endpoint;
  std::string tenant_id;
  std::string event_id;
  std::string event_type;
  std::string payload_hash;
  std::string content_type;
  std::string body;
  int64_t received_at_ms = 0;
  // Beyond the inbox (verify::EventIdentity): "" / 0 when not configured.
  std::string business_key, business_key_hint, object_key;
  int64_t object_version = 0;
  // The fingerprint of the key settings that derived event_id
  // (verify/key_spec.h), stored as webhook_inbox.key_spec; "" = NULL.
  std::string key_spec;
};

// What recording one event decided about its idempotency key.
struct RecordedEvent {
  DeliveryOutcome outcome = DeliveryOutcome::kAccepted;  // accepted, duplicate or conflict
  int64_t inbox_id = 0;     // the row that holds the key (the original for duplicates and conflicts)
  EventStatus status = EventStatus::kReceived;  // that row's current state
  std::string result_ref;   // set when the original completed with a reference
  int64_t delivery_id = 0;  // the webhook_deliveries row written for this delivery
};

// The outcome of a batch delivery's one row, from its events' outcomes:
// anything new makes it accepted; otherwise a conflict, which an auditor
// must see first; else duplicate.
DeliveryOutcome BatchOutcome(const std::vector<RecordedEvent>& events);

class Ingest {
 public:
  virtual ~Ingest() = default;

  // Takes the event's idempotency key atomically (SPEC calls this the claim)
  // and records the delivery, in one transaction: a new key stores the event and its payload (accepted); the
  // same key with the same payload hash is a duplicate; with another hash a
  // conflict, whose payload is kept for investigation and never processed.
  // Errors: Unavailable when the database is busy, full or closed (nothing
  // was written).
  virtual Result<RecordedEvent> RecordEvent(const NewEvent& event, DeliveryRecord delivery) = 0;

  // Records every event of one batch delivery in one transaction with one
  // delivery row (its outcome: accepted when any event was new, else
  // conflict when any conflicted, else duplicate). Results are in the order
  // of `events`. Errors as for RecordEvent; nothing is written on error.
  virtual Result<std::vector<RecordedEvent>> RecordBatch(const std::vector<NewEvent>& events,
                                                         DeliveryRecord delivery) = 0;

  // Records a rejected delivery. Rejections beyond kRejectedRowsPerMinute a
  // minute from one address are folded into one row per address and minute
  // whose request_count counts them, so junk cannot fill the disk.
  virtual Status RecordRejected(DeliveryRecord delivery) = 0;

  // Records an authenticated delivery that was deliberately not stored as an
  // event (its type is not in the endpoint's allow-list). Never folded.
  virtual Status RecordIgnored(DeliveryRecord delivery) = 0;

  // Records a request answered 2xx without authentication and not stored (an
  // unsigned provider ping, e.g. WooCommerce's): outcome ignored, but folded
  // like rejections — counted together with the address's rejections that
  // minute — so anyone able to send the ping cannot fill the disk with it.
  virtual Status RecordUnverifiedAnswer(DeliveryRecord delivery) = 0;

  // Ok unless the store is closed, or a recent write failed for storage
  // (disk full, file-size limit, I/O error) or could not commit (a held
  // lock, a read-only file, a lost connection) without a successful write
  // since (for /readyz). Cheap: reads the writer's state, never queues work
  // on it, never waits.
  virtual Status CheckWritable() = 0;

  // Finishes queued writes and closes the database. Later calls fail with Unavailable.
  virtual void Close() = 0;
};

inline constexpr int kRejectedRowsPerMinute = 60;

}  // namespace hookinbox::store
