// Regression: the admin payload view parsed a stored body for
// redaction with no depth limit and re-serialised it recursively. A body that
// is not JSON by its content type is never depth-checked on receipt, so a
// signed text/plain delivery of 300 000 '[' and as many ']' was stored; when an
// admin then opened it with ?payload=1 on an endpoint with `redact` set, the
// serve process overflowed its stack and died. The view must now withhold such
// a payload with a reason, and the server must go on answering.
#include <catch2/catch.hpp>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace hookinbox::testing {
namespace {

using json = nlohmann::json;

// Accepts text/plain beside JSON, keys events by a header (a text body has no
// pointer to follow) and redacts a field, so the view must parse to show it.
const std::string kDeepEndpoint = R"(
[[endpoint]]
name = "deep"
provider = "generic"
content_types = ["application/json", "text/plain"]
redact = ["/card"]
max_body_bytes = 1048576  # the test config lowers server.max_body_bytes to 64 KiB
secret_file = "secrets/demo.secret"

[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
tolerance_seconds = 300

[endpoint.key]
id_header = "X-Event-Id"
)";

// Well past the depth that overflowed a RelWithDebInfo build's 8 MiB thread
// stack (about 100 000), and under the 1 MiB body limit the endpoint sets.
constexpr int kDepth = 300000;

HttpResult PostText(const Installation& inst, const ServerProcess& server, const std::string& event_id,
                    const std::string& body) {
  const std::string ts = std::to_string(NowSeconds());
  const std::string sig = HmacSha256Hex(inst.secret(), ts + "." + body);
  RegisterLeakMarker(sig);
  RegisterLeakMarker(body);
  return server.Request("POST", "/hooks/deep", body,
                        {{"X-Timestamp", ts}, {"X-Signature", "sha256=" + sig}, {"X-Event-Id", event_id}}, "text/plain");
}

HttpResult AdminGet(const ServerProcess& server, const std::string& token, const std::string& path) {
  httplib::Client client("127.0.0.1", server.admin_port());
  client.set_connection_timeout(10, 0);
  client.set_read_timeout(30, 0);
  httplib::Result res = client.Get(path.c_str(), {{"Authorization", "Bearer " + token}});
  HttpResult out;
  if (!res) return out;
  out.status = res->status;
  out.body = res->body;
  return out;
}

}  // namespace

TEST_CASE("regress issue 8: a stored payload nested 300 000 deep is withheld by the redacting admin view, and "
          "the server lives",
          "[regress][admin-api]") {
  Installation inst;
  inst.WriteTestConfig(kDeepEndpoint, "", "", "token_file = \"secrets/admin.token\"\n");
  std::string token = ReadFile(inst.dir() + "/secrets/admin.token");
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  REQUIRE(token.size() == 64);
  ServerProcess server{inst};
  server.Start();
  REQUIRE(server.admin_port() != 0);

  auto deep = PostText(inst, server, "evt_deep", std::string(kDepth, '[') + std::string(kDepth, ']'));
  INFO(deep.body);
  REQUIRE(deep.status == 200);
  const int64_t deep_id = json::parse(deep.body).at("id").get<int64_t>();
  // A shallow neighbour on the same endpoint: the limit withholds only what is too deep.
  auto shallow = PostText(inst, server, "evt_shallow", R"({"card":"4242-4242-4242-4242","sku":"A1"})");
  REQUIRE(shallow.status == 200);
  const int64_t shallow_id = json::parse(shallow.body).at("id").get<int64_t>();

  auto r = AdminGet(server, token, "/admin/api/events/" + std::to_string(deep_id) + "?payload=1");
  INFO("status " << r.status << ", body of " << r.body.size() << " bytes");
  REQUIRE(r.status == 200);
  const json payload = json::parse(r.body).at("payload");
  CHECK(payload.at("body").is_null());
  CHECK(payload.at("redacted") == false);
  CHECK(payload.at("withheld").get<std::string>().find("deeper than 64 levels") != std::string::npos);

  // Still alive: the public listener, the admin listener, and redaction of the neighbour.
  CHECK(server.Request("GET", "/healthz", "", {}).status == 200);
  auto s = AdminGet(server, token, "/admin/api/events/" + std::to_string(shallow_id) + "?payload=1");
  REQUIRE(s.status == 200);
  const json shown = json::parse(s.body).at("payload");
  CHECK(shown.at("redacted") == true);
  CHECK(json::parse(shown.at("body").get<std::string>()) == json({{"card", "[redacted]"}, {"sku", "A1"}}));
  CHECK(server.log().find("4242-4242") == std::string::npos);
}

}  // namespace hookinbox::testing
