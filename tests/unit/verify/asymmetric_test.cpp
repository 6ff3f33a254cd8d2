// The asymmetric verifier kinds through their presets (discord, sendgrid,
// paypal): key pairs are generated here with OpenSSL EVP and deliveries are
// signed here too, independently of src/verify, as each provider signs them.
// Per preset: valid, one body byte changed, another key's signature, a stale
// timestamp and a missing header; then key parsing at CheckEndpoint, the
// refused discord-interactions name, CRC-32, and send-test's sign → verify.
#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "verify/crypto.h"
#include "verify/public_key.h"
#include "verify/registry.h"
#include "verify/sign.h"
#include "verify/signed_payload.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

namespace {

using Key = std::shared_ptr<EVP_PKEY>;

Key Own(EVP_PKEY* k) {
  REQUIRE(k != nullptr);
  return Key(k, EVP_PKEY_free);
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

std::string PrivatePem(const Key& k) {
  BIO* bio = BIO_new(BIO_s_mem());
  REQUIRE(PEM_write_bio_PrivateKey(bio, k.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1);
  return BioText(bio);
}

std::string PublicPem(const Key& k) {
  BIO* bio = BIO_new(BIO_s_mem());
  REQUIRE(PEM_write_bio_PUBKEY(bio, k.get()) == 1);
  return BioText(bio);
}

// As Discord shows it: the raw 32-byte key in hex.
std::string Ed25519Hex(const Key& k) {
  unsigned char raw[32];
  size_t len = sizeof raw;
  REQUIRE(EVP_PKEY_get_raw_public_key(k.get(), raw, &len) == 1);
  return HexEncode(std::string(reinterpret_cast<char*>(raw), len));
}

// As SendGrid shows it: base64 of the DER SubjectPublicKeyInfo.
std::string SpkiBase64(const Key& k) {
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(k.get(), &der);
  REQUIRE(len > 0);
  std::string out = Base64Encode(std::string(reinterpret_cast<char*>(der), static_cast<size_t>(len)));
  OPENSSL_free(der);
  return out;
}

// A self-signed certificate for `k`, as PayPal's signing certificate stands in here.
std::string CertificatePem(const Key& k) {
  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86400);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("messageverificationcerts"),
                             -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509_set_pubkey(cert.get(), k.get());
  REQUIRE(X509_sign(cert.get(), k.get(), EVP_sha256()) > 0);
  BIO* bio = BIO_new(BIO_s_mem());
  REQUIRE(PEM_write_bio_X509(bio, cert.get()) == 1);
  return BioText(bio);
}

// Signs `data` (SHA-256 except for Ed25519, whose EVP interface takes no digest).
std::string Sign(const Key& k, const std::string& data) {
  const EVP_MD* md = EVP_PKEY_get_base_id(k.get()) == EVP_PKEY_ED25519 ? nullptr : EVP_sha256();
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t len = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  REQUIRE(EVP_DigestSignInit(ctx.get(), nullptr, md, nullptr, k.get()) == 1);
  REQUIRE(EVP_DigestSign(ctx.get(), nullptr, &len, bytes, data.size()) == 1);
  std::string sig(len, '\0');
  REQUIRE(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, bytes, data.size()) == 1);
  sig.resize(len);
  return sig;
}

// Two key pairs per kind, made once for the whole binary (RSA generation is slow).
struct Keys {
  Key ed_a, ed_b, ec_a, ec_b, rsa_a, rsa_b;
};
const Keys& TestKeys() {
  static const Keys keys{Own(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519")),
                         Own(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519")),
                         Own(EVP_EC_gen("P-256")),
                         Own(EVP_EC_gen("P-256")),
                         Own(EVP_RSA_gen(2048)),
                         Own(EVP_RSA_gen(2048))};
  return keys;
}

// A bitwise CRC-32 written here from the IEEE definition, independent of verify/crypto.cpp.
uint32_t ReferenceCrc32(const std::string& data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int i = 0; i < 8; ++i) crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return crc ^ 0xFFFFFFFFu;
}

constexpr const char* kKeyVar = "HOOKINBOX_VT_ASYM_KEY";
constexpr int64_t kNow = 1700000000;  // 2023-11-14T22:13:20Z

// An endpoint "hooks" with `provider` and `key_text` in public_key_env, plus `extra` TOML.
config::EndpointConfig LoadAsym(const std::string& provider, const std::string& key_text,
                                const std::string& extra = "") {
  ::setenv(kKeyVar, key_text.c_str(), 1);
  const std::string toml = "[[endpoint]]\nname = \"hooks\"\nprovider = \"" + provider + "\"\npublic_key_env = \"" +
                           kKeyVar + "\"\n" + extra;
  config::LoadResult r = config::LoadString(toml, "test.toml", "/tmp", &Presets());
  INFO(Dump(r));
  REQUIRE(r.ok());
  REQUIRE(CheckEndpoint(r.config.endpoints[0]).ok());
  return r.config.endpoints[0];
}

Status VerifyWith(const config::EndpointConfig& e, const Headers& headers, const std::string& body, int64_t now_s,
                  const std::string& without = "") {
  return VerifyAt(e, ToMap(headers, without), body, now_s);
}

void CheckRefused(const Status& st, const std::string& why) {
  CHECK(st.code() == Code::kUnauthenticated);
  CHECK_THAT(st.message(), Catch::Contains(why));
}

// --- Discord ---
const std::string kDiscordBody =
    R"({"version":1,"application_id":"1234","type":1,"event":{"type":"APPLICATION_AUTHORIZED",)"
    R"("timestamp":"2024-10-18T14:42:53.064834","data":{"user":{"id":"5678"}}}})";

Headers DiscordHeaders(const Key& signer, const std::string& body, int64_t ts) {
  const std::string t = std::to_string(ts);
  return {{"X-Signature-Ed25519", HexEncode(Sign(signer, t + body))}, {"X-Signature-Timestamp", t}};
}

// --- SendGrid ---
const std::string kSendGridBody =
    R"([{"email":"a@example.com","event":"delivered","sg_event_id":"ZGVsaXZlcmVk","timestamp":1700000000},)"
    R"({"email":"b@example.com","event":"open","sg_event_id":"b3Blbg","timestamp":1700000001}])";

Headers SendGridHeaders(const Key& signer, const std::string& body, int64_t ts) {
  const std::string t = std::to_string(ts);
  return {{"X-Twilio-Email-Event-Webhook-Signature", Base64Encode(Sign(signer, t + body))},
          {"X-Twilio-Email-Event-Webhook-Timestamp", t}};
}

// --- PayPal ---
const std::string kPayPalBody =
    R"({"id":"WH-2WR32451HC0233532-67976317FL4543714","event_type":"PAYMENT.CAPTURE.COMPLETED",)"
    R"("resource_type":"capture","resource":{"id":"42311647XV020574X"}})";
constexpr const char* kWebhookId = "1JE4291016473214C";
const std::string kPayPalExtra = std::string("[endpoint.signature]\nwebhook_id = \"") + kWebhookId + "\"\n";

Headers PayPalHeaders(const Key& signer, const std::string& body, const std::string& time,
                      const std::string& webhook_id = kWebhookId) {
  const std::string id = "b2384410-f8d2-11ed-a2b6-f9e4d4e3b5a1";
  const std::string signed_text = id + "|" + time + "|" + webhook_id + "|" + std::to_string(ReferenceCrc32(body));
  return {{"PAYPAL-TRANSMISSION-ID", id},
          {"PAYPAL-TRANSMISSION-TIME", time},
          {"PAYPAL-TRANSMISSION-SIG", Base64Encode(Sign(signer, signed_text))},
          {"PAYPAL-AUTH-ALGO", "SHA256withRSA"},
          {"PAYPAL-CERT-URL", "https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77"}};
}

}  // namespace

TEST_CASE("crc32: the IEEE check value and the reference agree", "[verify]") {
  CHECK(Crc32("123456789") == 0xCBF43926u);
  CHECK(Crc32("") == 0u);
  CHECK(Crc32(kPayPalBody) == ReferenceCrc32(kPayPalBody));
}

TEST_CASE("preset discord: Ed25519 over timestamp + body with the hex public key", "[verify]") {
  const Keys& k = TestKeys();
  const config::EndpointConfig e = LoadAsym("discord", Ed25519Hex(k.ed_a));
  CHECK(e.handshake == "discord");
  const Headers good = DiscordHeaders(k.ed_a, kDiscordBody, kNow);

  SECTION("valid: accepted, keyed on the body's hash, typed by /event/type") {
    CHECK(VerifyWith(e, good, kDiscordBody, kNow).ok());
    CHECK(VerifyWith(e, good, kDiscordBody, kNow - 300).ok());
    Result<EventIdentity> id = Identify(e, ToMap(good), kDiscordBody, true);
    REQUIRE(id.ok());
    CHECK(id->event_type == "APPLICATION_AUTHORIZED");
    CHECK(id->event_id == "sha256:" + id->payload_hash);
  }
  SECTION("one body byte changed") {
    std::string body = kDiscordBody;
    body[body.find("5678")] = '6';
    CheckRefused(VerifyWith(e, good, body, kNow), "signature mismatch");
  }
  SECTION("another key's signature") {
    CheckRefused(VerifyWith(e, DiscordHeaders(k.ed_b, kDiscordBody, kNow), kDiscordBody, kNow), "signature mismatch");
  }
  SECTION("a stale or future timestamp, though authentic") {
    CheckRefused(VerifyWith(e, good, kDiscordBody, kNow + 301), "timestamp outside tolerance");
    CheckRefused(VerifyWith(e, good, kDiscordBody, kNow - 301), "timestamp outside tolerance");
  }
  SECTION("a timestamp other than the signed one") {
    Headers moved = good;
    moved[1].second = std::to_string(kNow + 1);
    CheckRefused(VerifyWith(e, moved, kDiscordBody, kNow), "signature mismatch");
  }
  SECTION("missing headers") {
    CheckRefused(VerifyWith(e, good, kDiscordBody, kNow, "X-Signature-Ed25519"), "missing signature");
    CheckRefused(VerifyWith(e, good, kDiscordBody, kNow, "X-Signature-Timestamp"), "missing or malformed timestamp");
  }
  SECTION("a signature that is not 64 bytes of hex") {
    Headers bad = good;
    bad[0].second = "zz" + bad[0].second.substr(2);
    CheckRefused(VerifyWith(e, bad, kDiscordBody, kNow), "malformed signature");
    bad[0].second = good[0].second.substr(0, 64);
    CheckRefused(VerifyWith(e, bad, kDiscordBody, kNow), "signature mismatch");
  }
}

TEST_CASE("preset discord: public_keys_env rotation and a PEM key both verify", "[verify]") {
  const Keys& k = TestKeys();
  ::setenv("HOOKINBOX_VT_ASYM_OLD", Ed25519Hex(k.ed_b).c_str(), 1);
  const config::EndpointConfig e =
      LoadAsym("discord", Ed25519Hex(k.ed_a), "public_keys_env = [\"HOOKINBOX_VT_ASYM_OLD\"]\n");
  REQUIRE(e.public_keys.size() == 2);
  CHECK(VerifyWith(e, DiscordHeaders(k.ed_a, kDiscordBody, kNow), kDiscordBody, kNow).ok());
  CHECK(VerifyWith(e, DiscordHeaders(k.ed_b, kDiscordBody, kNow), kDiscordBody, kNow).ok());

  const config::EndpointConfig pem = LoadAsym("discord", PublicPem(k.ed_a));
  CHECK(VerifyWith(pem, DiscordHeaders(k.ed_a, kDiscordBody, kNow), kDiscordBody, kNow).ok());
}

TEST_CASE("preset sendgrid: ECDSA P-256 DER signature over timestamp + body", "[verify]") {
  const Keys& k = TestKeys();
  const config::EndpointConfig e = LoadAsym("sendgrid", SpkiBase64(k.ec_a));
  CHECK(e.key.batch);
  CHECK(e.key.batch_pointer.empty());
  CHECK(e.key.id_pointer == "/sg_event_id");
  CHECK(e.key.event_type_pointer == "/event");
  const Headers good = SendGridHeaders(k.ec_a, kSendGridBody, kNow);

  SECTION("valid") {
    CHECK(VerifyWith(e, good, kSendGridBody, kNow).ok());
    const config::EndpointConfig pem = LoadAsym("sendgrid", PublicPem(k.ec_a));
    CHECK(VerifyWith(pem, good, kSendGridBody, kNow).ok());
  }
  SECTION("one body byte changed") {
    std::string body = kSendGridBody;
    body[body.find("open")] = 'O';
    CheckRefused(VerifyWith(e, good, body, kNow), "signature mismatch");
  }
  SECTION("another key's signature") {
    CheckRefused(VerifyWith(e, SendGridHeaders(k.ec_b, kSendGridBody, kNow), kSendGridBody, kNow),
                 "signature mismatch");
  }
  SECTION("a stale timestamp") {
    CheckRefused(VerifyWith(e, good, kSendGridBody, kNow + 301), "timestamp outside tolerance");
  }
  SECTION("missing headers") {
    CheckRefused(VerifyWith(e, good, kSendGridBody, kNow, "X-Twilio-Email-Event-Webhook-Signature"),
                 "missing signature");
    CheckRefused(VerifyWith(e, good, kSendGridBody, kNow, "X-Twilio-Email-Event-Webhook-Timestamp"),
                 "missing or malformed timestamp");
  }
  SECTION("a signature that is not base64 DER") {
    Headers bad = good;
    bad[0].second = "not base64!";
    CheckRefused(VerifyWith(e, bad, kSendGridBody, kNow), "malformed signature");
    bad[0].second = Base64Encode("\x30\x02\x01\x01");
    CheckRefused(VerifyWith(e, bad, kSendGridBody, kNow), "signature mismatch");
  }
}

TEST_CASE("preset paypal: SHA256withRSA over id|time|webhook_id|crc32 with a pinned certificate", "[verify]") {
  const Keys& k = TestKeys();
  const config::EndpointConfig e = LoadAsym("paypal", CertificatePem(k.rsa_a), kPayPalExtra);
  const std::string time = "2023-11-14T22:13:20Z";  // kNow
  const Headers good = PayPalHeaders(k.rsa_a, kPayPalBody, time);

  SECTION("valid: accepted, keyed on /id, typed by /event_type") {
    CHECK(VerifyWith(e, good, kPayPalBody, kNow).ok());
    CHECK(VerifyWith(e, PayPalHeaders(k.rsa_a, kPayPalBody, "2023-11-14T22:13:20.123+00:00"), kPayPalBody, kNow)
              .ok());
    Result<EventIdentity> id = Identify(e, ToMap(good), kPayPalBody, true);
    REQUIRE(id.ok());
    CHECK(id->event_id == "WH-2WR32451HC0233532-67976317FL4543714");
    CHECK(id->event_type == "PAYMENT.CAPTURE.COMPLETED");
  }
  SECTION("one body byte changed") {
    std::string body = kPayPalBody;
    body[body.find("42311647")] = '5';
    CheckRefused(VerifyWith(e, good, body, kNow), "signature mismatch");
  }
  SECTION("another key's signature, or another webhook's id") {
    CheckRefused(VerifyWith(e, PayPalHeaders(k.rsa_b, kPayPalBody, time), kPayPalBody, kNow), "signature mismatch");
    CheckRefused(VerifyWith(e, PayPalHeaders(k.rsa_a, kPayPalBody, time, "OTHER-WEBHOOK"), kPayPalBody, kNow),
                 "signature mismatch");
  }
  SECTION("a stale transmission time, or one that is not RFC 3339") {
    CheckRefused(VerifyWith(e, good, kPayPalBody, kNow + 301), "timestamp outside tolerance");
    CheckRefused(VerifyWith(e, PayPalHeaders(k.rsa_a, kPayPalBody, "1700000000"), kPayPalBody, kNow),
                 "missing or malformed timestamp");
  }
  SECTION("missing headers, and an algorithm other than SHA256withRSA") {
    CheckRefused(VerifyWith(e, good, kPayPalBody, kNow, "PAYPAL-TRANSMISSION-SIG"), "missing signature");
    CheckRefused(VerifyWith(e, good, kPayPalBody, kNow, "PAYPAL-TRANSMISSION-TIME"), "missing or malformed timestamp");
    CheckRefused(VerifyWith(e, good, kPayPalBody, kNow, "PAYPAL-TRANSMISSION-ID"),
                 "missing signed header PAYPAL-TRANSMISSION-ID");
    CheckRefused(VerifyWith(e, good, kPayPalBody, kNow, "PAYPAL-AUTH-ALGO"), "missing signature algorithm");
    Headers other = good;
    other[3].second = "SHA1withRSA";
    CheckRefused(VerifyWith(e, other, kPayPalBody, kNow), "unsupported signature algorithm");
  }
  SECTION("PAYPAL-CERT-URL plays no part: a delivery pointing elsewhere still verifies against the pin") {
    Headers elsewhere = good;
    elsewhere[4].second = "https://attacker.example/cert.pem";
    CHECK(VerifyWith(e, elsewhere, kPayPalBody, kNow).ok());
  }
}

TEST_CASE("preset paypal: without signature.webhook_id the config is refused at that key", "[verify]") {
  ::setenv(kKeyVar, CertificatePem(TestKeys().rsa_a).c_str(), 1);
  const std::string toml = std::string("[[endpoint]]\nname = \"hooks\"\nprovider = \"paypal\"\npublic_key_env = \"") +
                           kKeyVar + "\"\n";
  config::LoadResult r = config::LoadString(toml, "test.toml", "/tmp", &Presets());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "endpoint[0].signature.webhook_id");
  CHECK_THAT(r.errors[0].message, Catch::Contains("required for provider \"paypal\""));
}

