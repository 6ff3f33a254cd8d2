// [endpoint.action]: keys, defaults, the forward secret, and the rules that
// name the key (and line) to fix.
#include <catch2/catch.hpp>

#include <sys/stat.h>

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

// "forward-secret-bytes-24b!" as a Standard Webhooks secret.
constexpr const char* kWhsec = "whsec_Zm9yd2FyZC1zZWNyZXQtYnl0ZXMtMjRiIQ==";
constexpr const char* kDecoded = "forward-secret-bytes-24b!";
constexpr const char* kForwardVar = "HOOKINBOX_CT_FORWARD_SECRET";

LoadResult LoadAction(const std::string& action, const std::string& forward = kWhsec) {
  ::setenv(kForwardVar, forward.c_str(), 1);
  return Load(kEndpoint + "[endpoint.action]\n" + action);
}

const std::string kHttp =
    "type = \"http\"\nurl = \"https://downstream.example/payments\"\nforward_secret_env = \"HOOKINBOX_CT_FORWARD_SECRET\"\n";

TEST_CASE("action config: no [endpoint.action] means no action", "[config][action]") {
  LoadResult r = Load(kEndpoint);
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].action.type.empty());
  CHECK(r.warnings.empty());
}

TEST_CASE("action config: http with defaults and a decoded whsec_ forward secret", "[config][action]") {
  LoadResult r = LoadAction(kHttp);
  INFO(Dump(r.errors) << Dump(r.warnings));
  REQUIRE(r.ok());
  CHECK(r.warnings.empty());
  const ActionConfig& a = r.config.endpoints[0].action;
  CHECK(a.type == "http");
  CHECK(a.url == "https://downstream.example/payments");
  CHECK(a.timeout_ms == 10000);
  CHECK_FALSE(a.idempotent_target);
  CHECK(a.forward_secret.bytes() == kDecoded);
  CHECK(a.concurrency == 0);
  CHECK(r.config.ActionConcurrency(r.config.endpoints[0]) == 2);  // worker.threads 4 / 2
}

TEST_CASE("action config: a forward secret without the whsec_ prefix is base64 too", "[config][action]") {
  LoadResult r = LoadAction(kHttp, "Zm9yd2FyZC1zZWNyZXQtYnl0ZXMtMjRiIQ==");
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].action.forward_secret.bytes() == kDecoded);
}

TEST_CASE("action config: the forward secret from a file", "[config][action]") {
  testing::TempDir dir;
  const std::string path = dir.Write("forward.secret", std::string(kWhsec) + "\n");
  ::chmod(path.c_str(), 0600);
  LoadResult r = Load(kEndpoint + "[endpoint.action]\ntype = \"http\"\nurl = \"http://127.0.0.1:9000/x\"\n"
                                  "forward_secret_file = \"forward.secret\"\n",
                      dir.path());
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].action.forward_secret.bytes() == kDecoded);
}

