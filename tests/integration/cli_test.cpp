// The command line from the outside: init, the printed tour, check-config,
// exit codes, the embedded default and start-up errors.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

std::string Bin() { return BinaryPath(); }

// The first line of `text` that starts with `prefix` (after spaces).
std::string LineStartingWith(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, prefix.size(), prefix) == 0) return line.substr(start);
  }
  return "";
}

}  // namespace

TEST_CASE("cli: --version, --help and usage errors use exit codes 0 and 2", "[integration][cli]") {
  auto version = RunCommand(Bin() + " --version");
  CHECK(version.exit_code == 0);
  CHECK(version.out.find("hookinbox ") == 0);
  CHECK(version.out.find("SQLite 3.") != std::string::npos);
  CHECK(version.out.find("OpenSSL 3.") != std::string::npos);
  // The commit it was built from: 12 hex digits (+ "-dirty" from an edited tree), or "unknown" outside git.
  CHECK(std::regex_search(version.out, std::regex(R"(\(commit ([0-9a-f]{12}(-dirty)?|unknown), )")));
  CHECK(RunCommand(Bin() + " --help").out.find("Usage: hookinbox") != std::string::npos);
  CHECK(RunCommand(Bin() + " --help").exit_code == 0);
  CHECK(RunCommand(Bin() + " 2>&1").exit_code == 2);
  CHECK(RunCommand(Bin() + " no-such-verb 2>&1").exit_code == 2);
  CHECK(RunCommand(Bin() + " serve --no-such-flag 2>&1").exit_code == 2);
}

TEST_CASE("cli: the tour's curl command printed by init produces an accepted, then a duplicate, delivery",
          "[integration][cli]") {
  TempDir dir;
  auto init = RunCommand(Bin() + " init " + dir.path());
  REQUIRE(init.exit_code == 0);
  std::string curl = LineStartingWith(init.out, "body=");
  REQUIRE_FALSE(curl.empty());
  CHECK(RunCommand(Bin() + " init " + dir.path() + " 2>&1").exit_code == 1);  // never overwrites

  // Serve exactly the config init wrote, moved to a free port.
  std::ifstream in(dir.File("hookinbox.toml"));
  std::string toml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  toml = std::regex_replace(toml, std::regex("127\\.0\\.0\\.1:8443"), "127.0.0.1:0");
  // init's [admin] table: not the default 8081, which may be taken.
  toml = std::regex_replace(toml, std::regex("127\\.0\\.0\\.1:8081"), "127.0.0.1:0");
  dir.Write("hookinbox.toml", toml);

  auto start = RunCommand("cd " + dir.path() + " && (" + Bin() + " serve -c hookinbox.toml > serve.log 2>&1 & echo $!)");
  std::string pid = start.out.substr(0, start.out.find('\n'));
  std::smatch m;
  std::string port;
  REQUIRE(PollUntil(
      [&] {
        std::ifstream log(dir.File("serve.log"));
        std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
        static const std::regex kPort(R"re("event":"listening","url":"https://127\.0\.0\.1:(\d+)")re");
        if (!std::regex_search(text, m, kPort)) return false;
        port = m[1];
        return true;
      },
      std::chrono::seconds(30)));
  curl = std::regex_replace(curl, std::regex(":8443/"), ":" + port + "/");
  auto first = RunCommand("bash -c '" + std::regex_replace(curl, std::regex("'"), "'\\''") + "'");
  auto second = RunCommand("bash -c '" + std::regex_replace(curl, std::regex("'"), "'\\''") + "'");
  RunCommand("kill -TERM " + pid);
  INFO(curl);
  CHECK(first.out.find("\"status\":\"accepted\"") != std::string::npos);
  CHECK(second.out.find("\"status\":\"duplicate\"") != std::string::npos);
}

TEST_CASE("cli: check-config names every error with file, line and key; exit 1", "[integration][cli]") {
  Installation inst;
  inst.WriteConfig(R"([server]
listen = "127.0.0.1:0"
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
colour = "blue"

[[endpoint]]
name = "demo"
secret_env = "HOOKINBOX_TEST_CHECK_CONFIG_UNSET_VAR"
[endpoint.signature]
algorithm = "md4"
[endpoint.key]
id_pointer = "/id"
)");
  auto r = RunCommand(Bin() + " check-config -c " + inst.config_path() + " 2>&1");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("hookinbox.toml:5: server.colour") != std::string::npos);
  CHECK(r.out.find("endpoint[0].signature.algorithm") != std::string::npos);
  CHECK(r.out.find(":11:") != std::string::npos);
  CHECK(r.out.find("HOOKINBOX_TEST_CHECK_CONFIG_UNSET_VAR") != std::string::npos);

  auto json = RunCommand(Bin() + " check-config --json -c " + inst.config_path());
  CHECK(json.exit_code == 1);
  CHECK(json.out.find("\"ok\": false") != std::string::npos);

  SECTION("serve refuses the same file") {
    auto serve = RunCommand("timeout 60 " + Bin() + " serve -c " + inst.config_path() + " 2>&1");
    CHECK(serve.exit_code == 1);
    CHECK(serve.out.find("refusing to start") != std::string::npos);
  }
}

