#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "common/log.h"

using namespace hookinbox;
using nlohmann::json;

namespace {

// Parses one formatted line with an independent JSON parser; fails the test
// when it is not exactly one object followed by one newline.
json ParseLine(const std::string& line) {
  REQUIRE(!line.empty());
  REQUIRE(line.back() == '\n');
  REQUIRE(line.find('\n') == line.size() - 1);
  json j = json::parse(line.substr(0, line.size() - 1));  // throws (fails the test) on invalid JSON
  REQUIRE(j.is_object());
  return j;
}

// Resets the process-wide redaction list whatever a test did.
struct RedactionGuard {
  ~RedactionGuard() { log::SetRedactedFields({}); }
};

}  // namespace

TEST_CASE("log: one JSON object per line: ts, level, event, then fields in order", "[common][log]") {
  std::string line = log::Format(log::Level::kInfo, "delivery",
                                 {{"endpoint", "demo"}, {"status", 200}, {"latency_ms", 1.25}}, 1764511200123LL);
  CHECK(line ==
        R"({"ts":"2025-11-30T14:00:00.123Z","level":"info","event":"delivery","endpoint":"demo","status":200,)"
        R"("latency_ms":1.250})"
        "\n");
  json j = ParseLine(line);
  CHECK(j["status"] == 200);
  CHECK(j["latency_ms"] == 1.25);
}

TEST_CASE("log: control characters and quotes are escaped, so a value cannot forge a line", "[common][log]") {
  std::string hostile = "a b\"\n{\"level\":\"error\",\"event\":\"forged\"}\r\t\x01\x1f\x7f\\";
  std::string line = log::Format(log::Level::kWarn, "x", {{"ua", hostile}}, 0);
  json j = ParseLine(line);
  CHECK(j["ua"] == hostile);  // round-trips exactly
  CHECK(j["level"] == "warn");
  CHECK(j["event"] == "x");
  CHECK(line.find("\\u0001") != std::string::npos);
  CHECK(line.find("\\u007f") != std::string::npos);
  CHECK(ParseLine(log::Format(log::Level::kError, "x", {{"empty", ""}}, 0))["empty"] == "");
}

TEST_CASE("log: bytes that are not UTF-8 become U+FFFD; valid UTF-8 passes through", "[common][log]") {
  struct Case {
    std::string in, out;
  };
  const std::string r = "\xEF\xBF\xBD";  // U+FFFD as UTF-8, how the parser returns it
  std::vector<Case> cases = {
      {"caf\xC3\xA9", "caf\xC3\xA9"},                    // é
      {"\xE2\x82\xAC \xF0\x9F\x98\x80", "\xE2\x82\xAC \xF0\x9F\x98\x80"},  // € and an emoji
      {"a\xFF" "b", "a" + r + "b"},                        // never valid
      {"\xC3", r},                                         // cut short
      {"\xC0\xAF", r + r},                                 // overlong '/'
      {"\xED\xA0\x80", r + r + r},                         // a surrogate
      {"\xF4\x90\x80\x80", r + r + r + r},                 // above U+10FFFF
      {"\x80" "x", r + "x"},                               // stray continuation byte
  };
  for (const auto& c : cases) {
    INFO(c.in);
    json j = ParseLine(log::Format(log::Level::kInfo, "x", {{"v", c.in}}, 0));
    CHECK(j["v"].get<std::string>() == c.out);
  }
  // Keys and the event name go through the same escaper.
  json j = ParseLine(log::Format(log::Level::kInfo, "ev\xFF\n", {{"k\"\xFE", "v"}}, 0));
  CHECK(j["event"] == "ev" + r + "\n");
  CHECK(j["k\"" + r] == "v");
}

TEST_CASE("log: configured fields are redacted, the rest kept", "[common][log]") {
  RedactionGuard guard;
  log::SetRedactedFields({"remote_addr", "tenant", "event"});
  json j = ParseLine(log::Format(log::Level::kInfo, "delivery",
                                 {{"remote_addr", "203.0.113.9"}, {"tenant", "acme"}, {"status", 200}}, 0));
  CHECK(j["remote_addr"] == "[redacted]");
  CHECK(j["tenant"] == "[redacted]");
  CHECK(j["status"] == 200);
  CHECK(j["event"] == "delivery");  // the three fixed keys are never redacted
  log::SetRedactedFields({});
  CHECK(ParseLine(log::Format(log::Level::kInfo, "d", {{"remote_addr", "203.0.113.9"}}, 0))["remote_addr"] ==
        "203.0.113.9");
}

TEST_CASE("log: a numeric field is written as a number, and only digits are", "[common][log]") {
  json j = ParseLine(log::Format(log::Level::kInfo, "x", {{"n", int64_t{-42}}, {"u", 7u}, {"s", "42"}}, 0));
  CHECK(j["n"] == -42);
  CHECK(j["u"] == 7);
  CHECK(j["s"] == "42");  // a string stays a string
}
