-- hookinbox schema: the single source of truth, embedded into the binary.
--
-- Migrations: each block starts with a line "-- migration: N" and is applied
-- once, in order, inside one transaction that also sets PRAGMA user_version = N.
-- Never edit an applied block; append a new one. Times are INTEGER milliseconds
-- since the Unix epoch (UTC); the *_iso views show them as ISO-8601 for auditors.

-- migration: 1

-- One row per idempotency key: the event we promise to process exactly once.
CREATE TABLE webhook_inbox (
  id              INTEGER PRIMARY KEY,
  provider        TEXT    NOT NULL,
  endpoint        TEXT    NOT NULL,
  tenant_id       TEXT    NOT NULL,
  event_id        TEXT    NOT NULL,
  event_type      TEXT,
  payload_hash    TEXT    NOT NULL,           -- hex SHA-256, see SPEC §9 "Hashing"
  status          TEXT    NOT NULL DEFAULT 'received'
                  CHECK (status IN ('received', 'processing', 'completed', 'retryable_failed',
                                    'dead_lettered', 'unknown', 'skipped')),
  attempt_count   INTEGER NOT NULL DEFAULT 0,
  lease_owner     TEXT,
  lease_until     INTEGER,
  next_attempt_at INTEGER,
  received_at     INTEGER NOT NULL,
  completed_at    INTEGER,
  result_ref      TEXT,
  last_error      TEXT,
  UNIQUE (provider, endpoint, tenant_id, event_id)
);
-- The worker's "what is due" scan; partial so completed rows cost nothing.
CREATE INDEX webhook_inbox_due ON webhook_inbox (next_attempt_at, id)
  WHERE status IN ('received', 'retryable_failed', 'processing');
CREATE INDEX webhook_inbox_received_at ON webhook_inbox (received_at);

-- One row per HTTP request that reached /hooks/…: accepted, duplicate,
-- conflict, rejected. Never the body, a secret or a signature.
CREATE TABLE webhook_deliveries (
  id             INTEGER PRIMARY KEY,
  received_at    INTEGER NOT NULL,
  remote_addr    TEXT,
  method         TEXT,
  path           TEXT,
  provider       TEXT,
  endpoint       TEXT,
  tenant_id      TEXT,
  event_id       TEXT,
  event_type     TEXT,
  inbox_id       INTEGER REFERENCES webhook_inbox (id),
  outcome        TEXT    NOT NULL
                 CHECK (outcome IN ('accepted', 'duplicate', 'conflict', 'rejected', 'ignored')),
  http_status    INTEGER NOT NULL,
  reason         TEXT,                        -- why it was rejected, e.g. 'unauthenticated'
  payload_hash   TEXT,
  body_bytes     INTEGER,
  content_type   TEXT,
  user_agent     TEXT,
  request_count  INTEGER NOT NULL DEFAULT 1   -- > 1 on a row folding a flood of rejections
);
CREATE INDEX webhook_deliveries_inbox ON webhook_deliveries (inbox_id);
CREATE INDEX webhook_deliveries_received_at ON webhook_deliveries (received_at);
-- Counting one address's rejections per minute (flood folding).
CREATE INDEX webhook_deliveries_rejected_by_addr ON webhook_deliveries (remote_addr, received_at)
  WHERE outcome = 'rejected';

-- Raw bodies, apart from the inbox so listings and exports can leave them out.
-- kind 'original' is the body of the inbox event (one per event); kind
-- 'conflict' keeps the body of a delivery that reused the key with another
-- payload, for investigation.
CREATE TABLE webhook_payloads (
  id            INTEGER PRIMARY KEY,
  inbox_id      INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  delivery_id   INTEGER REFERENCES webhook_deliveries (id),
  kind          TEXT    NOT NULL CHECK (kind IN ('original', 'conflict')),
  payload_hash  TEXT    NOT NULL,
  content_type  TEXT,
  body          BLOB    NOT NULL,
  created_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX webhook_payloads_original ON webhook_payloads (inbox_id) WHERE kind = 'original';
CREATE INDEX webhook_payloads_inbox ON webhook_payloads (inbox_id);

CREATE VIEW webhook_inbox_iso AS
SELECT id, provider, endpoint, tenant_id, event_id, event_type, payload_hash, status, attempt_count,
       lease_owner,
       strftime('%Y-%m-%dT%H:%M:%fZ', lease_until / 1000.0, 'unixepoch')     AS lease_until,
       strftime('%Y-%m-%dT%H:%M:%fZ', next_attempt_at / 1000.0, 'unixepoch') AS next_attempt_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', received_at / 1000.0, 'unixepoch')     AS received_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', completed_at / 1000.0, 'unixepoch')    AS completed_at,
       result_ref, last_error
  FROM webhook_inbox;

