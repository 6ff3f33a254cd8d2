// The shops and international payments presets (presets_shops_payments.cpp),
// end to end: each is loaded through config::LoadString with only provider and
// secret, a delivery shaped like the provider's documented example is signed
// here with OpenSSL's HMAC() (never verify::Hmac), and Verify / Identify
// must accept it with the provider's event id and type, give the same key on a
// resend, and refuse one changed byte, another secret and a stale timestamp
// (CheckPresetCase, preset_case.h).
#include <catch2/catch.hpp>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "common/encoding.h"
#include "config/load.h"
#include "preset_case.h"
#include "support/openssl_hmac.h"
#include "verify/registry.h"
#include "verify/schemes.h"
#include "verify/sign.h"
#include "verify/signature_header.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

namespace {

using testing::OpensslHmac;
std::string Hex(const EVP_MD* md, std::string_view key, std::string_view data) {
  return HexEncode(OpensslHmac(md, key, data));
}

// Hex text to bytes with OpenSSL's own decoder (Squarespace secrets are hex).
std::string HexKey(const std::string& hex) {
  long len = 0;
  unsigned char* buf = OPENSSL_hexstr2buf(hex.c_str(), &len);
  REQUIRE(buf != nullptr);
  std::string out(reinterpret_cast<char*>(buf), static_cast<size_t>(len));
  OPENSSL_free(buf);
  return out;
}

// The raw bytes of standard base64, decoded by OpenSSL (Standard Webhooks keys).
std::string B64Decode(const std::string& b64) {
  std::string out(b64.size(), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(b64.data()), static_cast<int>(b64.size()));
  REQUIRE(n >= 0);
  size_t pad = 0;
  for (size_t i = b64.size(); i > 0 && b64[i - 1] == '='; --i) ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}
std::string B64Encode(std::string_view raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::vector<Case> Cases() {
  std::vector<Case> c;
  // Lemon Squeezy's documented order_created example, shortened.
  c.push_back({"lemon-squeezy", "ls-signing-secret-7Qw2", "another-signing-secret",
               [](int64_t, int) {
                 return std::string(R"({"meta":{"event_name":"order_created","webhook_id":"5e4f5e38"},)"
                                    R"("data":{"type":"orders","id":"1","attributes":{"store_id":1,)"
                                    R"("identifier":"636f855c-1fb9-4c07-b75c-3a10afef010a","status":"paid",)"
                                    R"("total":1199,"updated_at":"2021-08-17T09:45:53.000000Z"}}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Signature", Hex(EVP_sha256(), s, b)}, {"X-Event-Name", "order_created"}};
               },
               "X-Signature", "order_created:orders:1:2021-08-17T09:45:53.000000Z", "order_created"});
  c.push_back({"paystack", "sk_test_4f8d1c2b9a7e6d5c4b3a29180f7e6d5c4b3a2918", "sk_test_0000000000000000000000000000000000000000",
               [](int64_t, int) {
                 return std::string(R"({"event":"charge.success","data":{"id":302961,"domain":"live",)"
                                    R"("status":"success","reference":"qTPrJoy9Bx","amount":10000,"currency":"NGN"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"x-paystack-signature", Hex(EVP_sha512(), s, b)}};
               },
               "x-paystack-signature", "charge.success:302961", "charge.success"});
  c.push_back({"checkout-com", "1f6c2d8e-5b3a-4c9e-8f7d-2a1b0c9d8e7f", "0a0b0c0d-0000-0000-0000-000000000000",
               [](int64_t, int) {
                 return std::string(R"({"id":"evt_az5sblvku4ge3dwpztvyizgcau","type":"payment_approved",)"
                                    R"("version":"1.0.33","created_on":"2026-01-01T00:00:00Z",)"
                                    R"("data":{"id":"pay_mbabizu24mvu3mela5njyhpit4","amount":6540,"currency":"GBP"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"Cko-Signature", Hex(EVP_sha256(), s, b)}};
               },
               "Cko-Signature", "evt_az5sblvku4ge3dwpztvyizgcau", "payment_approved"});
  // The envelope of Coinbase Commerce's documented example: id and
  // attempt_number change per attempt, event.id does not.
  c.push_back({"coinbase-commerce", "8a4b9c3d-2e1f-4a5b-9c8d-7e6f5a4b3c2d", "00000000-0000-0000-0000-000000000000",
               [](int64_t, int attempt) {
                 return R"({"id":)" + std::to_string(attempt) + R"(,"attempt_number":)" + std::to_string(attempt) +
                        R"(,"scheduled_for":"2017-01-31T20:5)" + std::to_string(attempt) +
                        R"(:02Z","event":{"id":"24934862-d980-46cb-9402-43c81b0cdba6","resource":"event",)"
                        R"("type":"charge:created","api_version":"2018-03-22","created_at":"2017-01-31T20:49:02Z",)"
                        R"("data":{"code":"66BEOV2A","pricing_type":"no_price"}}})";
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-CC-Webhook-Signature", Hex(EVP_sha256(), s, b)}};
               },
               "X-CC-Webhook-Signature", "24934862-d980-46cb-9402-43c81b0cdba6", "charge:created", true, false, true});
  // Squarespace's documented secret shape (upper-case hex) and envelope.
  c.push_back({"squarespace", "F3F9B981C78E7A6187E42853F6CE2804177E98206164779423B02DEC981ACD6B",
               "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
               [](int64_t, int) {
                 return std::string(R"({"id":"5c2ba184b63ed3cb411ce2b1","websiteId":"5f3c3d55ac435e1a051f77b3",)"
                                    R"("subscriptionId":"5f3c2155d947844beedda991","topic":"order.create",)"
                                    R"("createdOn":"2020-04-22T22:18+00:00","data":{"orderId":"5f8b3d2e"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"Squarespace-Signature", Hex(EVP_sha256(), HexKey(s), b)}};
               },
               "Squarespace-Signature", "5c2ba184b63ed3cb411ce2b1", "order.create"});
  // Polar: Standard Webhooks headers; the key is the secret's UTF-8 bytes, as
  // Polar's SDK (validateEvent) ends up using it.
  c.push_back({"polar", "polar_whs_9kQ2vX7mL4pR8tY1wE6uI3oA5sD0fGhJ", "polar_whs_0therS3cretF0rAn0therEndp0int1",
               [](int64_t, int) {
                 return std::string(R"({"type":"order.paid","timestamp":"2026-01-01T00:00:00Z",)"
                                    R"("data":{"id":"b3c1a2d4-0e5f-4a6b-8c7d-9e0f1a2b3c4d","status":"paid"}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 const std::string id = "msg_2zXcRk8bP1mNq4sT7vW0yA3dF6g";
                 return {{"webhook-id", id},
                         {"webhook-timestamp", Ts(ts)},
                         {"webhook-signature", "v1," + B64Encode(OpensslHmac(EVP_sha256(), s, id + "." + Ts(ts) + "." + b))}};
               },
               "webhook-signature", "msg_2zXcRk8bP1mNq4sT7vW0yA3dF6g", "order.paid", true, true});
  // Revolut's documented TransactionStateChanged example and secret shape; the timestamp is in ms.
  for (const char* name : {"revolut-business", "revolut"}) {
    c.push_back({name, "wsk_r59a4HfWVAKycbCaNO1RvgCJec02gRd8", "wsk_0therS3cretF0rAn0therWebh00k1",
                 [](int64_t, int) {
                   return std::string(R"({"data":{"id":"645a7696-22f3-aa47-9c74-cbae0449cc46","new_state":"completed",)"
                                      R"("old_state":"pending","request_id":"app_charges-9f5d5eb3-1e06-46c5-b1c0-3914763e0bcb"},)"
                                      R"("event":"TransactionStateChanged","timestamp":"2023-05-09T16:36:38.028960Z"})");
                 },
                 [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                   const std::string ms = Ts(ts * 1000 + 360);
                   return {{"Revolut-Signature", "v1=" + Hex(EVP_sha256(), s, "v1." + ms + "." + b)},
                           {"Revolut-Request-Timestamp", ms}};
                 },
                 "Revolut-Signature",
                 "TransactionStateChanged:645a7696-22f3-aa47-9c74-cbae0449cc46:2023-05-09T16:36:38.028960Z",
                 "TransactionStateChanged", true, true});
  }
  // Chargebee: Basic credentials; the event envelope of its events API.
  c.push_back({"chargebee", "chargebee-hooks:Wd8q2LxP7nV3", "chargebee-hooks:Wd8q2LxP7nV4",
               [](int64_t, int) {
                 return std::string(R"({"id":"ev_16BPgETyVrQbiGhA","occurred_at":1767225590,"source":"admin_console",)"
                                    R"("object":"event","api_version":"v2","event_type":"subscription_created",)"
                                    R"("content":{"subscription":{"id":"16BPgETyVrQVHGh1"}}})");
               },
               [](const std::string& s, const std::string&, int64_t) -> Headers {
                 return {{"Authorization", "Basic " + B64Encode(s)}};
               },
               "Authorization", "ev_16BPgETyVrQbiGhA", "subscription_created", false});
  c.push_back({"flutterwave", "my-flw-secret-hash-5c1e9b", "my-flw-secret-hash-5c1e9c",
               [](int64_t, int) {
                 return std::string(R"({"event":"charge.completed","data":{"id":285959875,"tx_ref":"Links-616626414629",)"
                                    R"("flw_ref":"PeterEkene/FLW270177170","amount":100,"currency":"NGN",)"
                                    R"("status":"successful"},"event.type":"CARD_TRANSACTION"})");
               },
               [](const std::string& s, const std::string&, int64_t) -> Headers { return {{"verif-hash", s}}; },
               "verif-hash", "charge.completed:285959875", "charge.completed", false});
  c.push_back({"xendit", "xnd_cb_token_8f2a9c4e1b7d3f6a0c5e", "xnd_cb_token_8f2a9c4e1b7d3f6a0c5f",
               [](int64_t, int) {
                 return std::string(R"({"event":"payment.capture","business_id":"5f27a14a9bf05c73dd040bc8",)"
                                    R"("created":"2026-01-01T00:00:00.000Z","data":{"payment_id":"py-1402feb0",)"
                                    R"("capture_id":"cptr-9b2c","status":"SUCCEEDED","request_amount":10000}})");
               },
               [](const std::string& s, const std::string&, int64_t) -> Headers { return {{"x-callback-token", s}}; },
               "x-callback-token", "", "payment.capture", false});
  // Ecwid's documented body shape; the signature covers eventCreated.eventId only.
  c.push_back({"ecwid", "abcde123456789", "abcde123456780",
               [](int64_t ts, int) {
                 return R"({"eventId":"80aece08-40e8-4145-8764-6c2f0d38678","eventCreated":)" + Ts(ts) +
                        R"(,"storeId":1003,"entityId":91263,"eventType":"order.updated",)"
                        R"("data":{"orderId":"XJ12H","newPaymentStatus":"PAID"}})";
               },
               [](const std::string& s, const std::string&, int64_t ts) -> Headers {
                 return {{"X-Ecwid-Webhook-Signature",
                          B64Encode(OpensslHmac(EVP_sha256(), s, Ts(ts) + ".80aece08-40e8-4145-8764-6c2f0d38678"))}};
               },
               "X-Ecwid-Webhook-Signature", "80aece08-40e8-4145-8764-6c2f0d38678", "order.updated", false, true});
  c.back().stale_seconds = 30 * 3600;
  c.back().resend_after = 0;
  // BigCommerce's documented light payload; the token is the webhook's custom header.
  c.push_back({"bigcommerce", "bc-custom-header-value-Qm3r8T", "bc-custom-header-value-Qm3r8U",
               [](int64_t, int) {
                 return std::string(R"({"store_id":"11111","producer":"stores/abcde","scope":"store/order/statusUpdated",)"
                                    R"("data":{"type":"order","id":173331},"hash":"3f9ea420af83450d7ef9f78b08c8af25b2213637"})");
               },
               [](const std::string& s, const std::string&, int64_t) -> Headers { return {{"X-Webhook-Token", s}}; },
               "X-Webhook-Token", "store/order/statusUpdated:3f9ea420af83450d7ef9f78b08c8af25b2213637",
               "store/order/statusUpdated", false});
  // Recurly: the timestamp (ms) first, then the signatures.
  c.push_back({"recurly", "4a7e1f0c9b2d4e6f8a1c3b5d7e9f0a2c", "4a7e1f0c9b2d4e6f8a1c3b5d7e9f0a2d",
               [](int64_t, int) {
                 return std::string(R"({"id":"rmcmojfmd1ci","object_type":"subscription","site_id":"rfldb1lcg6bi",)"
                                    R"("event_type":"renewed","event_time":"2026-01-01T00:00:00Z",)"
                                    R"("uuid":"5f1a0b3c2d4e6f708192a3b4c5d6e7f8","account_code":"acct-1"})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 const std::string ms = Ts(ts * 1000 + 123);
                 return {{"recurly-signature", ms + "," + Hex(EVP_sha256(), s, ms + "." + b)}};
               },
               "recurly-signature", "rmcmojfmd1ci", "renewed", true, true});
  return c;
}

}  // namespace

TEST_CASE("shops/payments presets: a signed delivery is accepted, identified, and repeats its key; tampering is refused",
          "[presets][shops_payments]") {
  for (const Case& c : Cases()) {
    SECTION("preset " + c.provider) { CheckPresetCase(c); }
  }
}

TEST_CASE("shops/payments presets: send-test signs a delivery each preset accepts", "[presets][shops_payments]") {
  for (const Case& c : Cases()) {
    SECTION("preset " + c.provider) {
      CheckSendTestSample(LoadEndpoint(c.provider, c.secret, c.extra_toml), kNow * 1000, "test.event", false);
    }
  }
}

TEST_CASE("gocardless: a batch of events verifies once and splits into one row per event", "[presets][shops_payments]") {
  const std::string secret = "gc-webhook-endpoint-secret-Jt7s9Qe2";
  config::LoadResult loaded = LoadPreset("gocardless", secret);
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  // The shape of GoCardless's documented request body, with two events.
  const std::string body =
      R"({"events":[{"id":"EV01J7QRF0KJWR","created_at":"2024-03-22T17:05:25.054Z","resource_type":"mandates",)"
      R"("action":"active","metadata":{},"details":{"origin":"gocardless","cause":"mandate_activated"},)"
      R"("links":{"mandate":"MD000ZQT5CPCVV"}},{"id":"EV01J7QRF0KJWS","created_at":"2024-03-22T17:05:26.000Z",)"
      R"("resource_type":"payments","action":"confirmed","metadata":{},"details":{"origin":"gocardless"},)"
      R"("links":{"payment":"PM0000ABCDEF"}}],"meta":{"webhook_id":"WB002KK5HPCPWD"}})";
  const Headers headers = {{"Webhook-Signature", Hex(EVP_sha256(), secret, body)}};
  CHECK(VerifyAt(e, ToMap(headers), body, kNow).ok());
  Result<std::vector<BatchEvent>> events = IdentifyBatch(e, ToMap(headers), body);
  INFO(events.status().ToString());
  REQUIRE(events.ok());
  REQUIRE(events->size() == 2);
  CHECK((*events)[0].identity.event_id == "EV01J7QRF0KJWR");
  CHECK((*events)[0].identity.event_type == "active");
  CHECK((*events)[1].identity.event_id == "EV01J7QRF0KJWS");
  CHECK((*events)[1].identity.event_type == "confirmed");
  // Resent (GoCardless retries the whole webhook): the same keys.
  Result<std::vector<BatchEvent>> again = IdentifyBatch(e, ToMap(headers), body);
  REQUIRE(again.ok());
  CHECK((*again)[1].identity.event_id == (*events)[1].identity.event_id);
  CHECK((*again)[1].identity.payload_hash == (*events)[1].identity.payload_hash);

  std::string tampered = body;
  tampered[body.find("confirmed")] = 'C';
  CHECK(VerifyAt(e, ToMap(headers), tampered, kNow).code() == Code::kUnauthenticated);
  CHECK(VerifyAt(e, ToMap({{"Webhook-Signature", Hex(EVP_sha256(), "another-secret", body)}}), body, kNow).code() ==
        Code::kUnauthenticated);
  CHECK(VerifyAt(e, ToMap({}), body, kNow).code() == Code::kUnauthenticated);
  // An event without an id fails the whole batch (taken whole or not at all).
  const std::string no_id = R"({"events":[{"resource_type":"payments","action":"confirmed"}]})";
  CHECK(IdentifyBatch(e, ToMap({}), no_id).status().code() == Code::kInvalidArgument);
}

TEST_CASE("revolut-business: while a rotated secret is valid, either of the v1 parts verifies",
          "[presets][shops_payments]") {
  const std::string old_secret = "wsk_r59a4HfWVAKycbCaNO1RvgCJec02gRd8";
  const std::string new_secret = "wsk_N3wS3cretAfterR0tati0nXy7Q2pL9";
  config::LoadResult loaded = LoadPreset("revolut-business", new_secret);
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string body = R"({"event":"TransactionCreated","timestamp":"2023-01-26T16:22:21.753463Z",)"
                           R"("data":{"id":"63d2a8bd-8b67-a2de-b1d2-b58ee21d7073","type":"transfer"}})";
  const std::string ms = Ts(kNow * 1000);
  const std::string signed_bytes = "v1." + ms + "." + body;
  const std::string both = "v1=" + Hex(EVP_sha256(), old_secret, signed_bytes) + ",v1=" +
                           Hex(EVP_sha256(), new_secret, signed_bytes);
  CHECK(VerifyAt(e, ToMap({{"Revolut-Signature", both}, {"Revolut-Request-Timestamp", ms}}), body, kNow).ok());
  // Only the old secret's part: refused by an endpoint that holds only the new one.
  const std::string only_old = "v1=" + Hex(EVP_sha256(), old_secret, signed_bytes);
  CHECK(VerifyAt(e, ToMap({{"Revolut-Signature", only_old}, {"Revolut-Request-Timestamp", ms}}), body, kNow).code() ==
        Code::kUnauthenticated);
  // No timestamp header: refused, not checked without its window.
  CHECK(VerifyAt(e, ToMap({{"Revolut-Signature", both}}), body, kNow).code() == Code::kUnauthenticated);
}

TEST_CASE("polar: a whsec_ secret is used as its bytes unless the Standard Webhooks decoding is asked for",
          "[presets][shops_payments]") {
  const std::string secret = "whsec_cG9sYXItc2lnbmluZy1rZXktMDEyMzQ1Njc4OQ==";
  const std::string body = R"({"type":"subscription.active","data":{"id":"sub_1"}})";
  const std::string id = "msg_whsec_1";
  const std::string ts = Ts(kNow);
  const std::string signed_bytes = id + "." + ts + "." + body;
  auto headers = [&](const std::string& key) {
    return ToMap({{"webhook-id", id},
                  {"webhook-timestamp", ts},
                  {"webhook-signature", "v1," + B64Encode(OpensslHmac(EVP_sha256(), key, signed_bytes))}});
  };
  // The preset as it stands: the whole text, "whsec_" included, is the key (as validateEvent does).
  config::LoadResult sdk = LoadPreset("polar", secret);
  REQUIRE(sdk.ok());
  CHECK(VerifyAt(sdk.config.endpoints.at(0), headers(secret), body, kNow).ok());
  CHECK(VerifyAt(sdk.config.endpoints.at(0), headers(B64Decode(secret.substr(6))), body, kNow).code() ==
        Code::kUnauthenticated);
  // With the Standard Webhooks decoding configured: the base64 after "whsec_" is the key.
  config::LoadResult standard =
      LoadPreset("polar", secret, "[endpoint.signature]\nsecret_encoding = \"base64\"\nsecret_prefix = \"whsec_\"\n");
  INFO(Dump(standard));
  REQUIRE(standard.ok());
  CHECK(VerifyAt(standard.config.endpoints.at(0), headers(B64Decode(secret.substr(6))), body, kNow).ok());
  CHECK(VerifyAt(standard.config.endpoints.at(0), headers(secret), body, kNow).code() == Code::kUnauthenticated);
}

TEST_CASE("ecwid: only eventCreated.eventId is signed; an altered body keeps the signed event's key",
          "[presets][shops_payments]") {
  const std::string secret = "abcde123456789";
  config::LoadResult loaded = LoadPreset("ecwid", secret);
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string created = Ts(kNow - 7200);  // a retry two hours after the event: still inside the window
  auto body = [&](const std::string& event_id, const std::string& status) {
    return R"({"eventId":")" + event_id + R"(","eventCreated":)" + created +
           R"(,"storeId":1003,"entityId":91263,"eventType":"order.updated","data":{"newPaymentStatus":")" + status +
           R"("}})";
  };
  const std::string id = "5f1c2a7e-0b3d-4c8e-9a6f-1d2e3f4a5b6c";
  const Headers h = {{"X-Ecwid-Webhook-Signature", B64Encode(OpensslHmac(EVP_sha256(), secret, created + "." + id))}};
  const std::string original = body(id, "PAID");
  CHECK(VerifyAt(e, ToMap(h), original, kNow).ok());
  // Another eventId under the same signature: refused.
  CHECK(VerifyAt(e, ToMap(h), body("5f1c2a7e-0b3d-4c8e-9a6f-1d2e3f4a5b6d", "PAID"), kNow).code() ==
        Code::kUnauthenticated);
  // The data is not signed: an altered body verifies, but keeps the event's key
  // (a duplicate of it, never a new event) with another payload hash.
  const std::string altered = body(id, "REFUNDED");
  CHECK(VerifyAt(e, ToMap(h), altered, kNow).ok());
  Result<EventIdentity> a = Identify(e, ToMap(h), original, true);
  Result<EventIdentity> b = Identify(e, ToMap(h), altered, true);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->event_id == b->event_id);
  CHECK(a->payload_hash != b->payload_hash);
  // Keyed on anything but the signed eventId, a body-less signature is refused by config validation.
  config::LoadResult rekeyed = LoadPreset("ecwid", secret, "[endpoint.key]\nid_pointer = \"/entityId\"\n");
  REQUIRE_FALSE(rekeyed.ok());
  CHECK_THAT(Dump(rekeyed), Catch::Contains("signed_payload: must contain {body}"));
  // eventCreated missing: the signed timestamp is required.
  CHECK(VerifyAt(e, ToMap(h), R"({"eventId":")" + id + R"(","eventType":"order.updated"})", kNow).code() ==
        Code::kUnauthenticated);
}

