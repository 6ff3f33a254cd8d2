// Wave 2 group "ua" (verify/presets_ua.cpp): monobank, LiqPay and Fondy,
// each loaded through config::LoadString with only the provider and the
// secret (or monobank's public key). Deliveries are the providers' documented
// examples where one exists (cited on each test, from
// /work/shared/providers-wave2.md) or are signed here independently with
// OpenSSL (EVP digests and EVP_DigestSign; never src/verify).
#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "support/openssl_hmac.h"
#include "verify/crypto.h"
#include "verify/public_key.h"
#include "verify/sign.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;
using hookinbox::testing::OpensslHmac;

namespace {

constexpr int64_t kNowMs = 1767225600000;  // 2026-01-01T00:00:00Z

bool Refused(const Status& s) { return s.code() == Code::kUnauthenticated; }

Status VerifyBody(const config::EndpointConfig& e, const MapHeaders& h, const std::string& body) {
  return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, body}, kNowMs);
}

// --- monobank ---------------------------------------------------------------

constexpr const char* kMonoKeyVar = "HOOKINBOX_VT_UA_MONO_KEY";

config::EndpointConfig LoadMonobank(const std::string& key_text) {
  ::setenv(kMonoKeyVar, key_text.c_str(), 1);
  const std::string toml = std::string("[[endpoint]]\nname = \"hooks\"\nprovider = \"monobank\"\npublic_key_env = \"") +
                           kMonoKeyVar + "\"\n";
  config::LoadResult r = config::LoadString(toml, "test.toml", "/tmp", &Presets());
  INFO(Dump(r));
  REQUIRE(r.ok());
  REQUIRE(CheckEndpoint(r.config.endpoints[0]).ok());
  return r.config.endpoints[0];
}

MapHeaders MonoHeaders(const std::string& sign) {
  MapHeaders h;
  h.Set("Content-Type", "application/json");
  if (!sign.empty()) h.Set("X-Sign", sign);
  return h;
}

// monobank's documented example ("Приклади верифікації підпису webhook",
// https://monobank.ua/api-docs/acquiring/instrumenty-rozrobky/webhooks/pryklady-veryfikatsii-pidpysu-webhook):
// the key as GET /api/merchant/pubkey returns it (base64 of a PEM), the
// X-Sign, and the pretty-printed body it signs (✔✔ in providers-wave2.md).
const std::string kMonoDocKey =
    "LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFQUc1LzZ3NnZubGJZb0ZmRHlYWE4vS29C"
    "bVVjTgo3NWJSUWg4MFBhaEdldnJoanFCQnI3OXNSS0JSbnpHODFUZVQ5OEFOakU1c0R3RmZ5Znhub0ZJcmZBPT0KLS0tLS1FTkQgUFVCTElDIEtFWS0t"
    "LS0tCg==";
const std::string kMonoDocSign =
    "MEUCIQC/mVKhi8FKoayul2Mim3E2oaIOCNJk5dEXxTqbkeJSOQIgOM0hsW0qcP2H8iXy1aQYpmY0SJWEaWur7nQXlKDCFxA=";
const std::string kMonoDocBody =
    "{\n"
    "  \"invoiceId\": \"p2_9ZgpZVsl3\",\n"
    "  \"status\": \"created\",\n"
    "  \"failureReason\": \"string\",\n"
    "  \"amount\": 4200,\n"
    "  \"ccy\": 980,\n"
    "  \"finalAmount\": 4200,\n"
    "  \"createdDate\": \"2019-08-24T14:15:22Z\",\n"
    "  \"modifiedDate\": \"2019-08-24T14:15:22Z\",\n"
    "  \"reference\": \"84d0070ee4e44667b31371d8f8813947\",\n"
    "  \"cancelList\": [\n"
    "    {\n"
    "      \"status\": \"processing\",\n"
    "      \"amount\": 4200,\n"
    "      \"ccy\": 980,\n"
    "      \"createdDate\": \"2019-08-24T14:15:22Z\",\n"
    "      \"modifiedDate\": \"2019-08-24T14:15:22Z\",\n"
    "      \"approvalCode\": \"662476\",\n"
    "      \"rrn\": \"060189181768\",\n"
    "      \"extRef\": \"635ace02599849e981b2cd7a65f417fe\"\n"
    "    }\n"
    "  ]\n"
    "}";

using Key = std::shared_ptr<EVP_PKEY>;

Key NewP256() {
  EVP_PKEY* k = EVP_EC_gen("P-256");
  REQUIRE(k != nullptr);
  return Key(k, EVP_PKEY_free);
}

