#include <catch2/catch.hpp>

#include "common/log.h"

using namespace hookinbox;

TEST_CASE("log: one line with ISO time, level, event and fields", "[common]") {
  std::string line = log::Format(log::Level::kInfo, "delivery", {{"endpoint", "demo"}, {"status", "200"}},
                                 1764511200123LL);
  CHECK(line == "2025-11-30T14:00:00.123Z info event=delivery endpoint=demo status=200\n");
}

TEST_CASE("log: values with spaces, quotes or control characters cannot forge a line", "[common]") {
  std::string line = log::Format(log::Level::kWarn, "x", {{"ua", "a b\"\n2026 info event=forged"}}, 0);
  CHECK(line == "1970-01-01T00:00:00.000Z warn event=x ua=\"a b\\\"\\x0a2026 info event=forged\"\n");
  CHECK(line.find('\n') == line.size() - 1);
  CHECK(log::Format(log::Level::kError, "x", {{"empty", ""}}, 0).find("empty=\"\"") != std::string::npos);
}