CREATE VIEW webhook_deliveries_iso AS
SELECT id, strftime('%Y-%m-%dT%H:%M:%fZ', received_at / 1000.0, 'unixepoch') AS received_at,
       remote_addr, method, path, provider, endpoint, tenant_id, event_id, event_type, inbox_id,
       outcome, http_status, reason, payload_hash, body_bytes, content_type, user_agent, request_count
  FROM webhook_deliveries;

CREATE VIEW webhook_payloads_iso AS
SELECT id, inbox_id, delivery_id, kind, payload_hash, content_type, length(body) AS body_bytes,
       strftime('%Y-%m-%dT%H:%M:%fZ', created_at / 1000.0, 'unixepoch') AS created_at
  FROM webhook_payloads;

-- migration: 2

-- The events one batch delivery carried (HubSpot, SendGrid, Meta send several
-- per POST): the delivery keeps its one webhook_deliveries row, and each event
-- gets a row here with what became of it, so an auditor can tell which
-- request brought (or repeated) which event.
CREATE TABLE webhook_delivery_events (
  delivery_id  INTEGER NOT NULL REFERENCES webhook_deliveries (id),
  position     INTEGER NOT NULL,                -- 0-based index of the event in the batch
  inbox_id     INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  event_id     TEXT    NOT NULL,
  outcome      TEXT    NOT NULL CHECK (outcome IN ('accepted', 'duplicate', 'conflict')),
  PRIMARY KEY (delivery_id, position)
) WITHOUT ROWID;
CREATE INDEX webhook_delivery_events_inbox ON webhook_delivery_events (inbox_id);

-- migration: 3

-- The worker's leases. A claim sets next_attempt_at = lease_until for a
-- 'processing' row (and a renewal moves both), so the partial index
-- webhook_inbox_due answers "what is due" for all three claimable states —
-- waiting rows by their next attempt, processing rows by their lease expiry —
-- with one range scan.

-- One row per processing attempt, written when the event is claimed
-- (outcome NULL while in flight) and closed when the attempt ends. 'lost':
-- the lease expired and another worker took the event; 'released': the
-- worker gave it back at shutdown. `error` is short and never holds the
-- payload or a secret.
CREATE TABLE webhook_attempts (
  id           INTEGER PRIMARY KEY,
  inbox_id     INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  attempt      INTEGER NOT NULL,                -- attempt_count after the claim (restarts at 1 after a replay)
  worker       TEXT    NOT NULL,                -- the lease owner
  started_at   INTEGER NOT NULL,
  finished_at  INTEGER,
  outcome      TEXT    CHECK (outcome IN ('completed', 'retryable_failed', 'dead_lettered', 'unknown',
                                          'released', 'lost')),
  http_status  INTEGER,
  exit_code    INTEGER,
  error        TEXT
);
CREATE INDEX webhook_attempts_inbox ON webhook_attempts (inbox_id, id);
-- Attempts still in flight, for closing them when their event is reclaimed or released.
CREATE INDEX webhook_attempts_open ON webhook_attempts (inbox_id) WHERE outcome IS NULL;

-- What a person (or a script) did to an event: replay and resolve. Who did
-- it, when, the state before and after, and why.
CREATE TABLE webhook_event_actions (
  id           INTEGER PRIMARY KEY,
  inbox_id     INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  at           INTEGER NOT NULL,
  actor        TEXT    NOT NULL,                -- "cli:<os user>", later "admin:<name>"
  action       TEXT    NOT NULL CHECK (action IN ('replay', 'resolve')),
  from_status  TEXT    NOT NULL,
  to_status    TEXT    NOT NULL,
  result_ref   TEXT,                            -- resolve: the given reference; replay: the one it replaced
  note         TEXT
);
CREATE INDEX webhook_event_actions_inbox ON webhook_event_actions (inbox_id, id);

CREATE VIEW webhook_attempts_iso AS
SELECT id, inbox_id, attempt, worker,
       strftime('%Y-%m-%dT%H:%M:%fZ', started_at / 1000.0, 'unixepoch')  AS started_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', finished_at / 1000.0, 'unixepoch') AS finished_at,
       outcome, http_status, exit_code, error
  FROM webhook_attempts;

