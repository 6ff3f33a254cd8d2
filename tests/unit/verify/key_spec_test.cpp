// The key spec: equal settings give an equal fingerprint; every setting that
// changes an event's key changes it; settings that do not (secrets, actions,
// event types, alerts) leave it alone.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "verify/key_spec.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

config::EndpointConfig Endpoint() {
  config::EndpointConfig e;
  e.name = "payments";
  e.provider = "stripe";
  e.key.id_pointer = "/id";
  e.key.event_type_pointer = "/type";
  return e;
}

using Edit = std::function<void(config::EndpointConfig&)>;

std::string FingerprintAfter(const Edit& edit, config::EndpointConfig e = Endpoint()) {
  edit(e);
  return KeySpecFingerprint(e);
}

}  // namespace

TEST_CASE("key spec: the same settings give the same fingerprint and text", "[verify][key_spec]") {
  const KeySpec a = DescribeKeySpec(Endpoint());
  const KeySpec b = DescribeKeySpec(Endpoint());
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.text == b.text);
  CHECK(a.fingerprint.size() == 16);
  CHECK(a.fingerprint.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a.text == R"({"body_kind":"json","id_pointer":"/id","provider":"stripe","tenant":"default"})");
  CHECK(KeySpecFingerprint(Endpoint()) == a.fingerprint);
}

TEST_CASE("key spec: every setting that changes an event's key changes the fingerprint", "[verify][key_spec]") {
  const std::string before = KeySpecFingerprint(Endpoint());
  const std::vector<std::pair<const char*, Edit>> changes = {
      {"provider", [](auto& e) { e.provider = "generic"; }},
      {"tenant", [](auto& e) { e.tenant = "acme"; }},
      {"tenants from the path", [](auto& e) { e.tenants.push_back({"acme", {}}); }},
      {"id pointer", [](auto& e) { e.key.id_pointer = "/data/id"; }},
      {"id header", [](auto& e) { e.key.id_header = "X-Event-Id"; }},
      {"composite fields", [](auto& e) { e.key.id_pointer.clear(), e.key.fields = {"/type", "/data/id"}; }},
      {"canonical hash", [](auto& e) { e.key.id_pointer.clear(), e.key.canonical_hash = true; }},
      {"batch", [](auto& e) { e.key.batch = true; }},
      {"body kind", [](auto& e) { e.signature.body_kind = "form"; }},
  };
  for (const auto& [what, edit] : changes) {
    INFO(what);
    CHECK(FingerprintAfter(edit) != before);
  }
  SECTION("composite fields: their order and each part count") {
    Edit fields = [](auto& e) { e.key.id_pointer.clear(), e.key.fields = {"/type", "/data/id"}; };
    const std::string composite = FingerprintAfter(fields);
    CHECK(FingerprintAfter([](auto& e) { e.key.fields = {"/data/id", "/type"}; }, [&] {
            auto e = Endpoint();
            fields(e);
            return e;
          }()) != composite);
    CHECK(FingerprintAfter([](auto& e) { e.key.fields.push_back("header:X-Hook-Id"); }, [&] {
            auto e = Endpoint();
            fields(e);
            return e;
          }()) != composite);
  }
  SECTION("batch pointer and the canonical hash's volatile fields") {
    auto batch = Endpoint();
    batch.key.batch = true;
    CHECK(FingerprintAfter([](auto& e) { e.key.batch_pointer = "/events"; }, batch) != KeySpecFingerprint(batch));
    auto hashed = Endpoint();
    hashed.key.id_pointer.clear();
    hashed.key.canonical_hash = true;
    CHECK(FingerprintAfter([](auto& e) { e.volatile_fields = {"/attempt"}; }, hashed) != KeySpecFingerprint(hashed));
  }
}

TEST_CASE("key spec: secrets, actions, event types, alerts and other settings leave it alone", "[verify][key_spec]") {
  const KeySpec before = DescribeKeySpec(Endpoint());
  const std::vector<std::pair<const char*, Edit>> unchanged = {
      {"secret", [](auto& e) { e.secrets.push_back(Secret("whsec_new")); }},
      {"signature", [](auto& e) { e.signature.header = "Stripe-Signature", e.signature.tolerance_seconds = 60; }},
      {"action", [](auto& e) { e.action.type = "http", e.action.url = "https://crm.example/in"; }},
      {"event types", [](auto& e) { e.event_types = {"invoice.paid"}, e.ignore_other_event_types = true; }},
      {"event type source", [](auto& e) { e.key.event_type_pointer = "/kind"; }},
      {"alert", [](auto& e) { e.alert.silence_ms = 3600000; }},
      {"retention", [](auto& e) { e.retention.key_days = 30; }},
      {"volatile fields beside an explicit id", [](auto& e) { e.volatile_fields = {"/attempt"}; }},
      {"canonical hash beside an explicit id", [](auto& e) { e.key.canonical_hash = true; }},
  };
  for (const auto& [what, edit] : unchanged) {
    INFO(what);
    CHECK(FingerprintAfter(edit) == before.fingerprint);
  }
  SECTION("a header name's case does not matter: headers are read case-insensitively") {
    CHECK(FingerprintAfter([](auto& e) { e.key.id_pointer.clear(), e.key.id_header = "x-event-id"; }) ==
          FingerprintAfter([](auto& e) { e.key.id_pointer.clear(), e.key.id_header = "X-Event-ID"; }));
  }
  SECTION("the text never holds a secret") {
    auto e = Endpoint();
    e.secrets.push_back(Secret("whsec_do_not_show"));
    e.tenants.push_back({"acme", {Secret("tenant_secret")}});
    const std::string text = DescribeKeySpec(e).text;
    CHECK(text.find("whsec") == std::string::npos);
    CHECK(text.find("tenant_secret") == std::string::npos);
  }
  SECTION("which tenants a path-tenant endpoint has does not change any event's key") {
    auto e = Endpoint();
    e.tenants.push_back({"acme", {}});
    CHECK(FingerprintAfter([](auto& x) { x.tenants.push_back({"globex", {}}); }, e) == KeySpecFingerprint(e));
  }
}
