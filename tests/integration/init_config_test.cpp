// `hookinbox init -c FILE` from the outside: the package's postinst
// runs it on every configure to create the state its conffile names.
//
// The config here has the package's shape: absolute paths into a state
// directory that does not exist yet (as /etc/hookinbox/hookinbox.toml points
// into /var/lib/hookinbox), plus one relative path, which resolves against
// the config file's directory like every path in a config. init always runs
// from another working directory, so a path resolved against the cwd would
// show. Every test compares a snapshot of the whole tree (path, mode, size,
// mtime, sha256 of each file) before and after where "nothing" must change.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <regex>
#include <set>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

std::string Bin() { return BinaryPath(); }

const char* const kSignature = kDemoSignatureTables;

// A package-like install: the config in the Installation's directory (so
// ServerProcess serves it), the state under <dir>/var/lib/hookinbox.
struct PackageLayout {
  Installation inst;  // also the temp dir, and the CA file ServerProcess trusts
  TempDir cwd;        // where init runs: must stay empty
  std::string state = inst.dir() + "/var/lib/hookinbox";
  std::string config = inst.config_path();

  std::string Path(const std::string& name) const { return state + "/" + name; }

  // `server` replaces the [server] table and `endpoints` the endpoints when not empty.
  void Write(const std::string& server = "", const std::string& endpoints = "") const {
    std::string toml =
        server.empty() ? "[server]\nlisten = \"127.0.0.1:0\"\ntls_cert = \"" + Path("tls/cert.pem") +
                             "\"\ntls_key = \"" + Path("tls/key.pem") + "\"\n"
                       : server;
    toml += "\n[admin]\nlisten = \"127.0.0.1:0\"\ntoken_file = \"" + Path("secrets/admin.token") + "\"\n";
    toml += "\n[storage]\npath = \"" + Path("data/hookinbox.db") + "\"\n";
    if (!endpoints.empty()) {
      toml += endpoints;
    } else {
      toml += "\n[[endpoint]]\nname = \"demo\"\nprovider = \"generic\"\nsecret_file = \"" +
              Path("secrets/demo.secret") + "\"\n" + kSignature;
      // Per-tenant secrets; acme's path is relative to the config's directory.
      toml += "\n[[endpoint]]\nname = \"shops\"\nprovider = \"generic\"\n"
              "[[endpoint.tenants]]\nid = \"acme\"\nsecret_file = \"tenant-secrets/acme.secret\"\n"
              "[[endpoint.tenants]]\nid = \"globex\"\nsecret_file = \"" +
              Path("secrets/globex.secret") + "\"\n" + kSignature;
    }
    inst.WriteConfig(toml);
  }

  // `hookinbox init -c CONFIG` from an unrelated directory; stdout and stderr together.
  CommandResult Init() const {
    return RunCommand("cd " + cwd.path() + " && " + Bin() + " init -c " + config + " 2>&1");
  }

  // Every path under the Installation's directory with its mode, size and
  // mtime (ns), then the sha256 of every file: equal snapshots mean nothing
  // was created, removed, written or even touched.
  std::string Snapshot() const {
    return RunCommand("cd " + inst.dir() + " && find . -printf '%p %m %s %T@\\n' | sort && " +
                      "find . -type f -exec sha256sum {} + | sort")
        .out;
  }
};

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// A secret init wrote: 32 random bytes as hex and a newline, never printed.
std::string ReadSecret(const std::string& path, const std::string& init_output) {
  std::string text = ReadFile(path);
  INFO(path);
  CHECK(std::regex_match(text, std::regex("[0-9a-f]{64}\n")));
  std::string secret = Trimmed(text);
  RegisterLeakMarker(secret);
  CHECK(init_output.find(secret) == std::string::npos);
  return secret;
}

}  // namespace