// The key as monobank's API gives it: base64 of the PEM "PUBLIC KEY" block.
std::string MonoKeyText(const Key& k) {
  BIO* bio = BIO_new(BIO_s_mem());
  REQUIRE(PEM_write_bio_PUBKEY(bio, k.get()) == 1);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(bio);
  return Base64Encode(pem);
}

// X-Sign as the bank makes it: base64 of the DER ECDSA signature, SHA-256 over the body.
std::string MonoSign(const Key& k, const std::string& body) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  const auto* bytes = reinterpret_cast<const unsigned char*>(body.data());
  size_t len = 0;
  REQUIRE(EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, k.get()) == 1);
  REQUIRE(EVP_DigestSign(ctx.get(), nullptr, &len, bytes, body.size()) == 1);
  std::string sig(len, '\0');
  REQUIRE(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, bytes, body.size()) == 1);
  sig.resize(len);
  return Base64Encode(sig);
}

TEST_CASE("monobank: the documented webhook verifies with the key as the API returns it", "[presets][ua]") {
  const config::EndpointConfig e = LoadMonobank(kMonoDocKey);
  Status ok = VerifyBody(e, MonoHeaders(kMonoDocSign), kMonoDocBody);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = Identify(e, MonoHeaders(kMonoDocSign), kMonoDocBody, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "p2_9ZgpZVsl3:created:2019-08-24T14:15:22Z");
  CHECK(id->event_type == "created");
  // The bank signs the bytes it sent: the compact form of the same JSON is refused.
  const std::string compact = nlohmann::json::parse(kMonoDocBody).dump();
  CHECK(Refused(VerifyBody(e, MonoHeaders(kMonoDocSign), compact)));
}

TEST_CASE("monobank: an OpenSSL-signed status change, duplicate, tampering, another key", "[presets][ua]") {
  const Key bank = NewP256();
  const Key other = NewP256();
  const config::EndpointConfig e = LoadMonobank(MonoKeyText(bank));
  const std::string body =
      R"({"invoiceId":"2210012MPLYwJjVUTM4R","status":"success","amount":4200,"ccy":980,"finalAmount":4200,)"
      R"("createdDate":"2026-01-01T00:00:00Z","modifiedDate":"2026-01-01T00:00:05Z","reference":"order-17"})";
  const std::string sign = MonoSign(bank, body);
  CHECK(VerifyBody(e, MonoHeaders(sign), body).ok());
  Result<EventIdentity> first = Identify(e, MonoHeaders(sign), body, true);
  REQUIRE(first.ok());
  CHECK(first->event_id == "2210012MPLYwJjVUTM4R:success:2026-01-01T00:00:05Z");
  CHECK(first->event_type == "success");
  // A retry is the same signed body (ECDSA signatures differ each time): the same key.
  const std::string resign = MonoSign(bank, body);
  CHECK(VerifyBody(e, MonoHeaders(resign), body).ok());
  Result<EventIdentity> again = Identify(e, MonoHeaders(resign), body, true);
  REQUIRE(again.ok());
  CHECK(again->event_id == first->event_id);

  std::string changed = body;
  changed[changed.find("4200")] = '9';
  CHECK(Refused(VerifyBody(e, MonoHeaders(sign), changed)));
  CHECK(Refused(VerifyBody(e, MonoHeaders(MonoSign(other, body)), body)));
  CHECK(Refused(VerifyBody(e, MonoHeaders(""), body)));
  CHECK(Refused(VerifyBody(e, MonoHeaders("not base64!"), body)));
}

TEST_CASE("monobank: a key that is not P-256 or not a key is refused at start-up", "[presets][ua]") {
  CHECK(CheckPublicKey(KeyKind::kEcdsaP256Sha256, kMonoDocKey).ok());
  CHECK(CheckPublicKey(KeyKind::kEcdsaP256Sha256, MonoKeyText(NewP256())).ok());
  CHECK_FALSE(CheckPublicKey(KeyKind::kEcdsaP256Sha256, Base64Encode("-----BEGIN PUBLIC KEY-----\nAAAA\n")).ok());
  EVP_PKEY* p384 = EVP_EC_gen("P-384");
  REQUIRE(p384 != nullptr);
  Status wrong_curve = CheckPublicKey(KeyKind::kEcdsaP256Sha256, MonoKeyText(Key(p384, EVP_PKEY_free)));
  CHECK_FALSE(wrong_curve.ok());
  CHECK_THAT(wrong_curve.message(), Catch::Contains("P-256"));
}