CREATE VIEW webhook_event_actions_iso AS
SELECT id, inbox_id, strftime('%Y-%m-%dT%H:%M:%fZ', at / 1000.0, 'unixepoch') AS at,
       actor, action, from_status, to_status, result_ref, note
  FROM webhook_event_actions;

-- migration: 4

-- Unsigned provider pings (WooCommerce) are answered 200 and recorded as
-- 'ignored' without proof of origin; they share the rejections' per-address
-- budget, which counts them through this index.
CREATE INDEX webhook_deliveries_ignored_by_addr ON webhook_deliveries (remote_addr, received_at)
  WHERE outcome = 'ignored';

-- migration: 5

-- Exactly once beyond the inbox (SPEC §6 "Beyond the inbox").
--
-- business_key: hex SHA-256 over the tenant, the endpoint's operation and the
-- values at its business_key.fields (never the values themselves: they may be
-- personal data); business_key_hint says what it is without saying whose.
-- object_key / object_version: the ordering guard's object (hex SHA-256 of
-- its id) and comparable version (an integer, or ms since the epoch for a
-- time). skip_reason / skipped_for: why a 'skipped' event was not acted on,
-- and the event that had already applied its key or a newer version.
-- token_hash: SHA-256 of the handler-API token of the event's current
-- attempt (a new token per claim, so a stale attempt's token stops working).
ALTER TABLE webhook_inbox ADD COLUMN business_key TEXT;
ALTER TABLE webhook_inbox ADD COLUMN business_key_hint TEXT;
ALTER TABLE webhook_inbox ADD COLUMN object_key TEXT;
ALTER TABLE webhook_inbox ADD COLUMN object_version INTEGER;
ALTER TABLE webhook_inbox ADD COLUMN skip_reason TEXT
  CHECK (skip_reason IN ('duplicate_business_key', 'stale_version'));
ALTER TABLE webhook_inbox ADD COLUMN skipped_for INTEGER;
ALTER TABLE webhook_inbox ADD COLUMN token_hash TEXT;
-- The event this one waits for (same business key or object, still in
-- flight); when that one finishes, its waiters become due at once.
ALTER TABLE webhook_inbox ADD COLUMN waiting_for INTEGER;
CREATE INDEX webhook_inbox_waiting ON webhook_inbox (waiting_for) WHERE waiting_for IS NOT NULL;
CREATE UNIQUE INDEX webhook_inbox_token ON webhook_inbox (token_hash) WHERE token_hash IS NOT NULL;
CREATE INDEX webhook_inbox_object ON webhook_inbox (endpoint, tenant_id, object_key)
  WHERE object_key IS NOT NULL;
CREATE INDEX webhook_inbox_business_key ON webhook_inbox (tenant_id, business_key)
  WHERE business_key IS NOT NULL;

-- Who holds or applied each business key: 'claimed' while its event is in
-- flight (another event with the key waits), 'applied' once it completed
-- (another event with the key is skipped). A dead-lettered holder frees it.
CREATE TABLE business_keys (
  tenant_id   TEXT    NOT NULL,
  key_hash    TEXT    NOT NULL,
  hint        TEXT    NOT NULL,
  inbox_id    INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  status      TEXT    NOT NULL CHECK (status IN ('claimed', 'applied')),
  claimed_at  INTEGER NOT NULL,
  applied_at  INTEGER,
  PRIMARY KEY (tenant_id, key_hash)
);
CREATE INDEX business_keys_inbox ON business_keys (inbox_id);

-- The last version applied per object of an endpoint's ordering guard.
CREATE TABLE object_versions (
  endpoint      TEXT    NOT NULL,
  tenant_id     TEXT    NOT NULL,
  object_key    TEXT    NOT NULL,
  version       INTEGER NOT NULL,
  payload_hash  TEXT    NOT NULL,
  inbox_id      INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  applied_at    INTEGER NOT NULL,
  PRIMARY KEY (endpoint, tenant_id, object_key)
);

-- The side-effect ledger of the handler API: one row per effect key of a
-- tenant. 'claimed' by an event while it is processing, 'done' with the
-- external reference, 'failed' (free to claim again), 'unknown' (blocks
-- automatic re-execution until a person looks).
CREATE TABLE effects (
  tenant_id     TEXT    NOT NULL,
  effect_key    TEXT    NOT NULL,
  status        TEXT    NOT NULL CHECK (status IN ('claimed', 'done', 'failed', 'unknown')),
  inbox_id      INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  attempt       INTEGER NOT NULL,
  external_ref  TEXT,
  error         TEXT,
  claimed_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, effect_key)
);
CREATE INDEX effects_inbox ON effects (inbox_id);

