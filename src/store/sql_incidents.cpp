// Incidents on either backend (see incidents.h). Every change is one
// operation of the single Writer, so it decides under the database's write
// lock (SQLite BEGIN IMMEDIATE; on PostgreSQL the advisory lock every write
// transaction takes): two replicas observing one condition run one after the
// other, and the second finds the first's incident. The unique partial index
// alerts_open backs that up, and an open is INSERT … ON CONFLICT DO NOTHING,
// never SELECT-then-INSERT. The messages a change causes are written in the
// same transaction, so a change and its messages commit together or not at all.
//
// The outbox lease is a write too (an UPDATE … RETURNING of the due rows), so
// two senders never hold one row; a lapsed lease is simply due again, and the
// outcome is recorded only under the lease the row was sent with.
//
// Operations may run twice (the Writer reruns a batch one by one when a
// neighbour throws), so each resets its outputs first, and refusals found
// inside a transaction are reported through outputs, never by throwing.
#include <algorithm>
#include <string_view>

#include "common/encoding.h"
#include "store/incidents.h"
#include "store/sql_bind.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

constexpr size_t kMaxNameBytes = 200;
// Summaries and channel errors are for people to read: bounded, valid UTF-8.
constexpr size_t kMaxTextBytes = 1024;
constexpr int kMaxListed = 1000;

constexpr const char* kIncidentColumns =
    "id, condition, endpoint, summary, opened_at, last_seen_at, resolved_at, observations, count, acked_at,"
    " acked_by, muted_until, last_notified_at";

std::string Bounded(const std::string& text) { return ToValidUtf8(std::string_view(text).substr(0, kMaxTextBytes)); }

std::optional<int64_t> OptTime(const sql::Column& c) {
  return c.isNull() ? std::nullopt : std::optional<int64_t>(c.getInt64());
}

Incident ReadIncident(sql::Statement& st) {
  Incident i;
  i.id = st.getColumn(0).getInt64();
  i.condition = st.getColumn(1).getString();
  i.endpoint = Text(st.getColumn(2));
  i.summary = Text(st.getColumn(3));
  i.opened_at_ms = st.getColumn(4).getInt64();
  i.last_seen_at_ms = st.getColumn(5).getInt64();
  i.resolved_at_ms = OptTime(st.getColumn(6));
  i.observations = st.getColumn(7).getInt64();
  i.count = st.getColumn(8).getInt64();
  i.acked_at_ms = OptTime(st.getColumn(9));
  i.acked_by = Text(st.getColumn(10));
  i.muted_until_ms = OptTime(st.getColumn(11));
  i.last_notified_at_ms = OptTime(st.getColumn(12));
  return i;
}

std::optional<Incident> FindIncident(sql::Connection& db, int64_t id) {
  Prepared st(db, std::string("SELECT ") + kIncidentColumns + " FROM alerts WHERE id = ?1");
  st->bind(1, id);
  if (!st->executeStep()) return std::nullopt;
  return ReadIncident(*st);
}

bool Muted(const Incident& i, int64_t now_ms) { return i.muted_until_ms && *i.muted_until_ms > now_ms; }

// One row per channel for `alert_id`: pending (due now) or suppressed.
void QueueRows(sql::Connection& db, int64_t alert_id, const std::vector<std::string>& channels, const char* kind,
               const std::string& message, const char* status, int64_t now_ms) {
  Prepared st(db,
              "INSERT INTO alert_notifications (alert_id, channel, kind, message, status, attempts, created_at,"
              " next_attempt_at) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6)");
  for (const auto& channel : channels) {
    st->reset();
    st->bind(1, alert_id);
    st->bind(2, channel);
    st->bind(3, kind);
    st->bind(4, message);
    st->bind(5, status);
    st->bind(6, now_ms);
    st->exec();
  }
}

void MarkNotified(sql::Connection& db, int64_t id, int64_t now_ms) {
  Prepared st(db, "UPDATE alerts SET last_notified_at = ?1 WHERE id = ?2");
  st->bind(1, now_ms);
  st->bind(2, id);
  st->exec();
}

