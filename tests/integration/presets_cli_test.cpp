// `hookinbox presets [--json]` and `hookinbox init --provider NAME DIR` from
// the outside: the listing, and a written config that check-config accepts
// once the person has filled in the secret — and refuses until then.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <regex>
#include <set>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

std::string Bin() { return BinaryPath(); }

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `init --provider NAME` into a fresh directory under `tmp`; the directory.
std::string InitProvider(const TempDir& tmp, const std::string& name) {
  std::string dir = tmp.File(name);
  auto init = RunCommand(Bin() + " init --provider " + name + " " + dir + " 2>&1");
  INFO(init.out);
  REQUIRE(init.exit_code == 0);
  return dir;
}

CommandResult CheckConfig(const std::string& dir) {
  return RunCommand(Bin() + " check-config -c " + dir + "/hookinbox.toml 2>&1");
}

// Writes into an existing file, as `echo … > file` does: its mode stays.
void Fill(const std::string& path, const std::string& value) {
  REQUIRE(PathExists(path));
  REQUIRE(RunCommand("printf '%s' '" + value + "' > " + path).exit_code == 0);
}

}  // namespace

TEST_CASE("presets: one line per preset with its required keys and aliases; exit 0", "[integration][cli]") {
  auto list = RunCommand(Bin() + " presets");
  REQUIRE(list.exit_code == 0);
  CHECK(std::regex_search(list.out, std::regex(R"(\nstripe +secret_file\n)")));
  CHECK(std::regex_search(list.out, std::regex(R"(\ntwilio +secret_file, public_url\n)")));
  CHECK(std::regex_search(list.out, std::regex(R"(\nsvix +secret_file +clerk, resend\n)")));
  CHECK(std::regex_search(list.out, std::regex(R"(\npaypal +public_key_file, signature\.webhook_id\n)")));
  CHECK(std::regex_search(list.out, std::regex(R"(\njotform +insecure = true\n)")));
  CHECK(Contains(list.out, "init --provider NAME"));
  CHECK(RunCommand(Bin() + " presets --no-such-flag 2>&1").exit_code == 2);
}

TEST_CASE("presets --json: an array of every preset with scheme, required keys, hint, handshake and window",
          "[integration][cli]") {
  auto listed = RunCommand(Bin() + " presets --json");
  REQUIRE(listed.exit_code == 0);
  nlohmann::json list = nlohmann::json::parse(listed.out);
  REQUIRE(list.is_array());
  REQUIRE(list.size() >= 33);
  std::set<std::string> names;
  for (const auto& p : list) {
    INFO(p.dump());
    CHECK(names.insert(p.at("name").get<std::string>()).second);
    CHECK(p.at("aliases").is_array());
    CHECK(p.at("scheme").is_string());
    CHECK(!p.at("required").empty());
    CHECK(p.at("secret_hint").is_string());
    CHECK((p.at("handshake").is_null() || p.at("handshake").is_string()));
    CHECK(p.at("redelivery_window_hours").is_number_integer());
  }
  auto find = [&](const std::string& name) {
    for (const auto& p : list) {
      if (p.at("name") == name) return p;
    }
    FAIL("no preset " << name);
    return nlohmann::json();
  };
  nlohmann::json stripe = find("stripe");
  CHECK(stripe.at("scheme") == "hmac");
  CHECK(stripe.at("required") == nlohmann::json::array({"secret_file"}));
  CHECK(Contains(stripe.at("secret_hint").get<std::string>(), "Signing secret"));
  CHECK(stripe.at("handshake").is_null());
  CHECK(stripe.at("redelivery_window_hours") == 72);
  CHECK(find("slack").at("handshake") == "slack");
  CHECK(find("meta").at("aliases") == nlohmann::json::array({"facebook", "instagram", "whatsapp"}));
  CHECK(find("discord").at("scheme") == "ed25519");
}

TEST_CASE("init --provider stripe: a config check-config accepts once the secret is filled in", "[integration][init]") {
  TempDir tmp;
  std::string dir = InitProvider(tmp, "stripe");
  std::string toml = ReadWholeFile(dir + "/hookinbox.toml");
  CHECK(Contains(toml, "name = \"stripe\"\nprovider = \"stripe\"\nsecret_file = \"secrets/stripe.secret\""));
  CHECK(Contains(toml, "# Where stripe shows it: Dashboard"));
  CHECK_FALSE(Contains(toml, "demo"));  // the provider's endpoint replaces the demo
  CHECK_FALSE(PathExists(dir + "/secrets/demo.secret"));
  CHECK(ReadWholeFile(dir + "/secrets/stripe.secret").empty());
  CHECK(FileMode(dir + "/secrets/stripe.secret") == 0600);
  CHECK(PathExists(dir + "/tls/cert.pem"));
  CHECK(PathExists(dir + "/secrets/admin.token"));

  // Not before the secret is there: an empty secret verifies nothing.
  auto before = CheckConfig(dir);
  CHECK(before.exit_code == 1);
  CHECK(Contains(before.out, "stripe.secret is empty"));

  Fill(dir + "/secrets/stripe.secret", "whsec_test_0123456789abcdef");
  auto after = CheckConfig(dir);
  INFO(after.out);
  CHECK(after.exit_code == 0);
  CHECK_FALSE(Contains(after.out, "warning"));

  // init's rule: an existing installation is never overwritten.
  auto again = RunCommand(Bin() + " init --provider github " + dir + " 2>&1");
  CHECK(again.exit_code == 1);
  CHECK(Contains(again.out, "already exists"));
  CHECK(ReadWholeFile(dir + "/hookinbox.toml") == toml);
  CHECK(ReadWholeFile(dir + "/secrets/stripe.secret") == "whsec_test_0123456789abcdef");
  CHECK_FALSE(PathExists(dir + "/secrets/github.secret"));
}