TEST_CASE("cli: check-config also applies the verifier's own parse of the signature format",
          "[integration][cli]") {
  Installation inst;
  inst.WriteConfig(R"([server]
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
[[endpoint]]
name = "tokens"
secret_file = "secrets/demo.secret"
[endpoint.signature]
scheme = "token"
header = "X-Token"
format = "v1,{signature}"
[endpoint.key]
id_pointer = "/id"
)");
  auto r = RunCommand(Bin() + " check-config -c " + inst.config_path() + " 2>&1");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("endpoint[0]: signature.format") != std::string::npos);
}

TEST_CASE("cli: check-config accepts the default config", "[integration][cli]") {
  Installation inst;
  auto r = RunCommand(Bin() + " check-config -c " + inst.config_path() + " 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("ok (1 endpoint)") != std::string::npos);
}

TEST_CASE("cli: a TLS key readable by group or others stops check-config and serve, naming the fix",
          "[integration][cli]") {
  Installation inst;
  inst.WriteTestConfig();
  const std::string key = inst.dir() + "/tls/key.pem";
  REQUIRE(::chmod(key.c_str(), 0640) == 0);
  const std::string expected =
      "server.tls_key: " + key + " is readable by group or others (mode 0640); run: chmod 600 " + key;
  auto check = RunCommand(Bin() + " check-config -c " + inst.config_path() + " 2>&1");
  INFO(check.out);
  CHECK(check.exit_code == 1);
  CHECK(check.out.find(expected) != std::string::npos);
  auto serve = RunCommand("timeout 60 " + Bin() + " serve -c " + inst.config_path() + " 2>&1");
  INFO(serve.out);
  CHECK(serve.exit_code == 1);
  CHECK(serve.out.find(expected) != std::string::npos);
  REQUIRE(::chmod(key.c_str(), 0600) == 0);
  CHECK(RunCommand(Bin() + " check-config -c " + inst.config_path() + " 2>&1").exit_code == 0);
}

TEST_CASE("cli: a busy port is a clear start-up error naming it", "[integration][cli]") {
  Installation inst;
  inst.WriteTestConfig();
  ServerProcess first(inst);
  first.Start();
  std::ifstream in(inst.config_path());
  std::string toml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string taken = "127.0.0.1:" + std::to_string(first.port());
  // Only the first address, the public listener's ([admin] follows it).
  inst.WriteConfig(std::regex_replace(toml, std::regex("127\\.0\\.0\\.1:0"), taken,
                                      std::regex_constants::format_first_only));
  auto r = RunCommand("timeout 60 " + Bin() + " serve -c " + inst.config_path() + " 2>&1");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find(taken) != std::string::npos);
}

TEST_CASE("cli: serve without a config creates the embedded default and prints the tour",
          "[integration][cli]") {
  TempDir dir;
  auto start = RunCommand("cd " + dir.path() + " && (" + Bin() + " serve > serve.log 2>&1 & echo $!)");
  std::string pid = start.out.substr(0, start.out.find('\n'));
  std::string text;
  bool listening = PollUntil(
      [&] {
        std::ifstream log(dir.File("serve.log"));
        text.assign((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
        return text.find(R"("event":"listening")") != std::string::npos || text.find("cannot listen") != std::string::npos;
      },
      std::chrono::seconds(30));
  RunCommand("kill -TERM " + pid);
  REQUIRE(listening);
  INFO(text);
  CHECK(text.find("created the default installation") != std::string::npos);
  for (const char* f : {"hookinbox.toml", "tls/cert.pem", "tls/key.pem", "secrets/demo.secret", "data/hookinbox.db"}) {
    CHECK(RunCommand("test -s " + dir.File(f) + " && echo yes").out == "yes\n");
  }
  CHECK(RunCommand("stat -c %a " + dir.File("secrets/demo.secret")).out == "600\n");
  CHECK(RunCommand("stat -c %a " + dir.File("tls/key.pem")).out == "600\n");
  // The certificate is a real X.509 with the loopback names.
  CHECK(RunCommand("openssl x509 -in " + dir.File("tls/cert.pem") + " -noout -ext subjectAltName").out.find(
            "IP Address:127.0.0.1") != std::string::npos);
}

TEST_CASE("cli: check-config warns when a rotation window has passed with two secrets active",
          "[integration][cli]") {
  Installation inst;
  ::setenv("HOOKINBOX_TEST_ROT_OLD", "an-old-secret", 1);
  inst.WriteConfig(R"([server]
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
[[endpoint]]
name = "demo"
secrets_file = ["secrets/demo.secret"]
secrets_env = ["HOOKINBOX_TEST_ROT_OLD"]
rotation_ends = "2020-01-31"
[endpoint.key]
id_pointer = "/id"
)");
  auto r = RunCommand(Bin() + " check-config -c " + inst.config_path() + " 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 0);  // a warning, not an error: the endpoint still works
  CHECK(r.out.find("warning: ") != std::string::npos);
  CHECK(r.out.find("endpoint[0].rotation_ends: the rotation window ended on 2020-01-31") != std::string::npos);
  CHECK(r.out.find("an-old-secret") == std::string::npos);
}
