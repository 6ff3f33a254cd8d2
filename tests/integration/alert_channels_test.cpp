// `hookinbox alert test` against real receivers: an SMTP server (aiosmtpd,
// STARTTLS or implicit TLS, AUTH required, a self-signed certificate trusted
// through ca_file) and the recording test downstream standing in for Slack,
// Teams, Discord and a webhook receiver. Checks what arrived, the webhook's
// Standard Webhooks signature (with OpenSSL, independently of src/), the exit
// codes, and that no password, URL or secret is printed or sent.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <openssl/evp.h>
#include <nlohmann/json.hpp>

#include "downstream.h"
#include "harness.h"
#include "smtp_server.h"
#include "support/openssl_hmac.h"
#include "support/temp_dir.h"

using namespace hookinbox::testing;
using nlohmann::json;

namespace {

CommandResult AlertTest(const Installation& inst, const std::string& args = "") {
  return RunCommand(BinaryPath() + " alert test " + args + " -c " + inst.config_path() + " 2>&1");
}

std::string Base64(const std::string& raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace

TEST_CASE("alert test: email over STARTTLS with AUTH reaches the SMTP server, without the password",
          "[integration][alert]") {
  RegisterLeakMarker(kSmtpPassword);
  SmtpServer smtp;
  Installation inst;
  inst.WriteTestConfig(EmailChannel(inst, smtp, smtp.Url("smtp")));
  CommandResult r = AlertTest(inst);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "mail: sent\n");
  std::vector<std::string> mail = smtp.Messages();
  REQUIRE(mail.size() == 1);
  const std::string& m = mail[0];
  INFO(m);
  CHECK(m.find("X-Envelope-From: hookinbox@example.com\r\n") != std::string::npos);
  CHECK(m.find("X-Envelope-To: ops@example.com\r\nX-Envelope-To: cto@example.com\r\n") != std::string::npos);
  CHECK(m.find("\r\nFrom: hookinbox@example.com\r\n") != std::string::npos);
  CHECK(m.find("\r\nTo: ops@example.com, cto@example.com\r\n") != std::string::npos);
  CHECK(m.find("\r\nSubject: hookinbox: test alert\r\n") != std::string::npos);
  CHECK(m.find("Channel: mail\r\n") != std::string::npos);
  CHECK(m.find(kSmtpPassword) == std::string::npos);
  CHECK(m.find("smtp://") == std::string::npos);
}

TEST_CASE("alert test: a wrong SMTP password exits 1 with a clear line and sends nothing", "[integration][alert]") {
  RegisterLeakMarker("wrong-Pass-Do-Not-Print");
  SmtpServer smtp;
  Installation inst;
  inst.WriteTestConfig(EmailChannel(inst, smtp, smtp.Url("smtp", "wrong-Pass-Do-Not-Print")));
  CommandResult r = AlertTest(inst, "mail");
  INFO(r.out);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::StartsWith("mail: failed: smtp: 535 "));
  CHECK(r.out.find("Login denied") != std::string::npos);
  CHECK(r.out.find("Pass-Do-Not-Print") == std::string::npos);
  CHECK(smtp.Messages().empty());
}

TEST_CASE("alert test: smtps:// speaks TLS from the first byte", "[integration][alert]") {
  SmtpServer smtp("--implicit-tls");
  Installation inst;
  inst.WriteTestConfig(EmailChannel(inst, smtp, smtp.Url("smtps")));
  CommandResult r = AlertTest(inst);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "mail: sent\n");
  CHECK(smtp.Messages().size() == 1);
}

TEST_CASE("alert test: smtp:// to a server without STARTTLS fails rather than log in in clear text",
          "[integration][alert]") {
  SmtpServer smtp("--no-starttls");
  Installation inst;
  inst.WriteTestConfig(EmailChannel(inst, smtp, smtp.Url("smtp")));
  CommandResult r = AlertTest(inst);
  INFO(r.out);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::StartsWith("mail: failed: smtp: "));
  CHECK(smtp.Messages().empty());
}

