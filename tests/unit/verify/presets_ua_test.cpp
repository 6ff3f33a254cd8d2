// Wave 2 group "ua" (verify/presets_ua.cpp): monobank, LiqPay and Fondy,
// each loaded through config::LoadString with only the provider and the
// secret (or monobank's public key). Deliveries are the providers' documented
// examples where one exists (cited on each test, from
// /work/shared/providers-wave2.md) or are signed here independently with
// OpenSSL (EVP digests and EVP_DigestSign; never src/verify).
#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "verify/public_key.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

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

}  // namespace