TEST_CASE("init -c: creates the missing cert, key, secrets, token and database the config names; files 0600, "
          "directories 0700",
          "[integration][init]") {
  PackageLayout p;
  p.Write();
  REQUIRE_FALSE(Exists(p.state));
  auto r = p.Init();
  INFO(r.out);
  REQUIRE(r.exit_code == 0);

  for (const char* dir : {"", "/tls", "/secrets", "/data"}) CHECK(ModeOf(p.state + dir) == 0700);
  CHECK(ModeOf(p.inst.dir() + "/var") == 0700);  // every missing ancestor, not only the last
  CHECK(ModeOf(p.inst.dir() + "/tenant-secrets") == 0700);
  for (const char* file : {"tls/key.pem", "secrets/admin.token", "secrets/demo.secret", "secrets/globex.secret",
                           "data/hookinbox.db"}) {
    INFO(file);
    CHECK(ModeOf(p.Path(file)) == 0600);
    CHECK(r.out.find(p.Path(file)) != std::string::npos);  // says what it created, by path
  }
  CHECK(ModeOf(p.Path("tls/cert.pem")) == 0644);  // a certificate is public
  CHECK(ModeOf(p.inst.dir() + "/tenant-secrets/acme.secret") == 0600);
  CHECK(RunCommand("openssl x509 -noout -in " + p.Path("tls/cert.pem") + " 2>&1").exit_code == 0);
  CHECK(RunCommand("openssl pkey -noout -in " + p.Path("tls/key.pem") + " 2>&1").exit_code == 0);

  std::set<std::string> secrets;
  for (const std::string& file : {p.Path("secrets/admin.token"), p.Path("secrets/demo.secret"),
                                  p.Path("secrets/globex.secret"), p.inst.dir() + "/tenant-secrets/acme.secret"}) {
    secrets.insert(ReadSecret(file, r.out));
  }
  CHECK(secrets.size() == 4);  // each file its own secret

  // The schema is applied: what serve would create, not an empty file.
  std::string db = p.Path("data/hookinbox.db");
  auto sql = [&](const std::string& query) {
    return Trimmed(RunCommand("sqlite3 -readonly " + db + " \"" + query + "\"").out);
  };
  CHECK(std::stoi("0" + sql("PRAGMA user_version")) >= 6);
  CHECK(sql("SELECT count(*) FROM sqlite_master WHERE name = 'webhook_inbox'") == "1");
  CHECK(RunCommand("ls -A " + p.cwd.path()).out.empty());  // nothing landed in the working directory
}

TEST_CASE("init -c: run twice, the second run changes nothing and says nothing to do", "[integration][init]") {
  PackageLayout p;
  p.Write();
  REQUIRE(p.Init().exit_code == 0);
  std::string before = p.Snapshot();
  auto again = p.Init();
  INFO(again.out);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("nothing to do") != std::string::npos);
  CHECK(again.out.find("created") == std::string::npos);
  CHECK(p.Snapshot() == before);
}

TEST_CASE("init -c: never writes the config file", "[integration][init]") {
  PackageLayout p;
  p.Write();
  auto sha = [&] { return RunCommand("sha256sum " + p.config + " && stat -c '%a %Y' " + p.config).out; };
  std::string before = sha();
  REQUIRE(p.Init().exit_code == 0);
  CHECK(sha() == before);
  REQUIRE(p.Init().exit_code == 0);
  CHECK(sha() == before);
}

TEST_CASE("init -c: an existing database is not opened (user_version 5 stays 5, mtime and bytes unchanged)",
          "[integration][init][sqlite]") {
  PackageLayout p;
  p.Write();
  std::string db = p.Path("data/hookinbox.db");
  // An old schema, as an upgrade finds it; dated back so any write would show.
  REQUIRE(RunCommand("mkdir -p " + p.state + "/data && sqlite3 " + db +
                     " 'CREATE TABLE inbox(id INTEGER PRIMARY KEY); PRAGMA user_version = 5;' && touch -d "
                     "'2020-01-02 03:04:05' " + db)
              .exit_code == 0);
  auto stat_db = [&] { return RunCommand("stat -c '%s %y %a' " + db + " && sha256sum " + db).out; };
  std::string before = stat_db();

  auto r = p.Init();
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(Exists(p.Path("secrets/admin.token")));  // the rest is still created
  CHECK(r.out.find(db) == std::string::npos);
  CHECK(stat_db() == before);
  CHECK_FALSE(Exists(db + "-wal"));
  CHECK_FALSE(Exists(db + "-shm"));
  CHECK_FALSE(Exists(db + "-journal"));
  CHECK(Trimmed(RunCommand("sqlite3 -readonly " + db + " 'PRAGMA user_version'").out) == "5");
}

TEST_CASE("init -c: a certificate without its key (or a key without its certificate) is an error naming both; "
          "nothing is created",
          "[integration][init]") {
  PackageLayout p;
  p.Write();
  std::string lone = GENERATE(std::string("tls/cert.pem"), std::string("tls/key.pem"));
  REQUIRE(RunCommand("mkdir -p " + p.state + "/tls && cp " + p.inst.cert_path() + " " + p.Path(lone)).exit_code ==
          0);
  std::string before = p.Snapshot();
  auto r = p.Init();
  INFO(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find(p.Path("tls/cert.pem")) != std::string::npos);
  CHECK(r.out.find(p.Path("tls/key.pem")) != std::string::npos);
  CHECK(p.Snapshot() == before);
}

