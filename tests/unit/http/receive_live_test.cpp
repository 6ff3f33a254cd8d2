// The receive path under a live config (http/receive.h, config/live.h): a
// LiveConfig::Replace between two requests changes what the next one is
// judged by (an endpoint added, removed, its secret changed), and a request
// that is under way when the config is replaced finishes on the config it
// started on — its signature checked with that config's secret, its claim
// and audit row labelled with that config's provider and tenant. Drives
// http::Receiver directly, as the listener does, over the in-memory store
// of the fuzz harness; the Replace "during" a request is made from inside
// the body reader or the store's claim, so the interleaving is exact.
#include <httplib.h>

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/encoding.h"
#include "config/live.h"
#include "fuzz/support/fake_store.h"
#include "http/receive.h"
#include "verify/crypto.h"

using namespace hookinbox;

namespace {

// The fuzz harness's store, with a call made just before each claim.
class ClaimHookStore final : public store::Ingest {
 public:
  std::function<void()> before_claim;
  fuzz::FakeStore inner;

  Result<store::RecordedEvent> RecordEvent(const store::NewEvent& e, store::DeliveryRecord d) override {
    if (before_claim) before_claim();
    return inner.RecordEvent(e, std::move(d));
  }
  Result<std::vector<store::RecordedEvent>> RecordBatch(const std::vector<store::NewEvent>& e,
                                                        store::DeliveryRecord d) override {
    if (before_claim) before_claim();
    return inner.RecordBatch(e, std::move(d));
  }
  Status RecordRejected(store::DeliveryRecord d) override { return inner.RecordRejected(std::move(d)); }
  Status RecordIgnored(store::DeliveryRecord d) override { return inner.RecordIgnored(std::move(d)); }
  Status RecordUnverifiedAnswer(store::DeliveryRecord d) override { return inner.RecordUnverifiedAnswer(std::move(d)); }
  Status CheckWritable() override { return inner.CheckWritable(); }
  void Close() override {}
};

// An HMAC-SHA256 (hex, X-Signature over the body) endpoint keyed by /id.
config::EndpointConfig Endpoint(const std::string& name, const std::string& secret,
                                const std::string& provider = "generic", const std::string& tenant = "default") {
  config::EndpointConfig e;
  e.name = name;
  e.provider = provider;
  e.tenant = tenant;
  e.secrets = {Secret(secret)};
  e.key.id_pointer = "/id";
  return e;
}

std::shared_ptr<const config::Config> ConfigWith(std::vector<config::EndpointConfig> endpoints) {
  config::Config c;
  c.endpoints = std::move(endpoints);
  return std::make_shared<const config::Config>(std::move(c));
}

std::string Sign(const std::string& secret, const std::string& body) {
  return HexEncode(verify::Hmac(verify::HashAlg::kSha256, secret, body));
}

struct Fixture {
  FakeClock clock{1764669600000};
  ClaimHookStore store;
  config::LiveConfig live{config::Config{}};
  http::Receiver receiver{live, store, clock};
  // Called by the body reader before it hands the body over.
  std::function<void()> while_reading;

  // POST /hooks/{path} with `body` signed by `secret`; the answer's status.
  int Post(const std::string& path, const std::string& body, const std::string& secret) {
    httplib::Request req;
    req.method = "POST";
    req.path = req.target = "/hooks/" + path;
    req.version = "HTTP/1.1";
    req.remote_addr = "192.0.2.1";
    req.headers.emplace("Content-Type", "application/json");
    req.headers.emplace("Content-Length", std::to_string(body.size()));
    req.headers.emplace("X-Signature", Sign(secret, body));
    httplib::ContentReader reader(
        [&](httplib::ContentReceiver receive) {
          if (while_reading) while_reading();
          return receive(body.data(), body.size());
        },
        [](httplib::MultipartContentHeader, httplib::ContentReceiver) { return false; });
    httplib::Response res;
    receiver.HandlePost(req, res, reader);
    receiver.AuditIfUnrecorded(req, res);  // as the listener's logger does after every answer
    INFO(res.body);
    return res.status;
  }
  const store::DeliveryRecord& LastAudit() const {
    REQUIRE_FALSE(store.inner.deliveries.empty());
    return store.inner.deliveries.back();
  }
};

}  // namespace

TEST_CASE("receive under a live config: each request is judged by the config in force when it starts",
          "[http][reload]") {
  Fixture f;
  CHECK(f.Post("orders", R"({"id":"e1"})", "old-secret") == 404);  // not configured yet

  f.live.Replace(ConfigWith({Endpoint("orders", "old-secret")}));
  CHECK(f.Post("orders", R"({"id":"e1"})", "old-secret") == 200);  // added: accepted
  CHECK(f.LastAudit().endpoint == "orders");

  f.live.Replace(ConfigWith({Endpoint("orders", "new-secret")}));
  CHECK(f.Post("orders", R"({"id":"e2"})", "old-secret") == 401);  // the old secret no longer verifies
  CHECK(f.LastAudit().outcome == store::DeliveryOutcome::kRejected);
  CHECK(f.Post("orders", R"({"id":"e2"})", "new-secret") == 200);

  f.live.Replace(ConfigWith({}));
  CHECK(f.Post("orders", R"({"id":"e3"})", "new-secret") == 404);  // removed
  CHECK(f.LastAudit().endpoint.empty());
  CHECK(f.store.inner.stored.size() == 2);
}

TEST_CASE("receive under a live config: a request under way when the config is replaced finishes on its own",
          "[http][reload]") {
  Fixture f;
  f.live.Replace(ConfigWith({Endpoint("orders", "old-secret", "shop-v1", "eu")}));
  const auto next = ConfigWith({Endpoint("orders", "new-secret", "shop-v2", "us")});

  SECTION("replaced while the body is read: verified with the old secret, stored with the old labels") {
    f.while_reading = [&] { f.live.Replace(next); };  // the test holds no other reference to the old config
    CHECK(f.Post("orders", R"({"id":"e1"})", "old-secret") == 200);
    REQUIRE(f.store.inner.stored.size() == 1);
    CHECK(f.store.inner.stored[0].provider == "shop-v1");
    CHECK(f.store.inner.stored[0].tenant_id == "eu");
    CHECK(f.LastAudit().provider == "shop-v1");
  }
  SECTION("replaced during the claim: the answer and the audit row are the old config's") {
    f.store.before_claim = [&] { f.live.Replace(next); };
    CHECK(f.Post("orders", R"({"id":"e1"})", "old-secret") == 200);
    CHECK(f.LastAudit().provider == "shop-v1");
    CHECK(f.LastAudit().tenant_id == "eu");
  }
  // Whichever way it was replaced, the next request is judged by the new config.
  f.while_reading = nullptr;
  f.store.before_claim = nullptr;
  CHECK(f.Post("orders", R"({"id":"e2"})", "old-secret") == 401);
  CHECK(f.Post("orders", R"({"id":"e2"})", "new-secret") == 200);
  CHECK(f.LastAudit().provider == "shop-v2");
  CHECK(f.LastAudit().tenant_id == "us");
}
