// common/secret.h — holding and comparing secrets.
//
// A Secret never prints itself: there is no operator<< and no implicit
// conversion to string, so a secret cannot reach a log line by accident.
// Every comparison against attacker-supplied bytes goes through
// ConstantTimeEqual (CRYPTO_memcmp), whose running time does not depend on
// where the first differing byte is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace hookinbox {

class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string bytes) : bytes_(std::move(bytes)) {}
  // A secret accepted only while now < valid_until_ms (a rotated-out one,
  // config/rotation.h); 0 = no end.
  Secret(std::string bytes, int64_t valid_until_ms) : bytes_(std::move(bytes)), valid_until_ms_(valid_until_ms) {}
  ~Secret();  // wipes the bytes
  Secret(const Secret&) = default;
  Secret& operator=(const Secret&) = default;
  Secret(Secret&&) = default;
  Secret& operator=(Secret&&) = default;

  // The raw key bytes, for HMAC and comparisons only.
  std::string_view bytes() const { return bytes_; }
  bool empty() const { return bytes_.empty(); }
  int64_t valid_until_ms() const { return valid_until_ms_; }
  bool ValidAt(int64_t now_ms) const { return valid_until_ms_ == 0 || now_ms < valid_until_ms_; }
  // Same bytes (constant time) and end, so the config structs holding secrets can
  // default their == (config/reload.h compares the config in force with a new one).
  bool operator==(const Secret& other) const;

 private:
  std::string bytes_;
  int64_t valid_until_ms_ = 0;
};

// True when a and b are equal. Takes time proportional to their length only;
// a length mismatch returns false without revealing where they differ.
bool ConstantTimeEqual(std::string_view a, std::string_view b);

// Cryptographically random bytes from OpenSSL, as lowercase hex (2*n chars).
std::string RandomHex(size_t n_bytes);

}  // namespace hookinbox
