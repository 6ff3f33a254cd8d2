// The signature knobs for RFC 3339 timestamps, signatures inside the body
// (Mailgun) and URL decoding (HubSpot): how the loader reads them and what
// validation refuses, each refusal naming the key.
#include <catch2/catch.hpp>

#include <string>

#include "config/load.h"
#include "config_test_util.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::config::test::Find;
using hookinbox::config::test::kEndpoint;
using hookinbox::config::test::Load;

namespace {

// kEndpoint with a [endpoint.signature] table holding `lines`.
LoadResult WithSignature(const std::string& lines) { return Load(kEndpoint + "[endpoint.signature]\n" + lines); }

// A Mailgun-shaped generic endpoint; `extra` lines are added to its signature table.
LoadResult BodySigned(const std::string& extra = "") {
  return Load(
      "[[endpoint]]\nname = \"mg\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
      "[endpoint.signature]\n"
      "signature_pointer = \"/signature/signature\"\n"
      "token_pointer = \"/signature/token\"\n"
      "timestamp_pointer = \"/signature/timestamp\"\n"
      "signed_payload = \"{timestamp}{token}\"\n" +
      extra + "[endpoint.key]\nid_pointer = \"/event-data/id\"\n");
}

}  // namespace

TEST_CASE("config: timestamp_unit accepts iso8601 and still refuses other units", "[config]") {
  LoadResult ok = WithSignature(
      "timestamp_header = \"X-Ts\"\nsigned_payload = \"{timestamp}{body}\"\ntimestamp_unit = \"iso8601\"\n");
  INFO(Dump(ok.errors));
  REQUIRE(ok.ok());
  CHECK(ok.config.endpoints.at(0).signature.timestamp_unit == "iso8601");

  LoadResult bad = WithSignature(
      "timestamp_header = \"X-Ts\"\nsigned_payload = \"{timestamp}{body}\"\ntimestamp_unit = \"rfc3339\"\n");
  const Problem* p = Find(bad.errors, "endpoint[0].signature.timestamp_unit");
  REQUIRE(p != nullptr);
  CHECK(p->message.find("iso8601") != std::string::npos);
}

TEST_CASE("config: a signature inside the body loads without a header and signs its fields", "[config]") {
  LoadResult r = BodySigned("header = \"\"\n");
  INFO(Dump(r.errors) + Dump(r.warnings));
  REQUIRE(r.ok());
  CHECK(r.warnings.empty());
  const SignatureConfig& s = r.config.endpoints.at(0).signature;
  CHECK(s.signature_pointer == "/signature/signature");
  CHECK(s.token_pointer == "/signature/token");
}

TEST_CASE("config: a signature inside the body cannot sign {body}", "[config]") {
  LoadResult direct = Load(
      "[[endpoint]]\nname = \"mg\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
      "[endpoint.signature]\nsignature_pointer = \"/sig\"\nsigned_payload = \"{body}\"\n"
      "[endpoint.key]\nid_pointer = \"/id\"\n");
  const Problem* p = Find(direct.errors, "endpoint[0].signature.signed_payload");
  REQUIRE(p != nullptr);
  CHECK(p->message.find("must not contain {body}") != std::string::npos);
}

TEST_CASE("config: signature_pointer and token_pointer need a JSON body and valid pointers", "[config]") {
  SECTION("form body") {
    LoadResult r = BodySigned("body_kind = \"form\"\n");
    CHECK(Find(r.errors, "endpoint[0].signature.signature_pointer") != nullptr);
    CHECK(Find(r.errors, "endpoint[0].signature.token_pointer") != nullptr);
  }
  SECTION("malformed pointer") {
    LoadResult r = Load(
        "[[endpoint]]\nname = \"mg\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
        "[endpoint.signature]\nsignature_pointer = \"signature\"\nsigned_payload = \"{timestamp}\"\n"
        "timestamp_pointer = \"/ts\"\n[endpoint.key]\nid_pointer = \"/id\"\n");
    CHECK(Find(r.errors, "endpoint[0].signature.signature_pointer") != nullptr);
  }
  SECTION("only hmac reads a signature from the body") {
    LoadResult r = Load(
        "[[endpoint]]\nname = \"mg\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
        "[endpoint.signature]\nscheme = \"token\"\nsignature_pointer = \"/sig\"\n"
        "[endpoint.key]\nid_pointer = \"/id\"\n");
    CHECK(Find(r.errors, "endpoint[0].signature.signature_pointer") != nullptr);
  }
}