// --- the digest algorithms (LiqPay, Fondy): a plain hash over {secret}+data -

// The raw hash from OpenSSL's one-shot EVP_Digest, independent of verify::Digest.
std::string OpensslDigest(const EVP_MD* md, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  REQUIRE(EVP_Digest(data.data(), data.size(), out, &len, md, nullptr) == 1);
  return std::string(reinterpret_cast<const char*>(out), len);
}

config::EndpointConfig Load(const std::string& provider, const std::string& secret) {
  config::LoadResult loaded = LoadPreset(provider, secret);
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  REQUIRE(CheckEndpoint(loaded.config.endpoints.at(0)).ok());
  return loaded.config.endpoints.at(0);
}

// Form values as a browser or LiqPay writes them: base64's '+', '/', '=' escaped.
MapHeaders FormHeaders() { return MapHeaders{{"Content-Type", "application/x-www-form-urlencoded"}}; }

// --- LiqPay -----------------------------------------------------------------

// Self-computed in providers-wave2.md (LiqPay's bash example uses placeholder
// keys): the API 3 callback algorithm over this data; recomputed here with OpenSSL.
const std::string kLiqKey = "test_private_key";
const std::string kLiqJson =
    R"({"action":"pay","payment_id":1234567,"status":"success","version":3,"public_key":"test_public_key",)"
    R"("order_id":"order-1","liqpay_order_id":"ABCD1234","amount":10.5,"currency":"UAH","description":"test"})";
const std::string kLiqData =
    "eyJhY3Rpb24iOiJwYXkiLCJwYXltZW50X2lkIjoxMjM0NTY3LCJzdGF0dXMiOiJzdWNjZXNzIiwidmVyc2lvbiI6MywicHVibGljX2tleSI6InRl"
    "c3RfcHVibGljX2tleSIsIm9yZGVyX2lkIjoib3JkZXItMSIsImxpcXBheV9vcmRlcl9pZCI6IkFCQ0QxMjM0IiwiYW1vdW50IjoxMC41LCJjdXJy"
    "ZW5jeSI6IlVBSCIsImRlc2NyaXB0aW9uIjoidGVzdCJ9";
const std::string kLiqSignature = "cfd44p7zxR2a/XYekyqE7rUEiiE=";

std::string LiqSign(const std::string& key, const std::string& data) {
  return Base64Encode(OpensslDigest(EVP_sha1(), key + data + key));
}
std::string LiqBody(const std::string& data, const std::string& signature) {
  return "data=" + PercentEncode(data) + "&signature=" + PercentEncode(signature);
}

TEST_CASE("liqpay: a callback verifies, is keyed on payment_id and status inside data", "[presets][ua]") {
  REQUIRE(Base64Encode(kLiqJson) == kLiqData);
  REQUIRE(LiqSign(kLiqKey, kLiqData) == kLiqSignature);
  const config::EndpointConfig e = Load("liqpay", kLiqKey);
  const std::string body = LiqBody(kLiqData, kLiqSignature);
  Status ok = VerifyBody(e, FormHeaders(), body);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = Identify(e, FormHeaders(), body, false);
  INFO(id.status().ToString());
  REQUIRE(id.ok());
  CHECK(id->event_id == "1234567:success");
  CHECK(id->event_type == "success");
  // The same callback again: the same key. The fields in another order too.
  Result<EventIdentity> again = Identify(e, FormHeaders(), "signature=" + PercentEncode(kLiqSignature) + "&data=" +
                                                               PercentEncode(kLiqData), false);
  REQUIRE(again.ok());
  CHECK(again->event_id == id->event_id);

  // A later status of the same payment is a new event.
  const std::string reversed = Base64Encode(R"({"action":"pay","payment_id":1234567,"status":"reversed"})");
  const std::string rbody = LiqBody(reversed, LiqSign(kLiqKey, reversed));
  CHECK(VerifyBody(e, FormHeaders(), rbody).ok());
  Result<EventIdentity> rid = Identify(e, FormHeaders(), rbody, false);
  REQUIRE(rid.ok());
  CHECK(rid->event_id == "1234567:reversed");
}

