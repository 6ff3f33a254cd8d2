// Public-key parsing, verification and send-test's signing; see public_key.h.
//
// Every OpenSSL failure path ends in ERR_clear_error(): the error queue is
// per thread, and a stale entry left by a refused key or a forged signature
// would otherwise be read later by the TLS code running on the same thread.
#include "verify/public_key.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <map>
#include <memory>
#include <mutex>

#include "common/encoding.h"

namespace hookinbox::verify {

namespace {

using KeyPtr = std::shared_ptr<EVP_PKEY>;

constexpr int kMinRsaBits = 2048;       // below this an RSA key is not worth trusting
constexpr size_t kMaxCachedKeys = 64;   // keys come from the config only; this is far above any real count
constexpr std::string_view kPemBegin = "-----BEGIN ";

// Never prompts for a passphrase (OpenSSL's default callback reads the terminal).
int NoPassphrase(char*, int, int, void*) { return 0; }

KeyPtr Own(EVP_PKEY* key) { return KeyPtr(key, EVP_PKEY_free); }

std::string_view TrimAll(std::string_view s) {
  const char* kSpace = " \t\r\n";
  size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

std::unique_ptr<BIO, decltype(&BIO_free)> MemBio(std::string_view text) {
  return {BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), BIO_free};
}

// Clears the error queue and returns `status`, for the failure paths.
Status Fail(std::string message) {
  ERR_clear_error();
  return InvalidArgument(std::move(message));
}

bool IsP256(EVP_PKEY* key) {
  char name[64] = {};
  size_t len = 0;
  if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return false;
  if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &len) != 1) return false;
  return std::string_view(name, len) == "prime256v1";
}

// Checks that `key` is of `kind`; `what` names it in the message ("the certificate's key").
Status CheckKind(KeyKind kind, EVP_PKEY* key, const std::string& what) {
  switch (kind) {
    case KeyKind::kEd25519:
      if (EVP_PKEY_get_base_id(key) != EVP_PKEY_ED25519) return Fail(what + " is not an Ed25519 key");
      break;
    case KeyKind::kEcdsaP256Sha256:
      if (!IsP256(key)) return Fail(what + " is not an EC key on curve P-256 (prime256v1)");
      break;
    case KeyKind::kRsaSha256Cert:
    case KeyKind::kRsaSha256:
      if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) return Fail(what + " is not an RSA key");
      if (EVP_PKEY_get_bits(key) < kMinRsaBits) {
        return Fail(what + " has fewer than " + std::to_string(kMinRsaBits) + " bits");
      }
      break;
  }
  return Status::Ok();
}

Result<KeyPtr> PemPublicKey(std::string_view pem) {
  auto bio = MemBio(pem);
  EVP_PKEY* key = bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, NoPassphrase, nullptr) : nullptr;
  if (key == nullptr) return Fail("the PEM block is not a readable \"PUBLIC KEY\"");
  return Own(key);
}

Result<KeyPtr> DerPublicKey(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  EVP_PKEY* key = d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size()));
  if (key == nullptr) return Fail("the base64 text does not decode to a DER SubjectPublicKeyInfo");
  KeyPtr owned = Own(key);
  if (p != reinterpret_cast<const unsigned char*>(der.data()) + der.size()) {
    return Fail("the DER SubjectPublicKeyInfo has trailing bytes");
  }
  return owned;
}

Result<KeyPtr> Ed25519Key(std::string_view text) {
  if (text.substr(0, kPemBegin.size()) == kPemBegin) return PemPublicKey(text);
  // Discord shows the raw 32-byte key in hex, Telnyx in base64; the two forms
  // cannot be confused (64 hex digits decode as base64 to 48 bytes).
  std::optional<std::string> raw = HexDecode(text);
  if (!raw) raw = Base64Decode(text);
  if (!raw || raw->size() != 32) {
    return Fail("expected 64 hex digits or base64 of a raw 32-byte Ed25519 key, or a PEM block");
  }
  EVP_PKEY* key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                              reinterpret_cast<const unsigned char*>(raw->data()), raw->size());
  if (key == nullptr) return Fail("not an Ed25519 public key");
  return Own(key);
}

// A SubjectPublicKeyInfo as PEM, base64 DER (SendGrid's EC key, Wise's RSA key)
// or base64 of the PEM (monobank).
Result<KeyPtr> SpkiKey(std::string_view text) {
  if (text.substr(0, kPemBegin.size()) == kPemBegin) return PemPublicKey(text);
  std::optional<std::string> der = Base64Decode(text);
  if (!der || der->empty()) return Fail("expected base64 of a DER SubjectPublicKeyInfo, or a PEM block");
  // monobank's GET /api/merchant/pubkey returns the PEM block itself in
  // base64; such text decodes to "-----BEGIN …" rather than to DER.
  if (std::string_view(*der).substr(0, kPemBegin.size()) == kPemBegin) return PemPublicKey(*der);
  return DerPublicKey(*der);
}

Result<KeyPtr> CertificateKey(std::string_view text) {
  auto bio = MemBio(text);
  X509* cert = bio ? PEM_read_bio_X509(bio.get(), nullptr, NoPassphrase, nullptr) : nullptr;
  if (cert == nullptr) return Fail("expected a PEM \"CERTIFICATE\" block");
  EVP_PKEY* key = X509_get_pubkey(cert);  // a new reference, independent of the certificate
  X509_free(cert);
  if (key == nullptr) return Fail("the certificate's public key cannot be read");
  return Own(key);
}