// Opens an incident unless one is open for (condition, endpoint); its id when it did.
std::optional<int64_t> InsertOpen(sql::Connection& db, const Observation& o, const std::string& summary, bool notify,
                                  int64_t now_ms) {
  Prepared st(db,
              "INSERT INTO alerts (condition, endpoint, summary, opened_at, last_seen_at, observations, count,"
              " last_notified_at) VALUES (?1, ?2, ?3, ?4, ?4, 1, ?5, ?6)"
              " ON CONFLICT (condition, endpoint) WHERE resolved_at IS NULL DO NOTHING RETURNING id");
  st->bind(1, o.condition);
  st->bind(2, o.endpoint);
  st->bind(3, summary);
  st->bind(4, now_ms);
  st->bind(5, o.count);
  BindOptional(*st, 6, notify ? std::optional<int64_t>(now_ms) : std::nullopt);
  if (!st->executeStep()) return std::nullopt;
  return st->getColumn(0).getInt64();
}

// Counts one more observation of the open incident; its id.
int64_t UpdateOpen(sql::Connection& db, const Observation& o, const std::string& summary, int64_t now_ms) {
  Prepared st(db,
              "UPDATE alerts SET summary = ?1, count = ?2, last_seen_at = ?3, observations = observations + 1"
              " WHERE condition = ?4 AND endpoint = ?5 AND resolved_at IS NULL RETURNING id");
  st->bind(1, summary);
  st->bind(2, o.count);
  st->bind(3, now_ms);
  st->bind(4, o.condition);
  st->bind(5, o.endpoint);
  if (!st->executeStep())
    throw sql::Error(sql::Failure::kOther, 0, "the open incident vanished inside the transaction");
  return st->getColumn(0).getInt64();
}

bool ReminderDue(const Incident& i, const PlannedMessages& m, int64_t now_ms) {
  if (m.remind_every_ms <= 0 || m.channels.empty() || i.acked_at_ms || Muted(i, now_ms)) return false;
  return now_ms - i.last_notified_at_ms.value_or(i.opened_at_ms) >= m.remind_every_ms;
}

Status CheckName(const char* what, const std::string& name, bool may_be_empty) {
  if ((!may_be_empty && name.empty()) || name.size() > kMaxNameBytes || ToValidUtf8(name) != name) {
    return InvalidArgument(std::string(what) + " is empty, too long or not UTF-8 text");
  }
  return Status::Ok();
}

Status CheckPlanned(const PlannedMessages& m) {
  if (m.remind_every_ms < 0) return InvalidArgument("remind_every_ms is negative");
  for (const auto& c : m.channels) {
    if (Status st = CheckName("a channel name", c, false); !st.ok()) return st;
  }
  return Status::Ok();
}

Status CheckConditionKey(const std::string& condition, const std::string& endpoint, int64_t now_ms) {
  if (Status st = CheckName("condition", condition, false); !st.ok()) return st;
  if (Status st = CheckName("endpoint", endpoint, true); !st.ok()) return st;
  if (now_ms <= 0) return InvalidArgument("now_ms is not a time");
  return Status::Ok();
}

bool IsDay(const std::string& day) {
  if (day.size() != 10 || day[4] != '-' || day[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (day[i] < '0' || day[i] > '9') return false;
  }
  return true;
}

// What a query that may find nothing reports: found, or NotFound naming the id.
Status NotFoundIncident(int64_t id) { return NotFound("incident " + std::to_string(id) + " not found"); }

// The lease's UPDATE, with `excluded` channel parameters from ?4 on. A row
// waits behind an older pending row for the same incident and channel (even
// one leased or backing off), so messages about an incident reach a channel
// in order; digests and tests (no incident) never wait. The index
// alert_notifications_alert (alert_id, id) answers that NOT EXISTS.
std::string LeaseSql(size_t excluded) {
  std::string sql =
      "UPDATE alert_notifications SET lease_until = ?1 WHERE id IN (SELECT n.id FROM alert_notifications n"
      " WHERE n.status = 'pending' AND n.next_attempt_at <= ?2 AND (n.lease_until IS NULL OR n.lease_until <= ?2)"
      " AND NOT EXISTS (SELECT 1 FROM alert_notifications o WHERE o.alert_id = n.alert_id"
      " AND o.channel = n.channel AND o.status = 'pending' AND o.id < n.id)";
  if (excluded > 0) sql += " AND n.channel NOT IN (" + Placeholders(4, excluded) + ")";
  sql += " ORDER BY n.next_attempt_at, n.id LIMIT ?3) RETURNING id, alert_id, channel, kind, message, attempts,"
         " created_at, lease_until";
  return sql;
}

}  // namespace

