#include <catch2/catch.hpp>

#include "config/size.h"

using namespace hookinbox::config;

TEST_CASE("size: whole numbers with a binary unit", "[config]") {
  CHECK(ParseSizeBytes("500MB", nullptr) == int64_t{500} << 20);
  CHECK(ParseSizeBytes("1GB", nullptr) == int64_t{1} << 30);
  CHECK(ParseSizeBytes("10GB", nullptr) == int64_t{10} << 30);
  CHECK(ParseSizeBytes("2TB", nullptr) == int64_t{2} << 40);
  CHECK(ParseSizeBytes("4096B", nullptr) == 4096);
  CHECK(ParseSizeBytes("8KB", nullptr) == 8192);
}

TEST_CASE("size: refused forms say why", "[config]") {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c : {Case{"", "is empty"}, Case{"GB", "must start with a whole number"},
                        Case{"10", "has no unit (B, KB, MB, GB or TB)"},
                        Case{"1gb", "has an unknown unit \"gb\" (B, KB, MB, GB or TB)"},
                        Case{"1.5GB", "has an unknown unit \".5GB\" (B, KB, MB, GB or TB)"},
                        Case{"0MB", "must be positive"}, Case{"-1GB", "must start with a whole number"},
                        Case{"99999999TB", "is too large (at most 1024TB)"}}) {
    INFO(c.text);
    std::string why;
    CHECK_FALSE(ParseSizeBytes(c.text, &why).has_value());
    CHECK(why == c.why);
  }
}

TEST_CASE("size: FormatSizeBytes round-trips", "[config]") {
  for (int64_t bytes : {int64_t{1}, int64_t{1023}, int64_t{1024}, int64_t{1536} << 20, int64_t{1} << 30, kMaxSizeBytes}) {
    INFO(bytes);
    CHECK(ParseSizeBytes(FormatSizeBytes(bytes), nullptr) == bytes);
  }
  CHECK(FormatSizeBytes(int64_t{1} << 30) == "1GB");
  CHECK(FormatSizeBytes(int64_t{1536} << 20) == "1536MB");
}
