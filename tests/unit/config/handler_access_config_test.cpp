// What handlers and destinations are given: [endpoint.action] auth (the
// destination credential) and [admin] handler_api_listen / handler_api_url.
// Every refusal names the key and line to fix, and never the credential.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>

#include "config/load.h"
#include "config_test_util.h"
#include "support/temp_dir.h"

namespace hookinbox::config {
namespace {

using test::Dump;
using test::Find;
using test::kEndpoint;
using test::Load;
using test::MarkedLine;

constexpr const char* kWhsec = "whsec_Zm9yd2FyZC1zZWNyZXQtYnl0ZXMtMjRiIQ==";
constexpr const char* kAuthVar = "HOOKINBOX_CT_AUTH_SECRET";
constexpr const char* kToken = "n8n-t0ken-never-printed";

const std::string kHttp =
    "type = \"http\"\nurl = \"http://127.0.0.1:5678/webhook/orders\"\n"
    "forward_secret_env = \"HOOKINBOX_CT_FORWARD_SECRET\"\n";

LoadResult LoadAuth(const std::string& action, const char* secret = kToken) {
  ::setenv("HOOKINBOX_CT_FORWARD_SECRET", kWhsec, 1);
  ::setenv(kAuthVar, secret, 1);
  return Load(kEndpoint + "[endpoint.action]\n" + action);
}

bool Mentions(const std::vector<Problem>& problems, const std::string& text) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const Problem& p) { return p.message.find(text) != std::string::npos; });
}

TEST_CASE("action auth: bearer from an environment variable", "[config][action][auth]") {
  LoadResult r = LoadAuth(kHttp + "auth = \"bearer\"\nauth_secret_env = \"HOOKINBOX_CT_AUTH_SECRET\"\n");
  INFO(Dump(r.errors) << Dump(r.warnings));
  REQUIRE(r.ok());
  CHECK(r.warnings.empty());
  const ActionConfig& a = r.config.endpoints[0].action;
  CHECK(a.auth == "bearer");
  CHECK(a.auth_secret.bytes() == kToken);
  // Scrubbed from the environment like every other *_env (cli/load_config.cpp).
  const auto& envs = r.config.secret_origins.env_names;
  CHECK(std::find(envs.begin(), envs.end(), kAuthVar) != envs.end());
}

TEST_CASE("action auth: basic from a file, its final newline dropped", "[config][action][auth]") {
  testing::TempDir dir;
  const std::string path = dir.Write("n8n.basic", "hookinbox:pa:ss\n");
  ::chmod(path.c_str(), 0600);
  ::setenv("HOOKINBOX_CT_FORWARD_SECRET", kWhsec, 1);
  LoadResult r = Load(
      kEndpoint + "[endpoint.action]\n" + kHttp + "auth = \"basic\"\nauth_secret_file = \"n8n.basic\"\n", dir.path());
  INFO(Dump(r.errors) << Dump(r.warnings));
  REQUIRE(r.ok());
  CHECK(r.warnings.empty());
  CHECK(r.config.endpoints[0].action.auth_secret.bytes() == "hookinbox:pa:ss");
  const auto& files = r.config.secret_origins.files;
  CHECK(std::find(files.begin(), files.end(), path) != files.end());  // hidden from exec commands
}

TEST_CASE("action auth: a credential file others can read draws a warning", "[config][action][auth]") {
  testing::TempDir dir;
  const std::string path = dir.Write("n8n.token", kToken);
  ::chmod(path.c_str(), 0644);
  ::setenv("HOOKINBOX_CT_FORWARD_SECRET", kWhsec, 1);
  LoadResult r = Load(
      kEndpoint + "[endpoint.action]\n" + kHttp + "auth = \"bearer\"\nauth_secret_file = \"n8n.token\"\n", dir.path());
  REQUIRE(r.ok());
  REQUIRE(Find(r.warnings, "endpoint[0].action.auth_secret_file") != nullptr);
  CHECK_THAT(Find(r.warnings, "endpoint[0].action.auth_secret_file")->message, Catch::Contains("chmod 600"));
}