TEST_CASE("recurly: either signature after the timestamp verifies; anything but that layout is refused",
          "[presets][shops_payments]") {
  const std::string old_secret = "4a7e1f0c9b2d4e6f8a1c3b5d7e9f0a2c";
  const std::string new_secret = "9c0d2e4f6a8b1c3d5e7f9a0b2c4d6e8f";
  config::LoadResult loaded = LoadPreset("recurly", new_secret);
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string body = R"({"id":"rmcmojfmd1cj","object_type":"account","event_type":"created"})";
  const std::string ms = Ts(kNow * 1000);
  const std::string old_sig = Hex(EVP_sha256(), old_secret, ms + "." + body);
  const std::string new_sig = Hex(EVP_sha256(), new_secret, ms + "." + body);
  auto check = [&](const std::string& header) { return VerifyAt(e, ToMap({{"recurly-signature", header}}), body, kNow); };
  CHECK(check(ms + "," + old_sig + "," + new_sig).ok());  // the 24 h after a regeneration
  CHECK(check(ms + "," + new_sig).ok());
  CHECK(check(ms + "," + old_sig).code() == Code::kUnauthenticated);
  CHECK(check(new_sig).code() == Code::kUnauthenticated);              // no timestamp
  CHECK(check(new_sig + "," + ms).code() == Code::kUnauthenticated);   // swapped
  CHECK(check(ms + ",").code() == Code::kUnauthenticated);             // no signature
  CHECK(check("t=" + ms + ",v1=" + new_sig).code() == Code::kUnauthenticated);
  // A timestamp in seconds, read as milliseconds, is in January 1970: the unit matters.
  CHECK(check(Ts(kNow) + "," + Hex(EVP_sha256(), new_secret, Ts(kNow) + "." + body)).message() ==
        "timestamp outside tolerance");
  Result<SignatureFormat> f = ParseSignatureFormat("{timestamp},{signature}");
  REQUIRE(f.ok());
  CHECK(f->kind == SignatureFormat::Kind::kPositional);
  CHECK_FALSE(ParseSignatureFormat("{signature},{timestamp}").ok());
}

