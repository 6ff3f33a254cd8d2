// http/admission.h — who may open one more connection: a total cap and a cap per address.
//
// Why: an accepted socket costs a file descriptor and, once it speaks, a
// connection thread. Without caps, one client with a few hundred idle sockets
// queues every other client behind them (measured: 300 idle sockets from one
// host delayed /healthz from another by 39 s). The listener asks here at
// accept time, before any thread or byte is spent on the socket.
//
// An address is an IPv4 address, or an IPv6 /64 (one host usually holds a
// whole /64, so per-address caps on full IPv6 addresses would be no cap).
// IPv4-mapped IPv6 addresses count as their IPv4 address.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace hookinbox::http {

// The address a per-address cap counts: "203.0.113.7", "2001:db8:1:2::/64";
// the text itself when it is not an IP address.
std::string AddressKey(const std::string& address);

class Admission {
 public:
  enum class Verdict { kAdmitted, kTotalFull, kAddressFull };

  Admission(int max_total, int max_per_address) : max_total_(max_total), max_per_address_(max_per_address) {}

  // Counts one more connection from `key` (an AddressKey) when both caps allow.
  Verdict Admit(const std::string& key);
  // Forgets one admitted connection from `key`.
  void Release(const std::string& key);

  int open() const;
  int open_from(const std::string& key) const;

 private:
  const int max_total_;
  const int max_per_address_;
  mutable std::mutex mu_;
  int open_ = 0;                                  // guarded by mu_
  std::unordered_map<std::string, int> by_key_;  // guarded by mu_
};

const char* VerdictName(Admission::Verdict verdict);

}  // namespace hookinbox::http