-- Results of expensive or non-deterministic steps of an event's handler
-- (an LLM classification, a drafted message), stored as sent, so a retry
-- reuses them instead of computing them again.
CREATE TABLE step_results (
  inbox_id      INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  name          TEXT    NOT NULL,
  content_type  TEXT    NOT NULL,
  body          BLOB    NOT NULL,
  attempt       INTEGER NOT NULL,
  stored_at     INTEGER NOT NULL,
  PRIMARY KEY (inbox_id, name)
);

-- webhook_attempts gains 'skipped' outcomes and probe rows (reconciliation of
-- an 'unknown' attempt: kind 'probe', outcome completed = found,
-- retryable_failed = not found, unknown = no clear answer). SQLite cannot
-- change a CHECK in place, so the table is rebuilt with its rows and ids.
CREATE TABLE webhook_attempts_v5 (
  id           INTEGER PRIMARY KEY,
  inbox_id     INTEGER NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
  attempt      INTEGER NOT NULL,
  worker       TEXT    NOT NULL,
  started_at   INTEGER NOT NULL,
  finished_at  INTEGER,
  outcome      TEXT    CHECK (outcome IN ('completed', 'retryable_failed', 'dead_lettered', 'unknown',
                                          'released', 'lost', 'skipped')),
  http_status  INTEGER,
  exit_code    INTEGER,
  error        TEXT,
  kind         TEXT    NOT NULL DEFAULT 'action' CHECK (kind IN ('action', 'probe'))
);
INSERT INTO webhook_attempts_v5 (id, inbox_id, attempt, worker, started_at, finished_at, outcome,
                                 http_status, exit_code, error)
SELECT id, inbox_id, attempt, worker, started_at, finished_at, outcome, http_status, exit_code, error
  FROM webhook_attempts;
DROP VIEW webhook_attempts_iso;
DROP TABLE webhook_attempts;
ALTER TABLE webhook_attempts_v5 RENAME TO webhook_attempts;
CREATE INDEX webhook_attempts_inbox ON webhook_attempts (inbox_id, id);
CREATE INDEX webhook_attempts_open ON webhook_attempts (inbox_id) WHERE outcome IS NULL;
CREATE VIEW webhook_attempts_iso AS
SELECT id, inbox_id, attempt, kind, worker,
       strftime('%Y-%m-%dT%H:%M:%fZ', started_at / 1000.0, 'unixepoch')  AS started_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', finished_at / 1000.0, 'unixepoch') AS finished_at,
       outcome, http_status, exit_code, error
  FROM webhook_attempts;

CREATE VIEW business_keys_iso AS
SELECT tenant_id, key_hash, hint, inbox_id, status,
       strftime('%Y-%m-%dT%H:%M:%fZ', claimed_at / 1000.0, 'unixepoch') AS claimed_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', applied_at / 1000.0, 'unixepoch') AS applied_at
  FROM business_keys;

CREATE VIEW object_versions_iso AS
SELECT endpoint, tenant_id, object_key, version, payload_hash, inbox_id,
       strftime('%Y-%m-%dT%H:%M:%fZ', applied_at / 1000.0, 'unixepoch') AS applied_at
  FROM object_versions;

CREATE VIEW effects_iso AS
SELECT tenant_id, effect_key, status, inbox_id, attempt, external_ref, error,
       strftime('%Y-%m-%dT%H:%M:%fZ', claimed_at / 1000.0, 'unixepoch') AS claimed_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', updated_at / 1000.0, 'unixepoch') AS updated_at
  FROM effects;

CREATE VIEW step_results_iso AS
SELECT inbox_id, name, content_type, length(body) AS bytes, attempt,
       strftime('%Y-%m-%dT%H:%M:%fZ', stored_at / 1000.0, 'unixepoch') AS stored_at
  FROM step_results;

-- migration: 6

