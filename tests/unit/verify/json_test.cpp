// Body parsing limits, JSON Pointer helpers and the canonical form behind the payload hash.
#include "verify/json.h"

#include <catch2/catch.hpp>

using namespace hookinbox;
using namespace hookinbox::verify;
using nlohmann::json;

namespace {

std::string Canon(std::string_view text) {
  Result<json> doc = ParseJson(text);
  REQUIRE(doc.ok());
  return CanonicalJson(*doc);
}

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("json: invalid JSON is InvalidArgument", "[verify]") {
  for (const char* bad : {"", "{", "{\"a\":}", "[1,]", "{'a':1}", "nul", "{\"a\":1} x", "/* c */ {}"}) {
    INFO(bad);
    Result<json> r = ParseJson(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK(r.status().message() == "body is not valid JSON");
  }
}

TEST_CASE("json: invalid UTF-8 and lone surrogates are InvalidArgument", "[verify]") {
  for (std::string bad : {std::string("{\"a\":\"\xff\"}"), std::string("{\"a\":\"\xc0\xaf\"}"),
                          std::string("{\"a\":\"\xed\xa0\x80\"}"), std::string("{\"a\":\"\\ud800\"}")}) {
    Result<json> r = ParseJson(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
  }
}

TEST_CASE("json: nesting up to 64 levels parses, 65 is refused", "[verify]") {
  CHECK(ParseJson(Nested(64)).ok());
  Result<json> deep = ParseJson(Nested(65));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.status().code() == Code::kInvalidArgument);
  CHECK(deep.status().message() == "JSON nested deeper than 64 levels");
  CHECK_FALSE(ParseJson(std::string(1000000, '[')).ok());
  SECTION("brackets inside strings do not count") {
    CHECK(ParseJson("{\"a\":\"" + std::string(100, '[') + "\\\"" + std::string(100, '{') + "\"}").ok());
  }
  SECTION("objects count like arrays") {
    std::string obj;
    for (int i = 0; i < 65; ++i) obj += "{\"a\":";
    obj += "1" + std::string(65, '}');
    CHECK_FALSE(ParseJson(obj).ok());
  }
}

TEST_CASE("json: canonical form sorts keys and drops whitespace", "[verify]") {
  CHECK(Canon(" { \"b\" : [ 1 , 2 ] ,\n\t\"a\" : { \"d\" : null , \"c\" : true } } ") ==
        R"({"a":{"c":true,"d":null},"b":[1,2]})");
  CHECK(Canon(R"({"b":1,"a":2})") == Canon(R"({"a":2,"b":1})"));
}

TEST_CASE("json: canonical form normalises numbers", "[verify]") {
  const std::pair<const char*, const char*> cases[] = {
      {"1.0", "1"},
      {"1e2", "100"},
      {"1E+2", "100"},
      {"-0", "0"},
      {"-0.0", "0"},
      {"100.000", "100"},
      {"9007199254740992.0", "9007199254740992"},  // 2^53, still exact
      {"-9007199254740992.0", "-9007199254740992"},
      {"12345678901234567890", "12345678901234567890"},  // uint64, kept exact
      {"-9223372036854775808", "-9223372036854775808"},
      {"1.5", "1.5"},
      {"0.1", "0.1"},
      {"1e300", "1e+300"},
      {"1e-7", "1e-07"},
  };
  for (const auto& [in, out] : cases) {
    INFO(in);
    CHECK(Canon(in) == out);
  }
  CHECK(Canon(R"({"n":1.0})") == Canon(R"({"n":1})"));
}

TEST_CASE("json: canonical strings keep UTF-8 and escape only what JSON requires", "[verify]") {
  CHECK(Canon(R"("caf\u00e9 \/ x")") == "\"caf\xc3\xa9 / x\"");
  CHECK(Canon(R"("q\"b\\n\n\u0001")") == R"("q\"b\\n\n\u0001")");
  CHECK(Canon("\"\xe2\x82\xac\"") == "\"\xe2\x82\xac\"");
}

TEST_CASE("json: pointers find values and survive malformed input", "[verify]") {
  json doc = json::parse(R"({"a":{"b~c":[10,{"d/e":"x"}]},"":1})");
  CHECK(FindPointer(doc, "/a/b~0c/0")->get<int>() == 10);
  CHECK(FindPointer(doc, "/a/b~0c/1/d~1e")->get<std::string>() == "x");
  CHECK(FindPointer(doc, "/")->get<int>() == 1);
  CHECK(FindPointer(doc, "") == &doc);
  for (const char* absent :
       {"/x", "/a/b~0c/2", "/a/b~0c/-", "/a/b~0c/01", "/a/b~0c/x", "/a/b~0c/99999999999999999999999"}) {
    INFO(absent);
    CHECK(FindPointer(doc, absent) == nullptr);
  }
  for (const char* malformed : {"a", "/a~2", "/a~"}) {
    INFO(malformed);
    CHECK(FindPointer(doc, malformed) == nullptr);
    CHECK_FALSE(IsValidJsonPointer(malformed));
  }
  CHECK(IsValidJsonPointer(""));
  CHECK(IsValidJsonPointer("/a/b~1c/0"));
}

TEST_CASE("json: RemovePointers removes present targets and ignores the rest", "[verify]") {
  json doc = json::parse(R"({"a":1,"b":{"c":2,"d":[1,2,3]},"e~f":3})");
  RemovePointers(doc, {"/a", "/b/d/1", "/e~0f", "/missing", "/b/d/7", "/a/x", "not-a-pointer", "", "/b/d/-"});
  CHECK(doc == json::parse(R"({"b":{"c":2,"d":[1,3]}})"));
}

TEST_CASE("json: a '*' segment in RemovePointers means every element or member", "[verify]") {
  const struct {
    const char* what;
    std::vector<std::string> pointers;
    const char* before;
    const char* after;
  } cases[] = {
      {"every element of a batch array", {"/*/attemptNumber"},
       R"([{"eventId":1,"attemptNumber":0},{"eventId":2,"attemptNumber":3},{"eventId":3}])",
       R"([{"eventId":1},{"eventId":2},{"eventId":3}])"},
      {"every member of an object", {"/tries/*/n"}, R"({"tries":{"a":{"n":1,"k":2},"b":{"n":2}}})",
       R"({"tries":{"a":{"k":2},"b":{}}})"},
      {"a trailing '*' empties the level", {"/meta/*"}, R"({"id":1,"meta":{"a":1,"b":[2]}})",
       R"({"id":1,"meta":{}})"},
      {"nested wildcards", {"/*/items/*/retry"}, R"([{"items":[{"retry":1,"v":1},{"v":2}]},{"items":[]}])",
       R"([{"items":[{"v":1},{"v":2}]},{"items":[]}])"},
      {"scalars and absent members under '*' are left alone", {"/*/n"}, R"([1,"x",null,{"m":1},{"n":2}])",
       R"([1,"x",null,{"m":1},{}])"},
      {"escapes still apply around '*'", {"/*/a~1b"}, R"([{"a/b":1,"c":2}])", R"([{"c":2}])"},
      {"'*' inside a segment is a plain name", {"/a*"}, R"({"a*":1,"ab":2})", R"({"ab":2})"},
      {"an index after '*'", {"/*/0"}, R"([[1,2],[3],[]])", R"([[2],[],[]])"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    json doc = json::parse(c.before);
    RemovePointers(doc, c.pointers);
    CHECK(doc == json::parse(c.after));
  }
}

// The receive path parses a body once and shares the parse.
TEST_CASE("ParsedBody: parses on first use, once; Take hands the document over", "[verify]") {
  const std::string body = R"({"id":"evt_1","type":"a"})";
  verify::ParsedBody parsed(body);
  const auto& first = parsed.Get();
  REQUIRE(first.ok());
  CHECK(&parsed.Get() == &first);  // the same parse, not a second one
  auto taken = parsed.Take();
  REQUIRE(taken.ok());
  CHECK((*taken)["id"] == "evt_1");
  (*taken)["id"] = "edited";  // the caller's now: a later Get() parses the bytes again
  REQUIRE(parsed.Get().ok());
  CHECK((*parsed.Get())["id"] == "evt_1");

  verify::ParsedBody bad("{not json");
  CHECK(bad.Get().status().code() == Code::kInvalidArgument);
}
