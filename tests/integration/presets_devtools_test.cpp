// The devtools presets' handshakes through the real binary: Dropbox's GET
// challenge (unsigned, so audited as an unverified answer) and Twitch
// EventSub's signed callback verification are answered and never stored;
// a Twitch notification is stored once, its resend is a duplicate.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <ctime>

#include "harness.h"
#include "raw_client.h"

using namespace hookinbox::testing;
using namespace std::chrono_literals;

namespace {

constexpr const char* kTwitchSecret = "twitch-integration-secret";

struct DevtoolsServer {
  Installation inst;
  ServerProcess server{inst};
  DevtoolsServer() {
    inst.WriteTestConfig(PresetEndpoint("dropbox", "dropbox", "dropbox-app-secret") +
                         PresetEndpoint("twitch", "twitch", kTwitchSecret));
    server.Start();
  }

  // A Twitch message of `type`, signed now.
  HttpResult PostTwitch(const std::string& type, const std::string& id, const std::string& body) const {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char when[40];
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S.123456789Z", &tm);
    return server.Request("POST", "/hooks/twitch", body,
                          {{"Twitch-Eventsub-Message-Id", id},
                           {"Twitch-Eventsub-Message-Type", type},
                           {"Twitch-Eventsub-Message-Timestamp", when},
                           {"Twitch-Eventsub-Subscription-Type", "channel.follow"},
                           {"Twitch-Eventsub-Message-Signature", "sha256=" + HmacSha256Hex(kTwitchSecret, id + when + body)}});
  }
};

}  // namespace

TEST_CASE("devtools handshakes: Dropbox's GET challenge and Twitch's verification are answered, not stored",
          "[integration][handshake][devtools]") {
  DevtoolsServer s;
  auto challenge = s.server.Request("GET", "/hooks/dropbox?challenge=u7Fq2RbX9kLm", "", {});
  CHECK(challenge.status == 200);
  CHECK(challenge.body == "u7Fq2RbX9kLm");
  CHECK(s.server.Request("GET", "/hooks/dropbox?challenge=%3Cb%3E", "", {}).status == 400);
  // A challenge that declares a body is not answered: its unread bytes would be
  // taken for the next request on the connection, which is closed instead.
  RawConnection raw(s.server.port(), true);
  REQUIRE(raw.ok());
  REQUIRE(raw.Send("GET /hooks/dropbox?challenge=smuggle HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\n"
                   "GET /"));
  const std::string answer = raw.ReadUntilClosed(10s);
  INFO(answer.substr(0, 200));
  CHECK(StatusOf(answer) >= 400);  // refused (the request gate's 400 or the route's 405), never the challenge
  CHECK(StatusOf(answer) < 500);
  CHECK(answer.find("smuggle") == std::string::npos);
  CHECK(raw.closed_by_server());

  auto verification = s.PostTwitch("webhook_callback_verification", "a1-verify",
                                   R"({"challenge":"pogchamp-kappa-360noscope-vohiyo","subscription":{"id":"f1"}})");
  CHECK(verification.status == 200);
  CHECK(verification.body == "pogchamp-kappa-360noscope-vohiyo");
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");

  const std::string note = R"({"subscription":{"id":"f1","type":"channel.follow"},"event":{"user_id":"1234"}})";
  CHECK(s.PostTwitch("notification", "b2-note", note).status == 200);
  CHECK(s.PostTwitch("notification", "b2-note", note).status == 200);  // Twitch resends with the same id
  CHECK(s.inst.Sql("SELECT (SELECT count(*) FROM webhook_inbox) || ' ' || event_id || ' ' || event_type "
                   "FROM webhook_inbox") == "1 b2-note channel.follow");
  CHECK(s.inst.Sql("SELECT group_concat(outcome || ' ' || http_status, ',') FROM webhook_deliveries "
                   "WHERE endpoint = 'twitch'") == "ignored 200,accepted 200,duplicate 200");
  // The unsigned Dropbox challenge is audited (folded with the address's rejections), never as an event.
  CHECK(s.inst.Sql("SELECT CASE WHEN count(*) > 0 THEN 1 ELSE 0 END FROM webhook_deliveries "
                   "WHERE endpoint = 'dropbox'") == "1");
}
