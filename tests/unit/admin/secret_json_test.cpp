// admin/secret_json: the body of POST /admin/api/endpoints/{name}/secret/rotate
// and …/retire, and the answer's JSON. A refusal never quotes the body.
#include "admin/secret_json.h"

#include <catch2/catch.hpp>

#include "admin/routes.h"

using namespace hookinbox;

namespace {

constexpr int64_t kNow = 1796860800000;  // 2026-12-10T00:00:00Z

}  // namespace

TEST_CASE("secret json: a rotation's secret and time; the time defaults to 24 h from now", "[admin][secret]") {
  auto ask =
      admin::ParseSecretAsk(R"({"secret":"whsec_new","keep_old_until":"2026-12-12T00:00:00Z"})", "shop", false, kNow);
  REQUIRE(ask.ok());
  CHECK(ask->endpoint == "shop");
  CHECK_FALSE(ask->retire);
  CHECK(ask->next.bytes() == "whsec_new");
  CHECK(ask->keep_old_until_ms == kNow + 2 * 86400000);
  CHECK(ask->actor.empty());  // the route names who asked

  auto by_default = admin::ParseSecretAsk(R"({"secret":"s"})", "shop", false, kNow);
  REQUIRE(by_default.ok());
  CHECK(by_default->keep_old_until_ms == kNow + admin::kDefaultKeepOldMs);
  auto as_ms = admin::ParseSecretAsk(R"({"secret":"s","keep_old_until":1796947200000})", "shop", false, kNow);
  REQUIRE(as_ms.ok());
  CHECK(as_ms->keep_old_until_ms == 1796947200000);
  auto a_date = admin::ParseSecretAsk(R"({"secret":"s","keep_old_until":"2026-12-11"})", "shop", false, kNow);
  REQUIRE(a_date.ok());
  CHECK(a_date->keep_old_until_ms == kNow + 86400000);
}

TEST_CASE("secret json: retire takes no body or {}", "[admin][secret]") {
  for (const char* body : {"", "{}"}) {
    INFO(body);
    auto ask = admin::ParseSecretAsk(body, "shop", true, kNow);
    REQUIRE(ask.ok());
    CHECK(ask->retire);
    CHECK(ask->next.empty());
  }
  auto with_secret = admin::ParseSecretAsk(R"({"secret":"hunter2"})", "shop", true, kNow);
  REQUIRE_FALSE(with_secret.ok());
  CHECK(with_secret.status().message() == "retire takes no body members; unknown member secret");
}

TEST_CASE("secret json: every bad body is refused with its reason, never quoting the secret", "[admin][secret]") {
  struct Case {
    std::string body;
    const char* message;
  };
  const std::string big(config::kMaxSecretBytes + 1, 'k');
  const Case cases[] = {
      {"", "body must be a JSON object"},
      {R"(["hunter2"])", "body must be a JSON object"},
      {R"({"secret":"hunter2")", "body must be a JSON object"},
      {R"({})", "secret is missing: the new secret, as the provider gave it"},
      {R"({"secret":""})", "secret is empty"},
      {R"({"secret":42})", "secret must be a string"},
      {R"({"secret":"hunter2","extra":1})", "unknown member extra (expected secret, keep_old_until)"},
      {R"({"secret":"hunter2","keep_old_until":"tomorrow"})", "keep_old_until: "},
      {R"({"secret":"hunter2","keep_old_until":true})", "keep_old_until must be a time (ISO-8601, a date or ms)"},
      {R"({"secret":"hunter2","keep_old_until":"2026-12-09T23:59:59Z"})", "keep_old_until must be in the future"},
      {R"({"secret":"hunter2","keep_old_until":"2026-12-10T00:00:00Z"})", "keep_old_until must be in the future"},
      {R"({"secret":")" + big + R"("})", "secret is over 65536 bytes"},
  };
  for (const Case& c : cases) {
    INFO(c.body.substr(0, 80));
    auto ask = admin::ParseSecretAsk(c.body, "shop", false, kNow);
    REQUIRE_FALSE(ask.ok());
    CHECK(ask.status().code() == Code::kInvalidArgument);
    CHECK_THAT(ask.status().message(), Catch::StartsWith(c.message));
    CHECK_THAT(ask.status().message(), !Catch::Contains("hunter2") && !Catch::Contains("kkkk"));
  }
  // Exactly the limit is fine.
  auto at_limit = admin::ParseSecretAsk(R"({"secret":")" + std::string(config::kMaxSecretBytes, 'k') + R"("})", "shop",
                                        false, kNow);
  CHECK(at_limit.ok());
}

TEST_CASE("secret json: the answer names the file and the window, or the error", "[admin][secret]") {
  config::SecretRotateAnswer ok;
  ok.secret_file = "/etc/hookinbox/shop.secret";
  ok.previous_until_ms = kNow;
  ok.reloaded = true;
  ok.reload.applied = true;
  ok.reload.config_path = "/etc/hookinbox/hookinbox.toml";
  ok.reload.generation = 3;
  ok.reload.changed = {"endpoint \"shop\": secret changed"};
  auto j = admin::SecretAnswerJson("shop", ok);
  CHECK(admin::SecretAnswerStatus(ok) == 200);
  CHECK_FALSE(j.contains("error"));
  CHECK(j["endpoint"] == "shop");
  CHECK(j["secret_file"] == "/etc/hookinbox/shop.secret");
  CHECK(j["previous_until"] == "2026-12-10T00:00:00.000Z");
  CHECK(j["reloaded"] == true);
  CHECK(j["reload"]["applied"] == true);
  CHECK(j["reload"]["generation"] == 3);

  config::SecretRotateAnswer retired;
  retired.secret_file = "/etc/hookinbox/shop.secret";
  retired.reloaded = true;
  retired.reload.applied = true;
  auto r = admin::SecretAnswerJson("shop", retired);
  CHECK(r["previous_until"].is_null());

  config::SecretRotateAnswer refused;
  refused.status =
      Status(Code::kConflict, "the secret of shop comes from secret_env: rotate it by changing the environment");
  auto e = admin::SecretAnswerJson("shop", refused);
  CHECK(admin::SecretAnswerStatus(refused) == 409);
  CHECK(e["error"] == "the secret of shop comes from secret_env: rotate it by changing the environment");
  CHECK(e["secret_file"].is_null());
  CHECK(e["previous_until"].is_null());
  CHECK(e["reloaded"] == false);
  CHECK(e["reload"].is_null());
  refused.status = NotFound("no endpoint named shop in the config");
  CHECK(admin::SecretAnswerStatus(refused) == 404);
}

TEST_CASE("secret json: WipeBytes zeroes a string in place, keeping its size", "[admin][secret]") {
  std::string s = "whsec_a-long-enough-secret-to-live-on-the-heap";
  const size_t size = s.size();
  admin::WipeBytes(s);
  CHECK(s == std::string(size, '\0'));
  std::string empty;
  admin::WipeBytes(empty);
  CHECK(empty.empty());
}