TEST_CASE("config: {token} needs token_pointer; a token_pointer nothing signs is a warning", "[config]") {
  LoadResult missing = WithSignature("signed_payload = \"{token}{body}\"\n");
  const Problem* p = Find(missing.errors, "endpoint[0].signature.signed_payload");
  REQUIRE(p != nullptr);
  CHECK(p->message.find("token_pointer") != std::string::npos);

  LoadResult unused = WithSignature("token_pointer = \"/token\"\n");
  INFO(Dump(unused.errors));
  CHECK(unused.ok());
  CHECK(Find(unused.warnings, "endpoint[0].signature.token_pointer") != nullptr);
}

TEST_CASE("config: url_decode takes percent-escapes only", "[config]") {
  LoadResult ok = WithSignature("url_decode = [\"%3A\", \"%2f\"]\n");
  INFO(Dump(ok.errors));
  REQUIRE(ok.ok());
  CHECK(ok.config.endpoints.at(0).signature.url_decode == std::vector<std::string>{"%3A", "%2f"});

  for (const char* bad : {"3A", "%3", "%GZ", "%3A%2F", ":"}) {
    LoadResult r = WithSignature(std::string("url_decode = [\"%3A\", \"") + bad + "\"]\n");
    INFO(bad);
    const Problem* p = Find(r.errors, "endpoint[0].signature.url_decode[1]");
    REQUIRE(p != nullptr);
    CHECK(p->message.find("percent-escape") != std::string::npos);
  }
}

// signature_source, {field:…}, {sorted_fields} and {access_key} (the payment
// providers of wave 2: VNPay, MoMo, ZaloPay, payOS; verify/signed_fields.h).
TEST_CASE("config: a signature inside the delivery over fields loads, and its mistakes are named",
          "[config][vn_ua]") {
  LoadResult ok = WithSignature(
      "signature_source = \"json:/signature\"\naccess_key = \"AK\"\n"
      "signed_payload = \"accessKey={access_key}&amount={field:/amount}\"\n");
  INFO(Dump(ok.errors));
  REQUIRE(ok.ok());
  CHECK(ok.config.endpoints[0].signature.signature_source == "json:/signature");
  CHECK(ok.config.endpoints[0].signature.access_key == "AK");
  CHECK(WithSignature("signature_source = \"query:sig\"\n").ok());  // the body may stay signed (Viber's fallback)

  struct Bad {
    std::string lines, key, message;
  };
  const std::vector<Bad> cases = {
      {"signature_source = \"header:X\"\nsigned_payload = \"{field:/a}\"\n", "signature_source", "must be \"json:<pointer>\""},
      {"signature_source = \"json:sig\"\nsigned_payload = \"{field:/a}\"\n", "signature_source", ""},
      {"signature_source = \"json:/s\"\n", "signed_payload", "must not contain {body}"},
      {"signature_source = \"form:s\"\nsigned_payload = \"{field:/a}\"\n", "signature_source", "reads a form body"},
      {"signature_source = \"json:/s\"\nsignature_pointer = \"/s\"\nsigned_payload = \"{field:/a}\"\n",
       "signature_source", "not both"},
      {"scheme = \"token\"\nsignature_source = \"json:/s\"\nsigned_payload = \"{field:/a}\"\n", "signature_source",
       "only scheme = \"hmac\""},
      {"signature_source = \"json:/s\"\nsigned_payload = \"{field:a}\"\n", "signed_payload", ""},
      {"signature_source = \"json:/s\"\nsigned_payload = \"{sorted_fields}\"\n", "signed_payload",
       "only a provider preset defines"},
      {"signature_source = \"json:/s\"\nsigned_payload = \"{access_key}{field:/a}\"\n", "access_key",
       "signed_payload uses {access_key}: set access_key"},
      {"body_kind = \"form\"\nsigned_payload = \"{body}{field:/a}\"\n", "signed_payload", "reads a JSON body"},
      // A MAC over nothing of the delivery would be one constant, valid for any body.
      {"signature_source = \"json:/s\"\naccess_key = \"AK\"\nsigned_payload = \"{access_key}\"\n", "signed_payload",
       "signs none of the delivery"},
      {"signature_source = \"query:s\"\nsigned_payload = \"{timestamp}\"\ntimestamp_header = \"X-T\"\n",
       "signed_payload", "signs none of the delivery"},
  };
  for (const Bad& c : cases) {
    INFO(c.lines);
    LoadResult r = WithSignature(c.lines);
    CHECK_FALSE(r.ok());
    const Problem* p = Find(r.errors, "endpoint[0].signature." + c.key);
    REQUIRE(p != nullptr);
    CHECK_THAT(p->message, Catch::Contains(c.message));
  }
  LoadResult unused = WithSignature("access_key = \"AK\"\n");
  REQUIRE(unused.ok());
  const Problem* w = Find(unused.warnings, "endpoint[0].signature.access_key");
  REQUIRE(w != nullptr);
  CHECK_THAT(w->message, Catch::Contains("has no effect"));
}