-- Tamper-evident audit trail (store/audit_chain.h has the exact rules).
--
-- Every webhook_deliveries and webhook_attempts row is "sealed" once its
-- content is final: chain_seq numbers it in its table's chain (1, 2, 3, …)
-- and row_hash is the hex SHA-256 of the previous sealed row's hash and this
-- row's content in a length-prefixed canonical encoding. A row is final when
-- it is written, except an attempt (final when its outcome is set) and a row
-- folding a flood of rejections (final once its minute is over, since its
-- request_count grows until then). Sealing happens inside the transaction
-- that finalises the row, on the single writer, so chain order is commit
-- order. Unsealed rows (attempts in flight, this minute's folding row) are
-- not yet covered. `hookinbox verify-audit FILE` walks both chains.
ALTER TABLE webhook_deliveries ADD COLUMN chain_seq INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN row_hash TEXT;
ALTER TABLE webhook_attempts ADD COLUMN chain_seq INTEGER;
ALTER TABLE webhook_attempts ADD COLUMN row_hash TEXT;
CREATE UNIQUE INDEX webhook_deliveries_chain ON webhook_deliveries (chain_seq) WHERE chain_seq IS NOT NULL;
CREATE UNIQUE INDEX webhook_attempts_chain ON webhook_attempts (chain_seq) WHERE chain_seq IS NOT NULL;
CREATE INDEX webhook_deliveries_unsealed ON webhook_deliveries (id) WHERE chain_seq IS NULL;
CREATE INDEX webhook_attempts_unsealed ON webhook_attempts (id) WHERE chain_seq IS NULL;

-- What needs a person (the dead-letter and unknown queues): /metrics counts
-- them per endpoint on every scrape, so the cost follows the queues' size,
-- not the inbox's.
CREATE INDEX webhook_inbox_attention ON webhook_inbox (endpoint, provider, status)
  WHERE status IN ('dead_lettered', 'unknown');

-- The admin API's conflict list (GET /admin/api/conflicts): conflicts are
-- rare, so this index stays tiny while the delivery table grows.
CREATE INDEX webhook_deliveries_conflicts ON webhook_deliveries (id) WHERE outcome = 'conflict';

-- The last sealed row of each chain, so removing the newest rows is noticed
-- too (a chain alone cannot tell a truncated end from a short one).
CREATE TABLE audit_chain_heads (
  table_name  TEXT    PRIMARY KEY CHECK (table_name IN ('webhook_deliveries', 'webhook_attempts')),
  seq         INTEGER NOT NULL,                -- chain_seq of the last sealed row
  row_id      INTEGER NOT NULL,                -- its id
  row_hash    TEXT    NOT NULL                 -- its row_hash
);

-- What left a chain, and why. kind 'purge': retention removed the rows with
-- chain_seq first_seq..last_seq; prev_hash is the hash the range continued
-- from and last_hash the one it ended on, so the rows after it still verify.
-- kind 'genesis': written by this migration; `rows` rows (ids up to
-- last_row_id) existed before the chain did. They are sealed by the first
-- write after the upgrade, so their hashes prove them unchanged since the
-- upgrade (`at`), not since they were written.
CREATE TABLE audit_checkpoints (
  id             INTEGER PRIMARY KEY,
  table_name     TEXT    NOT NULL CHECK (table_name IN ('webhook_deliveries', 'webhook_attempts')),
  kind           TEXT    NOT NULL CHECK (kind IN ('genesis', 'purge')),
  at             INTEGER NOT NULL,
  first_seq      INTEGER,
  last_seq       INTEGER,
  rows           INTEGER NOT NULL,
  last_row_id    INTEGER,
  prev_hash      TEXT,
  last_hash      TEXT,
  purged_before  INTEGER,                       -- purge: rows older than this went (ms)
  note           TEXT
);
CREATE INDEX audit_checkpoints_chain ON audit_checkpoints (table_name, first_seq);

INSERT INTO audit_checkpoints (table_name, kind, at, rows, last_row_id, note)
SELECT 'webhook_deliveries', 'genesis', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), count(*),
       max(id), 'rows written before the audit chain existed; sealed at the first write after the upgrade'
  FROM webhook_deliveries;
INSERT INTO audit_checkpoints (table_name, kind, at, rows, last_row_id, note)
SELECT 'webhook_attempts', 'genesis', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), count(*),
       max(id), 'rows written before the audit chain existed; sealed at the first write after the upgrade'
  FROM webhook_attempts;

CREATE VIEW audit_checkpoints_iso AS
SELECT id, table_name, kind, strftime('%Y-%m-%dT%H:%M:%fZ', at / 1000.0, 'unixepoch') AS at, first_seq, last_seq,
       rows, last_row_id, prev_hash, last_hash,
       strftime('%Y-%m-%dT%H:%M:%fZ', purged_before / 1000.0, 'unixepoch') AS purged_before, note
  FROM audit_checkpoints;

