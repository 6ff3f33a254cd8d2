// `hookinbox send-test` against the real server: the demo endpoint, a Stripe
// and a GitHub preset endpoint, VNPay (a signed GET) and MoMo (a signed body)
// with their providers' answers; --times, --concurrent, --json, and the exit
// codes for an unknown endpoint (2) and a server that is not running (1).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <regex>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

struct SendTestServer {
  Installation inst;
  ServerProcess server{inst};
  SendTestServer() {
    ::setenv("HOOKINBOX_IT_STRIPE_SECRET", "whsec_integration_stripe", 1);
    ::setenv("HOOKINBOX_IT_GITHUB_SECRET", "github-integration-secret", 1);
    inst.WriteTestConfig(R"(
[[endpoint]]
name = "payments"
provider = "stripe"
secret_env = "HOOKINBOX_IT_STRIPE_SECRET"

[[endpoint]]
name = "code"
provider = "github"
secret_env = "HOOKINBOX_IT_GITHUB_SECRET"
)");
    server.Start();
  }
  CommandResult Send(const std::string& args) const {
    return RunCommand(BinaryPath() + " send-test " + args + " -c " + inst.config_path() +
                      " --url https://127.0.0.1:" + std::to_string(server.port()) + " 2>&1");
  }
};

}  // namespace

TEST_CASE("send-test: a signed sample is accepted, then answered as a duplicate", "[integration][send-test]") {
  SendTestServer s;
  auto once = s.Send("demo");
  INFO(once.out);
  CHECK(once.exit_code == 0);
  CHECK(std::regex_search(once.out, std::regex(R"(^200 \{.*"accepted")")));
  CHECK(once.out.find(s.inst.secret()) == std::string::npos);

  auto three = s.Send("demo --times 3");
  INFO(three.out);
  CHECK(three.exit_code == 0);
  CHECK(Count(three.out, "\"accepted\"") == 1);
  CHECK(Count(three.out, "\"duplicate\"") == 2);

  auto json = s.Send("demo --json --event-type demo.ping");
  INFO(json.out);
  CHECK(json.exit_code == 0);
  CHECK(json.out.find("\"status\": 200") != std::string::npos);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE event_type = 'demo.ping'") == "1");
}

TEST_CASE("send-test: concurrent copies of one delivery make exactly one inbox row", "[integration][send-test]") {
  SendTestServer s;
  auto r = s.Send("demo --times 5 --concurrent --event-type race.test");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(Count(r.out, "\"accepted\"") == 1);
  CHECK(Count(r.out, "\"duplicate\"") == 4);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE event_type = 'race.test'") == "1");
}

TEST_CASE("send-test: Stripe and GitHub preset endpoints accept what send-test signs", "[integration][send-test]") {
  SendTestServer s;
  auto stripe = s.Send("payments --event-type payment_intent.succeeded");
  INFO(stripe.out);
  CHECK(stripe.exit_code == 0);
  CHECK(stripe.out.find("\"accepted\"") != std::string::npos);
  CHECK(stripe.out.find("whsec_integration_stripe") == std::string::npos);
  auto github = s.Send("code --event-type push");
  INFO(github.out);
  CHECK(github.exit_code == 0);
  CHECK(github.out.find("\"accepted\"") != std::string::npos);
  CHECK(s.inst.Sql("SELECT provider||'|'||event_type FROM webhook_inbox ORDER BY provider") ==
        "github|push\nstripe|payment_intent.succeeded");
}

TEST_CASE("send-test: the default URL comes from server.listen and the certificate verifies",
          "[integration][send-test]") {
  SendTestServer s;
  // The config listens on port 0, so rewrite it to the port the server chose.
  // Only the first match, server.listen ([admin] listens on port 0 too).
  auto r = RunCommand("sed -i '0,/127.0.0.1:0/s//127.0.0.1:" + std::to_string(s.server.port()) + "/' " +
                      s.inst.config_path() + " && " + BinaryPath() + " send-test demo -c " + s.inst.config_path() +
                      " 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"accepted\"") != std::string::npos);
}

TEST_CASE("send-test: unknown endpoint is a usage error; a closed port is a failure", "[integration][send-test]") {
  Installation inst;
  ::setenv("HOOKINBOX_IT_STRIPE_SECRET", "whsec_integration_stripe", 1);
  inst.WriteTestConfig(R"(
[[endpoint]]
name = "payments"
provider = "stripe"
secret_env = "HOOKINBOX_IT_STRIPE_SECRET"

[[endpoint]]
name = "multi"
provider = "stripe"
[[endpoint.tenants]]
id = "acme"
secret_env = "HOOKINBOX_IT_STRIPE_SECRET"
)");
  auto unknown = RunCommand(BinaryPath() + " send-test nope -c " + inst.config_path() + " 2>&1");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.out.find("demo, payments, multi") != std::string::npos);
  auto no_tenant = RunCommand(BinaryPath() + " send-test multi -c " + inst.config_path() + " 2>&1");
  CHECK(no_tenant.exit_code == 2);
  CHECK(no_tenant.out.find("--tenant") != std::string::npos);

  // Port 1 on loopback: nothing listens there.
  auto refused =
      RunCommand(BinaryPath() + " send-test demo -c " + inst.config_path() + " --url https://127.0.0.1:1 2>&1");
  INFO(refused.out);
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.find("https://127.0.0.1:1/hooks/demo") != std::string::npos);
}

// VNPay and MoMo sign their own fields (the signature is inside the delivery):
// send-test sends each provider's documented example with fresh key fields,
// VNPay's as a GET whose query is the signed form, and gets the provider's answers.
TEST_CASE("send-test: VNPay (a signed GET) and MoMo (a signed body) get their providers' answers",
          "[integration][send-test][vn_ua]") {
  Installation inst;
  ServerProcess server{inst};
  inst.WriteTestConfig(PresetEndpoint("vnpay", "vnpay", "vnp-send-test-secret") +
                       PresetEndpoint("momo", "momo", "momo-send-test-secret",
                                      "[endpoint.signature]\naccess_key = \"send-test-access-key\"\n"));
  server.Start();
  auto send = [&](const std::string& args) {
    return RunCommand(BinaryPath() + " send-test " + args + " -c " + inst.config_path() +
                      " --url https://127.0.0.1:" + std::to_string(server.port()) + " 2>&1");
  };
  auto vnpay = send("vnpay --times 2");
  INFO(vnpay.out);
  CHECK(vnpay.exit_code == 0);
  CHECK(Count(vnpay.out, R"(200 {"RspCode":"00")") == 1);
  CHECK(Count(vnpay.out, R"(200 {"RspCode":"02")") == 1);
  CHECK(vnpay.out.find("vnp-send-test-secret") == std::string::npos);
  CHECK(inst.Sql("SELECT event_type FROM webhook_inbox WHERE endpoint = 'vnpay'") == "00");
  CHECK(inst.Sql("SELECT method FROM webhook_deliveries WHERE endpoint = 'vnpay' LIMIT 1") == "GET");

  auto momo = send("momo --times 2");
  INFO(momo.out);
  CHECK(momo.exit_code == 0);
  CHECK(Count(momo.out, "204") == 2);
  CHECK(inst.Sql("SELECT event_type FROM webhook_inbox WHERE endpoint = 'momo'") == "0");
  CHECK(inst.Sql("SELECT outcome || ' ' || http_status FROM webhook_deliveries WHERE endpoint = 'momo' ORDER BY id") ==
        "accepted 204\nduplicate 204");
}
