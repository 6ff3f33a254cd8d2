// Parsing signature formats and pulling candidates out of header values.
#include "verify/signature_header.h"

#include <catch2/catch.hpp>

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

SignatureFormat Format(std::string_view text) {
  Result<SignatureFormat> f = ParseSignatureFormat(text);
  INFO(text);
  REQUIRE(f.ok());
  return *f;
}

std::vector<std::string> Candidates(std::string_view format, std::string_view value) {
  Result<SignatureHeader> h = ParseSignatureHeader(Format(format), value);
  if (!h.ok()) return {"<" + h.status().message() + ">"};
  return {h->signatures.begin(), h->signatures.end()};
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("signature format: templates, key-value lists and versioned lists", "[verify]") {
  SignatureFormat bare = Format("{signature}");
  CHECK(bare.kind == SignatureFormat::Kind::kTemplate);
  CHECK(bare.prefix.empty());
  SignatureFormat prefixed = Format("sha256={signature}");
  CHECK(prefixed.kind == SignatureFormat::Kind::kTemplate);
  CHECK(prefixed.prefix == "sha256=");
  SignatureFormat kv = Format("t={timestamp}, v1={signature}");
  CHECK(kv.kind == SignatureFormat::Kind::kList);
  CHECK(kv.pair_separator == ',');
  CHECK(kv.signature_key == "v1");
  CHECK(kv.timestamp_key == "t");
  SignatureFormat versioned = Format("v1,{signature}");
  CHECK(versioned.kind == SignatureFormat::Kind::kList);
  CHECK(versioned.pair_separator == ' ');
  CHECK(versioned.kv_separator == ',');
  CHECK(versioned.signature_key == "v1");
  CHECK(versioned.timestamp_key.empty());
}

TEST_CASE("signature format: malformed formats are refused with a reason", "[verify]") {
  for (const char* bad :
       {"", "sha256=", "{signature}{signature}", "{timestamp}.{signature}", "{sig}", "x={signature},{timestamp}",
        "t={timestamp},v1={signature},v2={signature}", "v1={signature},t={other}", ",{signature}",
        "t={signature},t={timestamp}", "t={timestamp},t={timestamp},v1={signature}", "a b,{signature}"}) {
    INFO(bad);
    Result<SignatureFormat> f = ParseSignatureFormat(bad);
    REQUIRE_FALSE(f.ok());
    CHECK(f.status().code() == Code::kInvalidArgument);
    CHECK_THAT(f.status().message(), Catch::StartsWith("signature.format: "));
  }
}

// PagerDuty and Revolut write "v1={signature}," (presets_devtools.cpp,
// presets_shops_payments.cpp): one trailing separator, a list of one key.
TEST_CASE("signature format: a trailing separator makes a key-value list of one key", "[verify][presets]") {
  Result<SignatureFormat> f = ParseSignatureFormat("v1={signature},");
  REQUIRE(f.ok());
  CHECK(f->kind == SignatureFormat::Kind::kList);
  CHECK(f->signature_key == "v1");
  CHECK(f->timestamp_key.empty());
  Result<SignatureHeader> h = ParseSignatureHeader(*f, "v1=aa, v1=bb,v0=cc");
  REQUIRE(h.ok());
  CHECK(h->signatures == std::vector<std::string_view>{"aa", "bb"});
  CHECK(ParseSignatureHeader(*f, "v0=cc").status().code() == Code::kUnauthenticated);
  // Only one trailing separator; an empty part elsewhere is still an error.
  CHECK_FALSE(ParseSignatureFormat("v1={signature},,").ok());
  CHECK_FALSE(ParseSignatureFormat(",v1={signature}").ok());
  // Still refused: a part that is neither key={signature} nor key={timestamp}.
  CHECK_FALSE(ParseSignatureFormat("v1={signature},x").ok());
}

TEST_CASE("signature header: templates strip prefix and suffix", "[verify]") {
  CHECK(Candidates("{signature}", "abc") == V{"abc"});
  CHECK(Candidates("sha256={signature}", "sha256=abc") == V{"abc"});
  CHECK(Candidates("Bearer {signature}", "bearer tok") == V{"tok"});
  CHECK(Candidates("<{signature}>", " <abc> ") == V{"abc"});
  CHECK(Candidates("sha256={signature}", "sha1=abc") == V{"<malformed signature>"});
  CHECK(Candidates("sha256={signature}", "sha256=") == V{"<malformed signature>"});
  CHECK(Candidates("sha256={signature}", "abc") == V{"<malformed signature>"});
  CHECK(Candidates("{signature}", "   ") == V{"<malformed signature>"});
}

TEST_CASE("signature header: key-value lists match by key, in any order, many times", "[verify]") {
  const char* kFormat = "t={timestamp},v1={signature}";
  SECTION("every v1 part is a candidate and the t part is the timestamp") {
    Result<SignatureHeader> h = ParseSignatureHeader(Format(kFormat), "t=170,v1=aa,v0=zz,v1=bb");
    REQUIRE(h.ok());
    CHECK(V(h->signatures.begin(), h->signatures.end()) == V{"aa", "bb"});
    CHECK(h->timestamp == std::string_view("170"));
  }
  SECTION("order, spaces, unknown parts and values containing '=' do not matter") {
    Result<SignatureHeader> h = ParseSignatureHeader(Format(kFormat), " v1=ab== , x , scheme=v2 , t=9 ");
    REQUIRE(h.ok());
    CHECK(V(h->signatures.begin(), h->signatures.end()) == V{"ab=="});
    CHECK(h->timestamp == std::string_view("9"));
  }
  SECTION("the timestamp part may be absent; Verify decides whether that matters") {
    Result<SignatureHeader> h = ParseSignatureHeader(Format(kFormat), "v1=aa");
    REQUIRE(h.ok());
    CHECK_FALSE(h->timestamp);
  }
  CHECK(Candidates(kFormat, "t=1,v0=aa") == V{"<malformed signature>"});
  CHECK(Candidates(kFormat, "t=1,v1=") == V{"<malformed signature>"});
  CHECK(Candidates(kFormat, "t=1,t=2,v1=aa") == V{"<malformed signature>"});
  CHECK(Candidates(kFormat, "garbage") == V{"<malformed signature>"});
}

TEST_CASE("signature header: versioned lists take every entry of the version", "[verify]") {
  CHECK(Candidates("v1,{signature}", "v1,aGVsbG8= v2,eA== v1,d29ybGQ=") == V{"aGVsbG8=", "d29ybGQ="});
  CHECK(Candidates("v1,{signature}", "v1,a  v1,b") == V{"a", "b"});
  CHECK(Candidates("v1,{signature}", "v2,aGVsbG8=") == V{"<malformed signature>"});
}

TEST_CASE("signature header: a list separator other than ',' is a field, not a rewrite", "[verify]") {
  // Paddle-style "ts=..;h1=..": what a preset will configure.
  SignatureFormat f;
  f.kind = SignatureFormat::Kind::kList;
  f.pair_separator = ';';
  f.signature_key = "h1";
  f.timestamp_key = "ts";
  Result<SignatureHeader> h = ParseSignatureHeader(f, "ts=1671552777;h1=eb4d0d;h1=aa");
  REQUIRE(h.ok());
  CHECK(V(h->signatures.begin(), h->signatures.end()) == V{"eb4d0d", "aa"});
  CHECK(h->timestamp == std::string_view("1671552777"));
}

TEST_CASE("signature format: a key-value list uses ',' or ';' as its format does", "[verify]") {
  const struct {
    const char* format;
    char separator;
  } cases[] = {
      {"t={timestamp},v1={signature}", ','},
      {"ts={timestamp};h1={signature}", ';'},
      {"h1={signature}; ts={timestamp}", ';'},
      {"h1={signature}", '\0'},  // a template: no separator at all
  };
  for (const auto& c : cases) {
    INFO(c.format);
    SignatureFormat f = Format(c.format);
    if (c.separator == '\0') {
      CHECK(f.kind == SignatureFormat::Kind::kTemplate);
    } else {
      CHECK(f.kind == SignatureFormat::Kind::kList);
      CHECK(f.pair_separator == c.separator);
      CHECK(f.kv_separator == '=');
    }
  }
  SECTION("a Paddle header splits on ';' and keeps every h1") {
    CHECK(Candidates("ts={timestamp};h1={signature}", "ts=1671552777;h1=eb4d0d;h1=aa") == V{"eb4d0d", "aa"});
  }
  SECTION("mixing both separators, or ';' without key=value parts, is refused") {
    for (const char* bad : {"ts={timestamp};h1={signature},x={timestamp}", "ts={timestamp},h1={signature};",
                            "{timestamp};{signature}", "v1;{signature}"}) {
      INFO(bad);
      Result<SignatureFormat> f = ParseSignatureFormat(bad);
      REQUIRE_FALSE(f.ok());
      CHECK_THAT(f.status().message(), Catch::StartsWith("signature.format: "));
    }
  }
}