namespace {

// One Adyen NotificationRequestItem (the shape of Adyen's documented
// AUTHORISATION example), signed here: base64 HMAC-SHA256, keyed with the
// hex-decoded HMAC key, of pspReference:originalReference:merchantAccountCode:
// merchantReference:value:currency:eventCode:success.
std::string AdyenItem(const std::string& hex_key, const std::string& psp, const std::string& success,
                      const std::string& override_sig = "") {
  const std::string signed_string = psp + "::YOUR_MERCHANT_ACCOUNT:YOUR_REFERENCE:1000:EUR:AUTHORISATION:" + success;
  const std::string sig =
      override_sig.empty() ? B64Encode(OpensslHmac(EVP_sha256(), HexKey(hex_key), signed_string)) : override_sig;
  return R"({"NotificationRequestItem":{"additionalData":{"hmacSignature":")" + sig +
         R"("},"amount":{"currency":"EUR","value":1000},"eventCode":"AUTHORISATION",)"
         R"("eventDate":"2026-01-01T01:00:00+01:00","merchantAccountCode":"YOUR_MERCHANT_ACCOUNT",)"
         R"("merchantReference":"YOUR_REFERENCE","pspReference":")" +
         psp + R"(","reason":"","success":")" + success + R"("}})";
}

std::string AdyenBody(const std::vector<std::string>& items) {
  std::string out = R"({"live":"false","notificationItems":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]}";
}

}  // namespace

