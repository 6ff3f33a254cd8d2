// Ed25519 keys and signatures straight from OpenSSL, for the presets whose
// providers sign with Ed25519 (HighLevel, Telnyx): the tests sign with these,
// never with verify/'s own code.
#pragma once

#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <string>
#include <string_view>

namespace hookinbox::verify::test {

using Key = std::shared_ptr<EVP_PKEY>;

inline Key NewEd25519() {
  EVP_PKEY* k = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  REQUIRE(k != nullptr);
  return Key(k, EVP_PKEY_free);
}

// The public key as PEM (SubjectPublicKeyInfo), as a dashboard offers it.
inline std::string PublicPem(const Key& k) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  REQUIRE(PEM_write_bio_PUBKEY(bio.get(), k.get()) == 1);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

// The raw 64-byte signature of `data`.
inline std::string Ed25519Sign(const Key& k, std::string_view data) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t len = 64;
  std::string sig(len, '\0');
  REQUIRE(EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) == 1);
  REQUIRE(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                         reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1);
  sig.resize(len);
  return sig;
}

}  // namespace hookinbox::verify::test
