// store/incidents.h — incidents and the notifications about them (schema.sql,
// tables alerts and alert_notifications): what the alert engine found wrong,
// since when, how often, who acknowledged or muted it, and every message sent
// about it with its outcome — in the .db an auditor downloads.
//
// Exactly once across replicas: at most one open incident per (condition,
// endpoint) (a unique partial index), and the notifications of a change are
// written in the same writer transaction as the change, so two replicas that
// observe the same condition open one incident and queue one message per
// channel. Sending is an outbox: any replica leases due rows
// (LeaseNotifications) and records the outcome; a lease that lapses (the
// sender died) is sent again by whoever leases next. The messages about one
// incident reach each channel in the order they were queued: a row waits
// while an older one for the same incident and channel is still pending.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::store {

struct Incident {
  int64_t id = 0;
  std::string condition;  // "dead_letters", "unknown", "conflicts", "backlog_age", "signature_failures",
                          // "silence", "breaker_open", "certificate_days", "disk_free", "database_size",
                          // "storage_failures"
  std::string endpoint;   // "" = the whole installation
  std::string summary;    // the latest one-line description (no payload, no secret)
  int64_t opened_at_ms = 0;
  int64_t last_seen_at_ms = 0;
  std::optional<int64_t> resolved_at_ms;
  int64_t observations = 0;  // how many checks found it
  int64_t count = 0;         // the condition's own figure, latest (dead letters, failures, seconds, …)
  std::optional<int64_t> acked_at_ms;
  std::string acked_by;
  std::optional<int64_t> muted_until_ms;
  std::optional<int64_t> last_notified_at_ms;
  bool open() const { return !resolved_at_ms.has_value(); }
};

// What one check found for one (condition, endpoint).
struct Observation {
  std::string condition;
  std::string endpoint;
  std::string summary;
  int64_t count = 0;
};

// The messages to queue when an incident starts, is reminded of, or resolves:
// one row per channel, `message` is alert::NotificationToJson of it (the store
// does not render; the engine passes the three in advance and the store picks).
struct PlannedMessages {
  std::vector<std::string> channels;
  std::string start_message, reminder_message, resolved_message;
  int64_t remind_every_ms = 0;  // 0 = no reminders
};

enum class IncidentChange { kNone, kOpened, kReminded, kResolved };

struct ObserveResult {
  Incident incident;
  IncidentChange change = IncidentChange::kNone;
};

struct IncidentQuery {
  bool open_only = true;
  int64_t resolved_since_ms = 0;  // with open_only = false: also incidents resolved since then
  int limit = 200;
};

struct PendingNotification {
  int64_t id = 0;
  std::optional<int64_t> alert_id;  // none for a digest or a test
  std::string channel;
  std::string kind;     // alert::NotificationKindName
  std::string message;  // JSON (alert/notification.h)
  int attempts = 0;     // attempts before this one
  int64_t created_at_ms = 0;
  int64_t lease_until_ms = 0;  // the lease it was handed out with (FinishNotification checks it)
};

struct NotificationRecord {
  int64_t id = 0;
  std::optional<int64_t> alert_id;
  std::string channel, kind;
  std::string status;  // "pending", "sent", "failed" (gave up), "suppressed" (muted)
  int attempts = 0;
  int64_t created_at_ms = 0;
  std::optional<int64_t> sent_at_ms;
  std::string last_error;
};

class Incidents {
 public:
  virtual ~Incidents() = default;

  // The condition holds now: opens an incident (queuing the start messages)
  // unless one is open for (condition, endpoint); otherwise updates it and,
  // when remind_every_ms has passed since the last message and it is neither
  // acknowledged nor muted, queues the reminder messages.
  virtual Result<ObserveResult> ObserveCondition(const Observation& o, const PlannedMessages& m, int64_t now_ms) = 0;
  // The condition no longer holds: resolves the open incident, if any
  // (queuing the resolved messages unless muted). nullopt when none was open.
  virtual Result<std::optional<Incident>> ResolveCondition(const std::string& condition, const std::string& endpoint,
                                                           const PlannedMessages& m, int64_t now_ms) = 0;
  virtual Result<std::vector<Incident>> ListIncidents(const IncidentQuery& q) = 0;
  virtual Result<std::optional<Incident>> GetIncident(int64_t id) = 0;
  virtual Result<std::vector<NotificationRecord>> NotificationsOf(int64_t alert_id) = 0;
  // false, changing nothing, when already acknowledged; NotFound for an unknown id.
  virtual Result<bool> AcknowledgeIncident(int64_t id, const std::string& actor, int64_t now_ms) = 0;
  // No message about it until `until_ms` (0 = unmute). NotFound for an unknown id.
  virtual Status MuteIncident(int64_t id, int64_t until_ms, const std::string& actor, int64_t now_ms) = 0;

  // A digest for `day` ("2026-12-02", the local day it covers), queued once per
  // channel: false when that day's digest was already queued (by any replica).
  virtual Result<bool> QueueDigest(const std::string& day, const std::vector<std::string>& channels,
                                   const std::string& message, int64_t now_ms) = 0;

  // The alert lead (table alert_lead): one replica at a time runs the alert
  // checks. Takes it for `owner` until now_ms + lease_ms when it is free or
  // its lease has lapsed, renews it when `owner` holds it; false, changing
  // nothing, while another owner's lease runs.
  virtual Result<bool> HoldAlertLead(const std::string& owner, int64_t now_ms, int64_t lease_ms) = 0;
  // Gives the lead up when `owner` holds it (a clean shutdown: another
  // replica, or this one restarted, takes it at once); otherwise nothing.
  virtual Status ReleaseAlertLead(const std::string& owner) = 0;

  // Outbox. Leases up to `limit` pending rows due at `now_ms` whose lease is
  // free or lapsed, for `lease_ms`, oldest first — except rows of a channel in
  // `excluded_channels` (the sender found it failing a moment ago) and rows
  // behind an older pending row for the same incident and channel (so a
  // "resolved" never overtakes its "started" while that one backs off).
  virtual Result<std::vector<PendingNotification>> LeaseNotifications(
      int limit, int64_t lease_ms, int64_t now_ms, const std::vector<std::string>& excluded_channels) = 0;
  // Records the outcome of sending `leased` (a row as LeaseNotifications
  // returned it). Sent: status 'sent'. Not sent: attempts+1 and, with a retry
  // time, pending again at it; without one, 'failed' (given up). Conflict,
  // changing nothing, when the row is no longer pending or its lease lapsed
  // and another sender leased it since (that sender records the outcome);
  // NotFound for an unknown id.
  virtual Status FinishNotification(const PendingNotification& leased, bool sent, const std::string& error,
                                    std::optional<int64_t> retry_at_ms, int64_t now_ms) = 0;
};

}  // namespace hookinbox::store