Result<ObserveResult> SqlStore::ObserveCondition(const Observation& o, const PlannedMessages& m, int64_t now_ms) {
  if (Status st = CheckConditionKey(o.condition, o.endpoint, now_ms); !st.ok()) return Prefixed("observe", st);
  if (Status st = CheckPlanned(m); !st.ok()) return Prefixed("observe", st);
  const std::string summary = Bounded(o.summary);
  ObserveResult out;
  Status st = writer_->Submit([&](sql::Connection& db) {
    out = ObserveResult{};
    if (auto id = InsertOpen(db, o, summary, !m.channels.empty(), now_ms)) {
      QueueRows(db, *id, m.channels, "start", m.start_message, "pending", now_ms);
      out.incident = *FindIncident(db, *id);
      out.change = IncidentChange::kOpened;
      return;
    }
    const int64_t id = UpdateOpen(db, o, summary, now_ms);
    out.incident = *FindIncident(db, id);
    if (ReminderDue(out.incident, m, now_ms)) {
      QueueRows(db, id, m.channels, "reminder", m.reminder_message, "pending", now_ms);
      MarkNotified(db, id, now_ms);
      out.incident.last_notified_at_ms = now_ms;
      out.change = IncidentChange::kReminded;
    }
  });
  if (!st.ok()) return Prefixed("observe", st);
  return out;
}

Result<std::optional<Incident>> SqlStore::ResolveCondition(const std::string& condition, const std::string& endpoint,
                                                           const PlannedMessages& m, int64_t now_ms) {
  if (Status st = CheckConditionKey(condition, endpoint, now_ms); !st.ok()) return Prefixed("resolve incident", st);
  if (Status st = CheckPlanned(m); !st.ok()) return Prefixed("resolve incident", st);
  std::optional<Incident> out;
  Status st = writer_->Submit([&](sql::Connection& db) {
    out.reset();
    Prepared up(db,
                "UPDATE alerts SET resolved_at = ?1 WHERE condition = ?2 AND endpoint = ?3 AND resolved_at IS NULL"
                " RETURNING id");
    up->bind(1, now_ms);
    up->bind(2, condition);
    up->bind(3, endpoint);
    if (!up->executeStep()) return;
    const int64_t id = up->getColumn(0).getInt64();
    out = FindIncident(db, id);
    // Muted: the rows are written as 'suppressed', so the record shows a
    // message was due and deliberately not sent.
    const bool muted = Muted(*out, now_ms);
    QueueRows(db, id, m.channels, "resolved", m.resolved_message, muted ? "suppressed" : "pending", now_ms);
    if (!muted && !m.channels.empty()) {
      MarkNotified(db, id, now_ms);
      out->last_notified_at_ms = now_ms;
    }
  });
  if (!st.ok()) return Prefixed("resolve incident", st);
  return out;
}

Result<std::vector<Incident>> SqlStore::ListIncidents(const IncidentQuery& q) {
  if (q.limit < 1 || q.limit > kMaxListed) {
    return InvalidArgument("list incidents: limit must be 1 to " + std::to_string(kMaxListed));
  }
  return WithReader<std::vector<Incident>>(
      *readers_, "list incidents", [&](sql::Connection& db) -> Result<std::vector<Incident>> {
        // Open ones first, newest first; then those resolved since the given time.
        Prepared st(db, std::string("SELECT ") + kIncidentColumns +
                            " FROM alerts WHERE resolved_at IS NULL OR (?1 = 0 AND resolved_at >= ?2)"
                            " ORDER BY CASE WHEN resolved_at IS NULL THEN 0 ELSE 1 END, opened_at DESC, id DESC"
                            " LIMIT ?3");
        st->bind(1, q.open_only ? 1 : 0);
        st->bind(2, q.resolved_since_ms);
        st->bind(3, q.limit);
        std::vector<Incident> out;
        while (st->executeStep()) out.push_back(ReadIncident(*st));
        return out;
      });
}

Result<std::optional<Incident>> SqlStore::GetIncident(int64_t id) {
  return WithReader<std::optional<Incident>>(
      *readers_, "get incident",
      [&](sql::Connection& db) -> Result<std::optional<Incident>> { return FindIncident(db, id); });
}

Result<std::vector<NotificationRecord>> SqlStore::NotificationsOf(int64_t alert_id) {
  return WithReader<std::vector<NotificationRecord>>(
      *readers_, "notifications of incident", [&](sql::Connection& db) -> Result<std::vector<NotificationRecord>> {
        Prepared st(db,
                    "SELECT id, alert_id, channel, kind, status, attempts, created_at, sent_at, last_error"
                    " FROM alert_notifications WHERE alert_id = ?1 ORDER BY id");
        st->bind(1, alert_id);
        std::vector<NotificationRecord> out;
        while (st->executeStep()) {
          NotificationRecord r;
          r.id = st->getColumn(0).getInt64();
          r.alert_id = OptTime(st->getColumn(1));
          r.channel = st->getColumn(2).getString();
          r.kind = st->getColumn(3).getString();
          r.status = st->getColumn(4).getString();
          r.attempts = st->getColumn(5).getInt();
          r.created_at_ms = st->getColumn(6).getInt64();
          r.sent_at_ms = OptTime(st->getColumn(7));
          r.last_error = Text(st->getColumn(8));
          out.push_back(std::move(r));
        }
        return out;
      });
}

