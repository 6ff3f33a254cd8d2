#include "common/secret.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace hookinbox {

Secret::~Secret() {
  if (!bytes_.empty()) OPENSSL_cleanse(bytes_.data(), bytes_.size());
}

bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string RandomHex(size_t n_bytes) {
  std::string raw(n_bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(n_bytes)) != 1) {
    throw std::runtime_error("RAND_bytes failed");  // only when the OS has no entropy source
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(n_bytes * 2);
  for (unsigned char c : raw) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  OPENSSL_cleanse(raw.data(), raw.size());
  return out;
}

}  // namespace hookinbox
