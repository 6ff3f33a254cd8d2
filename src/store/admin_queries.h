// store/admin_queries.h — what an operator reads and does to stored events:
// list and show them (with their deliveries, attempts, actions, effects and
// steps), list conflicting deliveries, replay and resolve an event, replay
// every event a filter matches, resolve an effect left 'unknown'. The admin API and the `events` verbs use it.
//
// Reads run on a reader connection; the verbs write through the store's
// single writer, each with its audit row, in one transaction. Durability:
// a write that returns ok is committed; on any error nothing was changed.
// Knows nothing of HTTP. Thread-safety: all methods may be called from any
// thread concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::store {

// One row of webhook_inbox. Times are ms since the epoch; 0 = NULL.
struct EventRow {
  int64_t id = 0;
  std::string provider, endpoint, tenant_id, event_id, event_type, payload_hash, status;
  int attempt_count = 0;
  std::string lease_owner;
  int64_t lease_until_ms = 0, next_attempt_at_ms = 0, received_at_ms = 0, completed_at_ms = 0;
  std::string result_ref, last_error;
  std::string skip_reason;          // skipped: duplicate_business_key | stale_version
  int64_t skipped_for = 0;          // skipped: the event that applied the key or a newer version; 0 = none
  int64_t waiting_for = 0;          // the in-flight event this one waits for (same key or object); 0 = none
  std::string business_key_hint;    // what the business key is made of, without its values
};

struct DeliveryRow {
  int64_t id = 0, received_at_ms = 0;
  std::string remote_addr, outcome, reason, content_type, user_agent;
  int http_status = 0;
  int64_t body_bytes = 0;
};

struct AttemptRow {
  int64_t id = 0;
  int attempt = 0;
  std::string worker;
  int64_t started_at_ms = 0, finished_at_ms = 0;  // finished 0 = still in flight
  std::string outcome;                            // empty while in flight
  std::optional<int> http_status, exit_code;
  std::string error;
};

struct ActionRow {
  int64_t id = 0, at_ms = 0;
  std::string actor, action, from_status, to_status, result_ref, note;
};

// A side effect the event holds or held through the handler API (table `effects`).
struct EffectEntry {
  std::string effect_key, status, external_ref, error;
  int attempt = 0;
  int64_t claimed_at_ms = 0, updated_at_ms = 0;
};

// A stored step result, described without its body (table `step_results`).
struct StepRow {
  std::string name, content_type;
  int64_t bytes = 0;
  int attempt = 0;
  int64_t stored_at_ms = 0;
};

struct EventDetail {
  EventRow event;
  std::vector<DeliveryRow> deliveries;  // single and batch deliveries that carried it, oldest first
  std::vector<AttemptRow> attempts;     // oldest first
  std::vector<ActionRow> actions;       // oldest first
  std::vector<EffectEntry> effects;       // by key
  std::vector<StepRow> steps;           // by name
  bool has_payload = false;             // set only when asked for
  std::string content_type, payload;
};

// Every field narrows the list; empty / 0 = no condition.
struct EventFilter {
  std::string status;
  std::string endpoint;
  std::string tenant;
  std::string event_type;
  std::string id_contains;  // a substring of event_id (case-sensitive)
  int64_t since_ms = 0;     // received_at >= since_ms
  int64_t until_ms = 0;     // received_at < until_ms
  int limit = 50;           // 1..1000
  int64_t before_id = 0;    // keyset pagination: only ids below this; 0 = from the newest
};

// A delivery that reused an event's key with another payload (outcome
// 'conflict'), with the payload rows an investigator compares.
struct ConflictRow {
  int64_t delivery_id = 0;
  int position = 0;  // the event's index in a batch delivery; 0 for a single one
  int64_t inbox_id = 0;
  std::string endpoint, tenant_id, event_id, event_type, remote_addr;
  int64_t received_at_ms = 0;
  std::string original_hash;      // payload_hash of the stored event
  int64_t original_payload_id = 0;  // its webhook_payloads row; 0 when purged
  std::string conflict_hash;        // payload_hash of the conflicting body
  int64_t conflict_payload_id = 0;  // the kept conflicting body; 0 when purged
};

struct ConflictFilter {
  std::string endpoint;  // empty = any
  int limit = 50;        // 1..1000
  // Keyset: only rows before (before_delivery_id, before_position) in
  // (delivery_id, position) descending order; 0 = from the newest.
  int64_t before_delivery_id = 0;
  int before_position = 0;
};