TEST_CASE("action auth: header with its name", "[config][action][auth]") {
  LoadResult r = LoadAuth(kHttp +
                          "auth = \"header\"\nauth_header = \"X-N8n-Auth\"\n"
                          "auth_secret_env = \"HOOKINBOX_CT_AUTH_SECRET\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].action.auth_header == "X-N8n-Auth");
}

TEST_CASE("action auth: each refusal names its key and line, never the credential", "[config][action][auth]") {
  const std::string env = "auth_secret_env = \"HOOKINBOX_CT_AUTH_SECRET\"\n";
  struct Case {
    std::string what, action, key, message_start;
    const char* secret = kToken;
  };
  const std::vector<Case> cases = {
      {"an unknown kind", kHttp + "auth = \"jwt\" #<\n" + env, "endpoint[0].action.auth",
       "must be \"bearer\", \"basic\" or \"header\" (got \"jwt\")"},
      {"no credential", kHttp + "auth = \"bearer\" #<\n", "endpoint[0].action.auth",
       "auth = \"bearer\" needs auth_secret_env or auth_secret_file"},
      {"a credential without auth", kHttp + env.substr(0, env.size() - 1) + " #<\n",
       "endpoint[0].action.auth_secret_env", "unused without auth"},
      {"header without its name", kHttp + "auth = \"header\" #<\n" + env, "endpoint[0].action.auth",
       "auth = \"header\" needs auth_header"},
      {"a name without header", kHttp + "auth = \"bearer\"\n" + env + "auth_header = \"X-A\" #<\n",
       "endpoint[0].action.auth_header", "is only used with auth = \"header\""},
      {"not a header name", kHttp + "auth = \"header\"\n" + env + "auth_header = \"X A\" #<\n",
       "endpoint[0].action.auth_header", "\"X A\" is not a header name"},
      {"Host", kHttp + "auth = \"header\"\n" + env + "auth_header = \"host\" #<\n", "endpoint[0].action.auth_header",
       "\"host\" is a header hookinbox or HTTP itself sets"},
      {"Content-Length", kHttp + "auth = \"header\"\n" + env + "auth_header = \"Content-Length\" #<\n",
       "endpoint[0].action.auth_header", "\"Content-Length\" is a header hookinbox or HTTP itself sets"},
      {"Connection", kHttp + "auth = \"header\"\n" + env + "auth_header = \"Connection\" #<\n",
       "endpoint[0].action.auth_header", "\"Connection\" is a header"},
      {"Idempotency-Key", kHttp + "auth = \"header\"\n" + env + "auth_header = \"Idempotency-Key\" #<\n",
       "endpoint[0].action.auth_header", "\"Idempotency-Key\" is a header"},
      {"webhook-*", kHttp + "auth = \"header\"\n" + env + "auth_header = \"Webhook-Signature\" #<\n",
       "endpoint[0].action.auth_header", "\"Webhook-Signature\" is a Standard Webhooks header"},
      {"X-Hookinbox-*", kHttp + "auth = \"header\"\n" + env + "auth_header = \"x-hookinbox-api\" #<\n",
       "endpoint[0].action.auth_header", "\"x-hookinbox-api\" is one of hookinbox's own headers"},
      {"on an exec action", "type = \"exec\"\ncommand = [\"/bin/true\"]\nauth = \"bearer\" #<\n",
       "endpoint[0].action.auth", "not allowed with type = \"exec\": only an http action sends a credential"},
      {"without a type", "auth = \"bearer\" #<\n", "endpoint[0].action.auth", "needs type = \"http\""},
      {"basic without ':'", kHttp + "auth = \"basic\"\n" + env.substr(0, env.size() - 1) + " #<\n",
       "endpoint[0].action.auth_secret_env", "auth = \"basic\" needs user:password, and the credential has no ':'"},
      {"a line break", kHttp + "auth = \"bearer\"\n" + env.substr(0, env.size() - 1) + " #<\n",
       "endpoint[0].action.auth_secret_env", "the credential holds a control character", "n8n-t0ken\r\nX-Evil: 1"},
      {"an empty variable name", kHttp + "auth = \"bearer\"\nauth_secret_env = \"\" #<\n",
       "endpoint[0].action.auth_secret_env", "must name an environment variable"},
  };
  for (const auto& c : cases) {
    const std::string toml = kEndpoint + "[endpoint.action]\n" + c.action;
    INFO(c.what << "\n" << toml);
    LoadResult r = LoadAuth(c.action, c.secret);
    INFO(Dump(r.errors));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == c.key);
    CHECK_THAT(r.errors[0].message, Catch::StartsWith(c.message_start));
    CHECK(r.errors[0].line == MarkedLine(toml));
    CHECK_FALSE(Mentions(r.errors, "t0ken"));
    CHECK_FALSE(Mentions(r.warnings, "t0ken"));
  }
}

