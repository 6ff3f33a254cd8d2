// cli/key_guard.h over a real store (SQLite, or PostgreSQL with
// HOOKINBOX_TEST_PG_URL): a start records each endpoint's key settings; a
// key change on an endpoint with stored events is refused, naming every
// such endpoint, until accepted; a secret change is no key change.
#include <catch2/catch.hpp>

#include "cli/key_guard.h"
#include "store/sql/sql.h"
#include "support/backend.h"
#include "support/temp_dir.h"
#include "verify/key_spec.h"

using namespace hookinbox;

namespace {

constexpr int64_t kT0 = 1764511200000;

config::Config TwoEndpoints() {
  config::Config c;
  for (const char* name : {"payments", "crm"}) {
    config::EndpointConfig e;
    e.name = name;
    e.key.id_pointer = "/id";
    e.secrets.push_back(Secret("old-secret"));
    c.endpoints.push_back(e);
  }
  return c;
}

void Store(store::SqlStore& s, const config::EndpointConfig& e, const std::string& event_id) {
  store::NewEvent ev;
  ev.provider = e.provider;
  ev.endpoint = e.name;
  ev.tenant_id = e.tenant;
  ev.event_id = event_id;
  ev.payload_hash = "h";
  ev.body = "{}";
  ev.received_at_ms = kT0;
  ev.key_spec = verify::KeySpecFingerprint(e);
  store::DeliveryRecord d;
  d.received_at_ms = kT0;
  d.endpoint = e.name;
  REQUIRE(s.RecordEvent(ev, d).ok());
}

struct Fixture {
  testing::TempDir dir;
  testing::TestDatabase database{dir.File("hookinbox.db")};
  std::unique_ptr<store::SqlStore> store = database.OpenStore(2000, 64);
  int64_t Count(const std::string& sql) const { return store::sql::QueryInt64(*database.Connect(), sql); }
};

}  // namespace

TEST_CASE("key guard: a start records every endpoint; a secret change is no key change", "[cli][key_spec]") {
  Fixture f;
  config::Config c = TwoEndpoints();
  auto specs = cli::KeySpecsOf(c);
  REQUIRE(specs.size() == 2);
  CHECK(specs[0].endpoint == "payments");
  CHECK(specs[0].provider == "generic");
  CHECK(specs[0].fingerprint == verify::KeySpecFingerprint(c.endpoints[0]));
  CHECK(specs[0].spec == verify::DescribeKeySpec(c.endpoints[0]).text);
  REQUIRE(cli::GuardKeySpecs(*f.store, c, {}, "start:alice", kT0).ok());
  CHECK(f.Count("SELECT count(*) FROM endpoint_key_specs") == 2);
  Store(*f.store, c.endpoints[0], "evt_1");
  c.endpoints[0].secrets = {Secret("new-secret")};
  REQUIRE(cli::GuardKeySpecs(*f.store, c, {}, "reload:signal", kT0 + 1).ok());
  CHECK(f.Count("SELECT count(*) FROM endpoint_key_specs") == 2);
  CHECK(f.Count("SELECT count(*) FROM endpoint_actions") == 0);
}

TEST_CASE("key guard: a key change with stored events is refused, naming each endpoint, until accepted",
          "[cli][key_spec]") {
  Fixture f;
  config::Config c = TwoEndpoints();
  REQUIRE(cli::GuardKeySpecs(*f.store, c, {}, "start:alice", kT0).ok());
  Store(*f.store, c.endpoints[0], "evt_1");
  Store(*f.store, c.endpoints[1], "evt_2");
  c.endpoints[0].key.id_pointer = "/data/id";
  c.endpoints[1].tenant = "acme";

  Status refused = cli::GuardKeySpecs(*f.store, c, {"crm"}, "reload:signal", kT0 + 1);
  CHECK(refused.code() == Code::kConflict);
  CHECK_THAT(refused.message(), Catch::StartsWith("endpoint \"payments\": the idempotency key settings changed"));
  CHECK_THAT(refused.message(), !Catch::Contains("endpoint \"crm\""));  // accepted: not named
  refused = cli::GuardKeySpecs(*f.store, c, {}, "reload:signal", kT0 + 1);
  CHECK_THAT(refused.message(), Catch::Contains("\nendpoint \"crm\": "));
  CHECK(f.Count("SELECT count(*) FROM endpoint_key_specs") == 2);

  Status unknown = cli::GuardKeySpecs(*f.store, c, {"payments", "paymnets"}, "reload:signal", kT0 + 1);
  CHECK(unknown.code() == Code::kInvalidArgument);
  CHECK(unknown.message() == "--accept-key-change paymnets: no endpoint \"paymnets\" in the config");
  CHECK(f.Count("SELECT count(*) FROM endpoint_key_specs") == 2);

  REQUIRE(cli::GuardKeySpecs(*f.store, c, {"payments", "crm"}, "reload:admin:127.0.0.1", kT0 + 2).ok());
  CHECK(f.Count("SELECT count(*) FROM endpoint_key_specs") == 4);
  CHECK(f.Count("SELECT count(*) FROM endpoint_actions WHERE action = 'key_spec_changed'"
                " AND actor = 'reload:admin:127.0.0.1'") == 2);
  CHECK(cli::GuardKeySpecs(*f.store, c, {}, "reload:signal", kT0 + 3).ok());  // in force now: no change
}
