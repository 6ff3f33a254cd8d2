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

  cli::KeyGuardOutcome refused = cli::GuardKeySpecs(*f.store, c, {"crm"}, "reload:signal", kT0 + 1);
  CHECK(refused.code == Code::kConflict);
  REQUIRE(refused.problems.size() == 1);  // crm accepted: not named
  CHECK_THAT(refused.problems[0].message,
             Catch::StartsWith("endpoint \"payments\": the idempotency key settings changed"));
  CHECK(refused.problems[0].key.empty());
  refused = cli::GuardKeySpecs(*f.store, c, {}, "reload:signal", kT0 + 1);
  REQUIRE(refused.problems.size() == 2);  // one per endpoint, in config order
  CHECK_THAT(refused.problems[1].message, Catch::StartsWith("endpoint \"crm\": "));
  // A start prints them as one message, a line each.
  CHECK(refused.status().code() == Code::kConflict);
  CHECK(refused.status().message() == refused.problems[0].message + "\n" + refused.problems[1].message);
  CHECK(f.Count("SELECT count(*) FROM endpoint_key_specs") == 2);

  cli::KeyGuardOutcome unknown = cli::GuardKeySpecs(*f.store, c, {"payments", "paymnets"}, "reload:signal", kT0 + 1);
  CHECK(unknown.code == Code::kInvalidArgument);
  REQUIRE(unknown.problems.size() == 1);
  CHECK(unknown.problems[0].message == "--accept-key-change paymnets: no endpoint \"paymnets\" in the config");
  CHECK(unknown.status().message() == unknown.problems[0].message);
  CHECK(f.Count("SELECT count(*) FROM endpoint_key_specs") == 2);

  REQUIRE(cli::GuardKeySpecs(*f.store, c, {"payments", "crm"}, "reload:admin:127.0.0.1", kT0 + 2).ok());
  CHECK(f.Count("SELECT count(*) FROM endpoint_key_specs") == 4);
  CHECK(f.Count("SELECT count(*) FROM endpoint_actions WHERE action = 'key_spec_changed'"
                " AND actor = 'reload:admin:127.0.0.1'") == 2);
  CHECK(cli::GuardKeySpecs(*f.store, c, {}, "reload:signal", kT0 + 3).ok());  // in force now: no change
}

namespace {

// A database that fails as told: the check, or the record after it.
struct FailingKeySpecs : store::KeySpecs {
  Status check = Status::Ok();
  Status record = Status::Ok();
  Result<std::vector<store::KeySpecChange>> CheckKeySpecs(const std::vector<store::KeySpecNow>&) override {
    if (!check.ok()) return check;
    return std::vector<store::KeySpecChange>{};
  }
  Status RecordKeySpecs(const std::vector<store::KeySpecNow>&, const std::vector<std::string>&, const std::string&,
                        int64_t) override {
    return record;
  }
};

}  // namespace

TEST_CASE("key guard: a database refusal is a problem per line of its message, with its code", "[cli][key_spec]") {
  FailingKeySpecs db;
  SECTION("the check fails: a driver's message over two lines") {
    db.check = Unavailable("check key specs: connection lost\nis the server running?");
    cli::KeyGuardOutcome out = cli::GuardKeySpecs(db, TwoEndpoints(), {}, "reload:signal", kT0);
    CHECK(out.code == Code::kUnavailable);
    REQUIRE(out.problems.size() == 2);
    CHECK(out.problems[0].message == "check key specs: connection lost");
    CHECK(out.problems[1].message == "is the server running?");
    CHECK(out.status().message() == "check key specs: connection lost\nis the server running?");
  }
  SECTION("the record refuses (another replica stored an event since the check)") {
    db.record = Status(Code::kConflict, "endpoint \"crm\": the idempotency key settings changed");
    cli::KeyGuardOutcome out = cli::GuardKeySpecs(db, TwoEndpoints(), {}, "reload:signal", kT0);
    CHECK(out.code == Code::kConflict);
    REQUIRE(out.problems.size() == 1);
    CHECK(out.problems[0].message == "endpoint \"crm\": the idempotency key settings changed");
  }
  SECTION("a refusal without words still says what failed") {
    db.record = Unavailable("");
    cli::KeyGuardOutcome out = cli::GuardKeySpecs(db, TwoEndpoints(), {}, "reload:signal", kT0);
    CHECK(!out.ok());
    REQUIRE(out.problems.size() == 1);
    CHECK(out.problems[0].message == "the key settings could not be checked");
  }
  SECTION("recorded: ok, no problems") {
    cli::KeyGuardOutcome out = cli::GuardKeySpecs(db, TwoEndpoints(), {}, "start:alice", kT0);
    CHECK(out.ok());
    CHECK(out.problems.empty());
    CHECK(out.status().ok());
  }
}