TEST_CASE("alert test: slack, teams, discord and a signed webhook each get their own format",
          "[integration][alert]") {
  DownstreamProcess receiver;
  Installation inst;
  const std::string key = "alert-webhook-key-for-tests";
  { std::ofstream(inst.dir() + "/secrets/alert.secret") << "whsec_" << Base64(key) << "\n"; }
  ::chmod((inst.dir() + "/secrets/alert.secret").c_str(), 0600);
  std::string channels;
  for (const char* type : {"slack", "teams", "discord", "webhook"}) {
    channels += std::string("\n[[alert.channel]]\nname = \"") + type + "-ops\"\ntype = \"" + type + "\"\nurl = \"" +
                receiver.url(std::string("/") + type) + "\"\n";
    if (std::string(type) == "webhook") channels += "secret_file = \"secrets/alert.secret\"\n";
  }
  inst.WriteTestConfig("\n[alert]\nui_url = \"https://admin.example.com/\"\n" + channels);
  CommandResult r = AlertTest(inst);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "slack-ops: sent\nteams-ops: sent\ndiscord-ops: sent\nwebhook-ops: sent\n");

  json calls = receiver.Calls();
  REQUIRE(calls.size() == 4);
  json slack = json::parse(calls[0]["body"].get<std::string>());
  CHECK(calls[0]["path"] == "/slack");
  CHECK(slack["blocks"][0]["text"]["text"] == "hookinbox: test alert");
  CHECK(slack["blocks"][2]["elements"][0]["url"] == "https://admin.example.com/");
  json teams = json::parse(calls[1]["body"].get<std::string>());
  CHECK(teams["attachments"][0]["content"]["type"] == "AdaptiveCard");
  json discord = json::parse(calls[2]["body"].get<std::string>());
  CHECK(discord["embeds"][0]["title"] == "hookinbox: test alert");
  CHECK(discord["embeds"][0]["fields"][0]["value"] == "discord-ops");

  const json& hook = calls[3];
  const std::string body = hook["body"];
  CHECK(json::parse(body)["type"] == "alert.test");
  const json& h = hook["headers"];
  REQUIRE(h.contains("webhook-signature"));
  const std::string id = h["webhook-id"], ts = h["webhook-timestamp"];
  CHECK(std::abs(std::stoll(ts) - NowSeconds()) < 60);
  CHECK(h["webhook-signature"] == "v1," + Base64(OpensslHmac(EVP_sha256(), key, id + "." + ts + "." + body)));
  CHECK(h["Content-Type"] == "application/json");
}

TEST_CASE("alert test: a receiver answering 500 exits 1 naming the type and status, not the URL",
          "[integration][alert]") {
  DownstreamProcess receiver;
  receiver.Default({{"status", 500}});
  Installation inst;
  inst.WriteTestConfig("\n[[alert.channel]]\nname = \"slack-ops\"\ntype = \"slack\"\nurl = \"" +
                       receiver.url("/services/T000/B000/secret-path") + "\"\n");
  CommandResult r = AlertTest(inst);
  INFO(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out == "slack-ops: failed: slack: HTTP 500\n");
}

TEST_CASE("alert test: an unknown channel, or none configured, is a usage error (exit 2)", "[integration][alert]") {
  Installation inst;
  inst.WriteTestConfig();
  CommandResult none = AlertTest(inst);
  INFO(none.out);
  CHECK(none.exit_code == 2);
  CHECK(none.out.find("no [[alert.channel]]") != std::string::npos);
  inst.WriteTestConfig("\n[[alert.channel]]\nname = \"slack-ops\"\ntype = \"slack\"\nurl = \"http://127.0.0.1:9/x\"\n");
  CommandResult unknown = AlertTest(inst, "pager");
  INFO(unknown.out);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.out.find("no channel named pager (configured: slack-ops)") != std::string::npos);
}
