// Digests and MACs against published vectors (RFC 4231, RFC 2202, FIPS 180-2)
// rather than against our own output; the codecs are tested in common/.
#include "verify/crypto.h"

#include <catch2/catch.hpp>

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {
const std::string kJefeData = "what do ya want for nothing?";
}

TEST_CASE("crypto: HMAC-SHA256 and -SHA512 match RFC 4231 test cases 1 and 2", "[verify]") {
  const std::string key1(20, '\x0b');
  CHECK(HexEncode(Hmac(HashAlg::kSha256, key1, "Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(HexEncode(Hmac(HashAlg::kSha256, "Jefe", kJefeData)) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(HexEncode(Hmac(HashAlg::kSha512, "Jefe", kJefeData)) ==
        "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75"
        "c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737");
}

TEST_CASE("crypto: HMAC-SHA1 matches RFC 2202 test case 2", "[verify]") {
  CHECK(HexEncode(Hmac(HashAlg::kSha1, "Jefe", kJefeData)) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
}

TEST_CASE("crypto: HMAC-MD5 matches RFC 2202 test case 2 (WayForPay signs with it)", "[verify]") {
  CHECK(HexEncode(Hmac(HashAlg::kMd5, "Jefe", kJefeData)) == "750c783e6ab0b503eaa86e310a5db738");
  CHECK(Hmac(HashAlg::kMd5, "k", "").size() == 16);
}

TEST_CASE("crypto: HMAC with an empty key or empty data is defined", "[verify]") {
  // RFC 4231 has no empty-key case; these are the values every HMAC library agrees on.
  CHECK(HexEncode(Hmac(HashAlg::kSha256, "", "")) ==
        "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
  CHECK(Hmac(HashAlg::kSha1, "k", "").size() == 20);
  CHECK(Hmac(HashAlg::kSha512, "k", "").size() == 64);
}

TEST_CASE("crypto: SHA-256 of \"abc\" and of nothing", "[verify]") {
  CHECK(HexEncode(Sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(HexEncode(Sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("crypto: hash algorithm names", "[verify]") {
  CHECK(ParseHashAlg("sha1") == HashAlg::kSha1);
  CHECK(ParseHashAlg("sha256") == HashAlg::kSha256);
  CHECK(ParseHashAlg("sha512") == HashAlg::kSha512);
  CHECK(ParseHashAlg("md5") == HashAlg::kMd5);
  CHECK_FALSE(ParseHashAlg("MD5"));
  CHECK_FALSE(ParseHashAlg(""));
  CHECK_FALSE(ParseHashAlg("sha-256"));
}