TEST_CASE("action config: every knob is read", "[config][action]") {
  LoadResult r = LoadAction(kHttp +
                            "timeout_ms = 2500\nidempotent_target = true\nconcurrency = 3\n"
                            "result_ref_pointer = \"/data/id\"\nca_file = \"ca/downstream.pem\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const ActionConfig& a = r.config.endpoints[0].action;
  CHECK(a.timeout_ms == 2500);
  CHECK(a.idempotent_target);
  CHECK(a.result_ref_pointer == "/data/id");
  CHECK(a.ca_file == "/etc/hookinbox/ca/downstream.pem");  // relative to the config file
  CHECK(r.config.ActionConcurrency(r.config.endpoints[0]) == 3);
}

TEST_CASE("action config: default concurrency is half the worker threads, at least 1", "[config][action]") {
  Config c;
  c.endpoints.resize(1);
  c.worker.threads = 1;
  CHECK(c.ActionConcurrency(c.endpoints[0]) == 1);
  c.worker.threads = 3;
  CHECK(c.ActionConcurrency(c.endpoints[0]) == 1);
  c.worker.threads = 16;
  CHECK(c.ActionConcurrency(c.endpoints[0]) == 8);
}

TEST_CASE("action config: async is off by default and read for http", "[config][action]") {
  LoadResult r = LoadAction(kHttp);
  REQUIRE(r.ok());
  CHECK_FALSE(r.config.endpoints[0].action.async);
  r = LoadAction(kHttp + "async = true\n");
  INFO(Dump(r.errors) << Dump(r.warnings));
  REQUIRE(r.ok());
  CHECK(r.warnings.empty());
  CHECK(r.config.endpoints[0].action.async);
}

TEST_CASE("action config: exec resolves a relative program against the config file", "[config][action]") {
  LoadResult r = Load(kEndpoint + "[endpoint.action]\ntype = \"exec\"\ncommand = [\"bin/handle\", \"--flag\"]\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].action.command == std::vector<std::string>{"/etc/hookinbox/bin/handle", "--flag"});
  CHECK(r.config.endpoints[0].action.forward_secret.empty());
}

TEST_CASE("action config: errors name the key and line", "[config][action]") {
  struct Case {
    const char* what;
    std::string action;  // the [endpoint.action] body; "#<" marks the reported line
    std::string key;
    std::string message_start;
  };
  const std::string fwd = "forward_secret_env = \"HOOKINBOX_CT_FORWARD_SECRET\"\n";
  const std::vector<Case> cases = {
      {"unknown type", "type = \"smtp\" #<\n", "endpoint[0].action.type",
       "must be \"http\" or \"exec\" (got \"smtp\")"},
      {"http without url", "type = \"http\" #<\n" + fwd, "endpoint[0].action.type", "type = \"http\" needs url"},
      {"http with a non-http url", "type = \"http\"\nurl = \"ftp://x/y\" #<\n" + fwd, "endpoint[0].action.url",
       "\"ftp://x/y\" is not an http:// or https:// URL with a host"},
      {"http url without a host", "type = \"http\"\nurl = \"http:///path\" #<\n" + fwd, "endpoint[0].action.url",
       "\"http:///path\" is not an http:// or https:// URL"},
      {"http without a forward secret", "type = \"http\"\nurl = \"http://127.0.0.1:1/\"\n",
       "endpoint[0].action", "type = \"http\" needs forward_secret_env or forward_secret_file: the downstream verifies"},
      {"both result_ref sources", kHttp + "result_ref_header = \"Location\"\nresult_ref_pointer = \"/id\" #<\n",
       "endpoint[0].action.result_ref_pointer", "set only one of result_ref_header and result_ref_pointer"},
      {"a bad pointer", kHttp + "result_ref_pointer = \"id\" #<\n", "endpoint[0].action.result_ref_pointer",
       "\"id\" is not a JSON Pointer"},
      {"a bad header name", kHttp + "result_ref_header = \"Loc ation\" #<\n", "endpoint[0].action.result_ref_header",
       "\"Loc ation\" is not a header name"},
      {"exec without command", "type = \"exec\" #<\n", "endpoint[0].action.type", "type = \"exec\" needs command"},
      {"exec with an empty program", "type = \"exec\"\ncommand = [\"\"] #<\n", "endpoint[0].action.command",
       "type = \"exec\" needs command"},
      {"timeout out of bounds", kHttp + "timeout_ms = 0 #<\n", "endpoint[0].action.timeout_ms",
       "must be between 1 and 3600000"},
      {"async on exec", "type = \"exec\"\ncommand = [\"/bin/true\"]\nasync = true #<\n", "endpoint[0].action.async",
       "async = true needs type = \"http\""},
      {"async not a boolean", kHttp + "async = \"yes\" #<\n", "endpoint[0].action.async", "must be"},
  };
  for (const auto& c : cases) {
    const std::string toml = kEndpoint + "[endpoint.action]\n" + c.action;
    INFO(c.what << "\n" << toml);
    ::setenv(kForwardVar, kWhsec, 1);
    LoadResult r = Load(toml);
    INFO(Dump(r.errors));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == c.key);
    CHECK_THAT(r.errors[0].message, Catch::StartsWith(c.message_start));
    const int marked = MarkedLine(toml);
    CHECK(r.errors[0].line == (marked != 0 ? marked : 6));  // else the [endpoint.action] line
  }
}

TEST_CASE("action config: a forward secret that is not base64 is an error without its value", "[config][action]") {
  LoadResult r = LoadAction(kHttp, "whsec_not*base64!");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "endpoint[0].action.forward_secret_env");
  CHECK(r.errors[0].line == 9);
  CHECK_THAT(r.errors[0].message, Catch::StartsWith("the forward secret is not a Standard Webhooks secret"));
  CHECK(r.errors[0].message.find("not*base64") == std::string::npos);
}

