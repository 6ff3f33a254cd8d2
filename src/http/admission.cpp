#include "http/admission.h"

#include <arpa/inet.h>

#include <cstring>

namespace hookinbox::http {

std::string AddressKey(const std::string& address) {
  in6_addr v6{};
  if (::inet_pton(AF_INET6, address.c_str(), &v6) != 1) return address;  // IPv4, or not an address
  char text[INET6_ADDRSTRLEN] = {0};
  if (IN6_IS_ADDR_V4MAPPED(&v6)) {
    ::inet_ntop(AF_INET, &v6.s6_addr[12], text, sizeof text);
    return text;
  }
  std::memset(&v6.s6_addr[8], 0, 8);
  ::inet_ntop(AF_INET6, &v6, text, sizeof text);
  return std::string(text) + "/64";
}

Admission::Verdict Admission::Admit(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_ >= max_total_) return Verdict::kTotalFull;
  int& from = by_key_[key];
  if (from >= max_per_address_) return Verdict::kAddressFull;
  ++from;
  ++open_;
  return Verdict::kAdmitted;
}

void Admission::Release(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  --open_;
  if (--it->second <= 0) by_key_.erase(it);
}

int Admission::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

int Admission::open_from(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(key);
  return it == by_key_.end() ? 0 : it->second;
}

const char* VerdictName(Admission::Verdict verdict) {
  switch (verdict) {
    case Admission::Verdict::kAdmitted: return "admitted";
    case Admission::Verdict::kTotalFull: return "max_connections";
    case Admission::Verdict::kAddressFull: return "max_connections_per_address";
  }
  return "unknown";
}

}  // namespace hookinbox::http