-- migration: 7

-- The worker's "what is due", per endpoint. A claim seeks the oldest due row
-- of each endpoint it may take now, and never enters the others: the events a
-- receive-only endpoint keeps for months, or those of an endpoint at its
-- concurrency, cost a claim nothing (store/due_search.h). With the endpoint
-- first, the backlog figures count per endpoint from the same index, and
-- skip the endpoints no action works on. It replaces webhook_inbox_due
-- (next_attempt_at, id), whose one range mixed every endpoint's rows.
DROP INDEX webhook_inbox_due;
CREATE INDEX webhook_inbox_due_by_endpoint ON webhook_inbox (endpoint, next_attempt_at, id)
  WHERE status IN ('received', 'retryable_failed', 'processing');

-- migration: 8

-- The retry horizon (worker.retry_for) counts from the start of the event's
-- current round of attempts: its arrival (NULL here = received_at), or the
-- last replay, which sets it — a replay is a person's decision to try again.
ALTER TABLE webhook_inbox ADD COLUMN retry_window_start INTEGER;

-- An endpoint's dispatch state, one row per endpoint that was ever paused or
-- whose circuit breaker ever opened. Paused: an operator's hold (who, why,
-- since when); its events are received and stored as usual and wait without
-- spending attempts. breaker: the worker's circuit breaker, as last recorded
-- by a worker ('open' after action.breaker_failures consecutive failures,
-- 'half_open' while one trial delivery decides, 'closed' again after it
-- succeeds). Shared by replicas in PostgreSQL mode.
CREATE TABLE endpoint_states (
  endpoint              TEXT    PRIMARY KEY,
  paused_at             INTEGER,                 -- NULL = not paused
  paused_by             TEXT,                    -- "cli:<os user>", "admin:<name>"
  paused_reason         TEXT,
  breaker               TEXT    NOT NULL DEFAULT 'closed'
                        CHECK (breaker IN ('closed', 'open', 'half_open')),
  breaker_changed_at    INTEGER,
  breaker_failures      INTEGER NOT NULL DEFAULT 0,  -- consecutive failures that opened it
  breaker_next_probe_at INTEGER,                 -- open: when the next trial delivery may start
  breaker_last_error    TEXT,                    -- open: the failure that opened it (never payload or secrets)
  updated_at            INTEGER NOT NULL
);

-- Every pause and resume, with who and why: the audit of endpoint_states.
CREATE TABLE endpoint_actions (
  id        INTEGER PRIMARY KEY,
  endpoint  TEXT    NOT NULL,
  at        INTEGER NOT NULL,
  actor     TEXT    NOT NULL,
  action    TEXT    NOT NULL CHECK (action IN ('pause', 'resume')),
  reason    TEXT
);
CREATE INDEX endpoint_actions_endpoint ON endpoint_actions (endpoint, id);

-- migration: 9

-- Incidents (issue 24): what the alert engine found wrong, per condition and
-- endpoint ('' = the whole installation), from when it started to when it
-- resolved, how often it was seen and its latest figure (count), and who
-- acknowledged or muted it. At most one open incident per (condition,
-- endpoint): the unique partial index, so two replicas observing the same
-- condition open one. Kept in the .db an auditor downloads.
--
-- Neither this table nor alert_notifications joins the audit hash chain
-- (webhook_deliveries, webhook_attempts): they are operational records of
-- what hookinbox told people, not evidence of what arrived and what was done
-- about it, and they are updated in place (counts, acknowledgements, leases).
CREATE TABLE alerts (
  id               INTEGER PRIMARY KEY,
  condition        TEXT    NOT NULL,           -- dead_letters, unknown, conflicts, backlog_age, silence, …
  endpoint         TEXT    NOT NULL DEFAULT '', -- '' = the whole installation
  summary          TEXT    NOT NULL,           -- the latest one-line description (never a payload or secret)
  opened_at        INTEGER NOT NULL,
  last_seen_at     INTEGER NOT NULL,
  resolved_at      INTEGER,                    -- NULL = open
  observations     INTEGER NOT NULL DEFAULT 1,   -- how many checks found it
  count            INTEGER NOT NULL DEFAULT 0,   -- the condition's own figure, latest
  acked_at         INTEGER,
  acked_by         TEXT,                       -- "admin:<name>", "cli:<os user>"
  muted_until      INTEGER,                    -- no messages about it before this time
  muted_by         TEXT,
  last_notified_at INTEGER                     -- when the last start/reminder/resolved message was queued
);
CREATE UNIQUE INDEX alerts_open ON alerts (condition, endpoint) WHERE resolved_at IS NULL;
CREATE INDEX alerts_resolved ON alerts (resolved_at);

