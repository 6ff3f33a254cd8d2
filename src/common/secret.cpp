#include "common/secret.h"

#include "common/encoding.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace hookinbox {

Secret::~Secret() {
  if (!bytes_.empty()) OPENSSL_cleanse(bytes_.data(), bytes_.size());
}

bool Secret::operator==(const Secret& other) const {
  return valid_until_ms_ == other.valid_until_ms_ && ConstantTimeEqual(bytes_, other.bytes_);
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
  std::string out = HexEncode(raw);
  OPENSSL_cleanse(raw.data(), raw.size());
  return out;
}

}  // namespace hookinbox
