// Public keys for the asymmetric schemes as config/ sees them: the four source
// keys, the form check that needs no crypto library (verify::CheckEndpoint
// parses the keys themselves; tests/unit/verify/asymmetric_test.cpp), the
// "no key" error, and the placeholders only these schemes expand
// ({header:NAME}, {webhook_id}, and {crc32} standing for the body).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>

#include "config/load.h"
#include "config_test_util.h"
#include "support/temp_dir.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::config::test::Find;
using hookinbox::config::test::MarkedLine;
using hookinbox::testing::TempDir;

namespace {

constexpr const char* kHexKey = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";  // RFC 8032 test 1
constexpr const char* kKeyVar = "HOOKINBOX_CT_PUBLIC_KEY";

// An endpoint "demo" with signature.scheme = `scheme`, its top-level `keys` and an id source.
std::string Endpoint(const std::string& scheme, const std::string& keys, const std::string& signature = "") {
  return "[[endpoint]] #<\nname = \"demo\"\n" + keys + "[endpoint.signature]\nscheme = \"" + scheme + "\"\n" +
         signature + "[endpoint.key]\nid_header = \"X-Event-Id\"\n";
}

LoadResult LoadWithKey(const std::string& scheme, const std::string& key_text, const std::string& signature = "") {
  ::setenv(kKeyVar, key_text.c_str(), 1);
  return LoadString(Endpoint(scheme, std::string("public_key_env = \"") + kKeyVar + "\"\n", signature), "test.toml",
                    "/tmp");
}

bool NothingMentions(const LoadResult& r, const std::string& value) {
  for (const auto* list : {&r.errors, &r.warnings}) {
    for (const auto& p : *list) {
      if (Describe(p, "test.toml").find(value) != std::string::npos) return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("public keys: public_key_env fills public_keys; no secret is needed", "[config]") {
  LoadResult r = LoadWithKey("ed25519", kHexKey);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].public_keys == std::vector<std::string>{kHexKey});
  CHECK(r.config.endpoints[0].secrets.empty());
  CHECK(r.warnings.empty());
}

TEST_CASE("public keys: an asymmetric scheme without a key is an error at the endpoint's line", "[config]") {
  for (const char* scheme : {"ed25519", "ecdsa-p256-sha256", "rsa-sha256-cert"}) {
    INFO(scheme);
    const std::string toml = Endpoint(scheme, "");
    LoadResult r = LoadString(toml, "test.toml", "/tmp");
    const Problem* p = Find(r.errors, "endpoint[0]");
    REQUIRE(p != nullptr);
    CHECK(p->line == MarkedLine(toml));
    CHECK_THAT(p->message, Catch::Contains("no public key") && Catch::Contains("public_key_env") &&
                               Catch::Contains("public_key_file"));
  }
}

TEST_CASE("public keys: a key of the wrong form is refused at its key, without echoing it", "[config]") {
  struct Case {
    const char* scheme;
    std::string text;
    const char* expected;
  };
  const std::string pem_public = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n"
                                 "-----END PUBLIC KEY-----\n";
  const Case cases[] = {
      {"ed25519", "not-a-hex-key", "64 hex digits"},
      {"ed25519", std::string(kHexKey).substr(0, 62), "64 hex digits"},
      {"ecdsa-p256-sha256", "not base64 at all!", "SubjectPublicKeyInfo"},
      {"rsa-sha256-cert", pem_public, "CERTIFICATE"},
      {"rsa-sha256-cert", kHexKey, "CERTIFICATE"},
      {"ed25519", "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n"
                  "-----END PRIVATE KEY-----\n",
       "PRIVATE key"},
  };
  for (const Case& c : cases) {
    INFO(c.scheme << " / " << c.expected);
    LoadResult r = LoadWithKey(c.scheme, c.text);
    const Problem* p = Find(r.errors, "endpoint[0].public_key_env");
    REQUIRE(p != nullptr);
    CHECK(p->line == 3);
    CHECK_THAT(p->message, Catch::Contains(kKeyVar) && Catch::Contains(c.expected));
    CHECK(NothingMentions(r, c.text));
    CHECK(Find(r.errors, "endpoint[0]") == nullptr);  // the source failed: no second "no public key" error
  }
}

TEST_CASE("public keys: each scheme accepts the forms its provider shows", "[config]") {
  CHECK(LoadWithKey("ed25519", std::string("  ") + kHexKey + "\n").ok());
  CHECK(LoadWithKey("ed25519", "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n").ok());
  CHECK(LoadWithKey("ecdsa-p256-sha256", "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE").ok());  // the form only
  CHECK(LoadWithKey("rsa-sha256-cert", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").ok());
}

TEST_CASE("public keys: public_key_file is read relative to the config, and a world-readable one is fine",
          "[config]") {
  TempDir dir;
  const std::string path = dir.Write("keys/discord.hex", std::string(kHexKey) + "\n");
  ::chmod(path.c_str(), 0644);
  LoadResult r = LoadString(Endpoint("ed25519", "public_key_file = \"keys/discord.hex\"\n"), "test.toml", dir.path());
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].public_keys == std::vector<std::string>{kHexKey});
  CHECK(r.warnings.empty());  // a public key needs no chmod 600

  LoadResult missing = LoadString(Endpoint("ed25519", "public_key_file = \"keys/absent.hex\"\n"), "test.toml",
                                  dir.path());
  const Problem* p = Find(missing.errors, "endpoint[0].public_key_file");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("cannot read public key file") && Catch::Contains("absent.hex"));
}

TEST_CASE("public keys: public_keys_env and public_keys_file list several keys, all kept in order", "[config]") {
  TempDir dir;
  const std::string other = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";  // RFC 8032 test 2
  dir.Write("old.hex", other);
  ::setenv("HOOKINBOX_CT_PK_NEW", kHexKey, 1);
  LoadResult r = LoadString(Endpoint("ed25519", "public_keys_env = [\"HOOKINBOX_CT_PK_NEW\"]\n"
                                                "public_keys_file = [\"old.hex\"]\n"),
                            "test.toml", dir.path());
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.endpoints[0].public_keys == std::vector<std::string>{kHexKey, other});
}

