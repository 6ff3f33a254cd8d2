// cli/open_command.h: the opening the verbs share — how much of the config
// must be sound, what a refusal prints, and the store opened when asked.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "cli/open_command.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

// A config that parses and validates but names a TLS pair that does not exist.
std::string WriteConfigWithoutTlsFiles(const testing::TempDir& dir) {
  dir.Write("demo.secret", "0123456789abcdef0123456789abcdef\n");
  return dir.Write("hookinbox.toml",
                   "[server]\n"
                   "listen = \"127.0.0.1:8443\"\n"
                   "tls_cert = \"tls/cert.pem\"\n"
                   "tls_key = \"tls/key.pem\"\n"
                   "[storage]\n"
                   "path = \"hookinbox.db\"\n"
                   "[[endpoint]]\n"
                   "name = \"demo\"\n"
                   "provider = \"generic\"\n"
                   "secret_file = \"demo.secret\"\n"
                   "[endpoint.signature]\n"
                   "header = \"X-Signature\"\n"
                   "algorithm = \"sha256\"\n"
                   "encoding = \"hex\"\n"
                   "[endpoint.key]\n"
                   "id_pointer = \"/id\"\n");
}

}  // namespace

TEST_CASE("open for command: a parsed config opens the store even when the files it names are missing", "[cli]") {
  testing::TempDir dir;
  cli::CommonOptions common;
  common.config_path = WriteConfigWithoutTlsFiles(dir);
  std::ostringstream err;
  auto opened = cli::OpenForCommand(common, {.verb = "events", .open_store = true}, err);
  INFO(err.str());
  REQUIRE(opened.has_value());
  CHECK(err.str().empty());
  CHECK(opened->config_path == common.config_path);
  CHECK(opened->config.endpoints.size() == 1);
  REQUIRE(opened->store != nullptr);
  CHECK(std::filesystem::exists(dir.File("hookinbox.db")));
}

TEST_CASE("open for command: kComplete refuses missing files, names them and points to check-config", "[cli]") {
  testing::TempDir dir;
  cli::CommonOptions common;
  common.config_path = WriteConfigWithoutTlsFiles(dir);
  std::ostringstream err;
  SECTION("with the pointer") {
    auto opened = cli::OpenForCommand(
        common, {.verb = "purge", .check = cli::ConfigCheck::kComplete, .open_store = true}, err);
    CHECK_FALSE(opened.has_value());
    CHECK_THAT(err.str(), Catch::Contains("error: ") && Catch::Contains("server.tls_cert"));
    CHECK_THAT(err.str(), Catch::EndsWith("hookinbox purge: cannot use " + common.config_path +
                                          " (see `hookinbox check-config`)\n"));
    CHECK_FALSE(std::filesystem::exists(dir.File("hookinbox.db")));  // refused before the store
  }
  SECTION("without it (send-test)") {
    auto opened = cli::OpenForCommand(
        common, {.verb = "send-test", .check = cli::ConfigCheck::kComplete, .point_to_check_config = false}, err);
    CHECK_FALSE(opened.has_value());
    CHECK_THAT(err.str(), Catch::Contains("server.tls_cert"));
    CHECK_THAT(err.str(), !Catch::Contains("cannot use"));
  }
}

TEST_CASE("open for command: a config that does not parse is refused with its line", "[cli]") {
  testing::TempDir dir;
  cli::CommonOptions common;
  common.config_path = dir.Write("hookinbox.toml", "[storage]\npath = \"hookinbox.db\"\nno_such_key = 1\n");
  std::ostringstream err;
  auto opened = cli::OpenForCommand(common, {.verb = "stats", .open_store = true}, err);
  CHECK_FALSE(opened.has_value());
  CHECK_THAT(err.str(), Catch::Contains("error: ") && Catch::Contains("no_such_key"));
  CHECK_THAT(err.str(), Catch::Contains("hookinbox stats: cannot use"));
}

TEST_CASE("open for command: a store that cannot open is reported with the verb", "[cli]") {
  testing::TempDir dir;
  cli::CommonOptions common;
  common.config_path = WriteConfigWithoutTlsFiles(dir);
  dir.Write("hookinbox.db", "this is not an SQLite database, it only has its name");
  std::ostringstream err;
  auto opened = cli::OpenForCommand(common, {.verb = "stats", .open_store = true}, err);
  CHECK_FALSE(opened.has_value());
  CHECK_THAT(err.str(), Catch::StartsWith("hookinbox stats: "));
}
