// tests/support/openssl_hmac.h — HMAC straight from OpenSSL's one-shot API.
//
// Tests sign deliveries with this, never with src/verify/crypto, so a bug in
// our own HMAC cannot make a test agree with it.
#pragma once

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>
#include <string_view>

namespace hookinbox::testing {

// The raw MAC bytes of `data` under `key` with the digest `md` (EVP_sha256() …).
inline std::string OpensslHmac(const EVP_MD* md, std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(md, key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(),
       out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace hookinbox::testing
