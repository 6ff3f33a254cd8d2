// cli/rotation_watch.h — records the end of a secret rotation's window.
//
// The verifier stops accepting a rotated-out secret at its end by itself
// (verify::Verify compares per request); this only writes the audit row
// that says so ('secret_retired', actor "serve:<host>", store/endpoint_states.h),
// at the end or at the first start after it. RecordSecretRetired writes it
// only after a 'secret_rotated', so restarts and replicas record one end
// per rotation. One thread, asleep while no window is open.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "common/clock.h"
#include "config/config.h"
#include "store/endpoint_states.h"

namespace hookinbox::cli {

class RotationWatch {
 public:
  RotationWatch(store::EndpointStates& audit, const Clock& clock);
  ~RotationWatch();  // stops and joins
  RotationWatch(const RotationWatch&) = delete;
  RotationWatch& operator=(const RotationWatch&) = delete;

  // Watches the windows of `config` (the secrets with an end) instead of
  // those watched before: at start and after each reload.
  void Watch(const config::Config& config);

 private:
  void Run();
  // Records the ends that have passed; those whose row could not be written stay.
  void RecordPassed(std::unique_lock<std::mutex>& lock);

  store::EndpointStates& audit_;
  const Clock& clock_;
  const std::string actor_;  // "serve:<host>"
  std::mutex mu_;
  std::condition_variable wake_;
  std::map<std::string, int64_t> ends_;  // endpoint → its previous secret's end (ms)
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace hookinbox::cli