TEST_CASE("init -c: an invalid config is an error naming the key; nothing is created", "[integration][init]") {
  PackageLayout p;
  std::string key;
  SECTION("a bad value") {
    p.Write("", std::string("\n[[endpoint]]\nname = \"demo\"\nsecret_file = \"s.secret\"\n") +
                    std::regex_replace(kSignature, std::regex("\n\\[endpoint.key\\]"), "algorithm = \"md4\"\n$&"));
    key = "endpoint[0].signature.algorithm";
  }
  SECTION("an unknown key") {
    p.Write("[server]\nlisten = \"127.0.0.1:0\"\ncolour = \"blue\"\n");
    key = "server.colour";
  }
  SECTION("an endpoint with no secret at all (secrets are not read, but must be named)") {
    p.Write("", std::string("\n[[endpoint]]\nname = \"demo\"\n") + kSignature);
    key = "endpoint[0]";
  }
  SECTION("a secret_env that is not a variable name (secrets are not read, but checked as written)") {
    p.Write("", std::string("\n[[endpoint]]\nname = \"demo\"\nsecret_env = \"not-a-name\"\n") + kSignature);
    key = "endpoint[0].secret_env";
  }
  SECTION("a format the verifier cannot parse") {
    p.Write("", std::string("\n[[endpoint]]\nname = \"demo\"\nsecret_file = \"s.secret\"\n") +
                    std::regex_replace(kSignature, std::regex("sha256=\\{signature\\}"), "sha256"));
    key = "endpoint[0]";
  }
  std::string before = p.Snapshot();
  auto r = p.Init();
  INFO(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find(key) != std::string::npos);
  CHECK(r.out.find("nothing was created") != std::string::npos);
  CHECK(p.Snapshot() == before);
}

TEST_CASE("init -c: usage errors and a missing config file change nothing", "[integration][init]") {
  PackageLayout p;
  p.Write();
  std::string before = p.Snapshot();
  CHECK(RunCommand(Bin() + " init " + p.state + " -c " + p.config + " 2>&1").exit_code == 2);  // DIR and -c
  auto missing = RunCommand(Bin() + " init -c " + p.inst.dir() + "/no-such.toml 2>&1");
  CHECK(missing.exit_code == 1);
  CHECK(missing.out.find("no-such.toml") != std::string::npos);
  CHECK(p.Snapshot() == before);
}

TEST_CASE("init -c: plain_http makes no certificate; *_env secrets are left to the admin; a provider's secret "
          "file is flagged for replacing",
          "[integration][init]") {
  PackageLayout p;
  p.Write("[server]\nlisten = \"127.0.0.1:0\"\nplain_http = true\n",
          std::string("\n[[endpoint]]\nname = \"demo\"\nsecret_env = \"HOOKINBOX_TEST_INIT_UNSET_VAR\"\n") +
              kSignature + "\n[[endpoint]]\nname = \"pay\"\nprovider = \"stripe\"\nsecret_file = \"" +
              p.Path("secrets/stripe.secret") + "\"\n");
  auto r = p.Init();
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(Exists(p.state + "/tls"));
  CHECK(Exists(p.Path("secrets/admin.token")));
  CHECK(Exists(p.Path("data/hookinbox.db")));
  // Stripe issues its signing secret: a random one only lets the service start.
  CHECK(Exists(p.Path("secrets/stripe.secret")));
  CHECK(r.out.find("if stripe issues this secret, replace") != std::string::npos);
  CHECK(r.out.find("HOOKINBOX_TEST_INIT_UNSET_VAR") == std::string::npos);
  // check-config, which reads secrets, names what the admin must still supply.
  auto check = RunCommand(Bin() + " check-config -c " + p.config + " 2>&1");
  CHECK(check.exit_code == 1);
  CHECK(check.out.find("HOOKINBOX_TEST_INIT_UNSET_VAR") != std::string::npos);
}

TEST_CASE("init -c: the installation it makes passes check-config, serves, and verifies with the secrets it wrote",
          "[integration][init]") {
  PackageLayout p;
  p.Write();
  auto r = p.Init();
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  auto check = RunCommand(Bin() + " check-config -c " + p.config + " 2>&1");
  INFO(check.out);
  CHECK(check.exit_code == 0);

  // ServerProcess trusts the Installation's certificate file: make it ours.
  REQUIRE(RunCommand("cp " + p.Path("tls/cert.pem") + " " + p.inst.cert_path()).exit_code == 0);
  ServerProcess server(p.inst);
  server.Start();
  CHECK(PollUntil([&] { return server.Request("GET", "/readyz", "", {}).status == 200; }, std::chrono::seconds(30)));

  // A delivery signed with each secret init wrote is accepted: serve reads
  // the same files init created, relative path included.
  auto deliver = [&](const std::string& path, const std::string& secret_file, const std::string& id) {
    std::string secret = ReadSecret(secret_file, r.out);
    std::string body = "{\"id\":\"" + id + "\",\"type\":\"init.test\"}";
    std::string ts = std::to_string(NowSeconds());
    std::string sig = HmacSha256Hex(secret, ts + "." + body);
    RegisterLeakMarker(sig);
    return server.Request("POST", path, body, {{"X-Timestamp", ts}, {"X-Signature", "sha256=" + sig}});
  };
  auto demo = deliver("/hooks/demo", p.Path("secrets/demo.secret"), "evt_init_1");
  CHECK(demo.status == 200);
  CHECK(demo.body.find("accepted") != std::string::npos);
  auto acme = deliver("/hooks/shops/acme", p.inst.dir() + "/tenant-secrets/acme.secret", "evt_init_2");
  CHECK(acme.status == 200);
  CHECK(acme.body.find("accepted") != std::string::npos);
  server.Kill(SIGTERM);
  CHECK(server.WaitExit() == 0);
}
