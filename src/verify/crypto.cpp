// Digests and MACs through OpenSSL's one-shot EVP/HMAC calls, plus hand-written
// hex and base64 codecs. The codecs are ours rather than OpenSSL's EVP_Decode*
// because those accept whitespace and do not accept the URL-safe alphabet or
// missing padding, and we want exactly one definition of "well-formed".
#include "verify/crypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>

namespace hookinbox::verify {

namespace {

const EVP_MD* Md(HashAlg alg) {
  switch (alg) {
    case HashAlg::kSha1:
      return EVP_sha1();
    case HashAlg::kSha256:
      return EVP_sha256();
    case HashAlg::kSha512:
      return EVP_sha512();
  }
  return EVP_sha256();
}

// OpenSSL treats a null key pointer as "no key"; an empty key must still be a key.
const unsigned char* Bytes(std::string_view s) {
  static const unsigned char kEmpty = 0;
  return s.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

std::optional<HashAlg> ParseHashAlg(std::string_view name) {
  if (name == "sha1") return HashAlg::kSha1;
  if (name == "sha256") return HashAlg::kSha256;
  if (name == "sha512") return HashAlg::kSha512;
  return std::nullopt;
}

std::string Hmac(HashAlg alg, std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int len = 0;
  if (HMAC(Md(alg), Bytes(key), static_cast<int>(key.size()), Bytes(data), data.size(), out.data(), &len) == nullptr) {
    // Only on allocation failure or a broken OpenSSL install; nothing a caller can handle.
    throw std::runtime_error("HMAC failed");
  }
  return std::string(reinterpret_cast<const char*>(out.data()), len);
}

// Bitwise, reflected polynomial 0xEDB88320: a body is hashed once per
// delivery, so a table would buy nothing worth its 1 KiB.
uint32_t Crc32(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}





}  // namespace hookinbox::verify
