// Digests and MACs through OpenSSL's one-shot EVP/HMAC calls, plus hand-written
// hex and base64 codecs. The codecs are ours rather than OpenSSL's EVP_Decode*
// because those accept whitespace and do not accept the URL-safe alphabet or
// missing padding, and we want exactly one definition of "well-formed".
#include "verify/crypto.h"

#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

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
    case HashAlg::kMd5:
      return EVP_md5();
  }
  return EVP_sha256();
}

// OpenSSL treats a null key pointer as "no key"; an empty key must still be a key.
const unsigned char* Bytes(std::string_view s) {
  static const unsigned char kEmpty = 0;
  return s.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

std::optional<HashAlg> ParseDigestAlg(std::string_view name) {
  constexpr std::string_view kSuffix = "-digest";
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) return std::nullopt;
  return ParseHashAlg(name.substr(0, name.size() - kSuffix.size()));
}

std::string Digest(HashAlg alg, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out, &len, Md(alg), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest failed");
  }
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::optional<HashAlg> ParseHashAlg(std::string_view name) {
  if (name == "sha1") return HashAlg::kSha1;
  if (name == "sha256") return HashAlg::kSha256;
  if (name == "sha512") return HashAlg::kSha512;
  if (name == "md5") return HashAlg::kMd5;
  return std::nullopt;
}

namespace {

// One HMAC context per thread and digest, kept for the thread's life. The
// one-shot HMAC() of OpenSSL 3 looks the MAC and the digest up by name in
// the provider store (under its lock) on every call; here that happens once
// per thread, and each MAC only re-keys the context.
class HmacContexts {
 public:
  ~HmacContexts() {
    for (EVP_MAC_CTX* ctx : contexts_) EVP_MAC_CTX_free(ctx);
  }
  // A context keyed with `key`, ready for updates; nullptr on failure.
  EVP_MAC_CTX* Keyed(HashAlg alg, std::string_view key) {
    EVP_MAC_CTX*& ctx = contexts_[static_cast<size_t>(alg)];
    const unsigned char* k = Bytes(key);
    if (ctx == nullptr) {
      static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
      if (mac == nullptr || (ctx = EVP_MAC_CTX_new(mac)) == nullptr) return nullptr;
      // The digest is chosen once; later inits keep it and change only the key.
      char* digest = const_cast<char*>(EVP_MD_get0_name(Md(alg)));
      const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
      if (EVP_MAC_init(ctx, k, key.size(), params) != 1) return nullptr;
      return ctx;
    }
    return EVP_MAC_init(ctx, k, key.size(), nullptr) == 1 ? ctx : nullptr;
  }

 private:
  std::array<EVP_MAC_CTX*, 4> contexts_{};  // by HashAlg
};

}  // namespace

std::string Hmac(HashAlg alg, std::string_view key, std::string_view data) {
  thread_local HmacContexts contexts;
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  size_t len = 0;
  EVP_MAC_CTX* ctx = contexts.Keyed(alg, key);
  if (ctx == nullptr || EVP_MAC_update(ctx, Bytes(data), data.size()) != 1 ||
      EVP_MAC_final(ctx, out.data(), &len, out.size()) != 1) {
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
