// The `README` table of a snapshot: one row per table and view, written for an
// auditor who opens the file with `sqlite3` or a SQLite browser and has never
// seen hookinbox. Add a row here with every table or view a migration adds
// (snapshot_test.cpp fails until you do).
#include "store/snapshot_readme.h"

namespace hookinbox::store {

const std::vector<ReadmeEntry>& ReadmeEntries() {
  static const std::vector<ReadmeEntry> kEntries = {
      {"README",
       "This table. One row per table and view of this file saying what it holds, plus a row 'snapshot' saying "
       "when and how the copy was made and whether payload bodies are included. Times in the tables are INTEGER "
       "milliseconds since 1970-01-01 UTC; each *_iso view shows the same rows with ISO-8601 UTC times."},
      {"webhook_inbox",
       "One row per event hookinbox promised to process exactly once, keyed by (provider, endpoint, tenant_id, "
       "event_id). status: received, processing, retryable_failed, completed, dead_lettered, unknown (outcome "
       "not known; a person must look) or skipped (deliberately not acted on, see skip_reason). payload_hash is "
       "the hex SHA-256 of the body; result_ref is the downstream's reference once completed."},
      {"webhook_deliveries",
       "One row per HTTP request that reached /hooks/...: outcome accepted, duplicate (same key, same payload), "
       "conflict (same key, different payload), rejected (reason says why, e.g. unauthenticated) or ignored "
       "(unsigned provider ping). Never the body, a secret or a signature. request_count > 1 folds a flood of "
       "rejections from one address into one row."},
      {"webhook_payloads",
       "Raw request bodies, kept apart from the inbox: kind 'original' is the body of an inbox event, kind "
       "'conflict' the body of a delivery that reused an event's key with a different payload. Empty in a "
       "snapshot made without payloads."},
      {"webhook_delivery_events",
       "For deliveries that carried several events in one request (batch providers): one row per event in the "
       "batch with its position, the inbox row it became and whether it was accepted, a duplicate or a conflict."},
      {"webhook_attempts",
       "One row per processing attempt of an inbox event (kind 'action') or per check of an 'unknown' outcome "
       "(kind 'probe'): which worker, when it started and finished, and the outcome (completed, "
       "retryable_failed, dead_lettered, unknown, released at shutdown, lost when the lease expired, skipped). "
       "outcome is NULL while the attempt is in flight. token_hash is the SHA-256 of the handler token issued "
       "for the attempt (never the token)."},
      {"webhook_event_actions",
       "What a person or script did to an event: replay (put back to received) or resolve (close an unknown "
       "event), with who (actor), when, the state before and after, the reference and the note given."},
      {"business_keys",
       "Who holds or applied each business key of a tenant (a hash of the configured business fields, never the "
       "values; hint says which fields): 'claimed' while its event is in flight, 'applied' once it completed. "
       "Another event with an applied key is skipped."},
      {"object_versions",
       "For endpoints with an ordering guard: the last version applied per object (object_key is a hash of the "
       "object's id), so an older event arriving late is skipped instead of overwriting newer state."},
      {"effects",
       "The side-effect ledger of the handler API: one row per effect key of a tenant, 'claimed' while an "
       "attempt performs it, 'done' with the external reference, 'failed' (may be tried again) or 'unknown' "
       "(blocks automatic re-execution until a person looks)."},
      {"step_results",
       "Results of expensive or non-deterministic handler steps (e.g. a classification), stored so that a retry "
       "reuses them. body is empty in a snapshot made without payloads."},
      {"endpoint_states",
       "Each endpoint's dispatch state, one row per endpoint ever paused or whose circuit breaker a worker "
       "recorded: paused_at / paused_by / paused_reason while an operator holds its deliveries (they are still "
       "received and stored; NULL = not paused), and breaker: closed, open (too many consecutive failures; "
       "breaker_next_probe_at is the next trial delivery, breaker_last_error what opened it) or half_open."},
      {"endpoint_actions",
       "Every pause and resume of an endpoint, and every change of its idempotency key settings "
       "(key_spec_changed: the reason shows the old and new fingerprints and settings): when (at), who (actor, "
       "e.g. cli:alice or admin:10.0.0.5), the action and the reason given. Kept by retention."},
      {"endpoint_key_specs",
       "Each endpoint's idempotency key settings over time (provider, id source, composite fields, canonical "
       "hash, tenant, batch; never a secret): one row when an endpoint is first seen and one at every change, "
       "with its fingerprint, the settings as JSON (spec), from when they are in force (in_force_from) and who "
       "recorded them. webhook_inbox.key_spec holds the fingerprint that derived each event's key (NULL for "
       "events stored before hookinbox recorded it)."},
      {"alerts",
       "Incidents the alert engine found (condition: dead_letters, unknown, conflicts, backlog_age, "
       "signature_failures, silence, breaker_open, certificate_days, disk_free, database_size, storage_failures), "
       "per endpoint ('' = the whole installation): opened_at, last_seen_at, resolved_at (NULL = still open), "
       "observations (checks that found it), count (its latest figure), who acknowledged it (acked_at, acked_by) "
       "or muted it until when (muted_until, muted_by), and when a message about it was last queued. Not part of "
       "the audit chain: an operational record."},
      {"alert_notifications",
       "Every message about an incident (kind start, reminder, resolved) and every daily digest or test message, "
       "one row per channel: status pending (not sent yet), sent (sent_at), failed (gave up; last_error says "
       "why) or suppressed (not sent because the incident was muted), attempts, and the message as JSON (counts, "
       "names and times only). digest_day is the day a digest covers. Not part of the audit chain."},
      {"alert_lead",
       "Which hookinbox process runs the alert checks: one row, its owner (host:pid) and until when its lease "
       "runs (lease_until, Unix ms; renewed at every check). When it lapses, another process takes over."},
      {"audit_chain_heads",
       "The last sealed row of each audit chain (webhook_deliveries, webhook_attempts): its chain_seq, id and "
       "row_hash, so removing the newest rows is noticed too. In those two tables chain_seq numbers each sealed "
       "row and row_hash is the SHA-256 of the previous row's hash and this row's content; `hookinbox "
       "verify-audit FILE` checks both chains."},
      {"audit_checkpoints",
       "What left an audit chain and why: kind 'purge' (retention removed rows first_seq..last_seq; prev_hash "
       "and last_hash let the rows after them still verify) or 'genesis' (rows that existed before the chain "
       "was introduced, sealed at the first write after the upgrade)."},
      {"webhook_inbox_iso", "webhook_inbox with ISO-8601 UTC times."},
      {"webhook_deliveries_iso", "webhook_deliveries with ISO-8601 UTC times."},
      {"webhook_payloads_iso", "webhook_payloads without the bodies (their length instead), with ISO-8601 UTC times."},
      {"webhook_attempts_iso", "webhook_attempts with ISO-8601 UTC times."},
      {"webhook_event_actions_iso", "webhook_event_actions with ISO-8601 UTC times."},
      {"business_keys_iso", "business_keys with ISO-8601 UTC times."},
      {"object_versions_iso", "object_versions with ISO-8601 UTC times."},
      {"effects_iso", "effects with ISO-8601 UTC times."},
      {"audit_checkpoints_iso", "audit_checkpoints with ISO-8601 UTC times."},
      {"alerts_iso", "alerts with ISO-8601 UTC times."},
      {"alert_notifications_iso", "alert_notifications with ISO-8601 UTC times."},
      {"endpoint_key_specs_iso", "endpoint_key_specs with ISO-8601 UTC times."},
      {"step_results_iso", "step_results without the bodies (their length instead), with ISO-8601 UTC times."},
  };
  return kEntries;
}

std::string_view ReadmeDescription(std::string_view name) {
  for (const auto& e : ReadmeEntries()) {
    if (e.name == name) return e.description;
  }
  return {};
}

}  // namespace hookinbox::store
