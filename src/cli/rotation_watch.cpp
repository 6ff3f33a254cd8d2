#include "cli/rotation_watch.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "common/log.h"

namespace hookinbox::cli {
namespace {

// Woken at least this often while a window is open: Clock may be stepped
// (NTP, a test's fake clock), so a single long sleep could overshoot.
constexpr int64_t kMaxSleepMs = 1000;
// After a failed write (database busy or down), try again after this long.
constexpr int64_t kRetryMs = 5000;

void AddEnds(const std::string& endpoint, const std::vector<Secret>& secrets, std::map<std::string, int64_t>& ends) {
  for (const Secret& s : secrets) {
    if (s.valid_until_ms() != 0) ends[endpoint] = std::max(ends[endpoint], s.valid_until_ms());
  }
}

// "serve:<host>": on PostgreSQL, which replica saw the window end.
std::string ServeActor() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string("serve:") + (host[0] != '\0' ? host : "unknown-host");
}

}  // namespace

RotationWatch::RotationWatch(store::EndpointStates& audit, const Clock& clock)
    : audit_(audit), clock_(clock), actor_(ServeActor()), thread_([this] { Run(); }) {}

RotationWatch::~RotationWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RotationWatch::Watch(const config::Config& config) {
  std::map<std::string, int64_t> ends;
  for (const config::EndpointConfig& e : config.endpoints) AddEnds(e.name, e.secrets, ends);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ends_ = std::move(ends);
  }
  wake_.notify_all();
}

void RotationWatch::RecordPassed(std::unique_lock<std::mutex>& lock) {
  const int64_t now = clock_.NowMs();
  std::vector<std::pair<std::string, int64_t>> passed;
  for (const auto& [endpoint, end] : ends_) {
    if (end <= now) passed.emplace_back(endpoint, end);
  }
  if (passed.empty()) return;
  lock.unlock();  // a write may wait for the database; Watch must not
  std::vector<std::string> done;
  for (const auto& [endpoint, end] : passed) {
    auto wrote = audit_.RecordSecretRetired(endpoint, actor_, "the previous secret's window ended at " + FormatUtc(end),
                                            now, /*only_after_rotation=*/true);
    if (!wrote.ok()) {
      log::Warn("secret_retired_not_recorded", {{"endpoint", endpoint}, {"detail", wrote.status().message()}});
      continue;
    }
    if (*wrote) log::Info("secret_window_ended", {{"endpoint", endpoint}, {"ended_at", FormatUtc(end)}});
    done.push_back(endpoint);
  }
  lock.lock();
  for (const auto& [endpoint, end] : passed) {
    // Only what was recorded, and only if a reload did not bring a new end meanwhile.
    auto it = ends_.find(endpoint);
    bool recorded = std::find(done.begin(), done.end(), endpoint) != done.end();
    if (recorded && it != ends_.end() && it->second == end) ends_.erase(it);
  }
}

void RotationWatch::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const size_t before = ends_.size();
    RecordPassed(lock);
    if (stop_) break;
    if (ends_.empty()) {
      wake_.wait(lock);
      continue;
    }
    int64_t next =
        std::min_element(ends_.begin(), ends_.end(), [](auto& a, auto& b) { return a.second < b.second; })->second;
    int64_t sleep_ms = std::clamp<int64_t>(next - clock_.NowMs(), 1, kMaxSleepMs);
    // An end already passed and still here: its row could not be written.
    if (next <= clock_.NowMs() && ends_.size() == before) sleep_ms = kRetryMs;
    wake_.wait_for(lock, std::chrono::milliseconds(sleep_ms));
  }
}

}  // namespace hookinbox::cli
