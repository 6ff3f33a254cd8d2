#include "fakes.h"

#include <algorithm>

namespace hookinbox::testing {

store::Incident* FakeIncidents::Open(const std::string& condition, const std::string& endpoint) {
  for (auto& i : incidents_) {
    if (i.open() && i.condition == condition && i.endpoint == endpoint) return &i;
  }
  return nullptr;
}

void FakeIncidents::Queue(std::optional<int64_t> alert_id, const std::vector<std::string>& channels,
                          const std::string& kind, const std::string& message, int64_t now_ms) {
  for (const auto& c : channels) {
    FakeRow r;
    r.pending.id = static_cast<int64_t>(rows_.size()) + 1;
    r.pending.alert_id = alert_id;
    r.pending.channel = c;
    r.pending.kind = kind;
    r.pending.message = message;
    r.pending.created_at_ms = now_ms;
    r.due_at_ms = now_ms;
    rows_.push_back(r);
  }
}

void FakeIncidents::Write() {
  std::function<void()> hook;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++writes_;
    hook = on_write;
  }
  if (hook) hook();
}

Result<store::ObserveResult> FakeIncidents::ObserveCondition(const store::Observation& o,
                                                             const store::PlannedMessages& m, int64_t now_ms) {
  Write();
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_writes) return write_error;
  store::ObserveResult r;
  store::Incident* i = Open(o.condition, o.endpoint);
  if (i == nullptr) {
    store::Incident n;
    n.id = static_cast<int64_t>(incidents_.size()) + 1;
    n.condition = o.condition;
    n.endpoint = o.endpoint;
    n.opened_at_ms = now_ms;
    incidents_.push_back(n);
    i = &incidents_.back();
    i->last_notified_at_ms = now_ms;
    Queue(i->id, m.channels, "start", m.start_message, now_ms);
    r.change = store::IncidentChange::kOpened;
  } else {
    const bool muted = i->muted_until_ms && *i->muted_until_ms > now_ms;
    if (m.remind_every_ms > 0 && now_ms - i->last_notified_at_ms.value_or(i->opened_at_ms) >= m.remind_every_ms &&
        !i->acked_at_ms && !muted) {
      i->last_notified_at_ms = now_ms;
      Queue(i->id, m.channels, "reminder", m.reminder_message, now_ms);
      r.change = store::IncidentChange::kReminded;
    }
  }
  i->summary = o.summary;
  i->count = o.count;
  i->last_seen_at_ms = now_ms;
  ++i->observations;
  r.incident = *i;
  return r;
}

Result<std::optional<store::Incident>> FakeIncidents::ResolveCondition(const std::string& condition,
                                                                       const std::string& endpoint,
                                                                       const store::PlannedMessages& m, int64_t now_ms) {
  Write();
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_writes) return write_error;
  store::Incident* i = Open(condition, endpoint);
  if (i == nullptr) return std::optional<store::Incident>();
  i->resolved_at_ms = now_ms;
  if (!(i->muted_until_ms && *i->muted_until_ms > now_ms)) Queue(i->id, m.channels, "resolved", m.resolved_message, now_ms);
  return std::optional<store::Incident>(*i);
}

Result<std::vector<store::Incident>> FakeIncidents::ListIncidents(const store::IncidentQuery& q) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<store::Incident> out;
  for (const auto& i : incidents_) {
    if (i.open() || (!q.open_only && *i.resolved_at_ms >= q.resolved_since_ms)) out.push_back(i);
  }
  return out;
}

Result<std::optional<store::Incident>> FakeIncidents::GetIncident(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& i : incidents_) {
    if (i.id == id) return std::optional<store::Incident>(i);
  }
  return std::optional<store::Incident>();
}

Result<std::vector<store::NotificationRecord>> FakeIncidents::NotificationsOf(int64_t alert_id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<store::NotificationRecord> out;
  for (const auto& r : rows_) {
    if (r.pending.alert_id != alert_id) continue;
    out.push_back({r.pending.id, r.pending.alert_id, r.pending.channel, r.pending.kind, r.status, r.pending.attempts,
                   r.pending.created_at_ms, r.sent_at_ms, r.last_error});
  }
  return out;
}

Result<bool> FakeIncidents::AcknowledgeIncident(int64_t id, const std::string& actor, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& i : incidents_) {
    if (i.id != id) continue;
    if (i.acked_at_ms) return false;
    i.acked_at_ms = now_ms;
    i.acked_by = actor;
    return true;
  }
  return NotFound("no incident " + std::to_string(id));
}

Status FakeIncidents::MuteIncident(int64_t id, int64_t until_ms, const std::string&, int64_t) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& i : incidents_) {
    if (i.id != id) continue;
    i.muted_until_ms = until_ms == 0 ? std::nullopt : std::optional<int64_t>(until_ms);
    return Status::Ok();
  }
  return NotFound("no incident " + std::to_string(id));
}

Result<bool> FakeIncidents::QueueDigest(const std::string& day, const std::vector<std::string>& channels,
                                        const std::string& message, int64_t now_ms) {
  Write();
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_writes) return write_error;
  if (!digest_days_.insert(day).second) return false;
  Queue(std::nullopt, channels, "digest", message, now_ms);
  return true;
}

Result<bool> FakeIncidents::HoldAlertLead(const std::string& owner, int64_t now_ms, int64_t lease_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_lead) return Unavailable("fake: database is locked");
  if (!lead_owner_.empty() && lead_owner_ != owner && lead_until_ > now_ms) return false;
  lead_owner_ = owner;
  lead_until_ = now_ms + lease_ms;
  return true;
}

Status FakeIncidents::ReleaseAlertLead(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  if (lead_owner_ == owner) {
    lead_owner_.clear();
    lead_until_ = 0;
  }
  return Status::Ok();
}

