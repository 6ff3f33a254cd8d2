// [alert], [[alert.channel]] and [endpoint.alert]: what loads, what each
// refusal says (with its key and line), and that no message quotes a
// channel's URL (a chat webhook URL or an SMTP password is a credential).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>

#include "config_test_util.h"
#include "support/temp_dir.h"

using namespace hookinbox::config;
using namespace hookinbox::config::test;

namespace {

constexpr const char* kHookUrl = "https://hooks.slack.com/services/T0/B0/Do-Not-Print-9";
constexpr const char* kSmtpUrl = "smtp://alerts:Pw-Do-Not-Print-3@mail.example.com:587";

void CheckNoUrl(const LoadResult& r) {
  for (const auto* list : {&r.errors, &r.warnings}) {
    for (const auto& p : *list) {
      INFO(Describe(p, "test.toml"));
      CHECK(p.message.find("Do-Not-Print") == std::string::npos);
    }
  }
}

// The problem at `key`, REQUIREd, on the line marked "#<" when there is one.
const Problem& ErrorAt(const LoadResult& r, const std::string& toml, const std::string& key) {
  INFO(Dump(r.errors));
  const Problem* p = Find(r.errors, key);
  REQUIRE(p != nullptr);
  if (int line = MarkedLine(toml); line > 0) CHECK(p->line == line);
  CheckNoUrl(r);
  return *p;
}

std::string Slack(const std::string& name = "ops", const std::string& url = kHookUrl) {
  return "\n[[alert.channel]]\nname = \"" + name + "\"\ntype = \"slack\"\nurl = \"" + url + "\"\n";
}

}  // namespace

TEST_CASE("alert: without [alert] the defaults apply, and every endpoint has them", "[config]") {
  auto r = Load(kEndpoint);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const AlertConfig& a = r.config.alert;
  CHECK(a.channels.empty());
  CHECK(a.thresholds.dead_letters == 1);
  CHECK(a.thresholds.backlog_age_ms == 15 * 60 * 1000);
  CHECK_FALSE(a.thresholds.silence_ms.has_value());
  CHECK(a.disk_free_bytes == int64_t{1} << 30);
  CHECK(a.remind_every_ms == 4 * 3600 * 1000);
  CHECK(r.config.endpoints[0].alert.signature_failures == 20);
}

TEST_CASE("alert: thresholds, false for off, sizes, durations and the digest load", "[config]") {
  const std::string toml = kEndpoint + Slack() +
                           "[alert]\ndead_letters = 5\nunknown = false\nbacklog_age = \"30m\"\n"
                           "silence = \"6h\"\ndisk_free = \"500MB\"\ndatabase_size = \"10GB\"\n"
                           "certificate_days = false\nremind_every = false\ncheck_every = \"500ms\"\n"
                           "digest_at = \"08:00\"\ndigest_channel = \"ops\"\nui_url = \"https://admin.example.com/\"\n";
  auto r = Load(toml);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const AlertConfig& a = r.config.alert;
  CHECK(a.thresholds.dead_letters == 5);
  CHECK_FALSE(a.thresholds.unknown.has_value());
  CHECK(a.thresholds.backlog_age_ms == 30 * 60 * 1000);
  CHECK(a.thresholds.silence_ms == 6 * 3600 * 1000);
  CHECK(a.disk_free_bytes == int64_t{500} << 20);
  CHECK(a.database_size_bytes == int64_t{10} << 30);
  CHECK_FALSE(a.certificate_days.has_value());
  CHECK(a.remind_every_ms == 0);
  CHECK(a.check_every_ms == 500);
  CHECK(a.digest_at == "08:00");
  CHECK(a.digest_channel == "ops");
  // [alert] came after the endpoint in the file; the endpoint still inherits it.
  CHECK(r.config.endpoints[0].alert.dead_letters == 5);
  CHECK(r.config.endpoints[0].alert.silence_ms == 6 * 3600 * 1000);
}

TEST_CASE("alert: [endpoint.alert] replaces only the keys it writes", "[config]") {
  const std::string toml = "[alert]\nsilence = \"6h\"\nconflicts = 3\n" + kEndpoint +
                           "[endpoint.alert]\nsilence = \"24h\"\ndead_letters = false\n";
  auto r = Load(toml);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const AlertThresholds& e = r.config.endpoints[0].alert;
  CHECK(e.silence_ms == 24 * 3600 * 1000);
  CHECK_FALSE(e.dead_letters.has_value());
  CHECK(e.conflicts == 3);
  CHECK(r.config.alert.thresholds.silence_ms == 6 * 3600 * 1000);
  CHECK(r.config.alert.thresholds.dead_letters == 1);
}

