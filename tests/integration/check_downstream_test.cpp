// `hookinbox check-downstream ENDPOINT` from the outside: against the test
// downstream that deduplicates by Idempotency-Key, against the same server
// told to ignore the key, against one that is down, and with bad usage.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using json = nlohmann::json;

// The demo endpoint forwarding to `url`; `ref` adds where the target reports its effect.
void Configure(const Installation& inst, const std::string& url, bool ref = true) {
  inst.WriteTestConfig(ForwardingAction(inst, url) + R"(timeout_ms = 5000
)" + (ref ? "result_ref_header = \"X-Ref\"\n" : ""));
}

CommandResult Check(const Installation& inst, const std::string& args = "demo") {
  return RunCommand(BinaryPath() + " check-downstream " + args + " -c " + inst.config_path() + " 2>&1");
}

}  // namespace

TEST_CASE("check-downstream: a target that honours Idempotency-Key deduplicates", "[cli][check-downstream]") {
  Installation inst;
  DownstreamProcess target;
  Configure(inst, target.url());
  auto r = Check(inst);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(": deduplicates") != std::string::npos);
  const json stats = target.Stats();
  CHECK(stats["calls"] == 2);
  CHECK(stats["effects"] == 1);
  const json calls = target.Calls();
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["headers"]["Idempotency-Key"] == calls[1]["headers"]["Idempotency-Key"]);
  CHECK(calls[0]["headers"]["X-Hookinbox-Event-Type"] == "hookinbox.idempotency_probe");
  CHECK(json::parse(calls[0]["body"].get<std::string>())["hookinbox_probe"] == "idempotency-check");
  // A probe is not an event: nothing was stored.
  CHECK(inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
}

TEST_CASE("check-downstream: a target that ignores the key does NOT deduplicate", "[cli][check-downstream]") {
  Installation inst;
  DownstreamProcess target(/*dedup=*/false);
  Configure(inst, target.url());
  auto r = Check(inst, "demo --json");
  INFO(r.out);
  CHECK(r.exit_code == 1);
  const json out = json::parse(r.out);
  CHECK(out["result"] == "does NOT deduplicate");
  CHECK(target.Stats()["effects"] == 2);
}

TEST_CASE("check-downstream: without a result reference, or with the target down, it cannot tell",
          "[cli][check-downstream]") {
  Installation inst;
  DownstreamProcess target(/*dedup=*/false);
  SECTION("no result_ref configured: identical answers prove nothing") {
    Configure(inst, target.url(), /*ref=*/false);
    auto r = Check(inst);
    INFO(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("cannot tell") != std::string::npos);
    CHECK(r.out.find("result_ref_header") != std::string::npos);
  }
  SECTION("target down") {
    Configure(inst, target.url());
    target.Kill();
    auto r = Check(inst);
    INFO(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("cannot tell") != std::string::npos);
    CHECK(r.out.find("first probe failed") != std::string::npos);
  }
}

TEST_CASE("check-downstream: usage errors exit 2 and send nothing", "[cli][check-downstream]") {
  Installation inst;
  DownstreamProcess target;
  SECTION("unknown endpoint") {
    Configure(inst, target.url());
    auto r = Check(inst, "nope");
    INFO(r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.find("no endpoint named \"nope\"") != std::string::npos);
  }
  SECTION("endpoint without an http action") {
    inst.WriteTestConfig();
    auto r = Check(inst);
    INFO(r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.find("only an http target can be checked") != std::string::npos);
  }
  SECTION("no endpoint argument") {
    Configure(inst, target.url());
    auto r = RunCommand(BinaryPath() + " check-downstream -c " + inst.config_path() + " 2>&1");
    CHECK(r.exit_code == 2);
  }
  CHECK(target.Stats()["calls"] == 0);
}

}  // namespace hookinbox::testing
