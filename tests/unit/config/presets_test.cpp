// Provider presets as the loader sees them: through a PresetLookup supplied by
// the caller (the real table lives in verify/ and is tested there). Here a
// small fake table proves the mechanism: the preset is the starting value,
// file keys override it, and validation sees the merged endpoint.
#include <catch2/catch.hpp>

#include <string>

#include "config/load.h"
#include "config_test_util.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::config::test::Find;
using hookinbox::config::test::Load;
using hookinbox::config::test::MarkedLine;

namespace {

// "acme": a full HMAC preset with a header id; "urly": signs {url}; "bare": no key source.
const EndpointConfig& Acme() {
  static const EndpointConfig e = [] {
    EndpointConfig c;
    c.signature.header = "Acme-Signature";
    c.signature.format = "t={timestamp},v1={signature}";
    c.signature.signed_payload = "{timestamp}.{body}";
    c.signature.tolerance_seconds = 120;
    c.key.id_header = "Acme-Id";
    c.key.event_type_pointer = "/type";
    c.volatile_fields = {"/attempt"};
    return c;
  }();
  return e;
}

const EndpointConfig& Urly() {
  static const EndpointConfig e = [] {
    EndpointConfig c;
    c.signature.signed_payload = "{url}{body}";
    c.key.id_pointer = "/event_id";
    return c;
  }();
  return e;
}

const EndpointConfig& Bare() {
  static const EndpointConfig e;
  return e;
}

const PresetLookup& Presets() {
  static const PresetLookup lookup{[](std::string_view name) -> const EndpointConfig* {
                                     if (name == "acme" || name == "acme-alias") return &Acme();
                                     if (name == "urly") return &Urly();
                                     if (name == "bare") return &Bare();
                                     return nullptr;
                                   },
                                   {"acme", "acme-alias", "urly", "bare"}};
  return lookup;
}

LoadResult LoadWithPresets(const std::string& toml) {
  ::setenv(hookinbox::config::test::kBaseSecretVar, "base-secret-value", 1);
  return LoadString(toml, "test.toml", "/etc/hookinbox", &Presets());
}

const std::string kSecret = "secret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n";

}  // namespace

TEST_CASE("config presets: a preset fills the endpoint wherever provider appears", "[config]") {
  for (const std::string& toml : std::vector<std::string> {
           "[[endpoint]]\nprovider = \"acme\"\nname = \"a\"\n" + kSecret,
           "[[endpoint]]\nname = \"a\"\n" + kSecret + "provider = \"acme\"\n",
           "[[endpoint]]\nname = \"a\"\n" + kSecret + "provider = \"acme-alias\"\n",
       }) {
    INFO(toml);
    LoadResult r = LoadWithPresets(toml);
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    const EndpointConfig& e = r.config.endpoints.at(0);
    CHECK(e.name == "a");
    CHECK(e.signature.header == "Acme-Signature");
    CHECK(e.signature.format == "t={timestamp},v1={signature}");
    CHECK(e.signature.tolerance_seconds == 120);
    CHECK(e.key.id_header == "Acme-Id");
    CHECK(e.volatile_fields == std::vector<std::string>{"/attempt"});
    CHECK(e.secrets.size() == 1);
  }
}

