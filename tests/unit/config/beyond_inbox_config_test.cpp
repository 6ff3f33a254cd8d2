// [endpoint.business_key] and [endpoint.ordering]: keys, the event-type map,
// and the errors that name the key to fix.
#include <catch2/catch.hpp>

#include "config/load.h"
#include "config_test_util.h"

namespace hookinbox::config {
namespace {

using test::Dump;
using test::Find;
using test::kEndpoint;
using test::Load;

const std::string kTyped = kEndpoint + "event_type_pointer = \"/type\"\n";

TEST_CASE("beyond-inbox config: a business key with a constant operation and an event-type map", "[config][beyond]") {
  LoadResult r = Load(kTyped +
                      "[endpoint.business_key]\nfields = [\"/data/object/id\", \"/data/object/customer\"]\n"
                      "operation = \"touch\"\n"
                      "[endpoint.business_key.operations]\n\"invoice.paid\" = \"mark_paid\"\n"
                      "\"charge.refunded\" = \"refund\"\n");
  INFO(Dump(r.errors) << Dump(r.warnings));
  REQUIRE(r.ok());
  const BusinessKeyConfig& b = r.config.endpoints[0].business_key;
  CHECK(b.enabled());
  CHECK(b.fields == std::vector<std::string>{"/data/object/id", "/data/object/customer"});
  REQUIRE(b.operations.size() == 2);
  CHECK(b.OperationFor("invoice.paid") == "mark_paid");
  CHECK(b.OperationFor("charge.refunded") == "refund");
  CHECK(b.OperationFor("anything.else") == "touch");
  CHECK_FALSE(r.config.endpoints[0].ordering.enabled());
}

TEST_CASE("beyond-inbox config: ordering with object and version", "[config][beyond]") {
  LoadResult r = Load(kEndpoint + "[endpoint.ordering]\nobject = \"/data/id\"\nversion = \"/data/updated_at\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].ordering.object == "/data/id");
  CHECK(r.config.endpoints[0].ordering.version == "/data/updated_at");
}

TEST_CASE("beyond-inbox config: mistakes name their key", "[config][beyond]") {
  struct Case {
    std::string toml, key, message;
  };
  const std::vector<Case> cases = {
      {kTyped + "[endpoint.business_key]\noperation = \"x\"\n", "endpoint[0].business_key", "needs fields"},
      {kTyped + "[endpoint.business_key]\nfields = [\"/id\"]\n", "endpoint[0].business_key", "needs operation"},
      {kTyped + "[endpoint.business_key]\nfields = [\"id\"]\noperation = \"x\"\n",
       "endpoint[0].business_key.fields[0]", "is not a JSON Pointer"},
      {kEndpoint + "[endpoint.business_key]\nfields = [\"/id\"]\n[endpoint.business_key.operations]\n\"a\" = \"b\"\n",
       "endpoint[0].business_key.operations", "reads none"},
      {kTyped + "[endpoint.business_key]\nfields = [\"/id\"]\n[endpoint.business_key.operations]\n\"a\" = 1\n",
       "endpoint[0].business_key.operations.a", "must be a string"},
      {kTyped + "[endpoint.business_key]\nfields = [\"/id\"]\noperations = \"x\"\n",
       "endpoint[0].business_key.operations", "must be a table of strings"},
      {kEndpoint + "[endpoint.ordering]\nobject = \"/id\"\n", "endpoint[0].ordering", "needs version"},
      {kEndpoint + "[endpoint.ordering]\nversion = \"/v\"\n", "endpoint[0].ordering", "needs object"},
      {kEndpoint + "[endpoint.ordering]\nobject = \"/id\"\nversion = \"v\"\n", "endpoint[0].ordering.version",
       "is not a JSON Pointer"},
  };
  for (const Case& c : cases) {
    INFO(c.toml);
    LoadResult r = Load(c.toml);
    INFO(Dump(r.errors));
    const Problem* p = Find(r.errors, c.key);
    REQUIRE(p != nullptr);
    CHECK(p->message.find(c.message) != std::string::npos);
  }
}

}  // namespace
}  // namespace hookinbox::config