Result<bool> SqlStore::AcknowledgeIncident(int64_t id, const std::string& actor, int64_t now_ms) {
  if (actor.empty()) return InvalidArgument("acknowledge incident: actor is missing");
  bool changed = false, found = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    changed = found = false;
    Prepared up(db, "UPDATE alerts SET acked_at = ?1, acked_by = ?2 WHERE id = ?3 AND acked_at IS NULL");
    up->bind(1, now_ms);
    up->bind(2, actor);
    up->bind(3, id);
    changed = up->exec() > 0;
    found = changed || FindIncident(db, id).has_value();
  });
  if (!st.ok()) return Prefixed("acknowledge incident", st);
  if (!found) return NotFoundIncident(id);
  return changed;
}

Status SqlStore::MuteIncident(int64_t id, int64_t until_ms, const std::string& actor, int64_t now_ms) {
  if (actor.empty()) return InvalidArgument("mute incident: actor is missing");
  if (until_ms != 0 && until_ms <= now_ms) return InvalidArgument("mute incident: the time to mute until has passed");
  bool found = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    Prepared up(db, "UPDATE alerts SET muted_until = ?1, muted_by = ?2 WHERE id = ?3");
    BindOptional(*up, 1, until_ms ? std::optional<int64_t>(until_ms) : std::nullopt);
    BindText(*up, 2, until_ms ? actor : std::string());
    up->bind(3, id);
    found = up->exec() > 0;
  });
  if (!st.ok()) return Prefixed("mute incident", st);
  return found ? Status::Ok() : NotFoundIncident(id);
}

Result<bool> SqlStore::QueueDigest(const std::string& day, const std::vector<std::string>& channels,
                                   const std::string& message, int64_t now_ms) {
  if (!IsDay(day)) return InvalidArgument("queue digest: day \"" + Bounded(day) + "\" is not YYYY-MM-DD");
  if (channels.empty()) return InvalidArgument("queue digest: no channel to send it to");
  for (const auto& c : channels) {
    if (Status st = CheckName("a channel name", c, false); !st.ok()) return Prefixed("queue digest", st);
  }
  bool queued = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    queued = false;
    Prepared ins(db,
                 "INSERT INTO alert_notifications (channel, kind, message, status, attempts, created_at,"
                 " next_attempt_at, digest_day) VALUES (?1, 'digest', ?2, 'pending', 0, ?3, ?3, ?4)"
                 " ON CONFLICT (digest_day, channel) DO NOTHING RETURNING id");
    for (const auto& channel : channels) {
      ins->reset();
      ins->bind(1, channel);
      ins->bind(2, message);
      ins->bind(3, now_ms);
      ins->bind(4, day);
      if (ins->executeStep()) queued = true;
    }
  });
  if (!st.ok()) return Prefixed("queue digest", st);
  return queued;
}

// One upsert decides under the write lock: inserted (free), or updated when
// `owner` already holds it or its lease has lapsed; otherwise the WHERE of
// DO UPDATE refuses and nothing is returned. Two replicas asking at once run
// one after the other, so exactly one leads.
Result<bool> SqlStore::HoldAlertLead(const std::string& owner, int64_t now_ms, int64_t lease_ms) {
  if (Status st = CheckName("owner", owner, false); !st.ok()) return Prefixed("hold alert lead", st);
  if (now_ms <= 0) return InvalidArgument("hold alert lead: now_ms is not a time");
  if (lease_ms <= 0) return InvalidArgument("hold alert lead: lease_ms must be positive");
  bool held = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    held = false;
    Prepared up(db,
                "INSERT INTO alert_lead (id, owner, lease_until) VALUES (1, ?1, ?2)"
                " ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until"
                " WHERE alert_lead.owner = excluded.owner OR alert_lead.lease_until <= ?3 RETURNING id");
    up->bind(1, owner);
    up->bind(2, now_ms + lease_ms);
    up->bind(3, now_ms);
    held = up->executeStep();
  });
  if (!st.ok()) return Prefixed("hold alert lead", st);
  return held;
}

