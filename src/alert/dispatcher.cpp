// alert/dispatcher.cpp — the outbox loop: lease, send, record.
#include "alert/dispatcher.h"

#include <algorithm>

#include "common/log.h"

namespace hookinbox::alert {

std::optional<int64_t> NextTryAt(const DispatcherOptions& o, int attempts, int64_t created_at_ms, int64_t now_ms) {
  int64_t wait = o.first_retry_ms;
  for (int i = 1; i < attempts && wait < o.max_retry_ms; ++i) wait *= 2;
  wait = std::min(wait, o.max_retry_ms);
  if (now_ms + wait - created_at_ms > o.give_up_after_ms) return std::nullopt;
  return now_ms + wait;
}

int64_t LeaseMsFor(const DispatcherOptions& o, int max_timeout_seconds) {
  return std::max(o.min_lease_ms, 3 * int64_t{max_timeout_seconds} * 1000 + 60 * 1000);
}

Dispatcher::Dispatcher(store::Incidents& incidents, std::vector<std::unique_ptr<Channel>> channels, const Clock& clock,
                       DispatcherOptions options)
    : incidents_(incidents), clock_(clock), options_(options) {
  SetChannels(std::move(channels));
}

Dispatcher::~Dispatcher() { Stop(); }

void Dispatcher::SetChannels(std::vector<std::unique_ptr<Channel>> channels) {
  std::vector<std::shared_ptr<Channel>> shared;
  int slowest = 0;
  for (auto& c : channels) {
    slowest = std::max(slowest, c->timeout_seconds());
    shared.push_back(std::move(c));
  }
  std::lock_guard<std::mutex> lock(mu_);
  channels_ = std::move(shared);
  lease_ms_ = LeaseMsFor(options_, slowest);
}

int64_t Dispatcher::LeaseMs() {
  std::lock_guard<std::mutex> lock(mu_);
  return lease_ms_;
}

std::shared_ptr<Channel> Dispatcher::FindChannel(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& c : channels_) {
    if (c->name() == name) return c;
  }
  return nullptr;
}

bool Dispatcher::SendFailed(const store::PendingNotification& row) {
  const int64_t incident = row.alert_id.value_or(0);
  std::shared_ptr<Channel> channel = FindChannel(row.channel);
  Status sent = Status::Ok();
  auto message = NotificationFromJson(row.message);
  if (channel == nullptr) {
    sent = NotFound("no channel named '" + row.channel + "' in the configuration");
  } else if (!message.ok()) {
    sent = Internal("stored message unreadable: " + message.status().message());
  } else {
    message->incident_id = incident;  // known only once the store wrote the incident
    sent = channel->Send(*message);
  }
  const int64_t now = clock_.NowMs();
  if (sent.ok()) {
    log::Info("alert_sent", {{"channel", row.channel}, {"kind", row.kind}, {"incident", incident}});
    Record(row, true, "", std::nullopt, now);
    return false;
  }
  // A missing channel or an unreadable message will not get better by waiting.
  const bool permanent = channel == nullptr || !message.ok();
  const auto retry = permanent ? std::nullopt : NextTryAt(options_, row.attempts + 1, row.created_at_ms, now);
  log::Warn("alert_send_failed", {{"channel", row.channel}, {"kind", row.kind}, {"incident", incident},
                                  {"reason", sent.message()}, {"attempts", row.attempts + 1},
                                  {"gave_up", retry ? "false" : "true"}});
  Record(row, false, sent.message(), retry, now);
  return !permanent;
}

void Dispatcher::Record(const store::PendingNotification& row, bool sent, const std::string& error,
                        std::optional<int64_t> retry_at_ms, int64_t now_ms) {
  Status st = incidents_.FinishNotification(row, sent, error, retry_at_ms, now_ms);
  if (!st.ok()) {
    log::Error("alert_record_failed", {{"notification", row.id}, {"channel", row.channel}, {"kind", row.kind},
                                       {"sent", sent ? "true" : "false"}, {"error", st.message()}});
  }
}

int Dispatcher::RunOnce() {
  int handled = 0;
  std::vector<std::string> failing;  // channels that failed in this pass: their rows wait for the next
  // At shutdown only the send in progress is waited for: nothing more is
  // leased, and a row leased and not recorded (a crash) is taken by the next
  // sender once its lease lapses.
  while (!Stopping()) {
    // One row at a time: a lease covers one send, never a queue of them.
    auto rows = incidents_.LeaseNotifications(1, LeaseMs(), clock_.NowMs(), failing);
    if (!rows.ok()) {
      log::Warn("alert_lease_failed", {{"error", rows.status().message()}});
      return handled;
    }
    if (rows->empty()) return handled;
    const store::PendingNotification& row = rows->front();
    if (SendFailed(row)) failing.push_back(row.channel);
    ++handled;
  }
  return handled;
}

bool Dispatcher::Stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

void Dispatcher::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

void Dispatcher::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
  }
  thread_ = std::thread([this] { Run(); });
}

void Dispatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Dispatcher::Run() {
  for (;;) {
    RunOnce();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(options_.idle_poll_ms), [this] { return stop_ || woken_; });
    woken_ = false;
    if (stop_) return;
  }
}

}  // namespace hookinbox::alert