TEST_CASE("adyen: every notification item carries its own HMAC; all must verify", "[presets][shops_payments]") {
  const std::string key = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";
  const std::string other = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";
  config::LoadResult loaded = LoadPreset("adyen", key);
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  REQUIRE(CheckEndpoint(e).ok());
  const std::string body =
      AdyenBody({AdyenItem(key, "7914073381342284", "true"), AdyenItem(key, "8815329842815468", "false")});
  CHECK(VerifyAt(e, ToMap({}), body, kNow).ok());
  Result<std::vector<BatchEvent>> events = IdentifyBatch(e, ToMap({}), body);
  INFO(events.status().ToString());
  REQUIRE(events.ok());
  REQUIRE(events->size() == 2);
  CHECK((*events)[0].identity.event_id == "7914073381342284:AUTHORISATION:true");
  CHECK((*events)[0].identity.event_type == "AUTHORISATION");
  CHECK((*events)[1].identity.event_id == "8815329842815468:AUTHORISATION:false");
  // Sent again unchanged (Adyen's retry): the same keys and payloads.
  Result<std::vector<BatchEvent>> again = IdentifyBatch(e, ToMap({}), body);
  REQUIRE(again.ok());
  CHECK((*again)[0].identity.payload_hash == (*events)[0].identity.payload_hash);

  // One item signed with another key, or with its signature missing: the whole request is refused.
  CHECK(VerifyAt(e, ToMap({}), AdyenBody({AdyenItem(key, "1", "true"), AdyenItem(other, "2", "true")}), kNow).code() ==
        Code::kUnauthenticated);
  CHECK(VerifyAt(e, ToMap({}), AdyenBody({AdyenItem(other, "1", "true")}), kNow).code() == Code::kUnauthenticated);
  std::string unsigned_item = AdyenItem(key, "3", "true");
  unsigned_item.replace(unsigned_item.find("hmacSignature"), 13, "somethingElse");
  CHECK(VerifyAt(e, ToMap({}), AdyenBody({unsigned_item}), kNow).code() == Code::kUnauthenticated);
  // A signed field changed (the amount): refused.
  std::string changed = AdyenBody({AdyenItem(key, "4", "true")});
  changed.replace(changed.find("\"value\":1000"), 12, "\"value\":9000");
  CHECK(VerifyAt(e, ToMap({}), changed, kNow).code() == Code::kUnauthenticated);
  // Not a notification body at all.
  CHECK(VerifyAt(e, ToMap({}), R"({"notificationItems":[]})", kNow).code() == Code::kUnauthenticated);
  CHECK(VerifyAt(e, ToMap({}), "not json", kNow).code() == Code::kUnauthenticated);
  CHECK(VerifyAt(e, ToMap({}), AdyenBody({AdyenItem(key, "5", "true", "not*base64")}), kNow).code() ==
        Code::kUnauthenticated);

  // The HMAC key must be hex: anything else is a config error, before serving.
  config::LoadResult bad = LoadPreset("adyen", "not-a-hex-key");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(Dump(bad), Catch::Contains("secret_encoding"));

  // send-test signs every item the same way.
  Result<SignedDelivery> d =
      SignDelivery(e, e.secrets.at(0), SampleBody(e, "AUTHORISATION", kNow * 1000), kNow * 1000, "POST", "",
                   "AUTHORISATION");
  INFO(d.status().ToString());
  REQUIRE(d.ok());
  MapHeaders h;
  for (const auto& [name, value] : d->headers) h.Set(name, value);
  CHECK(VerifyAt(e, h, d->body, kNow).ok());
  CHECK(IdentifyBatch(e, h, d->body).ok());
}

