// config/duration.h, and the keys written with it: worker.retry_for,
// [endpoint.action] retry_for, and worker.max_attempts now optional.
#include "config/duration.h"

#include <catch2/catch.hpp>

#include "config/load.h"
#include "config_test_util.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::config::test::kEndpoint;
using hookinbox::config::test::Load;
using hookinbox::config::test::MarkedLine;

namespace {

const std::string kActionEndpoint =
    "[[endpoint]]\nname = \"crm\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
    "[endpoint.key]\nid_header = \"X-Event-Id\"\n"
    "[endpoint.action]\ntype = \"exec\"\ncommand = [\"/bin/true\"]\n";

// The one error `toml` produces: on the line marked "#<", naming `key`.
Problem OneError(const std::string& toml, const std::string& key) {
  LoadResult r = Load(toml);
  INFO(toml << "\n--- errors ---\n" << Dump(r.errors));
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == key);
  CHECK(r.errors[0].line == MarkedLine(toml));
  return r.errors[0];
}

}  // namespace

TEST_CASE("duration: whole numbers with one unit, in ms", "[config]") {
  struct Case {
    const char* text;
    int64_t ms;
  };
  for (const Case& c : std::vector<Case>{{"500ms", 500},
                                         {"90s", 90000},
                                         {"30m", 1800000},
                                         {"6h", 21600000},
                                         {"3d", 259200000},
                                         {"1ms", 1},
                                         {"0010s", 10000},
                                         {"3650d", kMaxDurationMs}}) {
    INFO(c.text);
    std::string why;
    CHECK(ParseDurationMs(c.text, &why) == c.ms);
    CHECK(why.empty());
  }
}

TEST_CASE("duration: bad text says what is wrong", "[config]") {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c : std::vector<Case>{{"", "is empty"},
                                         {"90", "has no unit (ms, s, m, h or d)"},
                                         {"-5s", "must be positive"},
                                         {"0s", "must be positive"},
                                         {"0ms", "must be positive"},
                                         {"3w", "has an unknown unit \"w\" (ms, s, m, h or d)"},
                                         {"3D", "has an unknown unit \"D\""},
                                         {"1h30m", "has an unknown unit \"h30m\""},
                                         {"1.5h", "has an unknown unit \".5h\""},
                                         {" 3d", "must start with a whole number"},
                                         {"3 d", "has an unknown unit \" d\""},
                                         {"d", "must start with a whole number"},
                                         {"3651d", "is too long (at most 3650d)"},
                                         {"99999999999999999999999d", "is too long"},
                                         {"9223372036854775807ms", "is too long"}}) {
    INFO("\"" << c.text << "\"");
    std::string why;
    CHECK_FALSE(ParseDurationMs(c.text, &why).has_value());
    CHECK_THAT(why, Catch::StartsWith(c.why));
  }
}

TEST_CASE("duration: formatted in the largest exact unit, and read back", "[config]") {
  CHECK(FormatDurationMs(259200000) == "3d");
  CHECK(FormatDurationMs(90000) == "90s");
  CHECK(FormatDurationMs(5400000) == "90m");
  CHECK(FormatDurationMs(1500) == "1500ms");
  for (int64_t ms : {int64_t{1}, int64_t{999}, int64_t{61000}, int64_t{86400001}, kMaxDurationMs}) {
    CHECK(ParseDurationMs(FormatDurationMs(ms), nullptr) == ms);
  }
}

TEST_CASE("config: retry_for defaults to 3 days; an endpoint's own overrides it", "[config]") {
  LoadResult r = Load(kActionEndpoint);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.worker.retry_for_ms == 3 * 86400000LL);
  CHECK_FALSE(r.config.endpoints[0].action.retry_for_ms.has_value());
  CHECK(r.config.RetryForMs(r.config.endpoints[0]) == 3 * 86400000LL);

  r = Load("[worker]\nretry_for = \"6h\"\n" + kActionEndpoint + "retry_for = \"2s\"\n" +
           "[[endpoint]]\nname = \"other\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
           "[endpoint.key]\nid_header = \"X-Event-Id\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.worker.retry_for_ms == 21600000);
  CHECK(r.config.RetryForMs(r.config.endpoints[0]) == 2000);
  CHECK(r.config.RetryForMs(r.config.endpoints[1]) == 21600000);
}

TEST_CASE("config: max_attempts is unset by default and kept when written", "[config]") {
  LoadResult r = Load(kEndpoint);
  REQUIRE(r.ok());
  CHECK_FALSE(r.config.worker.max_attempts.has_value());
  r = Load("[worker]\nmax_attempts = 7\n" + kEndpoint);
  REQUIRE(r.ok());
  CHECK(r.config.worker.max_attempts == 7);
  Problem p = OneError("[worker]\nmax_attempts = 0 #<\n" + kEndpoint, "worker.max_attempts");
  CHECK_THAT(p.message, Catch::Contains("between 1 and 10000 (got 0)"));
}

TEST_CASE("config: a bad retry_for is an error naming the key, and nothing is applied", "[config]") {
  struct Case {
    const char* what;
    std::string value;  // as written in TOML
    const char* message;
  };
  const std::vector<Case> cases = {
      {"empty", "\"\"", "must be a duration such as \"90s\", \"30m\", \"6h\" or \"3d\": \"\" is empty"},
      {"no unit", "\"90\"", "\"90\" has no unit (ms, s, m, h or d)"},
      {"negative", "\"-1d\"", "\"-1d\" must be positive"},
      {"zero", "\"0s\"", "\"0s\" must be positive"},
      {"unknown unit", "\"3w\"", "\"3w\" has an unknown unit \"w\""},
      {"overflow", "\"999999999999999999999d\"", "is too long (at most 3650d)"},
      {"an integer", "259200", "must be a duration such as \"3d\", not an integer"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Problem worker = OneError("[worker]\nretry_for = " + c.value + " #<\n" + kEndpoint, "worker.retry_for");
    CHECK_THAT(worker.message, Catch::Contains(c.message));
    Problem endpoint = OneError(kActionEndpoint + "retry_for = " + c.value + " #<\n", "endpoint[0].action.retry_for");
    CHECK_THAT(endpoint.message, Catch::Contains(c.message));
  }
  // The bad value is not written: the default stays.
  LoadResult r = Load("[worker]\nretry_for = \"3w\"\n" + kEndpoint);
  CHECK(r.config.worker.retry_for_ms == 3 * 86400000LL);
}
