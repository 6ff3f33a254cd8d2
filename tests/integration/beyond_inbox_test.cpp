// Exactly once beyond the inbox, through the real binary: business keys
// (semantic duplicates) and the ordering guard, with the worker forwarding
// to the test downstream process.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

struct Rig {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess downstream;
  explicit Rig(const std::string& beyond) {
    inst.WriteTestConfig(beyond + ForwardingAction(inst, downstream.url()) + R"(result_ref_header = "X-Ref"
idempotent_target = true
concurrency = 4

[worker]
threads = 4
lease_seconds = 5
backoff_initial_ms = 10
backoff_max_ms = 50
)");
  }
  int64_t Deliver(const std::string& body) const {
    HttpResult r = server.PostSigned("/hooks/demo", body);
    INFO(r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body).at("id").get<int64_t>();
  }
  std::string Row(int64_t id, const std::string& columns) const {
    return inst.Sql("SELECT " + columns + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
  bool Settles(int64_t id) const {
    return PollUntil(
        [&] {
          const std::string s = Row(id, "status");
          return s == "completed" || s == "skipped" || s == "dead_lettered";
        },
        60s);
  }
};

const char* kBusinessKey = R"(
[endpoint.business_key]
fields = ["/data/invoice"]
[endpoint.business_key.operations]
"invoice.paid" = "mark_paid"
"payment.succeeded" = "mark_paid"
)";

const char* kOrdering = R"(
[endpoint.ordering]
object = "/data/order"
version = "/data/version"
)";

std::string OrderEvent(const std::string& id, const std::string& type, int version) {
  return R"({"id":")" + id + R"(","type":")" + type + R"(","data":{"order":"ord_7","version":)" +
         std::to_string(version) + "}}";
}

}  // namespace

TEST_CASE("beyond the inbox: two event ids for one invoice and operation make one effect; the second is skipped",
          "[beyond][business-key]") {
  Rig rig(kBusinessKey);
  rig.downstream.Default(json{{"status", 200}, {"delay_ms", 200}});  // the first is still running when the second comes
  rig.server.Start();
  const int64_t first = rig.Deliver(R"({"id":"evt_paid","type":"invoice.paid","data":{"invoice":"in_42"}})");
  const int64_t second =
      rig.Deliver(R"({"id":"evt_pay_ok","type":"payment.succeeded","data":{"invoice":"in_42","amount":100}})");
  const int64_t other = rig.Deliver(R"({"id":"evt_other","type":"invoice.paid","data":{"invoice":"in_43"}})");
  REQUIRE(rig.Settles(first));
  REQUIRE(rig.Settles(second));
  REQUIRE(rig.Settles(other));
  CHECK(rig.Row(first, "status") == "completed");
  CHECK(rig.Row(second, "status || '|' || skip_reason || '|' || skipped_for") ==
        "skipped|duplicate_business_key|" + std::to_string(first));
  CHECK(rig.Row(other, "status") == "completed");
  // One effect per business action: in_42 once, in_43 once.
  CHECK(rig.downstream.Stats()["effects"] == 2);
  std::string bodies;
  for (const json& call : rig.downstream.Calls()) bodies += call["body"].get<std::string>();
  CHECK(bodies.find("evt_pay_ok") == std::string::npos);
  // Both are in the audit: the second's attempt row says why it did nothing.
  CHECK(rig.inst.Sql("SELECT outcome FROM webhook_attempts WHERE inbox_id = " + std::to_string(first)) == "completed");
  CHECK(rig.inst.Sql("SELECT outcome || '|' ||"
                     " (CASE WHEN error LIKE 'duplicate_business_key: mark_paid(/data/invoice)%' THEN 1 ELSE 0 END)"
                     " FROM webhook_attempts WHERE inbox_id = " + std::to_string(second)) == "skipped|1");
  // The key is stored as a hash with a value-free hint.
  CHECK(rig.inst.Sql("SELECT count(*) FROM business_keys WHERE hint LIKE '%in_4%'") == "0");
  CHECK(rig.inst.Sql("SELECT count(*) FROM business_keys WHERE status = 'applied'") == "2");
}