TEST_CASE("adyen: Adyen's published HMAC example verifies; one changed amount does not", "[presets][shops_payments]") {
  // Adyen's worked example (verify-hmac-signatures; also the fixture of Adyen's
  // own Ruby and Go libraries): this key signs the item below to
  // coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0= over
  // "7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true".
  config::LoadResult loaded = LoadPreset("adyen", "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056");
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string body =
      R"({"live":"false","notificationItems":[{"NotificationRequestItem":{"additionalData":)"
      R"({"hmacSignature":"coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0="},"amount":{"value":1130,"currency":"EUR"},)"
      R"("pspReference":"7914073381342284","eventCode":"AUTHORISATION","eventDate":"2019-05-06T17:15:34.121+02:00",)"
      R"("merchantAccountCode":"TestMerchant","operations":["CANCEL","CAPTURE","REFUND"],)"
      R"("merchantReference":"TestPayment-1407325143704","paymentMethod":"visa","success":"true"}}]})";
  CHECK(VerifyAt(e, ToMap({}), body, kNow).ok());
  std::string changed = body;
  changed.replace(changed.find("1130"), 4, "1131");
  CHECK(VerifyAt(e, ToMap({}), changed, kNow).code() == Code::kUnauthenticated);
  nlohmann::json item = nlohmann::json::parse(body)["notificationItems"][0]["NotificationRequestItem"];
  CHECK(AdyenSignedString(item) == "7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true");
}