TEST_CASE("public keys: keys on an HMAC endpoint, or secrets on an asymmetric one, are warned unused", "[config]") {
  ::setenv(kKeyVar, kHexKey, 1);
  ::setenv("HOOKINBOX_CT_PK_SECRET", "s3cret", 1);
  LoadResult hmac = LoadString(Endpoint("hmac", "secret_env = \"HOOKINBOX_CT_PK_SECRET\"\npublic_key_env = \"" +
                                                    std::string(kKeyVar) + "\"\n"),
                               "test.toml", "/tmp");
  INFO(Dump(hmac.errors));
  REQUIRE(hmac.ok());
  CHECK(hmac.config.endpoints[0].public_keys.empty());
  REQUIRE(Find(hmac.warnings, "endpoint[0]") != nullptr);
  CHECK_THAT(Find(hmac.warnings, "endpoint[0]")->message, Catch::Contains("public keys are unused"));

  LoadResult asym = LoadString(Endpoint("ed25519", "secret_env = \"HOOKINBOX_CT_PK_SECRET\"\npublic_key_env = \"" +
                                                       std::string(kKeyVar) + "\"\n"),
                               "test.toml", "/tmp");
  REQUIRE(asym.ok());
  REQUIRE(Find(asym.warnings, "endpoint[0]") != nullptr);
  CHECK_THAT(Find(asym.warnings, "endpoint[0]")->message,
             Catch::Contains("secrets are unused with signature.scheme = \"ed25519\""));
}

TEST_CASE("public keys: asymmetric schemes need a signature header and refuse tenants", "[config]") {
  LoadResult no_header = LoadWithKey("ed25519", kHexKey, "header = \"\"\n");
  REQUIRE(Find(no_header.errors, "endpoint[0].signature.header") != nullptr);

  ::setenv(kKeyVar, kHexKey, 1);
  LoadResult tenants = LoadString(Endpoint("ed25519", std::string("public_key_env = \"") + kKeyVar + "\"\n") +
                                      "[[endpoint.tenants]]\nid = \"acme\"\n",
                                  "test.toml", "/tmp");
  const Problem* p = Find(tenants.errors, "endpoint[0].tenants");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("public keys"));
}

TEST_CASE("signed_payload: {webhook_id} needs signature.webhook_id; an unused one is warned", "[config]") {
  const std::string paypal_like = "signed_payload = \"{header:X-Transmission-Id}|{timestamp}|{webhook_id}|{crc32}\"\n"
                                  "timestamp_header = \"X-Transmission-Time\"\ntimestamp_unit = \"iso8601\"\n";
  LoadResult missing = LoadWithKey("rsa-sha256-cert", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n",
                                   paypal_like);
  const Problem* p = Find(missing.errors, "endpoint[0].signature.webhook_id");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("{webhook_id}"));
  // {crc32} stands for the body: no "must contain {body}" error.
  CHECK(Find(missing.errors, "endpoint[0].signature.signed_payload") == nullptr);

  LoadResult ok = LoadWithKey("rsa-sha256-cert", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n",
                              paypal_like + "webhook_id = \"WH-1\"\n");
  INFO(Dump(ok.errors));
  CHECK(ok.ok());
  CHECK(ok.config.endpoints[0].signature.webhook_id == "WH-1");

  LoadResult unused = LoadWithKey("ed25519", kHexKey, "webhook_id = \"WH-1\"\n");
  REQUIRE(unused.ok());
  REQUIRE(Find(unused.warnings, "endpoint[0].signature.webhook_id") != nullptr);
}

TEST_CASE("signed_payload: {header:NAME} and {webhook_id} are for the asymmetric schemes; NAME must be a header",
          "[config]") {
  ::setenv("HOOKINBOX_CT_PK_SECRET", "s3cret", 1);
  LoadResult hmac = LoadString(Endpoint("hmac", "secret_env = \"HOOKINBOX_CT_PK_SECRET\"\n",
                                        "signed_payload = \"{header:X-Id}.{body}\"\n"),
                               "test.toml", "/tmp");
  const Problem* p = Find(hmac.errors, "endpoint[0].signature.signed_payload");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("asymmetric"));

  LoadResult bad_name = LoadWithKey("ed25519", kHexKey, "signed_payload = \"{header:Bad Name}{body}\"\n");
  p = Find(bad_name.errors, "endpoint[0].signature.signed_payload");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("header name"));

  LoadResult empty_name = LoadWithKey("ed25519", kHexKey, "signed_payload = \"{header:}{body}\"\n");
  REQUIRE(Find(empty_name.errors, "endpoint[0].signature.signed_payload") != nullptr);
}