TEST_CASE("alert: every channel type loads, its URL and secret read from where they are named", "[config]") {
  hookinbox::testing::TempDir dir;
  const std::string secret = dir.Write("alert.secret", "whsec_Zm9yd2FyZC1zZWNyZXQtZm9yLXRlc3Rz\n");
  ::chmod(secret.c_str(), 0600);
  ::setenv("HOOKINBOX_CT_SMTP_URL", kSmtpUrl, 1);
  const std::string toml = kEndpoint + Slack() +
                           "\n[[alert.channel]]\nname = \"mail\"\ntype = \"email\"\nsmtp_url_env = "
                           "\"HOOKINBOX_CT_SMTP_URL\"\nfrom = \"hookinbox@example.com\"\nto = [\"ops@example.com\"]\n"
                           "ca_file = \"ca.pem\"\ntimeout_seconds = 5\n"
                           "\n[[alert.channel]]\nname = \"teams\"\ntype = \"teams\"\nurl = \"https://example.webhook.office.com/x\"\n"
                           "\n[[alert.channel]]\nname = \"hook\"\ntype = \"webhook\"\nurl = \"http://127.0.0.1:9000/alerts\"\n"
                           "secret_file = \"alert.secret\"\n";
  auto r = Load(toml, dir.path());
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const auto& ch = r.config.alert.channels;
  REQUIRE(ch.size() == 4);
  CHECK(ch[0].url.bytes() == kHookUrl);
  CHECK(ch[1].smtp_url.bytes() == kSmtpUrl);
  CHECK(ch[1].from == "hookinbox@example.com");
  CHECK(ch[1].ca_file == dir.path() + "/ca.pem");
  CHECK(ch[1].timeout_seconds == 5);
  CHECK(ch[3].secret.bytes() == "forward-secret-for-tests");
  CHECK(ch[2].timeout_seconds == 10);
  // Kept inside the process like every other secret source.
  const auto& origins = r.config.secret_origins;
  CHECK(std::find(origins.env_names.begin(), origins.env_names.end(), "HOOKINBOX_CT_SMTP_URL") != origins.env_names.end());
  CHECK(std::find(origins.files.begin(), origins.files.end(), secret) != origins.files.end());
}