TEST_CASE("gumroad: unsigned form posts need insecure = true; keyed on the fields' canonical hash",
          "[presets][shops_payments]") {
  config::LoadResult refused = LoadPreset("gumroad", "unused");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.errors.at(0).key == "endpoint[0].signature.scheme");
  CHECK_THAT(refused.errors.at(0).message, Catch::Contains("insecure = true"));

  config::LoadResult loaded = LoadPreset("gumroad", "unused", "insecure = true\n");
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  CHECK(e.content_types == std::vector<std::string>{"application/x-www-form-urlencoded"});
  // Fields of Gumroad's documented ping; a refund repeats the sale's sale_id.
  const std::string sale = "seller_id=AbC123%3D%3D&product_id=Xy9%3D%3D&product_permalink=ebook&"
                           "sale_id=FO8TXN-dvyAs9p2bA%3D%3D&sale_timestamp=2026-01-01T00%3A00%3A00Z&"
                           "email=buyer%40example.com&price=500&resource_name=sale";
  const std::string refund = "seller_id=AbC123%3D%3D&product_id=Xy9%3D%3D&product_permalink=ebook&"
                             "sale_id=FO8TXN-dvyAs9p2bA%3D%3D&sale_timestamp=2026-01-01T00%3A00%3A00Z&"
                             "email=buyer%40example.com&price=500&refunded=true&resource_name=refund";
  MapHeaders h;
  h.Set("Content-Type", "application/x-www-form-urlencoded");
  CHECK(VerifyAt(e, h, sale, kNow).ok());
  Result<EventIdentity> s1 = Identify(e, h, sale, false);
  Result<EventIdentity> s2 = Identify(e, h, sale, false);  // the hourly retry
  Result<EventIdentity> r = Identify(e, h, refund, false);
  REQUIRE(s1.ok());
  REQUIRE(s2.ok());
  REQUIRE(r.ok());
  CHECK(s1->event_id == s2->event_id);
  CHECK(s1->event_id != r->event_id);
  CHECK(s1->event_type == "sale");
  CHECK(r->event_type == "refund");
}

