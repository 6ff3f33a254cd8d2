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

Dispatcher::Dispatcher(store::Incidents& incidents, std::vector<std::unique_ptr<Channel>> channels, const Clock& clock,
                       DispatcherOptions options)
    : incidents_(incidents), clock_(clock), options_(options) {
  SetChannels(std::move(channels));
}

Dispatcher::~Dispatcher() { Stop(); }

void Dispatcher::SetChannels(std::vector<std::unique_ptr<Channel>> channels) {
  std::vector<std::shared_ptr<Channel>> shared;
  for (auto& c : channels) shared.push_back(std::move(c));
  std::lock_guard<std::mutex> lock(mu_);
  channels_ = std::move(shared);
}

std::shared_ptr<Channel> Dispatcher::FindChannel(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& c : channels_) {
    if (c->name() == name) return c;
  }
  return nullptr;
}

void Dispatcher::Send(const store::PendingNotification& row) {
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
    incidents_.FinishNotification(row.id, true, "", std::nullopt, now);
    return;
  }
  // A missing channel or an unreadable message will not get better by waiting.
  const bool permanent = channel == nullptr || !message.ok();
  const auto retry = permanent ? std::nullopt : NextTryAt(options_, row.attempts + 1, row.created_at_ms, now);
  log::Warn("alert_send_failed", {{"channel", row.channel}, {"kind", row.kind}, {"incident", incident},
                                  {"reason", sent.message()}, {"attempts", row.attempts + 1},
                                  {"gave_up", retry ? "false" : "true"}});
  Status st = incidents_.FinishNotification(row.id, false, sent.message(), retry, now);
  if (!st.ok()) log::Error("alert_record_failed", {{"notification", row.id}, {"error", st.message()}});
}

int Dispatcher::RunOnce() {
  int handled = 0;
  for (;;) {
    auto rows = incidents_.LeaseNotifications(options_.batch, options_.lease_ms, clock_.NowMs());
    if (!rows.ok()) {
      log::Warn("alert_lease_failed", {{"error", rows.status().message()}});
      return handled;
    }
    if (rows->empty()) return handled;
    for (const auto& row : *rows) {
      // At shutdown only the send in progress is waited for (one channel
      // timeout): the rows not reached stay leased, and the next sender
      // (after a restart, or another replica) takes them once the lease lapses.
      if (Stopping()) return handled;
      Send(row);
      ++handled;
    }
  }
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