TEST_CASE("beyond the inbox: shipped then processing, delivered in reverse, applies only the newest",
          "[beyond][ordering]") {
  Rig rig(kOrdering);
  rig.server.Start();
  const int64_t shipped = rig.Deliver(OrderEvent("evt_shipped", "order.shipped", 2));
  REQUIRE(rig.Settles(shipped));
  const int64_t processing = rig.Deliver(OrderEvent("evt_processing", "order.processing", 1));
  REQUIRE(rig.Settles(processing));
  CHECK(rig.Row(shipped, "status") == "completed");
  CHECK(rig.Row(processing, "status || '|' || skip_reason || '|' || skipped_for") ==
        "skipped|stale_version|" + std::to_string(shipped));
  CHECK(rig.inst.Sql("SELECT version || '|' || inbox_id FROM object_versions") == "2|" + std::to_string(shipped));
  CHECK(rig.downstream.Stats()["effects"] == 1);
  // A delivery without a readable version is refused and changes nothing.
  HttpResult bad = rig.server.PostSigned(
      "/hooks/demo", R"({"id":"evt_bad","type":"order.shipped","data":{"order":"ord_7","version":"soon"}})");
  CHECK(bad.status == 400);
  CHECK(bad.body.find("ordering version") != std::string::npos);
  CHECK(rig.inst.Sql("SELECT count(*) FROM webhook_inbox") == "2");
}

TEST_CASE("beyond the inbox: 50 events of one object at once are applied in version order, never two at once",
          "[beyond][ordering]") {
  Rig rig(kOrdering);
  rig.downstream.Default(json{{"status", 200}, {"delay_ms", 20}});
  rig.server.Start();
  std::vector<int> versions(50);
  for (int i = 0; i < 50; ++i) versions[i] = i + 1;
  std::shuffle(versions.begin(), versions.end(), std::mt19937(7));
  std::vector<std::thread> senders;
  std::vector<int64_t> ids(50);
  std::vector<int> status(50);
  for (int i = 0; i < 50; ++i) {
    senders.emplace_back([&, i] {
      HttpResult r = rig.server.PostSigned("/hooks/demo", OrderEvent("evt_v" + std::to_string(versions[i]),
                                                                     "order.updated", versions[i]));
      status[i] = r.status;
      if (r.status == 200) ids[i] = json::parse(r.body).at("id").get<int64_t>();
    });
  }
  for (auto& t : senders) t.join();
  REQUIRE(std::all_of(status.begin(), status.end(), [](int s) { return s == 200; }));
  for (int64_t id : ids) REQUIRE(rig.Settles(id));

  // The attempts that ran the action, in the order they started.
  std::stringstream rows(rig.inst.Sql(
      "SELECT i.object_version || ' ' || a.started_at || ' ' || a.finished_at FROM webhook_attempts a"
      " JOIN webhook_inbox i ON i.id = a.inbox_id WHERE a.outcome = 'completed' ORDER BY a.started_at, a.id"));
  int64_t last_version = 0, last_finished = 0;
  int applied = 0;
  for (int64_t version, started, finished; rows >> version >> started >> finished; ++applied) {
    INFO("version " << version);
    CHECK(version > last_version);       // applied in version order
    CHECK(started >= last_finished);     // never two at once
    last_version = version;
    last_finished = finished;
  }
  CHECK(applied >= 1);
  CHECK(last_version == 50);  // the newest is always applied
  const int skipped = std::stoi(rig.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE status = 'skipped'"
                                             " AND skip_reason = 'stale_version'"));
  CHECK(applied + skipped == 50);
  CHECK(rig.downstream.Stats()["effects"] == applied);
  CHECK(rig.inst.Sql("SELECT version FROM object_versions") == "50");
}

}  // namespace hookinbox::testing
