#include "preset_case.h"

#include <catch2/catch.hpp>

#include <vector>

#include "verify/sign.h"
#include "verify/verify.h"

namespace hookinbox::verify::test {
namespace {

// The first event's identity: the whole body's, or the first of a batch.
Result<EventIdentity> First(const config::EndpointConfig& e, const MapHeaders& h, const std::string& body,
                            bool is_json) {
  if (!e.key.batch) return Identify(e, h, body, is_json);
  Result<std::vector<BatchEvent>> events = IdentifyBatch(e, h, body);
  if (!events.ok()) return events.status();
  REQUIRE_FALSE(events->empty());
  return events->front().identity;
}

}  // namespace

void CheckPresetCase(const Case& c) {
  config::LoadResult loaded = LoadPreset(c.provider, c.secret, c.extra_toml);
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const bool is_json = c.content_type == kJson;
  auto map = [&](const Headers& h, const std::string& without = "") { return WithType(c.content_type, h, without); };
  const int64_t ts = kNow - 10;
  const std::string body = c.body(ts, 1);
  const Headers headers = c.headers(c.secret, body, ts);

  // Valid: verifies, and the id and type are the provider's.
  Status ok = VerifyAt(e, map(headers), body, kNow);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = First(e, map(headers), body, is_json);
  INFO(id.status().ToString());
  REQUIRE(id.ok());
  if (c.event_id.empty()) {
    CHECK(id->event_id.rfind("sha256:", 0) == 0);  // the body's canonical hash
  } else {
    CHECK(id->event_id == c.event_id);
  }
  CHECK_FALSE(id->event_id.empty());
  CHECK(id->event_type == c.event_type);

  // The same event sent again later (a retry, signed afresh): the same key and payload.
  const std::string resent = c.body(ts, c.has_volatile ? 2 : 1);
  const Headers resent_headers = c.headers(c.secret, resent, ts + c.resend_after);
  CHECK(VerifyAt(e, map(resent_headers), resent, kNow + c.resend_after).ok());
  Result<EventIdentity> again = First(e, map(resent_headers), resent, is_json);
  REQUIRE(again.ok());
  CHECK(again->event_id == id->event_id);
  CHECK(again->payload_hash == id->payload_hash);

  // One body byte changed.
  if (c.body_signed) {
    std::string tampered = body;
    tampered[tampered.size() / 2] ^= 0x01;
    CHECK(VerifyAt(e, map(headers), tampered, kNow).code() == Code::kUnauthenticated);
  }
  // Signed with another endpoint's secret.
  CHECK(VerifyAt(e, map(c.headers(c.other_secret, body, ts)), body, kNow).code() == Code::kUnauthenticated);
  // Signed correctly, but too long ago.
  if (c.timestamped) {
    const int64_t old_ts = kNow - c.stale_seconds;
    const std::string old_body = c.body(old_ts, 1);
    Status old = VerifyAt(e, map(c.headers(c.secret, old_body, old_ts)), old_body, kNow);
    CHECK(old.code() == Code::kUnauthenticated);
    CHECK(old.message() == "timestamp outside tolerance");
  }
  // No signature header.
  CHECK(VerifyAt(e, map(headers, c.signature_header), body, kNow).code() == Code::kUnauthenticated);
  // A retry that changes only a volatile field, sent at the same second, is the same payload.
  if (c.has_volatile) {
    const std::string retry = c.body(ts, 2);
    REQUIRE(retry != body);
    const Headers retry_headers = c.headers(c.secret, retry, ts);
    CHECK(VerifyAt(e, map(retry_headers), retry, kNow).ok());
    Result<EventIdentity> r = First(e, map(retry_headers), retry, is_json);
    REQUIRE(r.ok());
    CHECK(r->event_id == id->event_id);
    CHECK(r->payload_hash == id->payload_hash);
  }
}

SentSample CheckSendTestSample(const config::EndpointConfig& e, int64_t now_ms, const std::string& event_type,
                               bool typed) {
  Result<SignedDelivery> d = SignDelivery(e, e.secrets.front(), SampleBody(e, event_type, now_ms), now_ms, "POST",
                                          e.public_url, event_type);
  INFO(d.status().ToString());
  REQUIRE(d.ok());
  INFO(d->body);
  SentSample sent{MapHeaders{}, d->body};
  for (const auto& [name, value] : d->headers) sent.headers.Set(name, value);
  Status ok = Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", sent.headers, sent.body}, now_ms);
  INFO(ok.ToString());
  CHECK(ok.ok());
  const bool is_json = IsJsonMediaType(sent.headers.Get("Content-Type").value_or(""));
  Result<EventIdentity> id = First(e, sent.headers, sent.body, is_json);
  INFO(id.status().ToString());
  REQUIRE(id.ok());
  CHECK_FALSE(id->event_id.empty());
  if (typed) CHECK(id->event_type == event_type);
  return sent;
}

}  // namespace hookinbox::verify::test
