// Review findings: each case is an input that an earlier version mishandled.
#include <catch2/catch.hpp>

#include <string>

#include "common/headers.h"
#include "verify/json.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

TEST_CASE("review: a batch array named twice never stores one element's bytes under another's id",
          "[verify][batch][review]") {
  config::EndpointConfig e;
  e.name = "meta";
  e.key.batch = true;
  e.key.batch_pointer = "/entry";
  e.key.id_pointer = "/id";
  // The parser keeps the last "entry"; the raw walk must not hand out the first one's bytes.
  const std::string body = R"({"entry":[{"id":"A"}],"entry":[{"id":"B"}]})";
  MapHeaders h;
  auto batch = IdentifyBatch(e, h, body);
  if (batch.ok()) {
    for (const BatchEvent& ev : *batch) {
      Result<nlohmann::json> stored = ParseJson(ev.body);
      REQUIRE(stored.ok());
      CHECK(stored->at("id") == ev.identity.event_id);
    }
  } else {
    CHECK(batch.status().code() == Code::kInvalidArgument);
  }
}