TEST_CASE("liqpay: a changed byte, another key, no or a bad signature are refused", "[presets][ua]") {
  const config::EndpointConfig e = Load("liqpay", kLiqKey);
  std::string changed = kLiqData;
  changed[10] = changed[10] == 'A' ? 'B' : 'A';
  CHECK(Refused(VerifyBody(e, FormHeaders(), LiqBody(changed, kLiqSignature))));
  CHECK(Refused(VerifyBody(e, FormHeaders(), LiqBody(kLiqData, LiqSign("another_key", kLiqData)))));
  // An HMAC under the key is not LiqPay's construction.
  CHECK(Refused(VerifyBody(e, FormHeaders(), LiqBody(kLiqData, Base64Encode(OpensslHmac(EVP_sha1(), kLiqKey, kLiqData))))));
  CHECK(Refused(VerifyBody(e, FormHeaders(), "data=" + PercentEncode(kLiqData))));
  CHECK(Refused(VerifyBody(e, FormHeaders(), LiqBody(kLiqData, "%%%"))));
  // A field added beside data is not LiqPay's: the signature no longer matches.
  CHECK(Refused(VerifyBody(e, FormHeaders(), LiqBody(kLiqData, kLiqSignature) + "&data2=x")));
  // Authentic but not base64 JSON inside: no key, a clear error.
  const std::string junk = "bm90IGpzb24=";  // "not json"
  const std::string jbody = LiqBody(junk, LiqSign(kLiqKey, junk));
  CHECK(VerifyBody(e, FormHeaders(), jbody).ok());
  Result<EventIdentity> none = Identify(e, FormHeaders(), jbody, false);
  CHECK(none.status().code() == Code::kInvalidArgument);
}

// --- Fondy ------------------------------------------------------------------

// docs.fondy.io "Authentication" (✔✔ in providers-wave2.md): the request-side
// example, the same algorithm as the callback's.
const std::string kFondyDocBody =
    R"({"order_id":"TestOrder2","order_desc":"Test payment","currency":"USD","amount":1000,)"
    R"("merchant_id":1396424,"server_callback_url":"http://myshop/callback/",)"
    R"("signature":"91ea7da493a8367410fe3d7f877fb5e0ed666490"})";

// The self-computed callback of providers-wave2.md: password "test", empty fee and rrn.
const std::string kFondyCallback =
    R"({"rrn":"","masked_card":"444455XXXXXX6666","order_status":"approved","response_status":"success",)"
    R"("currency":"USD","fee":"","amount":"1000","actual_amount":"1000","order_id":"TestOrder2",)"
    R"("merchant_id":1396424,"payment_id":805243692,"signature":"1a27768e4bc8bf05f7513078d373a1fdee8f17d3",)"
    R"("response_signature_string":"**********|1000|1000|USD|444455XXXXXX6666|1396424|TestOrder2|approved|805243692|success"})";

std::string WithSignature(std::string body, const std::string& old_sig, const std::string& new_sig) {
  body.replace(body.find(old_sig), old_sig.size(), new_sig);
  return body;
}

TEST_CASE("fondy: the documented vector and a callback verify; key order_id and order_status", "[presets][ua]") {
  REQUIRE(HexEncode(OpensslDigest(EVP_sha1(), "test|1000|USD|1396424|Test payment|TestOrder2|http://myshop/callback/")) ==
          "91ea7da493a8367410fe3d7f877fb5e0ed666490");
  REQUIRE(HexEncode(OpensslDigest(EVP_sha1(), "test|1000|1000|USD|444455XXXXXX6666|1396424|TestOrder2|approved|"
                                              "805243692|success")) == "1a27768e4bc8bf05f7513078d373a1fdee8f17d3");
  const config::EndpointConfig e = Load("fondy", "test");
  CHECK(e.redelivery_window_hours == 26);
  CHECK(VerifyBody(e, MonoHeaders(""), kFondyDocBody).ok());
  Status ok = VerifyBody(e, MonoHeaders(""), kFondyCallback);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = Identify(e, MonoHeaders(""), kFondyCallback, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "TestOrder2:approved");
  CHECK(id->event_type == "approved");
  Result<EventIdentity> again = Identify(e, MonoHeaders(""), kFondyCallback, true);
  REQUIRE(again.ok());
  CHECK(again->event_id == id->event_id);
  CHECK(Load("flitt", "test").signature == e.signature);  // the new name, same row
}