Result<KeyPtr> ParseKey(KeyKind kind, std::string_view key_text) {
  std::string_view text = TrimAll(key_text);
  if (text.empty()) return Fail("the key is empty");
  Result<KeyPtr> key = kind == KeyKind::kEd25519           ? Ed25519Key(text)
                       : kind == KeyKind::kRsaSha256Cert   ? CertificateKey(text)
                                                           : SpkiKey(text);
  if (!key.ok()) return key;
  if (Status st = CheckKind(kind, key->get(), kind == KeyKind::kRsaSha256Cert ? "the certificate's key" : "the key");
      !st.ok()) {
    return st;
  }
  return key;
}

// The parsed key for (kind, text), from the cache or parsed now and cached.
Result<KeyPtr> CachedKey(KeyKind kind, std::string_view key_text) {
  static std::mutex mu;
  static std::map<std::string, KeyPtr, std::less<>> cache;  // guarded by mu
  std::string id(1, static_cast<char>('0' + static_cast<int>(kind)));
  id.append(key_text);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(id); it != cache.end()) return it->second;
  }
  Result<KeyPtr> key = ParseKey(kind, key_text);  // outside the lock: parsing is the slow part
  if (!key.ok()) return key;
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= kMaxCachedKeys) cache.clear();
  cache.emplace(std::move(id), *key);
  return key;
}

const EVP_MD* DigestOf(KeyKind kind) { return kind == KeyKind::kEd25519 ? nullptr : EVP_sha256(); }

const unsigned char* Bytes(std::string_view s) {
  static const unsigned char kEmpty = 0;
  return s.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(s.data());
}

// PKCS#1 v1.5 is OpenSSL's default for RSA; set it anyway so the scheme cannot drift.
bool SetPadding(KeyKind kind, EVP_PKEY_CTX* pctx) {
  const bool rsa = kind == KeyKind::kRsaSha256Cert || kind == KeyKind::kRsaSha256;
  return !rsa || EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1;
}

}  // namespace

std::optional<KeyKind> AsymmetricKind(std::string_view scheme) {
  if (scheme == "ed25519") return KeyKind::kEd25519;
  if (scheme == "ecdsa-p256-sha256") return KeyKind::kEcdsaP256Sha256;
  if (scheme == "rsa-sha256-cert") return KeyKind::kRsaSha256Cert;
  if (scheme == "rsa-sha256") return KeyKind::kRsaSha256;
  return std::nullopt;
}

std::string_view AlgorithmName(KeyKind kind) {
  switch (kind) {
    case KeyKind::kEd25519: return "Ed25519";
    case KeyKind::kEcdsaP256Sha256: return "SHA256withECDSA";
    case KeyKind::kRsaSha256Cert:
    case KeyKind::kRsaSha256: return "SHA256withRSA";
  }
  return "";
}

std::string DescribeKey(KeyKind kind) {
  switch (kind) {
    case KeyKind::kEd25519: return "an Ed25519 public key (64 hex digits, base64 of 32 bytes, or PEM)";
    case KeyKind::kEcdsaP256Sha256: return "an EC P-256 public key (base64 DER, PEM, or base64 of the PEM)";
    case KeyKind::kRsaSha256Cert: return "a PEM certificate with an RSA key";
    case KeyKind::kRsaSha256: return "an RSA public key of 2048 bits or more (PEM, or base64 DER)";
  }
  return "a public key";
}

Status CheckPublicKey(KeyKind kind, std::string_view key_text) {
  Result<KeyPtr> key = CachedKey(kind, key_text);
  return key.ok() ? Status::Ok() : key.status();
}

bool VerifySignature(KeyKind kind, std::string_view key_text, std::string_view data, std::string_view signature) {
  if (signature.empty()) return false;
  Result<KeyPtr> key = CachedKey(kind, key_text);
  if (!key.ok()) return false;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
  bool ok = ctx != nullptr && EVP_DigestVerifyInit(ctx.get(), &pctx, DigestOf(kind), nullptr, key->get()) == 1 &&
            SetPadding(kind, pctx) &&
            EVP_DigestVerify(ctx.get(), Bytes(signature), signature.size(), Bytes(data), data.size()) == 1;
  if (!ok) ERR_clear_error();
  return ok;
}

Result<std::string> SignWithPrivateKey(KeyKind kind, std::string_view private_pem, std::string_view data) {
  auto bio = MemBio(TrimAll(private_pem));
  EVP_PKEY* raw = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr) : nullptr;
  if (raw == nullptr) {
    return Fail("not a readable PEM private key (PKCS#8 \"PRIVATE KEY\", \"EC PRIVATE KEY\" or \"RSA PRIVATE KEY\"; "
                "encrypted keys are not supported)");
  }
  KeyPtr key = Own(raw);
  if (Status st = CheckKind(kind, key.get(), "the private key"); !st.ok()) return st;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;
  size_t len = 0;
  if (ctx == nullptr || EVP_DigestSignInit(ctx.get(), &pctx, DigestOf(kind), nullptr, key.get()) != 1 ||
      !SetPadding(kind, pctx) || EVP_DigestSign(ctx.get(), nullptr, &len, Bytes(data), data.size()) != 1) {
    return Fail("signing failed");
  }
  std::string out(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len, Bytes(data), data.size()) != 1) {
    return Fail("signing failed");
  }
  out.resize(len);  // a DER ECDSA signature is often shorter than the bound
  return out;
}

}  // namespace hookinbox::verify
