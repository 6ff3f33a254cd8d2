// verify/signed_fields.h: signatures inside the delivery and the field join
// ({sorted_fields}); the presets that use them are in presets_vn_ua_test.cpp.
#include "verify/signed_fields.h"

#include <catch2/catch.hpp>

// Designated initializers name only the options a case sets.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

struct Inputs {
  MapHeaders headers;
  std::string body;
  std::string query;
  nlohmann::json doc;
  FieldInputs Get(std::string_view body_kind = "form") {
    return {body_kind, headers, body, query, doc.is_null() ? nullptr : &doc};
  }
};

}  // namespace

TEST_CASE("signed fields: signature_source parses json:, form: and query:", "[verify][vn_ua]") {
  CHECK(ParseSignatureSource("json:/signature")->kind == "json");
  CHECK(ParseSignatureSource("form:signature")->name == "signature");
  CHECK(ParseSignatureSource("query:vnp_SecureHash")->kind == "query");
  CHECK_FALSE(ParseSignatureSource(""));
  CHECK_FALSE(ParseSignatureSource("json:"));
  CHECK_FALSE(ParseSignatureSource("json:signature"));  // not a pointer
  CHECK_FALSE(ParseSignatureSource("header:X-Sig"));
  CHECK_FALSE(ParseSignatureSource("signature"));
}

TEST_CASE("signed fields: the signature read from a field, a form or a query", "[verify][vn_ua]") {
  Inputs in{{}, "a=1&signature=+abc+", "sig=def&x=1", nlohmann::json{{"mac", " 012 "}, {"n", 5}}};
  CHECK(ReadSignatureSource(*ParseSignatureSource("json:/mac"), in.Get()).value() == "012");
  CHECK_FALSE(ReadSignatureSource(*ParseSignatureSource("json:/n"), in.Get()).value());  // not a string
  CHECK_FALSE(ReadSignatureSource(*ParseSignatureSource("json:/none"), in.Get()).value());
  CHECK(ReadSignatureSource(*ParseSignatureSource("form:signature"), in.Get()).value() == "abc");
  CHECK(ReadSignatureSource(*ParseSignatureSource("query:sig"), in.Get()).value() == "def");
  CHECK_FALSE(ReadSignatureSource(*ParseSignatureSource("query:none"), in.Get()).value());
  in.query = "sig=%zz";
  Result<std::optional<std::string>> bad = ReadSignatureSource(*ParseSignatureSource("query:sig"), in.Get());
  CHECK(bad.status().code() == Code::kUnauthenticated);
  CHECK(bad.status().message() == "malformed query");
  in.body = "a=%";
  CHECK(ReadSignatureSource(*ParseSignatureSource("form:a"), in.Get()).status().message() == "malformed form body");
}

TEST_CASE("signed fields: PHP urlencode, as VNPay's demo signs", "[verify][vn_ua]") {
  CHECK(PhpUrlEncode("Thanh toan 2024-05-21T02:17:31.249Z") == "Thanh+toan+2024-05-21T02%3A17%3A31.249Z");
  CHECK(PhpUrlEncode("a~b*c!d'e(f)") == "a%7Eb%2Ac%21d%27e%28f%29");
  CHECK(PhpUrlEncode("đ") == "%C4%91");
  CHECK(PhpUrlEncode("") == "");
}

TEST_CASE("signed fields: field text and the sorted join's options", "[verify][vn_ua]") {
  nlohmann::json doc = nlohmann::json::parse(
      R"({"data":{"b":"x y","a":2,"n":null,"e":"","t":true,"f":10.5,"o":{"z":1,"y":2}},"s":"text","big":18446744073709551615})");
  CHECK(FieldForSigning(&doc, "/s").value() == "text");
  CHECK(FieldForSigning(&doc, "/big").value() == "18446744073709551615");
  CHECK(FieldForSigning(&doc, "/data/f").value() == "10.5");
  CHECK(FieldForSigning(&doc, "/data/o").status().code() == Code::kUnauthenticated);
  CHECK(FieldForSigning(&doc, "/none").status().message() == "missing signed field");
  CHECK(FieldForSigning(nullptr, "/s").status().code() == Code::kUnauthenticated);

  Inputs in{{}, "", "", doc};
  config::FieldJoinConfig join{.source = "json:/data"};
  CHECK(SortedFieldsForSigning(join, in.Get()).value() == "a=2&b=x y&e=&f=10.5&n=&o={\"y\":2,\"z\":1}&t=true");
  join.null_as = "NULL";
  join.exclude = {"o", "t"};
  CHECK(SortedFieldsForSigning(join, in.Get()).value() == "a=2&b=x y&e=&f=10.5&n=NULL");
  join.skip_empty = true;
  join.values_only = true;
  join.separator = "|";
  join.null_as = "";
  CHECK(SortedFieldsForSigning(join, in.Get()).value() == "2|x y|10.5");
  join = {.source = "json:/s"};
  CHECK(SortedFieldsForSigning(join, in.Get()).status().message() == "missing signed fields");

  in.body = "vnp_B=b%20c&vnp_A=%7E&other=1&vnp_B=a&vnp_H=h";
  join = {.source = "form", .include_prefix = "vnp_", .exclude = {"vnp_H"}, .value_encoding = "php-urlencode"};
  // Sorted by name only, so a repeated name keeps its order.
  CHECK(SortedFieldsForSigning(join, in.Get()).value() == "vnp_A=%7E&vnp_B=b+c&vnp_B=a");
  in.query = "q=1&p=2";
  join = {.source = "query"};
  CHECK(SortedFieldsForSigning(join, in.Get()).value() == "p=2&q=1");
  in.query = "%";
  CHECK(SortedFieldsForSigning(join, in.Get()).status().code() == Code::kUnauthenticated);
}