-- The messages about incidents, and the daily digests and test messages:
-- one row per channel and message, written in the same transaction as the
-- change it reports. An outbox: any replica leases due 'pending' rows
-- (lease_until), sends, and records 'sent', or pending again at
-- next_attempt_at with attempts and last_error, or 'failed' (gave up).
-- 'suppressed': not sent because the incident was muted (the record shows
-- the decision). message is the notification as JSON (alert/notification.h):
-- counts, names and times only. digest_day: the day a digest covers, once
-- per channel (UNIQUE; NULL for every other row).
CREATE TABLE alert_notifications (
  id              INTEGER PRIMARY KEY,
  alert_id        INTEGER REFERENCES alerts (id),  -- NULL for a digest or a test
  channel         TEXT    NOT NULL,
  kind            TEXT    NOT NULL CHECK (kind IN ('start', 'reminder', 'resolved', 'digest', 'test')),
  message         TEXT    NOT NULL,
  status          TEXT    NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'sent', 'failed', 'suppressed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  lease_until     INTEGER,                      -- a sender holds it until then; lapsed = free again
  sent_at         INTEGER,
  last_error      TEXT,                         -- the channel's answer, never a secret
  digest_day      TEXT,                         -- 'YYYY-MM-DD' for a digest
  UNIQUE (digest_day, channel)
);
CREATE INDEX alert_notifications_due ON alert_notifications (status, next_attempt_at);
CREATE INDEX alert_notifications_alert ON alert_notifications (alert_id, id);

-- Which replica runs the alert checks (alert/engine.h): one row, held by
-- `owner` ("<host>:<pid>") until lease_until (Unix ms), renewed at every
-- check. Only the holder checks the conditions and queues the digest, so
-- figures only one process knows (its 503s, how long it has seen a breaker
-- open) never make two replicas disagree about an incident. A replica that
-- stops leaves the row to lapse; another takes it then.
CREATE TABLE alert_lead (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  owner       TEXT    NOT NULL,
  lease_until INTEGER NOT NULL
);

CREATE VIEW alerts_iso AS
SELECT id, condition, endpoint, summary,
       strftime('%Y-%m-%dT%H:%M:%fZ', opened_at / 1000.0, 'unixepoch') AS opened_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', last_seen_at / 1000.0, 'unixepoch') AS last_seen_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', resolved_at / 1000.0, 'unixepoch') AS resolved_at,
       observations, count,
       strftime('%Y-%m-%dT%H:%M:%fZ', acked_at / 1000.0, 'unixepoch') AS acked_at, acked_by,
       strftime('%Y-%m-%dT%H:%M:%fZ', muted_until / 1000.0, 'unixepoch') AS muted_until, muted_by,
       strftime('%Y-%m-%dT%H:%M:%fZ', last_notified_at / 1000.0, 'unixepoch') AS last_notified_at
  FROM alerts;

CREATE VIEW alert_notifications_iso AS
SELECT id, alert_id, channel, kind, message, status, attempts,
       strftime('%Y-%m-%dT%H:%M:%fZ', created_at / 1000.0, 'unixepoch') AS created_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', next_attempt_at / 1000.0, 'unixepoch') AS next_attempt_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', lease_until / 1000.0, 'unixepoch') AS lease_until,
       strftime('%Y-%m-%dT%H:%M:%fZ', sent_at / 1000.0, 'unixepoch') AS sent_at,
       last_error, digest_day
  FROM alert_notifications;

-- The alert engine's silence check (store/alert_signals.h): an endpoint's
-- last accepted delivery is one seek here, however much other endpoints
-- receive. Partial, so no query of the inbox or of other outcomes sees it.
CREATE INDEX webhook_deliveries_accepted ON webhook_deliveries (endpoint, received_at) WHERE outcome = 'accepted';

-- The dashboard's activity charts (GET /admin/api/activity) count the
-- attempts that ended in a time window, per endpoint and outcome: this
-- index bounds that read by the window instead of scanning every attempt.
-- Open attempts (finished_at NULL) stay out of it.
CREATE INDEX webhook_attempts_finished_at ON webhook_attempts (finished_at) WHERE finished_at IS NOT NULL;

-- migration: 10

