// Secrets stay in the process that needs them (common/process_secrets.h,
// action/exec_action.cpp): an exec command, running as the same user as the
// server, tries every way to the server's secrets that the same uid gives —
// the server's environment, its maps and memory through /proc/$PPID, the
// secret and key files by path and through /proc/$PPID/root — and records
// what it read. None of it may hold a secret value.
//
// The same script also runs beside the server as its user, as any other
// process of that user could (the command itself, in a user namespace of its
// own, is kept out of /proc/$PPID by that namespace too).
//
// The server runs as nobody (65534), as the packaged service runs as its own
// user: root would read everything anyway (CAP_SYS_PTRACE, CAP_DAC_OVERRIDE).
// Made to fail: without PR_SET_DUMPABLE = 0 the outside run reads maps and
// memory (memory holds every secret); without the /dev/null covers the
// command reads the files back (and, in the same user namespace as the
// server, needs dumpable = 0 for /proc/$PPID); without ScrubEnvironment the
// server's own /proc/<pid>/environ, read by this (root) test, shows the values.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <random>

#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;

constexpr uid_t kNobody = 65534;

std::string RandomToken(const std::string& prefix) {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string out = prefix;
  for (int i = 0; i < 40; ++i) out += kHex[rd() % 16];
  return out;
}