TEST_CASE("action config: a URL-safe base64 forward secret is refused (Standard Webhooks libraries cannot use it)",
          "[config][action]") {
  for (const char* secret : {"whsec_Zm9yd2FyZC1zZWNyZXQtZm9yLXRlc3Rz-_", "whsec_forward-secret-for-tests"}) {
    INFO(secret);
    LoadResult r = LoadAction(kHttp, secret);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].message.find("not the URL-safe alphabet") != std::string::npos);
  }
}

TEST_CASE("action config: a forward secret variable that is not set is an error", "[config][action]") {
  ::unsetenv(kForwardVar);
  LoadResult r = Load(kEndpoint + "[endpoint.action]\n" + kHttp);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "endpoint[0].action.forward_secret_env");
  CHECK(r.errors[0].message == "environment variable HOOKINBOX_CT_FORWARD_SECRET is not set");
}

TEST_CASE("action config: keys unused by the type are warned about", "[config][action]") {
  SECTION("a table without type") {
    LoadResult r = LoadAction("timeout_ms = 5\n");
    REQUIRE(r.ok());
    REQUIRE(Find(r.warnings, "endpoint[0].action") != nullptr);
  }
  SECTION("exec with http-only keys") {
    LoadResult r = LoadAction("type = \"exec\"\ncommand = [\"/bin/true\"]\nurl = \"http://x/\"\n"
                              "forward_secret_env = \"HOOKINBOX_CT_FORWARD_SECRET\"\nresult_ref_header = \"Location\"\n");
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(Find(r.warnings, "endpoint[0].action.url") != nullptr);
    CHECK(Find(r.warnings, "endpoint[0].action") != nullptr);  // the forward secret
    CHECK(Find(r.warnings, "endpoint[0].action.result_ref_header") != nullptr);
    CHECK(r.config.endpoints[0].action.forward_secret.empty());
  }
  SECTION("ca_file with an http:// url") {
    LoadResult r = LoadAction("type = \"http\"\nurl = \"http://127.0.0.1:1/\"\n"
                              "forward_secret_env = \"HOOKINBOX_CT_FORWARD_SECRET\"\nca_file = \"ca.pem\"\n");
    REQUIRE(r.ok());
    CHECK(Find(r.warnings, "endpoint[0].action.ca_file") != nullptr);
  }
}

TEST_CASE("action config: CheckFiles reports a program that cannot run and an unreadable ca_file",
          "[config][action]") {
  Config c;
  c.server.plain_http = true;
  c.endpoints.resize(3);
  c.endpoints[0].action.type = "exec";
  c.endpoints[0].action.command = {"/nonexistent/handle"};
  c.endpoints[1].action.type = "exec";
  c.endpoints[1].action.command = {"/bin/true"};
  c.endpoints[2].action.type = "http";
  c.endpoints[2].action.url = "https://x/";
  c.endpoints[2].action.ca_file = "/nonexistent/ca.pem";
  const std::vector<Problem> problems = CheckFiles(c);
  INFO(Dump(problems));
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].key == "endpoint[0].action.command");
  CHECK(problems[0].message ==
        "cannot run /nonexistent/handle: No such file or directory (no PATH search: write an absolute path or one "
        "relative to the config file)");
  CHECK(problems[1].key == "endpoint[2].action.ca_file");
}

}  // namespace
}  // namespace hookinbox::config