TEST_CASE("action auth: both sources are refused", "[config][action][auth]") {
  LoadResult r = LoadAuth(kHttp +
                          "auth = \"bearer\"\nauth_secret_env = \"HOOKINBOX_CT_AUTH_SECRET\"\n"
                          "auth_secret_file = \"x\"\n");
  const Problem* p = Find(r.errors, "endpoint[0].action.auth_secret_file");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::StartsWith("set only one of auth_secret_env and auth_secret_file"));
}

TEST_CASE("action auth: a variable that is not set is an error naming it", "[config][action][auth]") {
  ::unsetenv("HOOKINBOX_CT_AUTH_UNSET");
  ::setenv("HOOKINBOX_CT_FORWARD_SECRET", kWhsec, 1);
  LoadResult r = Load(kEndpoint + "[endpoint.action]\n" + kHttp +
                      "auth = \"bearer\"\nauth_secret_env = \"HOOKINBOX_CT_AUTH_UNSET\"\n");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "endpoint[0].action.auth_secret_env");
  CHECK(r.errors[0].message == "environment variable HOOKINBOX_CT_AUTH_UNSET is not set");
}

LoadResult LoadAdmin(const std::string& admin) { return Load("[admin]\n" + admin + kEndpoint); }

TEST_CASE("handler API: handler_api_url and handler_api_listen are read", "[config][admin]") {
  LoadResult r = LoadAdmin(
      "handler_api_listen = \"127.0.0.1:8082\"\nhandler_api_url = \"https://hookinbox.internal:8082/hooks\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.admin.handler_api_listen == "127.0.0.1:8082");
  CHECK(r.config.admin.handler_api_url == "https://hookinbox.internal:8082/hooks");
  CHECK(Load(kEndpoint).config.admin.handler_api_url.empty());
}

TEST_CASE("handler API: plain HTTP on a non-loopback handler_api_listen needs TLS or allow_plain_http",
          "[config][admin]") {
  LoadResult r = LoadAdmin("handler_api_listen = \"172.17.0.1:8082\"\n");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "admin.handler_api_listen");
  CHECK(r.errors[0].line == 2);
  CHECK_THAT(r.errors[0].message, Catch::Contains("admin.allow_plain_http = true"));
  LoadResult opted = LoadAdmin("handler_api_listen = \"172.17.0.1:8082\"\nallow_plain_http = true\n");
  INFO(Dump(opted.errors));
  CHECK(opted.ok());
}

TEST_CASE("handler API: each refusal names its key and line", "[config][admin]") {
  struct Case {
    std::string what, admin, key, message_start;
  };
  const std::vector<Case> cases = {
      {"listen not host:port", "handler_api_listen = \"8082\"", "admin.handler_api_listen", "must be host:port"},
      {"listen as admin.listen", "handler_api_listen = \"127.0.0.1:8081\"", "admin.handler_api_listen",
       "must differ from admin.listen"},
      {"listen as server.listen", "handler_api_listen = \"0.0.0.0:8443\"\nallow_plain_http = true",
       "admin.handler_api_listen", "must differ from server.listen"},
      {"url with /v1", "handler_api_url = \"http://172.17.0.1:8082/v1\"", "admin.handler_api_url",
       "leave out /v1: it is the handler API's base, and hookinbox appends /v1"},
      {"url with /v1/", "handler_api_url = \"http://172.17.0.1:8082/v1/\"", "admin.handler_api_url", "leave out /v1"},
      {"url with a trailing /", "handler_api_url = \"http://172.17.0.1:8082/\"", "admin.handler_api_url",
       "must not end with '/'"},
      {"url not http", "handler_api_url = \"ftp://172.17.0.1\"", "admin.handler_api_url",
       "\"ftp://172.17.0.1\" is not an absolute http:// or https:// URL"},
      {"url relative", "handler_api_url = \"/v1\"", "admin.handler_api_url", "\"/v1\" is not an absolute"},
      {"url empty", "handler_api_url = \"\"", "admin.handler_api_url", "\"\" is not an absolute"},
      {"url with a password", "handler_api_url = \"http://u:pw@172.17.0.1:8082\"", "admin.handler_api_url",
       "must not carry a user or password"},
      {"url with a query", "handler_api_url = \"http://172.17.0.1:8082?a=1\"", "admin.handler_api_url",
       "must not have a query or fragment"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    LoadResult r = LoadAdmin(c.admin + "\n");
    INFO(Dump(r.errors));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == c.key);
    CHECK(r.errors[0].line == 2);
    CHECK_THAT(r.errors[0].message, Catch::StartsWith(c.message_start));
    CHECK_FALSE(Mentions(r.errors, "pw@"));
  }
}

}  // namespace
}  // namespace hookinbox::config