TEST_CASE("init --provider: aliases, a signed URL, Basic credentials and Meta's verify token load once filled in",
          "[integration][init]") {
  TempDir tmp;
  struct Case {
    std::string name, secret;
  };
  for (const Case& c : {Case{"clerk", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, Case{"twilio", "12345"},
                        Case{"postmark", "hooks:correct-horse"}, Case{"meta", "app-secret-1"}}) {
    INFO(c.name);
    std::string dir = InitProvider(tmp, c.name);
    Fill(dir + "/secrets/" + c.name + ".secret", c.secret);
    auto check = CheckConfig(dir);
    INFO(check.out);
    CHECK(check.exit_code == 0);
  }
  // Meta's verify token: chosen by init, owner-only.
  CHECK(FileMode(tmp.File("meta") + "/secrets/meta.verify-token") == 0600);
  CHECK(ReadWholeFile(tmp.File("meta") + "/secrets/meta.verify-token").size() == 33);
}

TEST_CASE("init --provider: a key to paste, a webhook id or the insecure opt-in left to the person keeps "
          "check-config failing, naming it",
          "[integration][init]") {
  TempDir tmp;
  std::string paypal = InitProvider(tmp, "paypal");
  auto check = CheckConfig(paypal);
  CHECK(check.exit_code == 1);
  CHECK(Contains(check.out, "paypal.public-key is empty"));
  CHECK(Contains(check.out, "webhook_id"));

  std::string jotform = InitProvider(tmp, "jotform");
  check = CheckConfig(jotform);
  CHECK(check.exit_code == 1);
  CHECK(Contains(check.out, "insecure = true"));
  CHECK(RunCommand("sed -i 's/^# insecure = true$/insecure = true/' " + jotform + "/hookinbox.toml").exit_code == 0);
  CHECK(CheckConfig(jotform).exit_code == 0);
}

TEST_CASE("init --provider: an unknown or refused provider exits 2 naming `hookinbox presets` and writes nothing",
          "[integration][init]") {
  TempDir tmp;
  for (const char* name : {"no-such-provider", "generic", "discord-interactions"}) {
    INFO(name);
    std::string dir = tmp.File(std::string("x-") + name);
    auto init = RunCommand(Bin() + " init --provider " + name + " " + dir + " 2>&1");
    CHECK(init.exit_code == 2);
    CHECK(Contains(init.out, name));
    if (std::string(name) != "discord-interactions") CHECK(Contains(init.out, "hookinbox presets"));
    CHECK_FALSE(PathExists(dir));
  }
  // Into the current directory: nothing there either.
  auto here = RunCommand("cd " + tmp.path() + " && " + Bin() + " init --provider nope 2>&1");
  CHECK(here.exit_code == 2);
  CHECK(RunCommand("ls -A " + tmp.path()).out.empty());
  // --provider belongs to DIR's form of init, not to -c's.
  CHECK(RunCommand(Bin() + " init --provider stripe -c " + tmp.File("none.toml") + " 2>&1").exit_code == 2);
}

TEST_CASE("init --provider stripe: served as written, send-test's Stripe-signed sample is accepted, then a duplicate",
          "[integration][init]") {
  TempDir tmp;
  std::string dir = InitProvider(tmp, "stripe");
  Fill(dir + "/secrets/stripe.secret", "whsec_test_0123456789abcdef");
  // The config init wrote, moved to free ports.
  std::string toml = ReadWholeFile(dir + "/hookinbox.toml");
  toml = std::regex_replace(toml, std::regex("127\\.0\\.0\\.1:(8443|8081)"), "127.0.0.1:0");
  tmp.Write("stripe/hookinbox.toml", toml);

  auto start = RunCommand("cd " + dir + " && (" + Bin() + " serve -c hookinbox.toml > serve.log 2>&1 & echo $!)");
  std::string pid = start.out.substr(0, start.out.find('\n'));
  std::string port;
  REQUIRE(PollUntil(
      [&] {
        static const std::regex kPort(R"re("event":"listening","url":"https://127\.0\.0\.1:(\d+)")re");
        std::smatch m;
        std::string log = ReadWholeFile(dir + "/serve.log");
        if (!std::regex_search(log, m, kPort)) return false;
        port = m[1];
        return true;
      },
      std::chrono::seconds(30)));
  auto sent = RunCommand(Bin() + " send-test stripe --times 2 -c " + dir + "/hookinbox.toml --url https://127.0.0.1:" +
                         port + " 2>&1");
  RunCommand("kill -TERM " + pid);
  INFO(sent.out);
  CHECK(sent.exit_code == 0);
  CHECK(Contains(sent.out, "\"status\":\"accepted\""));
  CHECK(Contains(sent.out, "\"status\":\"duplicate\""));
}
