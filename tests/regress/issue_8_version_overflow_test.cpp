// Regression: an ordering version sent as a JSON number above
// INT64_MAX was accepted and stored wrapped: 18446744073709551615 became
// object_version -1 and 9223372036854775808 became INT64_MIN, because
// nlohmann's is_number_integer() is true for unsigned values too. Such an
// event sorts before every real version, so the worker skips it as stale or
// it holds back newer ones. The same value as a digit string was already
// refused with 400; the number must be refused the same way and leave no
// inbox row.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace hookinbox::testing {
namespace {

const char* const kOrdering = R"(
[endpoint.ordering]
object = "/data/order"
version = "/data/version"
)";

// `version` is JSON text: a number, or a quoted string.
std::string OrderEvent(const std::string& id, const std::string& order, const std::string& version) {
  return R"({"id":")" + id + R"(","type":"order.updated","data":{"order":")" + order + R"(","version":)" + version +
         "}}";
}

}  // namespace

TEST_CASE("regress issue 8: an ordering version above INT64_MAX is refused with 400, never stored wrapped",
          "[regress][ordering]") {
  Installation inst;
  inst.WriteTestConfig(kOrdering);
  ServerProcess server{inst};
  server.Start();

  const std::vector<std::pair<std::string, std::string>> refused = {
      {"evt_u64_max", "18446744073709551615"},
      {"evt_i64_max_plus_1", "9223372036854775808"},
      {"evt_u64_max_string", R"("18446744073709551615")"},  // already refused before the fix: the reference
  };
  for (const auto& [id, version] : refused) {
    INFO(id);
    HttpResult r = server.PostSigned("/hooks/demo", OrderEvent(id, "ord_7", version));
    INFO(r.body);
    CHECK(r.status == 400);
    CHECK(r.body.find("ordering version /data/version is not an integer in the signed 64-bit range") !=
          std::string::npos);
    CHECK(inst.Sql("SELECT count(*) FROM webhook_inbox WHERE event_id = '" + id + "'") == "0");
  }

  // The edges that fit are kept exactly: the largest int64, and a negative one.
  HttpResult top = server.PostSigned("/hooks/demo", OrderEvent("evt_i64_max", "ord_7", "9223372036854775807"));
  INFO(top.body);
  REQUIRE(top.status == 200);
  HttpResult negative = server.PostSigned("/hooks/demo", OrderEvent("evt_negative", "ord_8", "-5"));
  INFO(negative.body);
  REQUIRE(negative.status == 200);
  CHECK(inst.Sql("SELECT group_concat(event_id || '=' || object_version, ',') FROM"
                 " (SELECT event_id, object_version FROM webhook_inbox ORDER BY id) AS sub") ==
        "evt_i64_max=9223372036854775807,evt_negative=-5");
}

}  // namespace hookinbox::testing