TEST_CASE("fondy: a changed byte, another key, an empty field made non-empty are refused", "[presets][ua]") {
  const config::EndpointConfig e = Load("fondy", "test");
  std::string changed = kFondyCallback;
  changed[changed.find("approved")] = 'A';
  CHECK(Refused(VerifyBody(e, MonoHeaders(""), changed)));
  std::string fee = kFondyCallback;
  fee.replace(fee.find(R"("fee":"")"), 8, R"("fee":"1")");
  CHECK(Refused(VerifyBody(e, MonoHeaders(""), fee)));
  const config::EndpointConfig other = Load("fondy", "another-password");
  CHECK(Refused(VerifyBody(other, MonoHeaders(""), kFondyCallback)));
  const std::string forged = WithSignature(kFondyCallback, "1a27768e4bc8bf05f7513078d373a1fdee8f17d3",
                                           HexEncode(OpensslHmac(EVP_sha1(), "test", "1000|1000|USD|444455XXXXXX6666|1396424|TestOrder2|approved|805243692|success")));
  CHECK(Refused(VerifyBody(e, MonoHeaders(""), forged)));
  CHECK(Refused(VerifyBody(e, MonoHeaders(""), R"({"order_id":"TestOrder2","order_status":"approved"})")));
}

// --- the knob itself --------------------------------------------------------

std::string GenericDigest(const std::string& algorithm, const std::string& payload) {
  return "[endpoint.signature]\nalgorithm = \"" + algorithm + "\"\nsigned_payload = \"" + payload + "\"\n";
}

config::LoadResult LoadGeneric(const std::string& extra) {
  ::setenv(kSecretVar, "s3cret", 1);
  return config::LoadString(std::string("[[endpoint]]\nname = \"hooks\"\nsecret_env = \"") + kSecretVar +
                                "\"\n[endpoint.key]\nid_pointer = \"/id\"\n" + extra,
                            "test.toml", "/tmp", &Presets());
}

TEST_CASE("digest algorithms: {secret} required with one, refused without, unknown names refused", "[presets][ua]") {
  CHECK(ParseDigestAlg("sha1-digest") == HashAlg::kSha1);
  CHECK(ParseDigestAlg("sha256-digest") == HashAlg::kSha256);
  CHECK_FALSE(ParseDigestAlg("sha1").has_value());
  CHECK_FALSE(ParseDigestAlg("-digest").has_value());
  CHECK_FALSE(ParseDigestAlg("sha3-digest").has_value());
  CHECK(Digest(HashAlg::kSha256, "abc") == OpensslDigest(EVP_sha256(), "abc"));

  config::LoadResult good = LoadGeneric(GenericDigest("sha256-digest", "{body}{secret}"));
  INFO(Dump(good));
  REQUIRE(good.ok());
  const config::EndpointConfig& e = good.config.endpoints[0];
  REQUIRE(CheckEndpoint(e).ok());
  const std::string body = R"({"id":"evt_1"})";
  MapHeaders h = MonoHeaders("");
  h.Set("X-Signature", HexEncode(OpensslDigest(EVP_sha256(), body + "s3cret")));
  CHECK(VerifyBody(e, h, body).ok());
  h.Set("X-Signature", HexEncode(OpensslDigest(EVP_sha256(), body)));  // without the secret: anyone could
  CHECK(Refused(VerifyBody(e, h, body)));
  // send-test says why it cannot sign it.
  Result<SignedDelivery> signed_test = SignDelivery(e, e.secrets[0], body, kNowMs, "POST", "");
  CHECK(signed_test.status().code() == Code::kInvalidArgument);
  CHECK_THAT(signed_test.status().message(), Catch::Contains("send-test cannot sign"));

  config::LoadResult no_secret = LoadGeneric(GenericDigest("sha1-digest", "{body}"));
  CHECK_FALSE(no_secret.ok());
  CHECK_THAT(Dump(no_secret), Catch::Contains("must contain {secret}"));
  config::LoadResult hmac_secret = LoadGeneric(GenericDigest("sha256", "{body}{secret}"));
  CHECK_FALSE(hmac_secret.ok());
  CHECK_THAT(Dump(hmac_secret), Catch::Contains("uses {secret}"));
  // secret‖body alone can be extended by anyone who saw one delivery (length extension).
  config::LoadResult leading = LoadGeneric(GenericDigest("sha256-digest", "{secret}{body}"));
  CHECK_FALSE(leading.ok());
  CHECK_THAT(Dump(leading), Catch::Contains("must end with {secret}"));
  CHECK(LoadGeneric(GenericDigest("sha256-digest", "{secret}{body}{secret}")).ok());
  config::LoadResult unknown = LoadGeneric(GenericDigest("sha3-digest", "{body}{secret}"));
  CHECK_FALSE(unknown.ok());
}

}  // namespace