// Everything a process of the server's user can try. Dumps of [heap] and
// [stack] are read through /proc/<pid>/mem at the addresses maps gives. As
// the exec command it snoops on its parent; run by the test (SNOOP_* set),
// on the server from outside.
constexpr const char* kSnoopScript = R"(#!/bin/bash
out="${SNOOP_OUT:-@OUT@}"
p="${SNOOP_PID:-$PPID}"
echo "$p" >"$out/ppid"
head -c 100 /proc/self/maps >"$out/own_maps"
cat "/proc/$p/environ" >"$out/environ" 2>&1
cat "/proc/$p/maps" >"$out/maps" 2>&1
grep -E '\[(heap|stack)\]$' "/proc/$p/maps" 2>/dev/null | while read -r range _; do
  start=$((16#${range%-*})); end=$((16#${range#*-}))
  dd if="/proc/$p/mem" of="$out/mem.$start" bs=4096 skip=$((start / 4096)) count=$(((end - start) / 4096)) 2>>"$out/mem.err"
done
cat "/proc/$p/mem" >>"$out/mem.err" 2>&1 </dev/null
n=0
while read -r f; do
  n=$((n + 1))
  cat "$f" >"$out/file.$n" 2>&1
  cat "/proc/$p/root$f" >"$out/rootfile.$n" 2>&1
done <"${SNOOP_FILES:-@FILES@}"
: >"$out/done"
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

// Every regular file directly in `dir`, as (name, bytes).
std::vector<std::pair<std::string, std::string>> Recorded(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  auto listing = RunCommand("ls -1 " + dir);
  std::istringstream names(listing.out);
  for (std::string name; std::getline(names, name);) files.emplace_back(name, ReadFile(dir + "/" + name));
  return files;
}

}  // namespace

TEST_CASE("process secrets: an exec command running as the server's user reads none of its secrets",
          "[integration][exec][secrets]") {
  Installation inst;
  const std::string admin_token = RandomToken("admintoken");
  const std::string env_secret = RandomToken("envsecret");
  RegisterLeakMarker(admin_token);
  RegisterLeakMarker(env_secret);
  const std::string out = inst.dir() + "/out";
  REQUIRE(::mkdir(out.c_str(), 0700) == 0);

  // A rotation in its window: the previous secret beside demo.secret is as secret as it.
  const std::string previous_secret = RandomToken("prevsecret");
  RegisterLeakMarker(previous_secret);
  std::ofstream(inst.dir() + "/secrets/demo.secret.previous") << previous_secret;
  ::chmod((inst.dir() + "/secrets/demo.secret.previous").c_str(), 0600);
  std::ofstream(inst.dir() + "/secrets/demo.secret.rotation") << "previous_until = \"2099-01-01T00:00:00Z\"\n";
  const std::vector<std::string> secret_files = {inst.dir() + "/secrets/demo.secret", inst.dir() + "/tls/key.pem",
                                                 inst.dir() + "/secrets/demo.secret.previous"};
  std::string file_list;
  for (const auto& f : secret_files) file_list += f + "\n";
  std::ofstream(inst.dir() + "/files") << file_list;
  const std::string script = inst.dir() + "/snoop.sh";
  std::ofstream(script) << Replace(Replace(kSnoopScript, "@OUT@", out), "@FILES@", inst.dir() + "/files");
  ::chmod(script.c_str(), 0700);
  inst.WriteTestConfig(R"(
[endpoint.action]
type = "exec"
command = ["snoop.sh"]
timeout_ms = 20000

[[endpoint]]
name = "envsigned"
provider = "generic"
secret_env = "HOOKINBOX_TEST_ENV_SECRET"
)" + std::string(kDemoSignatureTables),
                       "", "", "token_env = \"HOOKINBOX_TEST_ADMIN_TOKEN\"\n");
  const std::string tls_key = ReadFile(inst.dir() + "/tls/key.pem");
  REQUIRE(tls_key.find("PRIVATE KEY") != std::string::npos);
  REQUIRE(RunCommand("chown -R 65534:65534 " + inst.dir()).exit_code == 0);

  ServerProcess server(inst);
  server.SetEnvironment({{"HOOKINBOX_TEST_ADMIN_TOKEN", admin_token}, {"HOOKINBOX_TEST_ENV_SECRET", env_secret}});
  server.RunAs(kNobody, kNobody);
  server.Start();
  REQUIRE(ReadFile("/proc/" + std::to_string(server.pid()) + "/status").find("\nUid:\t65534\t") != std::string::npos);

  // The server's own environment, read by root: the names are there, the values are not.
  const std::string environ = ReadFile("/proc/" + std::to_string(server.pid()) + "/environ");
  CHECK(environ.find("HOOKINBOX_TEST_ENV_SECRET=") != std::string::npos);
  CHECK(environ.find(env_secret) == std::string::npos);
  CHECK(environ.find(admin_token) == std::string::npos);

  REQUIRE(server.PostSigned("/hooks/demo", R"({"id":"evt_snoop","type":"snoop"})").status == 200);
  REQUIRE(PollUntil([&] { return ::access((out + "/done").c_str(), F_OK) == 0; }, 60s));

  // The command looked where it meant to: at the server, with a working /proc.
  CHECK(std::stoi(ReadFile(out + "/ppid")) == server.pid());
  CHECK(ReadFile(out + "/own_maps").size() == 100);

  // The same from outside, as the server's user.
  const std::string outside = inst.dir() + "/outside";
  REQUIRE(::mkdir(outside.c_str(), 0700) == 0);
  REQUIRE(::chown(outside.c_str(), kNobody, kNobody) == 0);
  auto snooped = RunCommand("SNOOP_OUT=" + outside + " SNOOP_PID=" + std::to_string(server.pid()) +
                            " SNOOP_FILES=/dev/null setpriv --reuid=65534 --regid=65534 --clear-groups " + script +
                            " 2>&1");
  INFO(snooped.out);
  REQUIRE(snooped.exit_code == 0);
  REQUIRE(ReadFile(outside + "/own_maps").size() == 100);

  // Where the kernel refuses the covers, the server says so, and only then
  // may the files themselves be read (the /proc/$PPID/root path never).
  const bool uncovered = server.log().find("exec_secret_files_readable") != std::string::npos;
  if (uncovered) WARN("secret files not covered on this kernel: " << server.log());
  const std::string secret = inst.secret();
  std::vector<std::pair<std::string, std::string>> recorded = Recorded(out);
  for (auto& [name, bytes] : Recorded(outside)) recorded.emplace_back("outside/" + name, std::move(bytes));
  for (const auto& [name, bytes] : recorded) {
    INFO(name << " (" << bytes.size() << " bytes): " << bytes.substr(0, 200));
    if (uncovered && name.rfind("file.", 0) == 0) continue;
    CHECK(bytes.find(secret) == std::string::npos);
    CHECK(bytes.find(admin_token) == std::string::npos);
    CHECK(bytes.find(env_secret) == std::string::npos);
    CHECK(bytes.find(previous_secret) == std::string::npos);
    CHECK(bytes.find("PRIVATE KEY") == std::string::npos);
  }
  CHECK_FALSE(uncovered);
}

}  // namespace hookinbox::testing