Status SqlStore::ReleaseAlertLead(const std::string& owner) {
  if (Status st = CheckName("owner", owner, false); !st.ok()) return Prefixed("release alert lead", st);
  Status st = writer_->Submit([&](sql::Connection& db) {
    Prepared del(db, "DELETE FROM alert_lead WHERE owner = ?1");
    del->bind(1, owner);
    del->exec();
  });
  return st.ok() ? st : Prefixed("release alert lead", st);
}

Result<std::vector<PendingNotification>> SqlStore::LeaseNotifications(
    int limit, int64_t lease_ms, int64_t now_ms, const std::vector<std::string>& excluded_channels) {
  if (limit < 1 || limit > kMaxListed) {
    return InvalidArgument("lease notifications: limit must be 1 to " + std::to_string(kMaxListed));
  }
  if (lease_ms <= 0) return InvalidArgument("lease notifications: lease_ms must be positive");
  if (excluded_channels.size() > static_cast<size_t>(kMaxListed)) {
    return InvalidArgument("lease notifications: more than " + std::to_string(kMaxListed) + " excluded channels");
  }
  for (const auto& c : excluded_channels) {
    if (Status st = CheckName("an excluded channel name", c, false); !st.ok()) {
      return Prefixed("lease notifications", st);
    }
  }
  const std::string sql = LeaseSql(excluded_channels.size());
  std::vector<PendingNotification> out;
  Status st = writer_->Submit([&](sql::Connection& db) {
    out.clear();
    Prepared up(db, sql);
    up->bind(1, now_ms + lease_ms);
    up->bind(2, now_ms);
    up->bind(3, limit);
    for (size_t i = 0; i < excluded_channels.size(); ++i) up->bind(static_cast<int>(4 + i), excluded_channels[i]);
    while (up->executeStep()) {
      PendingNotification p;
      p.id = up->getColumn(0).getInt64();
      p.alert_id = OptTime(up->getColumn(1));
      p.channel = up->getColumn(2).getString();
      p.kind = up->getColumn(3).getString();
      p.message = up->getColumn(4).getString();
      p.attempts = up->getColumn(5).getInt();
      p.created_at_ms = up->getColumn(6).getInt64();
      p.lease_until_ms = up->getColumn(7).getInt64();
      out.push_back(std::move(p));
    }
  });
  if (!st.ok()) return Prefixed("lease notifications", st);
  // RETURNING promises no order: oldest first, as they were chosen.
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

Status SqlStore::FinishNotification(const PendingNotification& leased, bool sent, const std::string& error,
                                    std::optional<int64_t> retry_at_ms, int64_t now_ms) {
  enum class Found { kNo, kRecorded, kFinished, kTakenOver } found = Found::kNo;
  const std::string status = sent ? "sent" : (retry_at_ms ? "pending" : "failed");
  const int64_t id = leased.id;
  Status st = writer_->Submit([&](sql::Connection& db) {
    found = Found::kNo;
    // Only under the lease it was sent with: once that lapsed and another
    // sender leased the row, the outcome is that sender's to record.
    Prepared up(db,
                "UPDATE alert_notifications SET status = ?1, attempts = attempts + 1, lease_until = NULL,"
                " sent_at = ?2, next_attempt_at = coalesce(?3, next_attempt_at),"
                " last_error = coalesce(?4, last_error) WHERE id = ?5 AND status = 'pending' AND lease_until = ?6");
    up->bind(1, status);
    BindOptional(*up, 2, sent ? std::optional<int64_t>(now_ms) : std::nullopt);
    BindOptional(*up, 3, sent ? std::nullopt : retry_at_ms);
    BindText(*up, 4, Bounded(error));
    up->bind(5, id);
    up->bind(6, leased.lease_until_ms);
    if (up->exec() > 0) {
      found = Found::kRecorded;
      return;
    }
    Prepared any(db, "SELECT status FROM alert_notifications WHERE id = ?1");
    any->bind(1, id);
    if (any->executeStep()) found = any->getColumn(0).getString() == "pending" ? Found::kTakenOver : Found::kFinished;
  });
  if (!st.ok()) return Prefixed("finish notification", st);
  const std::string which = "finish notification: notification " + std::to_string(id);
  switch (found) {
    case Found::kNo:
      return NotFound(which + " not found");
    case Found::kFinished:
      return Status(Code::kConflict, which + " is no longer pending");
    case Found::kTakenOver:
      return Status(Code::kConflict, which + ": its lease lapsed and another sender holds it now");
    case Found::kRecorded:
      break;
  }
  return Status::Ok();
}

}  // namespace hookinbox::store
