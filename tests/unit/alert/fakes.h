// In-memory stand-ins for the alert engine's collaborators, following the
// documented semantics of store/incidents.h, store/alert_signals.h and
// alert/channel.h, so the engine, dispatcher and digest are tested without a
// database or a network.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <thread>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "alert/channel.h"
#include "store/alert_signals.h"
#include "store/incidents.h"

namespace hookinbox::testing {

// Polls `condition` for up to 10 s; true when it held.
template <typename F>
bool PollUntilTrue(F condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

struct FakeRow {
  store::PendingNotification pending;
  std::string status = "pending";
  int64_t due_at_ms = 0;
  int64_t lease_until_ms = 0;
  std::optional<int64_t> sent_at_ms;
  std::string last_error;
};

class FakeIncidents final : public store::Incidents {
 public:
  Result<store::ObserveResult> ObserveCondition(const store::Observation& o, const store::PlannedMessages& m,
                                                int64_t now_ms) override;
  Result<std::optional<store::Incident>> ResolveCondition(const std::string& condition, const std::string& endpoint,
                                                          const store::PlannedMessages& m, int64_t now_ms) override;
  Result<std::vector<store::Incident>> ListIncidents(const store::IncidentQuery& q) override;
  Result<std::optional<store::Incident>> GetIncident(int64_t id) override;
  Result<std::vector<store::NotificationRecord>> NotificationsOf(int64_t alert_id) override;
  Result<bool> AcknowledgeIncident(int64_t id, const std::string& actor, int64_t now_ms) override;
  Status MuteIncident(int64_t id, int64_t until_ms, const std::string& actor, int64_t now_ms) override;
  Result<bool> QueueDigest(const std::string& day, const std::vector<std::string>& channels,
                           const std::string& message, int64_t now_ms) override;
  Result<bool> HoldAlertLead(const std::string& owner, int64_t now_ms, int64_t lease_ms) override;
  Status ReleaseAlertLead(const std::string& owner) override;
  Result<std::vector<store::PendingNotification>> LeaseNotifications(
      int limit, int64_t lease_ms, int64_t now_ms, const std::vector<std::string>& excluded_channels) override;
  Status FinishNotification(const store::PendingNotification& leased, bool sent, const std::string& error,
                            std::optional<int64_t> retry_at_ms, int64_t now_ms) override;

  // Test views.
  std::vector<FakeRow> Rows();                   // every outbox row, in queue order
  std::vector<std::string> Kinds();              // "start:dead_letters:payments@ops" per row
  std::vector<store::Incident> All();
  bool fail_writes = false;  // every incident or digest write answers write_error
  Status write_error = Unavailable("fake: database is locked");
  bool fail_lead = false;    // HoldAlertLead answers Unavailable
  // Called (without the fake's lock) at the start of every incident or digest write.
  std::function<void()> on_write;
  int writes();              // incident and digest writes tried (not the lead's)
  std::string lead_owner();  // who holds the lead ("" = nobody yet)
  int64_t lead_until();
  bool fail_finish = false;  // FinishNotification answers Unavailable, changing nothing
  struct LeaseCall {
    int limit = 0;
    int64_t lease_ms = 0;
    std::vector<std::string> excluded_channels;
  };
  std::vector<LeaseCall> LeaseCalls();  // every LeaseNotifications call, in order

 private:
  void Queue(std::optional<int64_t> alert_id, const std::vector<std::string>& channels, const std::string& kind,
             const std::string& message, int64_t now_ms);
  store::Incident* Open(const std::string& condition, const std::string& endpoint);
  void Write();  // counts a write and calls on_write


  std::mutex mu_;
  std::vector<store::Incident> incidents_;
  std::vector<FakeRow> rows_;
  std::set<std::string> digest_days_;
  int writes_ = 0;
  std::string lead_owner_;
  int64_t lead_until_ = 0;
  std::vector<LeaseCall> lease_calls_;
};

// Figures a test sets by hand.
class FakeSignals final : public store::AlertSignals {
 public:
  Result<std::vector<store::EndpointSignals>> ReadEndpointSignals(const store::SignalQuery& q) override;
  Result<store::InstallationSignals> ReadInstallationSignals() override;
  Result<store::DayFigures> ReadDayFigures(int64_t from_ms, int64_t to_ms) override;

  std::map<std::string, store::EndpointSignals> endpoints;  // by endpoint name; missing = all zero
  store::InstallationSignals installation{1 << 20, int64_t{100} << 30};
  store::DayFigures day;
  bool fail = false;
  store::SignalQuery last_query;
  int64_t day_from_ms = 0, day_to_ms = 0;
};

// A channel that records what it was given, answers `status`, and when
// `block` is set waits in Send until Release(). `on_send`, when set, runs
// inside Send (what happens elsewhere while a send takes long).
class FakeChannel final : public alert::Channel {
 public:
  explicit FakeChannel(std::string name, int timeout_seconds = 10)
      : name_(std::move(name)), timeout_seconds_(timeout_seconds) {}
  const std::string& name() const override { return name_; }
  int timeout_seconds() const override { return timeout_seconds_; }
  Status Send(const alert::Notification& n) override;

  void SetStatus(Status s);
  void Block();
  void Release();
  bool InSend();
  std::vector<alert::Notification> Sent();
  int calls();
  std::function<void()> on_send;  // set before the dispatcher runs

 private:
  std::string name_;
  int timeout_seconds_;
  std::mutex mu_;
  std::condition_variable cv_;
  Status status_ = Status::Ok();
  bool block_ = false, in_send_ = false;
  int calls_ = 0;
  std::vector<alert::Notification> sent_;
};

}  // namespace hookinbox::testing