-- The key-derivation guard (store/key_specs.h). An event's idempotency key
-- comes from its endpoint's key settings (provider, id source, composite
-- fields, canonical hash, tenant, batch); if they change while stored keys
-- still deduplicate, a provider's redelivery of a stored event gets another
-- key and is stored and processed again. key_spec: the fingerprint
-- (verify/key_spec.h) of the settings that derived this row's key; NULL for
-- rows stored before this migration.
ALTER TABLE webhook_inbox ADD COLUMN key_spec TEXT;

-- Each endpoint's key settings over time: a row when an endpoint's spec is
-- first seen (the first start after the upgrade, a new endpoint) and at
-- every change, with the canonical settings (spec, never a secret), from
-- when they are in force and who put them there (recorded_by, e.g.
-- "serve:<os user>"). provider: the provider its events are stored under,
-- which finds them through the inbox's unique key.
CREATE TABLE endpoint_key_specs (
  id             INTEGER PRIMARY KEY,
  endpoint       TEXT    NOT NULL,
  provider       TEXT    NOT NULL,
  fingerprint    TEXT    NOT NULL,
  spec           TEXT    NOT NULL,
  in_force_from  INTEGER NOT NULL,
  recorded_by    TEXT    NOT NULL
);
CREATE INDEX endpoint_key_specs_endpoint ON endpoint_key_specs (endpoint, id);

-- endpoint_actions also records an accepted key settings change
-- ('key_spec_changed': reason holds the old and new fingerprints). SQLite
-- cannot alter a CHECK constraint: the table is rebuilt, ids and rows kept.
CREATE TABLE endpoint_actions_v10 (
  id        INTEGER PRIMARY KEY,
  endpoint  TEXT    NOT NULL,
  at        INTEGER NOT NULL,
  actor     TEXT    NOT NULL,
  action    TEXT    NOT NULL CHECK (action IN ('pause', 'resume', 'key_spec_changed')),
  reason    TEXT
);
INSERT INTO endpoint_actions_v10 (id, endpoint, at, actor, action, reason)
  SELECT id, endpoint, at, actor, action, reason FROM endpoint_actions;
DROP TABLE endpoint_actions;
ALTER TABLE endpoint_actions_v10 RENAME TO endpoint_actions;
CREATE INDEX endpoint_actions_endpoint ON endpoint_actions (endpoint, id);

CREATE VIEW endpoint_key_specs_iso AS
SELECT id, endpoint, provider, fingerprint, spec,
       strftime('%Y-%m-%dT%H:%M:%fZ', in_force_from / 1000.0, 'unixepoch') AS in_force_from, recorded_by
  FROM endpoint_key_specs;

-- migration: 11

-- endpoint_actions also records the steps of a secret rotation (hookinbox
-- secrets rotate/retire, the admin UI): 'secret_rotated' (reason: until when
-- the previous secret is accepted, and the file) and 'secret_retired' (the
-- previous secret no longer accepted: retired by an operator, or its window
-- ended). Never the secret. Rebuilt as in migration 10, ids and rows kept.
CREATE TABLE endpoint_actions_v11 (
  id        INTEGER PRIMARY KEY,
  endpoint  TEXT    NOT NULL,
  at        INTEGER NOT NULL,
  actor     TEXT    NOT NULL,
  action    TEXT    NOT NULL CHECK (action IN ('pause', 'resume', 'key_spec_changed', 'secret_rotated',
                                               'secret_retired')),
  reason    TEXT
);
INSERT INTO endpoint_actions_v11 (id, endpoint, at, actor, action, reason)
  SELECT id, endpoint, at, actor, action, reason FROM endpoint_actions;
DROP TABLE endpoint_actions;
ALTER TABLE endpoint_actions_v11 RENAME TO endpoint_actions;
CREATE INDEX endpoint_actions_endpoint ON endpoint_actions (endpoint, id);

-- migration: 12

-- token_hash on the attempt row: the SHA-256 of the handler-API token issued
-- for that attempt (webhook_inbox.token_hash holds only the current one, and
-- the next claim or a replay overwrites it). A handler calling after its
-- attempt ended — completed, lapsed, replaced by a later attempt, replayed —
-- is then told so (409) instead of being counted as a guessed token. NULL on
-- rows written before this migration, on probes and on skipped events.
ALTER TABLE webhook_attempts ADD COLUMN token_hash TEXT;
CREATE INDEX webhook_attempts_token ON webhook_attempts (token_hash) WHERE token_hash IS NOT NULL;