TEST_CASE("alert: channel refusals name the key and line, never the URL", "[config]") {
  SECTION("unknown type") {
    const std::string toml = kEndpoint + "\n[[alert.channel]]\nname = \"x\"\ntype = \"pager\" #<\nurl = \"" +
                             kHookUrl + "\"\n";
    auto r = Load(toml);
    CHECK_THAT(ErrorAt(r, toml, "alert.channel[0].type").message,
               Catch::Contains("must be one of email, slack, teams, discord, webhook"));
  }
  SECTION("duplicate name") {
    const std::string toml = kEndpoint + Slack() + "\n[[alert.channel]]\nname = \"ops\" #<\ntype = \"discord\"\nurl = \"" +
                             kHookUrl + "\"\n";
    auto r = Load(toml);
    CHECK(ErrorAt(r, toml, "alert.channel[1].name").message == "duplicate channel name \"ops\" (also alert.channel[0])");
  }
  SECTION("no type") {
    const std::string toml = kEndpoint + "\n[[alert.channel]] #<\nname = \"x\"\n";
    auto r = Load(toml);
    CHECK_THAT(ErrorAt(r, toml, "alert.channel[0]").message, Catch::StartsWith("no type"));
  }
  SECTION("email without from, to and smtp_url") {
    const std::string toml = kEndpoint + "\n[[alert.channel]] #<\nname = \"mail\"\ntype = \"email\"\n";
    auto r = Load(toml);
    INFO(Dump(r.errors));
    CHECK(r.errors.size() == 3);
    for (const auto& p : r.errors) CHECK(p.key == "alert.channel[0]");
    CHECK_THAT(Dump(r.errors), Catch::Contains("no smtp_url") && Catch::Contains("needs from") &&
                                   Catch::Contains("at least one recipient"));
  }
  SECTION("email with a bad address and a plain http smtp_url") {
    const std::string toml = kEndpoint + "\n[[alert.channel]]\nname = \"mail\"\ntype = \"email\"\n"
                             "smtp_url = \"http://x:Do-Not-Print@mail.example.com\"\nfrom = \"me\"\nto = [\"a@b.c\", \"Ops <ops@x.com>\"]\n";
    auto r = Load(toml);
    CHECK_THAT(ErrorAt(r, toml, "alert.channel[0].smtp_url").message, Catch::StartsWith("must start with smtp://"));
    CHECK_THAT(ErrorAt(r, toml, "alert.channel[0].from").message, Catch::StartsWith("is not a bare e-mail address"));
    ErrorAt(r, toml, "alert.channel[0].to[1]");
  }
  SECTION("a url that is not https, except to this host") {
    const std::string toml = kEndpoint + Slack("ops", "http://hooks.example.com/Do-Not-Print") + Slack("a", "ftp://x/y") +
                             Slack("local", "http://localhost:8080/x") + Slack("v6", "http://[::1]:8080/x");
    auto r = Load(toml);
    CHECK(ErrorAt(r, toml, "alert.channel[0].url").message ==
          "must be an https:// URL (http:// only for 127.0.0.1 or localhost)");
    ErrorAt(r, toml, "alert.channel[1].url");
    CHECK(Find(r.errors, "alert.channel[2].url") == nullptr);
    CHECK(Find(r.errors, "alert.channel[3].url") == nullptr);
  }
  SECTION("a url read from the environment is checked too, without quoting it") {
    ::setenv("HOOKINBOX_CT_HOOK_URL", "http://hooks.example.com/Do-Not-Print", 1);
    const std::string toml = kEndpoint + "\n[[alert.channel]]\nname = \"ops\"\ntype = \"discord\"\n"
                             "url_env = \"HOOKINBOX_CT_HOOK_URL\" #<\n";
    auto r = Load(toml);
    CHECK_THAT(ErrorAt(r, toml, "alert.channel[0].url_env").message, Catch::StartsWith("the url it holds must be an https://"));
  }
  SECTION("no url, or two sources of it") {
    const std::string toml = kEndpoint + "\n[[alert.channel]]\nname = \"a\"\ntype = \"teams\"\n" +
                             "\n[[alert.channel]]\nname = \"b\"\ntype = \"teams\"\nurl = \"" + kHookUrl +
                             "\"\nurl_env = \"X\" #<\n";
    auto r = Load(toml);
    CHECK_THAT(ErrorAt(r, "", "alert.channel[0]").message, Catch::StartsWith("no url: set one of url, url_env"));
    CHECK_THAT(ErrorAt(r, toml, "alert.channel[1].url_env").message, Catch::StartsWith("set only one of url"));
  }
  SECTION("webhook without a secret") {
    const std::string toml = kEndpoint + "\n[[alert.channel]] #<\nname = \"hook\"\ntype = \"webhook\"\nurl = \"" +
                             kHookUrl + "\"\n";
    auto r = Load(toml);
    CHECK_THAT(ErrorAt(r, toml, "alert.channel[0]").message,
               Catch::StartsWith("a webhook channel needs secret_env or secret_file"));
  }
  SECTION("a webhook secret that is not whsec_ base64") {
    ::setenv("HOOKINBOX_CT_HOOK_SECRET", "whsec_not-base64_", 1);
    const std::string toml = kEndpoint + "\n[[alert.channel]]\nname = \"hook\"\ntype = \"webhook\"\nurl = \"" +
                             kHookUrl + "\"\nsecret_env = \"HOOKINBOX_CT_HOOK_SECRET\" #<\n";
    auto r = Load(toml);
    CHECK_THAT(ErrorAt(r, toml, "alert.channel[0].secret_env").message,
               Catch::Contains("is not a Standard Webhooks secret"));
  }
  SECTION("keys of another type") {
    const std::string toml = kEndpoint + Slack() + "from = \"a@b.c\" #<\n";
    auto r = Load(toml);
    CHECK(ErrorAt(r, toml, "alert.channel[0].from").message == "not allowed here: only email channels have it");
  }
}

TEST_CASE("alert: [alert] refusals name the key and line", "[config]") {
  struct Case {
    std::string line, key, message;
  };
  for (const Case& c : {
           Case{"backlog_age = \"15 minutes\"", "alert.backlog_age", "must be a duration such as"},
           Case{"disk_free = \"1 GB\"", "alert.disk_free", "must be a size such as \"500MB\", \"1GB\" or \"10GB\""},
           Case{"database_size = 10", "alert.database_size", "must be a size such as \"1GB\", or false to turn it off"},
           Case{"dead_letters = true", "alert.dead_letters", "may be false (off) but not true"},
           Case{"dead_letters = 0", "alert.dead_letters", "must be between 1 and 1000000"},
           Case{"digest_at = \"8am\"", "alert.digest_at", "must be a time of day \"HH:MM\""},
           Case{"digest_at = \"24:00\"", "alert.digest_at", "must be a time of day \"HH:MM\""},
           Case{"digest_channel = \"nobody\"", "alert.digest_channel", "names no [[alert.channel]]"},
           Case{"ui_url = \"admin.example.com\"", "alert.ui_url", "is not an http:// or https:// URL"},
           Case{"silence = \"forever\"", "alert.silence", "must be a duration such as"},
       }) {
    INFO(c.line);
    const std::string toml = kEndpoint + "[alert]\n" + c.line + " #<\n";
    auto r = Load(toml);
    CHECK_THAT(ErrorAt(r, toml, c.key).message, Catch::Contains(c.message));
  }
  const std::string toml = kEndpoint + "[endpoint.alert]\nsilence = \"2 days\" #<\n";
  auto r = Load(toml);
  CHECK_THAT(ErrorAt(r, toml, "endpoint[0].alert.silence").message, Catch::StartsWith("must be a duration"));
}