TEST_CASE("public keys: CheckEndpoint parses each key and refuses the wrong kind, naming which", "[verify]") {
  const Keys& k = TestKeys();
  CHECK(CheckPublicKey(KeyKind::kEd25519, Ed25519Hex(k.ed_a)).ok());
  CHECK(CheckPublicKey(KeyKind::kEcdsaP256Sha256, SpkiBase64(k.ec_a)).ok());
  CHECK(CheckPublicKey(KeyKind::kRsaSha256Cert, CertificatePem(k.rsa_a)).ok());

  Key p384 = Own(EVP_EC_gen("P-384"));
  Status wrong_curve = CheckPublicKey(KeyKind::kEcdsaP256Sha256, SpkiBase64(p384));
  CHECK(wrong_curve.code() == Code::kInvalidArgument);
  CHECK_THAT(wrong_curve.message(), Catch::Contains("P-256"));
  CHECK(!CheckPublicKey(KeyKind::kEcdsaP256Sha256, SpkiBase64(k.ed_a)).ok());     // an Ed25519 SPKI
  CHECK(!CheckPublicKey(KeyKind::kEcdsaP256Sha256, Base64Encode("not der")).ok());
  CHECK(!CheckPublicKey(KeyKind::kEd25519, PublicPem(k.ec_a)).ok());
  CHECK(!CheckPublicKey(KeyKind::kRsaSha256Cert, CertificatePem(k.ec_a)).ok());  // an EC certificate
  CHECK(!CheckPublicKey(KeyKind::kRsaSha256Cert, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
             .ok());

  // The same through CheckEndpoint: the config's form check passes, the parse does not.
  ::setenv(kKeyVar, SpkiBase64(p384).c_str(), 1);
  const std::string toml = std::string("[[endpoint]]\nname = \"hooks\"\nprovider = \"sendgrid\"\npublic_key_env = \"") +
                           kKeyVar + "\"\n";
  config::LoadResult r = config::LoadString(toml, "test.toml", "/tmp", &Presets());
  REQUIRE(r.ok());
  Status st = CheckEndpoint(r.config.endpoints[0]);
  CHECK(st.code() == Code::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::Contains("public key 1 of 1") && Catch::Contains("public_key_env") &&
                               Catch::Contains("P-256"));
  CHECK_THAT(st.message(), !Catch::Contains(SpkiBase64(p384)));
}

TEST_CASE("preset discord-interactions: refused at config time with the reason", "[verify]") {
  CHECK(FindPreset("discord-interactions") == nullptr);
  CHECK(RefusedPresetReason("discord").empty());
  config::LoadResult r = LoadPreset("discord-interactions", "unused");
  const config::Problem* p = nullptr;
  for (const auto& e : r.errors) {
    if (e.key == "endpoint[0].provider") p = &e;
  }
  REQUIRE(p != nullptr);
  CHECK(p->line == 3);
  CHECK_THAT(p->message, Catch::Contains("synchronous answer within 3 s") &&
                             Catch::Contains("use provider = \"discord\" for webhook events"));
}

TEST_CASE("send-test signing: what SignDelivery makes with a private key, Verify accepts", "[verify]") {
  const Keys& k = TestKeys();
  struct Case {
    const char* provider;
    std::string public_text;
    Key signer;
    Key other;
    std::string extra;
  };
  const Case cases[] = {
      {"discord", Ed25519Hex(k.ed_a), k.ed_a, k.ed_b, ""},
      {"sendgrid", SpkiBase64(k.ec_a), k.ec_a, k.ec_b, ""},
      {"paypal", CertificatePem(k.rsa_a), k.rsa_a, k.rsa_b, kPayPalExtra},
  };
  const int64_t now_ms = kNow * 1000;
  for (const Case& c : cases) {
    INFO(c.provider);
    const config::EndpointConfig e = LoadAsym(c.provider, c.public_text, c.extra);
    const std::string body = SampleBody(e, kTestEventType, now_ms);
    Result<SignedDelivery> d = SignDelivery(e, Secret(PrivatePem(c.signer)), body, now_ms, "POST", "");
    REQUIRE(d.ok());
    MapHeaders h;
    for (const auto& [name, value] : d->headers) h.Set(name, value);
    CHECK(Verify(e, {}, DeliveryView{"POST", "/hooks/hooks", h, d->body}, now_ms).ok());

    Result<SignedDelivery> forged = SignDelivery(e, Secret(PrivatePem(c.other)), body, now_ms, "POST", "");
    REQUIRE(forged.ok());
    MapHeaders fh;
    for (const auto& [name, value] : forged->headers) fh.Set(name, value);
    CHECK(Verify(e, {}, DeliveryView{"POST", "/hooks/hooks", fh, forged->body}, now_ms).code() ==
          Code::kUnauthenticated);
  }
}

TEST_CASE("send-test signing: a private key of another kind, or not a key, is refused without echoing it",
          "[verify]") {
  const Keys& k = TestKeys();
  const config::EndpointConfig e = LoadAsym("discord", Ed25519Hex(k.ed_a));
  const std::string body = SampleBody(e, kTestEventType, kNow * 1000);
  Result<SignedDelivery> wrong_kind = SignDelivery(e, Secret(PrivatePem(k.ec_a)), body, kNow * 1000, "POST", "");
  CHECK(wrong_kind.status().code() == Code::kInvalidArgument);
  CHECK_THAT(wrong_kind.status().message(), Catch::Contains("not an Ed25519 key"));
  Result<SignedDelivery> not_pem = SignDelivery(e, Secret("garbage-key-text"), body, kNow * 1000, "POST", "");
  CHECK(not_pem.status().code() == Code::kInvalidArgument);
  CHECK_THAT(not_pem.status().message(), !Catch::Contains("garbage-key-text"));
}

TEST_CASE("signed_payload: {header:NAME}, {webhook_id} and {crc32}, PayPal's building blocks", "[verify]") {
  MapHeaders h{{"PAYPAL-TRANSMISSION-ID", "tid-1"}};
  SignedParts parts{"hello", "ts", std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  parts.headers = &h;
  parts.webhook_id = "WH-9";
  Result<std::string> out = ExpandSignedPayload("{header:paypal-transmission-id}|{timestamp}|{webhook_id}|{crc32}", parts);
  REQUIRE(out.ok());
  CHECK(*out == "tid-1|ts|WH-9|" + std::to_string(ReferenceCrc32("hello")));

  CHECK(ExpandSignedPayload("{header:X-Absent}{body}", parts).status().code() == Code::kInvalidArgument);
  SignedParts bare{"hello", "ts", std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  CHECK(!ExpandSignedPayload("{header:PAYPAL-TRANSMISSION-ID}", bare).ok());  // no headers given
  CHECK(!ExpandSignedPayload("{webhook_id}", bare).ok());
  CHECK(*ExpandSignedPayload("{crc32}", bare) == "907060870");  // CRC-32("hello") = 0x3610a686

  CHECK(HeaderPlaceholders("{header:A}|{timestamp}|{header:B-c}") == std::vector<std::string_view>{"A", "B-c"});
  CHECK(HeaderPlaceholders("{body}").empty());
}

TEST_CASE("generic ed25519: a list format (Standard Webhooks v1a), and at most 8 candidates are tried", "[verify]") {
  const Keys& k = TestKeys();
  ::setenv(kKeyVar, Ed25519Hex(k.ed_a).c_str(), 1);
  const std::string toml = std::string("[[endpoint]]\nname = \"hooks\"\npublic_key_env = \"") + kKeyVar + "\"\n" +
                           "[endpoint.signature]\nscheme = \"ed25519\"\nheader = \"webhook-signature\"\n"
                           "format = \"v1a,{signature}\"\nencoding = \"base64\"\n"
                           "signed_payload = \"{id}.{timestamp}.{body}\"\ntimestamp_header = \"webhook-timestamp\"\n"
                           "[endpoint.key]\nid_header = \"webhook-id\"\n";
  config::LoadResult r = config::LoadString(toml, "test.toml", "/tmp", &Presets());
  INFO(Dump(r));
  REQUIRE(r.ok());
  REQUIRE(CheckEndpoint(r.config.endpoints[0]).ok());
  const config::EndpointConfig& e = r.config.endpoints[0];
  const std::string body = R"({"type":"user.created"})";
  const std::string ts = std::to_string(kNow);
  const std::string good = "v1a," + Base64Encode(Sign(k.ed_a, "msg_1." + ts + "." + body));
  const std::string other = "v1a," + Base64Encode(Sign(k.ed_b, "msg_1." + ts + "." + body));
  auto headers = [&](const std::string& sig) {
    return Headers{{"webhook-id", "msg_1"}, {"webhook-timestamp", ts}, {"webhook-signature", sig}};
  };
  CHECK(VerifyWith(e, headers(good), body, kNow).ok());
  CHECK(VerifyWith(e, headers("v1,bm90LWl0 " + other + " " + good), body, kNow).ok());  // other entries skipped
  std::string many;
  for (int i = 0; i < 8; ++i) many += other + " ";
  CheckRefused(VerifyWith(e, headers(many + good), body, kNow), "signature mismatch");  // the 9th is not tried
}
