#include <catch2/catch.hpp>

#include "common/encoding.h"

using namespace hookinbox;

TEST_CASE("encoding: hex encodes lowercase and decodes either case", "[common]") {
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

TEST_CASE("encoding: hex rejects odd length and non-hex characters", "[common]") {
  for (const char* bad : {"abc", "0g", "zz", " 00", "00 ", "0x00", "-1"}) {
    INFO(bad);
    CHECK_FALSE(HexDecode(bad));
  }
}

TEST_CASE("encoding: base64 matches the RFC 4648 section 10 vectors", "[common]") {
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

TEST_CASE("encoding: base64 accepts the URL-safe alphabet and missing padding", "[common]") {
  const std::string raw("\xfb\xff\xbf", 3);
  CHECK(Base64Encode(raw) == "+/+/");
  CHECK(Base64Decode("-_-_") == raw);
  CHECK(Base64Decode("Zg") == std::string("f"));
  CHECK(Base64Decode("Zm8") == std::string("fo"));
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  CHECK(Base64Decode(Base64Encode(all)) == all);
}

TEST_CASE("encoding: base64url is the URL-safe alphabet without padding", "[common]") {
  const std::string raw("\xfb\xff\xbf\x66", 4);
  CHECK(Base64Encode(raw) == "+/+/Zg==");
  CHECK(Base64UrlEncode(raw) == "-_-_Zg");
  CHECK(Base64UrlEncode("") == "");
  CHECK(Base64Decode(Base64UrlEncode(raw)) == raw);
}

TEST_CASE("encoding: base64 rejects garbage", "[common]") {
  for (const char* bad : {"Z", "Zg=", "Zg===", "Z===", "Zm9v\n", "Zm 9v", "Zm9v!", "=Zm9",
                          "Zg==Zg==", "Zh==" /* leftover bits set */, "Zm9=" /* leftover bits set */, "===="}) {
    INFO(bad);
    CHECK_FALSE(Base64Decode(bad));
  }
}

TEST_CASE("encoding: percent-encoding keeps unreserved characters and encodes every other byte", "[common]") {
  CHECK(PercentEncode("AZaz09-._~") == "AZaz09-._~");
  CHECK(PercentEncode("a b/c?d&e=f") == "a%20b%2Fc%3Fd%26e%3Df");
  CHECK(PercentEncode("\xc3\xbc%") == "%C3%BC%25");
  CHECK(PercentEncode("") == "");
}
