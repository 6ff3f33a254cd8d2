// Config for form bodies: signature.body_kind, {form_sorted_kv}, "form:"
// parts of key.fields, and secret_encoding = "html-entities" (WooCommerce).
#include <catch2/catch.hpp>

#include <cstdlib>

#include "config_test_util.h"

using namespace hookinbox::config;
using namespace hookinbox::config::test;

namespace {

// A generic endpoint with `signature` and `key` lines in their tables.
std::string FormEndpoint(const std::string& signature, const std::string& key) {
  return "[[endpoint]]\nname = \"demo\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
         "public_url = \"https://h.example.com/hooks/demo\"\n[endpoint.signature]\n" +
         signature + "[endpoint.key]\n" + key;
}

}  // namespace

TEST_CASE("config body_kind: json by default; form, multipart and raw accepted; others refused", "[config]") {
  LoadResult plain = Load(kEndpoint);
  REQUIRE(plain.ok());
  CHECK(plain.config.endpoints[0].signature.body_kind == "json");
  for (const char* kind : {"json", "form", "multipart", "raw"}) {
    LoadResult r = Load(FormEndpoint("body_kind = \"" + std::string(kind) + "\"\n", "id_header = \"X-Id\"\n"));
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(r.config.endpoints[0].signature.body_kind == kind);
  }
  const std::string toml = FormEndpoint("body_kind = \"xml\" #<\n", "id_header = \"X-Id\"\n");
  LoadResult bad = Load(toml);
  const Problem* p = Find(bad.errors, "endpoint[0].signature.body_kind");
  REQUIRE(p != nullptr);
  CHECK(p->line == MarkedLine(toml));
  CHECK(p->message == "must be one of json, form, multipart, raw (got \"xml\")");
}

TEST_CASE("config body_kind: {form_sorted_kv} replaces {body} but needs a form body kind", "[config]") {
  LoadResult ok = Load(FormEndpoint("body_kind = \"form\"\nsigned_payload = \"{url}{form_sorted_kv}\"\n",
                                    "fields = [\"form:MessageSid\"]\n"));
  INFO(Dump(ok.errors));
  CHECK(ok.ok());
  LoadResult json = Load(FormEndpoint("signed_payload = \"{url}{form_sorted_kv}\"\n", "id_header = \"X-Id\"\n"));
  const Problem* p = Find(json.errors, "endpoint[0].signature.signed_payload");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("uses {form_sorted_kv} but body_kind is \"json\""));
  LoadResult neither = Load(FormEndpoint("body_kind = \"form\"\nsigned_payload = \"{url}\"\n", "id_header = \"X-Id\"\n"));
  p = Find(neither.errors, "endpoint[0].signature.signed_payload");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("must contain {body} (or {form_sorted_kv}"));
}

TEST_CASE("config key.fields: a form: part needs a name and a form body kind", "[config]") {
  LoadResult json = Load(FormEndpoint("", "fields = [\"form:MessageSid\"]\n"));
  const Problem* p = Find(json.errors, "endpoint[0].key.fields[0]");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("reads a form field but signature.body_kind is \"json\""));
  LoadResult empty = Load(FormEndpoint("body_kind = \"multipart\"\n", "fields = [\"form:\"]\n"));
  p = Find(empty.errors, "endpoint[0].key.fields[0]");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("write a form field name"));
  LoadResult ok = Load(FormEndpoint("body_kind = \"multipart\"\n", "fields = [\"form:formID\", \"/submissionID\"]\n"));
  INFO(Dump(ok.errors));
  CHECK(ok.ok());
}

TEST_CASE("config secret_encoding html-entities: the five entities are decoded once, the rest kept", "[config]") {
  const struct {
    const char* stored;
    const char* key;
  } cases[] = {
      {"plain", "plain"},
      {"a&amp;b&lt;c&gt;d&quot;e&#039;f", "a&b<c>d\"e'f"},
      {"&amp;lt;", "&lt;"},             // one pass: not decoded twice
      {"&#39;&#x27;&#34;&#038;&#060;&#062;", "''\"&<>"},  // numeric spellings wp_specialchars_decode knows
      {"a&b &unknown; &amp", "a&b &unknown; &amp"},
  };
  for (const auto& c : cases) {
    INFO(c.stored);
    ::setenv("HOOKINBOX_CT_HTML_SECRET", c.stored, 1);
    LoadResult r = Load(
        "[[endpoint]]\nname = \"demo\"\nsecret_env = \"HOOKINBOX_CT_HTML_SECRET\"\n[endpoint.signature]\n"
        "secret_encoding = \"html-entities\"\n[endpoint.key]\nid_header = \"X-Id\"\n");
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    REQUIRE(r.config.endpoints[0].secrets.size() == 1);
    CHECK(r.config.endpoints[0].secrets[0].bytes() == c.key);
  }
}