TEST_CASE("config presets: keys written in the file override the preset", "[config]") {
  LoadResult r = LoadWithPresets("[[endpoint]]\nname = \"a\"\nprovider = \"acme\"\n" + kSecret +
                                 "volatile_fields = []\n"
                                 "[endpoint.signature]\nheader = \"X-Other\"\ntolerance_seconds = 600\n"
                                 "[endpoint.key]\nid_pointer = \"/data/id\"\nevent_type_header = \"X-Type\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const EndpointConfig& e = r.config.endpoints.at(0);
  CHECK(e.signature.header == "X-Other");
  CHECK(e.signature.tolerance_seconds == 600);
  CHECK(e.signature.format == "t={timestamp},v1={signature}");  // not written: still the preset's
  // Naming another id or event type source replaces the preset's, rather than conflicting with it.
  CHECK(e.key.id_pointer == "/data/id");
  CHECK(e.key.id_header.empty());
  CHECK(e.key.event_type_header == "X-Type");
  CHECK(e.key.event_type_pointer.empty());
  CHECK(e.volatile_fields.empty());
}

TEST_CASE("config presets: an unknown provider lists generic and every preset name", "[config]") {
  const std::string toml = "[[endpoint]]\nname = \"a\"\nprovider = \"acmee\" #<\n" + kSecret +
                           "[endpoint.key]\nid_header = \"X-Id\"\n";
  LoadResult r = LoadWithPresets(toml);
  const Problem* p = Find(r.errors, "endpoint[0].provider");
  REQUIRE(p != nullptr);
  CHECK(p->line == MarkedLine(toml));
  CHECK(p->message == "unknown provider \"acmee\"; supported: generic, acme, acme-alias, urly, bare");

  // Without a lookup only "generic" exists, as before presets.
  LoadResult plain = Load("[[endpoint]]\nname = \"a\"\nprovider = \"acme\"\n" + kSecret +
                          "[endpoint.key]\nid_header = \"X-Id\"\n");
  p = Find(plain.errors, "endpoint[0].provider");
  REQUIRE(p != nullptr);
  CHECK(p->message == "unknown provider \"acme\"; supported: generic");
}

TEST_CASE("config presets: a preset signing {url} needs public_url, reported with key and line", "[config]") {
  const std::string toml = "[[endpoint]] #<\nname = \"pay\"\nprovider = \"urly\"\n" + kSecret;
  LoadResult r = LoadWithPresets(toml);
  const Problem* p = Find(r.errors, "endpoint[0].public_url");
  INFO(Dump(r.errors));
  REQUIRE(p != nullptr);
  CHECK(p->line == MarkedLine(toml));
  CHECK_THAT(p->message, Catch::Contains("required for provider \"urly\"") &&
                             Catch::Contains("https://hooks.example.com/hooks/pay"));
  CHECK(r.errors.size() == 1);

  LoadResult ok = LoadWithPresets(toml + "public_url = \"https://hooks.example.com/hooks/pay\"\n");
  INFO(Dump(ok.errors));
  CHECK(ok.ok());
}

TEST_CASE("config presets: validation sees the preset's values", "[config]") {
  // The preset gives no key source, so the endpoint has none.
  LoadResult r = LoadWithPresets("[[endpoint]]\nname = \"a\"\nprovider = \"bare\"\n" + kSecret);
  const Problem* p = Find(r.errors, "endpoint[0].key");
  REQUIRE(p != nullptr);
  CHECK_THAT(p->message, Catch::Contains("where the event id comes from"));
  // An allow-list is fine because the preset names the event type.
  LoadResult ok = LoadWithPresets("[[endpoint]]\nname = \"a\"\nprovider = \"acme\"\n" + kSecret +
                                  "event_types = [\"invoice.paid\"]\n");
  INFO(Dump(ok.errors));
  CHECK(ok.ok());
}

TEST_CASE("config presets: key.fields takes JSON Pointers and header:<Name>", "[config]") {
  const std::string head = "[[endpoint]]\nname = \"a\"\n" + kSecret + "[endpoint.key]\n";
  LoadResult ok = Load(head + "fields = [\"header:X-GitHub-Hook-ID\", \"header:X-GitHub-Delivery\", \"/data/id\"]\n");
  INFO(Dump(ok.errors));
  CHECK(ok.ok());

  struct Case {
    std::string field;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"header:", "after \"header:\" write a header name"},
           {"header:X Bad", "after \"header:\" write a header name"},
           {"header:X:Y", "after \"header:\" write a header name"},
           {"Header:X-Id", "must be a JSON Pointer (\"/data/id\") or a header written \"header:<Name>\""},
           {"hdr:X-Id", "must be a JSON Pointer"},
           {"data/id", "must be a JSON Pointer"},
       }) {
    const std::string toml = head + "fields = [\"/ok\", \"" + c.field + "\"] #<\n";
    INFO(toml);
    LoadResult r = Load(toml);
    const Problem* p = Find(r.errors, "endpoint[0].key.fields[1]");
    REQUIRE(p != nullptr);
    CHECK(p->line == MarkedLine(toml));
    CHECK_THAT(p->message, Catch::Contains(c.message));
  }
}