struct ConflictPage {
  std::vector<ConflictRow> conflicts;  // newest first
  bool more = false;                   // the last row's (delivery_id, position) is the next page's keyset
};

// Which events a bulk replay takes (ReplayMatching). status and endpoint
// are required; the others narrow, empty / 0 = no condition.
struct ReplayFilter {
  std::string status;          // dead_lettered | unknown | completed
  std::string endpoint;        // exactly one endpoint: a replay is decided per downstream
  int64_t since_ms = 0;        // received_at >= since_ms
  int64_t until_ms = 0;        // received_at < until_ms
  std::string error_contains;  // a substring of last_error (case-sensitive, taken literally)
};

struct ReplayReport {
  int64_t matched = 0;                 // events the filter matched when the replay started
  int64_t replayed = 0;                // put back to 'received' (0 on a dry run)
  int64_t skipped_payload_purged = 0;  // matched, but retention removed the body: not replayable
  int64_t skipped_changed = 0;         // matched, but left the state before its batch ran (someone else acted)
};

struct EventPage {
  std::vector<EventRow> events;  // newest first
  int64_t next_before_id = 0;    // pass as before_id for the next page; 0 = no more
};

// Events one bulk-replay transaction puts back (ReplayMatching): about 40 ms
// of the write lock on SQLite; PostgreSQL pays a round trip per statement,
// so a fifth as many keep its transactions as short (ingest waits for them).
inline constexpr int kReplayBatchSqlite = 500;
inline constexpr int kReplayBatchPostgres = 100;

class AdminQueries {
 public:
  virtual ~AdminQueries() = default;

  // Puts a dead_lettered, unknown or completed event back to 'received' (same
  // key, due now, attempts counted afresh) and writes an audit row. Errors:
  // NotFound for an unknown id, Conflict for any other state; nothing changed.
  // The replay also starts a new retry round (retry_window_start = now).
  virtual Status Replay(int64_t id, const std::string& actor, const std::string& note, int64_t now_ms) = 0;

  // Replays, as Replay does one, every event `filter` matches, each with its
  // own audit row naming `actor`. The matching ids are read once, at the
  // start, so an event that fails again during the run is not replayed
  // twice; they are replayed in batches of kReplayBatchSqlite or kReplayBatchPostgres, each its own
  // transaction, so deliveries commit between batches and the write lock is
  // never held for long. An event whose payload retention removed, or that
  // left the state before its batch ran, is skipped and counted. With
  // `dry_run` nothing is written: matched and skipped_payload_purged say
  // what a real run would do now. Errors: InvalidArgument for a missing
  // endpoint, a status that is not replayable or an empty time range,
  // nothing changed; a failed batch stops the run (the batches before it
  // stay committed) and its error is returned.
  virtual Result<ReplayReport> ReplayMatching(const ReplayFilter& filter, const std::string& actor,
                                              const std::string& note, int64_t now_ms, bool dry_run) = 0;

  // Closes an 'unknown' event as completed or dead_lettered, with an audit
  // row. Errors: InvalidArgument for another target state, NotFound for an
  // unknown id, Conflict when the event is not 'unknown'; nothing changed.
  virtual Status Resolve(int64_t id, const std::string& as, const std::string& result_ref, const std::string& note,
                         const std::string& actor, int64_t now_ms) = 0;

  // The event with its deliveries, attempts and actions; the payload only
  // when `with_payload`. Errors: NotFound.
  virtual Result<EventDetail> GetEvent(int64_t id, bool with_payload) = 0;

  // Events newest first. Errors: InvalidArgument for a limit out of range.
  virtual Result<EventPage> ListEvents(const EventFilter& filter) = 0;

  // Conflicting deliveries, newest first (the admin API's queue).
  // Errors: InvalidArgument for a limit out of range.
  virtual Result<ConflictPage> ListConflicts(const ConflictFilter& filter) = 0;

  // An operator closes an effect marked 'unknown' (nobody may claim it until
  // then) as "done" (with external_ref) or "failed" (free to claim again),
  // with an audit row on its event (webhook_event_actions, action 'resolve',
  // the event's status unchanged, the note naming the effect). Errors:
  // InvalidArgument (bad tenant, key, `as` or sizes), NotFound (no such
  // effect), Conflict (it is not 'unknown'); nothing changed.
  virtual Status ResolveEffect(const std::string& tenant, const std::string& key, const std::string& as,
                               const std::string& external_ref, const std::string& note, const std::string& actor,
                               int64_t now_ms) = 0;
};

}  // namespace hookinbox::store