Result<std::vector<store::PendingNotification>> FakeIncidents::LeaseNotifications(
    int limit, int64_t lease_ms, int64_t now_ms, const std::vector<std::string>& excluded_channels) {
  std::lock_guard<std::mutex> lock(mu_);
  lease_calls_.push_back({limit, lease_ms, excluded_channels});
  // Due rows oldest first (the fake's rows are queued with due = created).
  std::vector<FakeRow*> due;
  for (auto& r : rows_) {
    if (r.status != "pending" || r.due_at_ms > now_ms || r.lease_until_ms > now_ms) continue;
    if (std::find(excluded_channels.begin(), excluded_channels.end(), r.pending.channel) != excluded_channels.end()) {
      continue;
    }
    // Behind an older pending row about the same incident for the same channel.
    const bool behind = r.pending.alert_id && std::any_of(rows_.begin(), rows_.end(), [&](const FakeRow& o) {
                          return o.pending.id < r.pending.id && o.status == "pending" &&
                                 o.pending.alert_id == r.pending.alert_id && o.pending.channel == r.pending.channel;
                        });
    if (!behind) due.push_back(&r);
  }
  std::stable_sort(due.begin(), due.end(),
                   [](const FakeRow* a, const FakeRow* b) { return a->due_at_ms < b->due_at_ms; });
  std::vector<store::PendingNotification> out;
  for (FakeRow* r : due) {
    if (static_cast<int>(out.size()) >= limit) break;
    r->lease_until_ms = now_ms + lease_ms;
    r->pending.lease_until_ms = r->lease_until_ms;
    out.push_back(r->pending);
  }
  return out;
}

Status FakeIncidents::FinishNotification(const store::PendingNotification& leased, bool sent,
                                         const std::string& error, std::optional<int64_t> retry_at_ms,
                                         int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_finish) return Unavailable("fake: finish fails");
  for (auto& r : rows_) {
    if (r.pending.id != leased.id) continue;
    if (r.status != "pending") return Status(Code::kConflict, "fake: no longer pending");
    if (r.lease_until_ms != leased.lease_until_ms) return Status(Code::kConflict, "fake: leased by another sender");
    r.lease_until_ms = 0;
    r.pending.lease_until_ms = 0;
    ++r.pending.attempts;
    if (sent) {
      r.status = "sent";
      r.sent_at_ms = now_ms;
    } else {
      r.last_error = error;
      if (retry_at_ms) {
        r.due_at_ms = *retry_at_ms;
      } else {
        r.status = "failed";
      }
    }
    return Status::Ok();
  }
  return NotFound("no notification " + std::to_string(leased.id));
}

std::vector<FakeIncidents::LeaseCall> FakeIncidents::LeaseCalls() {
  std::lock_guard<std::mutex> lock(mu_);
  return lease_calls_;
}

std::vector<FakeRow> FakeIncidents::Rows() {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_;
}

std::vector<std::string> FakeIncidents::Kinds() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& r : rows_) {
    std::string what;
    for (const auto& i : incidents_) {
      if (r.pending.alert_id == i.id) what = ":" + i.condition + ":" + i.endpoint;
    }
    out.push_back(r.pending.kind + what + "@" + r.pending.channel);
  }
  return out;
}

int FakeIncidents::writes() {
  std::lock_guard<std::mutex> lock(mu_);
  return writes_;
}

std::string FakeIncidents::lead_owner() {
  std::lock_guard<std::mutex> lock(mu_);
  return lead_owner_;
}

int64_t FakeIncidents::lead_until() {
  std::lock_guard<std::mutex> lock(mu_);
  return lead_until_;
}

std::vector<store::Incident> FakeIncidents::All() {
  std::lock_guard<std::mutex> lock(mu_);
  return incidents_;
}

Result<std::vector<store::EndpointSignals>> FakeSignals::ReadEndpointSignals(const store::SignalQuery& q) {
  if (fail) return Unavailable("fake: database is locked");
  last_query = q;
  std::vector<store::EndpointSignals> out;
  for (const auto& name : q.endpoints) {
    store::EndpointSignals s;
    if (auto it = endpoints.find(name); it != endpoints.end()) s = it->second;
    s.endpoint = name;
    out.push_back(s);
  }
  return out;
}

Result<store::InstallationSignals> FakeSignals::ReadInstallationSignals() {
  if (fail) return Unavailable("fake: database is locked");
  return installation;
}

Result<store::DayFigures> FakeSignals::ReadDayFigures(int64_t from_ms, int64_t to_ms) {
  if (fail) return Unavailable("fake: database is locked");
  day_from_ms = from_ms;
  day_to_ms = to_ms;
  return day;
}

Status FakeChannel::Send(const alert::Notification& n) {
  if (on_send) on_send();
  std::unique_lock<std::mutex> lock(mu_);
  ++calls_;
  in_send_ = true;
  cv_.notify_all();
  cv_.wait(lock, [this] { return !block_; });
  in_send_ = false;
  if (status_.ok()) sent_.push_back(n);
  return status_;
}

void FakeChannel::SetStatus(Status s) {
  std::lock_guard<std::mutex> lock(mu_);
  status_ = std::move(s);
}

void FakeChannel::Block() {
  std::lock_guard<std::mutex> lock(mu_);
  block_ = true;
}

void FakeChannel::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  block_ = false;
  cv_.notify_all();
}

bool FakeChannel::InSend() {
  std::lock_guard<std::mutex> lock(mu_);
  return in_send_;
}

std::vector<alert::Notification> FakeChannel::Sent() {
  std::lock_guard<std::mutex> lock(mu_);
  return sent_;
}

int FakeChannel::calls() {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

}  // namespace hookinbox::testing