namespace {

using PkeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

PkeyPtr RsaKey(unsigned bits) { return PkeyPtr(EVP_RSA_gen(bits), EVP_PKEY_free); }

std::string PemOf(EVP_PKEY* key, bool private_key) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  REQUIRE((private_key ? PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
                       : PEM_write_bio_PUBKEY(bio.get(), key)) == 1);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

std::string SpkiDerBase64(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int len = i2d_PUBKEY(key, &der);
  REQUIRE(len > 0);
  std::string out = B64Encode(std::string_view(reinterpret_cast<char*>(der), static_cast<size_t>(len)));
  OPENSSL_free(der);
  return out;
}

// A PKCS#1 v1.5 SHA-256 signature straight from OpenSSL, base64 (as Wise sends it).
std::string RsaSign(EVP_PKEY* key, const std::string& data) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t len = 0;
  REQUIRE(EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) == 1);
  REQUIRE(EVP_DigestSign(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(data.data()), data.size()) ==
          1);
  std::string sig(len, '\0');
  REQUIRE(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                         reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1);
  sig.resize(len);
  return B64Encode(sig);
}

constexpr const char* kWiseKeyVar = "HOOKINBOX_VT_WISE_PUBLIC_KEY";

config::LoadResult LoadWise(const std::string& key_text) {
  ::setenv(kWiseKeyVar, key_text.c_str(), 1);
  const std::string toml = std::string("[[endpoint]]\nname = \"hooks\"\nprovider = \"wise\"\npublic_key_env = \"") +
                           kWiseKeyVar + "\"\n";
  return config::LoadString(toml, "test.toml", "/tmp", &Presets());
}

// Wise's documented schema-v2 transfer state change; `sent_at` changes per attempt.
std::string WiseBody(const std::string& sent_at) {
  return R"({"data":{"resource":{"type":"transfer","id":111,"profile_id":222,"account_id":333},)"
         R"("current_state":"processing","previous_state":"incoming_payment_waiting",)"
         R"("occurred_at":"2026-01-01T12:34:56Z"},"subscription_id":"01234567-89ab-cdef-0123-456789abcdef",)"
         R"("event_type":"transfers#state-change","schema_version":"2.0.0","sent_at":")" +
         sent_at + R"("})";
}

}  // namespace

