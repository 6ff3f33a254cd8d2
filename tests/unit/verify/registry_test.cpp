// The preset table itself and how the loader uses it: names and aliases,
// the unknown-provider message, Square's public_url rule, overrides, the
// published Standard Webhooks vector and GitHub's composite key.
#include <catch2/catch.hpp>

#include <string>

#include "preset_test_util.h"
#include "verify/registry.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

TEST_CASE("preset aliases: each alias is the same entry as its name", "[verify]") {
  CHECK(FindPreset("standardwebhooks") == FindPreset("standard-webhooks"));
  CHECK(FindPreset("clerk") == FindPreset("svix"));
  CHECK(FindPreset("resend") == FindPreset("svix"));
  CHECK(FindPreset("svix") != FindPreset("standard-webhooks"));
  CHECK(FindPreset("svix")->signature.header == "svix-signature");
  CHECK(FindPreset("standard-webhooks")->signature.header == "webhook-signature");
}

TEST_CASE("preset standard-webhooks and svix: the published Standard Webhooks vector verifies", "[verify]") {
  // The example of the Standard Webhooks spec and the Svix docs (also in hmac_knobs_test.cpp).
  const std::string body = R"({"test": 2432232314})";
  for (const char* prefix : {"webhook-", "svix-"}) {
    const std::string provider = std::string(prefix) == "svix-" ? "svix" : "standard-webhooks";
    INFO(provider);
    config::LoadResult loaded = LoadPreset(provider, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    REQUIRE(loaded.ok());
    MapHeaders h{{std::string(prefix) + "id", "msg_p5jXN8AQM9LWM0D4loKWxJek"},
                 {std::string(prefix) + "timestamp", "1614265330"},
                 {std::string(prefix) + "signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="}};
    CHECK(VerifyAt(loaded.config.endpoints[0], h, body, 1614265330).ok());
    CHECK(VerifyAt(loaded.config.endpoints[0], h, body, 1614265330 + 301).code() == Code::kUnauthenticated);
  }
}

TEST_CASE("preset github: one delivery GUID from two hooks gives two keys", "[verify]") {
  config::LoadResult loaded = LoadPreset("github", "s");
  REQUIRE(loaded.ok());
  const std::string body = R"({"zen":"hi"})";
  MapHeaders repo{{"X-GitHub-Hook-ID", "1"}, {"X-GitHub-Delivery", "d-1"}, {"X-GitHub-Event", "ping"}};
  MapHeaders org{{"X-GitHub-Hook-ID", "2"}, {"X-GitHub-Delivery", "d-1"}, {"X-GitHub-Event", "ping"}};
  CHECK(Identify(loaded.config.endpoints[0], repo, body, true)->event_id == "1:d-1");
  CHECK(Identify(loaded.config.endpoints[0], org, body, true)->event_id == "2:d-1");
  MapHeaders missing{{"X-GitHub-Delivery", "d-1"}};
  Result<EventIdentity> r = Identify(loaded.config.endpoints[0], missing, body, true);
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Catch::Contains("X-GitHub-Hook-ID"));
}

TEST_CASE("preset config: unknown provider lists exactly the presets that exist", "[verify]") {
  config::LoadResult r = LoadPreset("nosuch", "s");
  REQUIRE(!r.ok());
  std::string expected = "unknown provider \"nosuch\"; supported: generic";
  for (const std::string& n : PresetNames()) expected += ", " + n;
  const config::Problem* p = nullptr;
  for (const auto& e : r.errors) {
    if (e.key == "endpoint[0].provider") p = &e;
  }
  REQUIRE(p != nullptr);
  CHECK(p->line == 3);
  CHECK(p->message == expected);
}

TEST_CASE("preset square: without public_url the config is refused at that key", "[verify]") {
  config::LoadResult r = LoadPreset("square", "k");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "endpoint[0].public_url");
  CHECK(r.errors[0].line == 1);  // the [[endpoint]] that lacks it
  CHECK_THAT(r.errors[0].message, Catch::Contains("required for provider \"square\""));
}

TEST_CASE("preset overrides: a file key replaces the preset's value", "[verify]") {
  config::LoadResult r = LoadPreset("stripe", "whsec_x", "[endpoint.signature]\ntolerance_seconds = 900\n");
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].signature.tolerance_seconds == 900);
  CHECK(r.config.endpoints[0].signature.header == "Stripe-Signature");
  CHECK(r.config.endpoints[0].provider == "stripe");
}

TEST_CASE("preset check: every preset passes CheckEndpoint", "[verify]") {
  for (const std::string& name : PresetNames()) {
    INFO(name);
    Status s = CheckEndpoint(*FindPreset(name));
    INFO(s.ToString());
    CHECK(s.ok());
  }
}

TEST_CASE("registry: redelivery windows come from docs/providers.md; undocumented ones set no minimum",
          "[verify][registry][retention]") {
  CHECK(FindPreset("stripe")->redelivery_window_hours == 72);
  CHECK(FindPreset("github")->redelivery_window_hours == 72);  // manual redelivery of the last 3 days
  CHECK(FindPreset("paypal")->redelivery_window_hours == 72);
  CHECK(FindPreset("svix")->redelivery_window_hours == 27);
  CHECK(FindPreset("clerk")->redelivery_window_hours == 27);  // an alias shares its preset's window
  CHECK(FindPreset("whatsapp")->redelivery_window_hours == 168);
  CHECK(FindPreset("intercom")->redelivery_window_hours == 0);  // not documented
  CHECK(FindPreset("woocommerce")->redelivery_window_hours == 0);  // does not retry
}
