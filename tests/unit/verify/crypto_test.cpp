// Digests, MACs and codecs against published vectors (RFC 4231, RFC 2202,
// FIPS 180-2, RFC 4648) rather than against our own output.
#include "verify/crypto.h"

#include <catch2/catch.hpp>

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
  CHECK_FALSE(ParseHashAlg("md5"));
  CHECK_FALSE(ParseHashAlg(""));
  CHECK_FALSE(ParseHashAlg("sha-256"));
}

TEST_CASE("crypto: hex encodes lowercase and decodes either case", "[verify]") {
  CHECK(HexEncode(std::string("\x00\x01\xab\xff", 4)) == "0001abff");
  CHECK(HexEncode("") == "");
  CHECK(HexDecode("0001abff") == std::string("\x00\x01\xab\xff", 4));
  CHECK(HexDecode("0001ABFF") == std::string("\x00\x01\xab\xff", 4));
  CHECK(HexDecode("") == std::string());
  const std::string all = [] {
    std::string s;
    for (int i = 0; i < 256; ++i) s.push_back(static_cast<char>(i));
    return s;
  }();
  CHECK(HexDecode(HexEncode(all)) == all);
}

TEST_CASE("crypto: hex rejects odd length and non-hex characters", "[verify]") {
  for (const char* bad : {"abc", "0g", "zz", " 00", "00 ", "0x00", "-1"}) {
    INFO(bad);
    CHECK_FALSE(HexDecode(bad));
  }
}

TEST_CASE("crypto: base64 matches the RFC 4648 section 10 vectors", "[verify]") {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [raw, encoded] : vectors) {
    INFO(raw);
    CHECK(Base64Encode(raw) == encoded);
    CHECK(Base64Decode(encoded) == std::string(raw));
  }
}

TEST_CASE("crypto: base64 accepts the URL-safe alphabet and missing padding", "[verify]") {
  const std::string raw("\xfb\xff\xbf", 3);
  CHECK(Base64Encode(raw) == "+/+/");
  CHECK(Base64Decode("-_-_") == raw);
  CHECK(Base64Decode("Zg") == std::string("f"));
  CHECK(Base64Decode("Zm8") == std::string("fo"));
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  CHECK(Base64Decode(Base64Encode(all)) == all);
}

TEST_CASE("crypto: base64 rejects garbage", "[verify]") {
  for (const char* bad : {"Z", "Zg=", "Zg===", "Z===", "Zm9v\n", "Zm 9v", "Zm9v!", "=Zm9",
                          "Zg==Zg==", "Zh==" /* leftover bits set */, "Zm9=" /* leftover bits set */, "===="}) {
    INFO(bad);
    CHECK_FALSE(Base64Decode(bad));
  }
}