TEST_CASE("wise: an RSA-SHA256 signature of the body verifies under Wise's public key", "[presets][shops_payments]") {
  PkeyPtr wise = RsaKey(2048);
  PkeyPtr other = RsaKey(2048);
  REQUIRE(wise);
  REQUIRE(other);
  for (const std::string& key_text : {PemOf(wise.get(), false), SpkiDerBase64(wise.get())}) {
    config::LoadResult loaded = LoadWise(key_text);
    INFO(Dump(loaded));
    REQUIRE(loaded.ok());
    const config::EndpointConfig& e = loaded.config.endpoints.at(0);
    REQUIRE(CheckEndpoint(e).ok());
    const std::string body = WiseBody("2026-01-01T12:34:57Z");
    auto headers = [](const std::string& sig) {
      return Headers{{"X-Signature-SHA256", sig}, {"X-Delivery-Id", "2f2a8b24-5d3a-4b8e-9a0b-3c1f2e4d5a6b"}};
    };
    CHECK(VerifyAt(e, ToMap(headers(RsaSign(wise.get(), body))), body, kNow).ok());
    Result<EventIdentity> id = Identify(e, ToMap(headers(RsaSign(wise.get(), body))), body, true);
    REQUIRE(id.ok());
    CHECK(id->event_id == "transfers#state-change:111:2026-01-01T12:34:56Z");
    CHECK(id->event_type == "transfers#state-change");
    // A redelivery an hour later: new sent_at, same key and payload hash.
    const std::string retry = WiseBody("2026-01-01T13:34:57Z");
    CHECK(VerifyAt(e, ToMap(headers(RsaSign(wise.get(), retry))), retry, kNow).ok());
    Result<EventIdentity> again = Identify(e, ToMap(headers(RsaSign(wise.get(), retry))), retry, true);
    REQUIRE(again.ok());
    CHECK(again->event_id == id->event_id);
    CHECK(again->payload_hash == id->payload_hash);
    // One changed byte, another key, no signature: refused.
    std::string tampered = body;
    tampered[body.find("processing")] = 'P';
    CHECK(VerifyAt(e, ToMap(headers(RsaSign(wise.get(), body))), tampered, kNow).code() == Code::kUnauthenticated);
    CHECK(VerifyAt(e, ToMap(headers(RsaSign(other.get(), body))), body, kNow).code() == Code::kUnauthenticated);
    CHECK(VerifyAt(e, ToMap({}), body, kNow).code() == Code::kUnauthenticated);
    // send-test signs with the matching private key (--private-key).
    Result<SignedDelivery> d = SignDelivery(e, Secret(PemOf(wise.get(), true)), SampleBody(e, "test.event", kNow * 1000),
                                            kNow * 1000, "POST", "", "test.event");
    INFO(d.status().ToString());
    REQUIRE(d.ok());
    MapHeaders h;
    for (const auto& [name, value] : d->headers) h.Set(name, value);
    CHECK(VerifyAt(e, h, d->body, kNow).ok());
  }
}

TEST_CASE("wise: keys that are not a usable RSA public key are refused before serving", "[presets][shops_payments]") {
  // A 1024-bit key parses but is too short to trust.
  PkeyPtr short_key = RsaKey(1024);
  REQUIRE(short_key);
  config::LoadResult loaded = LoadWise(PemOf(short_key.get(), false));
  REQUIRE(loaded.ok());
  Status st = CheckEndpoint(loaded.config.endpoints.at(0));
  CHECK(st.code() == Code::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::Contains("fewer than 2048 bits"));
  // An Ed25519 key where an RSA key belongs.
  PkeyPtr ed(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"), EVP_PKEY_free);
  REQUIRE(ed);
  config::LoadResult wrong_kind = LoadWise(PemOf(ed.get(), false));
  REQUIRE(wrong_kind.ok());
  CHECK_THAT(CheckEndpoint(wrong_kind.config.endpoints.at(0)).message(), Catch::Contains("not an RSA key"));
  // A private key pasted by mistake is refused at load, without echoing it.
  PkeyPtr rsa = RsaKey(2048);
  const std::string private_pem = PemOf(rsa.get(), true);
  config::LoadResult priv = LoadWise(private_pem);
  REQUIRE_FALSE(priv.ok());
  CHECK_THAT(Dump(priv), Catch::Contains("PRIVATE key"));
  CHECK(Dump(priv).find(private_pem.substr(40, 40)) == std::string::npos);
  // Text that is neither PEM nor base64.
  CHECK_FALSE(LoadWise("not a key at all!").ok());
}

TEST_CASE("shops/payments presets: redelivery windows and secret hints are the rows' own", "[presets][shops_payments]") {
  CHECK(FindPreset("checkout-com")->redelivery_window_hours == 30);
  CHECK(FindPreset("coinbase-commerce")->redelivery_window_hours == 72);
  CHECK(FindPreset("paystack")->redelivery_window_hours == 73);
  CHECK(FindPreset("chargebee")->redelivery_window_hours == 80);
  CHECK(FindPreset("revolut")->redelivery_window_hours == 1);  // an alias shares its row
  CHECK(FindPreset("lemon-squeezy")->redelivery_window_hours == 0);  // seconds to minutes only
  CHECK(FindPreset("gocardless")->redelivery_window_hours == 0);     // total not documented
  CHECK(FindPreset("ecwid")->redelivery_window_hours == 24);
  CHECK(FindPreset("gumroad")->redelivery_window_hours == 3);
  CHECK(FindPreset("wise")->redelivery_window_hours == 336);
  for (const char* name : {"lemon-squeezy", "paystack", "checkout-com", "gocardless", "coinbase-commerce", "squarespace",
                           "polar", "revolut-business", "chargebee", "flutterwave", "xendit", "ecwid", "bigcommerce",
                           "gumroad", "wise", "recurly", "adyen"}) {
    INFO(name);
    CHECK_FALSE(PresetSecretHint(name).empty());
  }
}
