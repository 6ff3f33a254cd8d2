// Form bodies: the x-www-form-urlencoded and multipart/form-data parsers,
// {form_sorted_kv}, Twilio's bodySHA256 and default-port rules, and Identify
// over form fields. The Twilio vector is the one Twilio's own signature
// validation samples use (auth token "12345").
#include <catch2/catch.hpp>

#include <string>

#include "common/encoding.h"
#include "verify/crypto.h"
#include "verify/form.h"
#include "verify/signed_payload.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

std::string Fields(const Result<std::vector<FormField>>& r) {
  std::string out;
  for (const FormField& f : *r) out += "[" + f.name + "=" + f.value + "]";
  return out;
}

const std::string kB = "XyZ-boundary";

std::string Part(const std::string& name, const std::string& value) {
  return "--" + kB + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
}

}  // namespace

TEST_CASE("form urlencoded: names and values are decoded, repeated names kept in order", "[verify]") {
  const struct {
    const char* body;
    const char* fields;
  } cases[] = {
      {"", ""},
      {"a=1", "[a=1]"},
      {"a=1&b=2&a=3", "[a=1][b=2][a=3]"},
      {"Body=Hello+world%21&To=%2B15558675310", "[Body=Hello world!][To=+15558675310]"},
      {"a=1&&b=2&", "[a=1][b=2]"},  // empty pieces skipped
      {"flag&x=", "[flag=][x=]"},    // no '=' or nothing after it: empty value
      {"k%3D=v%3Dw=z", "[k==v=w=z]"},
      {"%e2%9c%93=%E2%9C%93", "[\xe2\x9c\x93=\xe2\x9c\x93]"},
  };
  for (const auto& c : cases) {
    INFO(c.body);
    Result<std::vector<FormField>> r = ParseUrlEncoded(c.body);
    REQUIRE(r.ok());
    CHECK(Fields(r) == c.fields);
  }
}

TEST_CASE("form urlencoded: a malformed %-escape or too many fields is InvalidArgument", "[verify]") {
  for (const char* body : {"a=%", "a=%4", "a=%zz", "a=%4g", "%=1", "a=1&b=%x1"}) {
    INFO(body);
    CHECK(ParseUrlEncoded(body).status().code() == Code::kInvalidArgument);
  }
  std::string many;
  for (size_t i = 0; i <= kMaxFormFields; ++i) many += "a=1&";
  Result<std::vector<FormField>> r = ParseUrlEncoded(many);
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Catch::Contains("more than 1000 fields"));
}

TEST_CASE("form multipart: the boundary comes from the Content-Type parameter", "[verify]") {
  CHECK(MultipartBoundary("multipart/form-data; boundary=abc") == "abc");
  CHECK(MultipartBoundary("Multipart/Form-Data; charset=utf-8; Boundary=\"a b;c\"") == "a b;c");
  CHECK(!MultipartBoundary("multipart/form-data"));
  CHECK(!MultipartBoundary("multipart/form-data; boundary="));
  CHECK(!MultipartBoundary("multipart/form-data; boundary=" + std::string(71, 'x')));
  CHECK(!MultipartBoundary("application/x-www-form-urlencoded; boundary=abc"));
  CHECK(!MultipartBoundary("multipart/form-data; boundary=\"abc"));
}

TEST_CASE("form multipart: text fields in order, file parts skipped, preamble ignored", "[verify]") {
  const std::string body = "preamble text\r\n" + Part("formID", "241234") + Part("submissionID", "5890123") +
                           "--" + kB +
                           "\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"a.txt\"\r\n"
                           "Content-Type: text/plain\r\n\r\nfile\r\nbytes\r\n" +
                           "--" + kB + "\r\ncontent-disposition: FORM-DATA; name=\"q\\\"uote\"\r\n\r\nline1\r\nline2\r\n" +
                           "--" + kB + "\r\nContent-Disposition: form-data; name=\"f2\"; filename*=UTF-8''a.txt\r\n\r\nx\r\n" +
                           "--" + kB + "--\r\nepilogue";
  Result<std::vector<FormField>> r = ParseMultipart(body, kB);
  REQUIRE(r.ok());
  CHECK(Fields(r) == "[formID=241234][submissionID=5890123][q\"uote=line1\r\nline2]");
  // The body may also start with the delimiter, and a value may be empty.
  Result<std::vector<FormField>> bare = ParseMultipart(Part("a", "") + "--" + kB + "--", kB);
  REQUIRE(bare.ok());
  CHECK(Fields(bare) == "[a=]");
}

TEST_CASE("form multipart: malformed bodies are InvalidArgument", "[verify]") {
  const std::string close = "--" + kB + "--\r\n";
  const struct {
    const char* what;
    std::string body;
  } cases[] = {
      {"no opening boundary", "name=value"},
      {"no closing boundary", Part("a", "1")},
      {"truncated after a delimiter", Part("a", "1") + "--" + kB},
      {"garbage after a delimiter", "--" + kB + "xx\r\n" + close},
      {"no blank line after headers", "--" + kB + "\r\nContent-Disposition: form-data; name=\"a\"\r\n--" + kB + "--"},
      {"no Content-Disposition", "--" + kB + "\r\nContent-Type: text/plain\r\n\r\nv\r\n" + close},
      {"headerless part", "--" + kB + "\r\n\r\nv\r\n" + close},
      {"not form-data", "--" + kB + "\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n" + close},
      {"no name", "--" + kB + "\r\nContent-Disposition: form-data\r\n\r\nv\r\n" + close},
      {"empty name", "--" + kB + "\r\nContent-Disposition: form-data; name=\"\"\r\n\r\nv\r\n" + close},
      {"unclosed quote", "--" + kB + "\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n" + close},
      {"header line without colon", "--" + kB + "\r\nContent-Disposition form-data\r\n\r\nv\r\n" + close},
      {"huge header block", "--" + kB + "\r\nX-Pad: " + std::string(kMaxPartHeaderBytes, 'p') +
                                "\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n" + close},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    CHECK(ParseMultipart(c.body, kB).status().code() == Code::kInvalidArgument);
  }
  std::string many;
  for (size_t i = 0; i <= kMaxFormFields; ++i) many += Part("f", "1");
  CHECK(ParseMultipart(many + close, kB).status().code() == Code::kInvalidArgument);
}

TEST_CASE("form multipart: a hostile body of near-delimiters is read in one linear pass", "[verify]") {
  // 1 MiB of "\r\n--XyZ-boundar" (one byte short of a delimiter) inside one
  // part: each search resumes where the last stopped, so this finishes fast.
  std::string filler;
  while (filler.size() < (1 << 20)) filler += "\r\n--XyZ-boundar";
  Result<std::vector<FormField>> r = ParseMultipart(Part("a", filler) + "--" + kB + "--", kB);
  REQUIRE(r.ok());
  CHECK(r->at(0).value.size() == filler.size());
}

TEST_CASE("form fields: ReadFormFields picks the parser by body_kind and reads the boundary header", "[verify]") {
  MapHeaders multipart{{"Content-Type", "multipart/form-data; boundary=" + kB}};
  CHECK(Fields(ReadFormFields("multipart", multipart, Part("a", "1") + "--" + kB + "--")) == "[a=1]");
  CHECK(ReadFormFields("multipart", MapHeaders{{"Content-Type", "multipart/form-data"}}, "x").status().code() ==
        Code::kInvalidArgument);
  CHECK(Fields(ReadFormFields("form", MapHeaders{}, "a=1")) == "[a=1]");
  CHECK(ReadFormFields("json", MapHeaders{}, "{}").status().code() == Code::kInvalidArgument);
}

TEST_CASE("form_sorted_kv: sorted by name, name then value, repeated names' distinct values sorted", "[verify]") {
  CHECK(FormSortedKv({}) == "");
  CHECK(FormSortedKv({{"To", "+1"}, {"Body", "hi"}, {"AccountSid", "AC1"}}) == "AccountSidAC1BodyhiTo+1");
  // twilio-node: a repeated name contributes each distinct value, values sorted.
  CHECK(FormSortedKv({{"b", "2"}, {"a", "z"}, {"b", "1"}, {"a", "y"}, {"b", "2"}}) == "ayazb1b2");
  CHECK(FormSortedKv({{"B", "1"}, {"a", "1"}}) == "B1a1");  // bytewise: upper case first
}

TEST_CASE("form_sorted_kv: the placeholder expands like any other", "[verify]") {
  SignedParts parts{"", std::nullopt, std::nullopt, std::nullopt, "https://h/x", std::nullopt};
  CHECK(ExpandSignedPayload("{url}{form_sorted_kv}", parts).status().code() == Code::kInvalidArgument);
  parts.form_sorted_kv = "a1b2";
  CHECK(ExpandSignedPayload("{url}{form_sorted_kv}", parts).value() == "https://h/xa1b2");
}

TEST_CASE("form signing: bodySHA256 in the query stands for the body", "[verify]") {
  const std::string body = R"({"CallSid":"CA1"})";
  const std::string hash = HexEncode(Sha256(body));
  MapHeaders h{{"Content-Type", "application/json"}};
  CHECK(FormKvForSigning("form", h, body, "bodySHA256=" + hash).value() == "");
  CHECK(FormKvForSigning("form", h, body, "x=1&bodySHA256=" + hash).value() == "");
  Result<std::string> wrong = FormKvForSigning("form", h, body + " ", "bodySHA256=" + hash);
  CHECK(wrong.status().code() == Code::kUnauthenticated);
  CHECK(wrong.status().message() == "body hash mismatch");
  CHECK(FormKvForSigning("form", h, body, "").status().message() == "a JSON body must be signed through bodySHA256");
  MapHeaders form{{"Content-Type", "application/x-www-form-urlencoded"}};
  CHECK(FormKvForSigning("form", form, "b=2&a=1", "").value() == "a1b2");
  CHECK(FormKvForSigning("form", form, "a=%zz", "").status().message() == "malformed form body");
}

TEST_CASE("form signing: default-port variants of a URL", "[verify]") {
  using V = std::vector<std::string>;
  CHECK(DefaultPortVariants("https://h.example.com/hooks/t") == V{"https://h.example.com:443/hooks/t"});
  CHECK(DefaultPortVariants("https://h.example.com:443/hooks/t") == V{"https://h.example.com/hooks/t"});
  CHECK(DefaultPortVariants("http://h.example.com") == V{"http://h.example.com:80"});
  CHECK(DefaultPortVariants("http://[::1]:80/x") == V{"http://[::1]/x"});
  CHECK(DefaultPortVariants("https://[::1]/x") == V{"https://[::1]:443/x"});
  CHECK(DefaultPortVariants("https://h.example.com:8443/x").empty());
  CHECK(DefaultPortVariants("ftp://h/x").empty());
}

TEST_CASE("form signing: Twilio's published sample verifies through a generic endpoint", "[verify]") {
  config::EndpointConfig e;
  e.public_url = "https://mycompany.com/myapp.php";
  e.signature.header = "X-Twilio-Signature";
  e.signature.algorithm = "sha1";
  e.signature.encoding = "base64";
  e.signature.signed_payload = "{url}{form_sorted_kv}";
  e.signature.body_kind = "form";
  const std::vector<Secret> secrets{Secret(std::string("12345"))};
  const std::string body = "CallSid=CA1234567890ABCDE&Caller=%2B14158675310&Digits=1234&From=%2B14158675310"
                           "&To=%2B18005551212";
  MapHeaders h{{"Content-Type", "application/x-www-form-urlencoded"},
               {"X-Twilio-Signature", "GvWf1cFY/Q7PnoempGyD5oXAezc="}};
  const int64_t now = 1767225600000;
  CHECK(Verify(e, secrets, DeliveryView{"POST", "/hooks/t", h, body, "foo=1&bar=2"}, now).ok());
  // The same delivery configured with the explicit default port still verifies.
  e.public_url = "https://mycompany.com:443/myapp.php";
  CHECK(Verify(e, secrets, DeliveryView{"POST", "/hooks/t", h, body, "foo=1&bar=2"}, now).ok());
  // Another query, another parameter order in the body: order does not matter, the query does.
  const std::string reordered = "To=%2B18005551212&Digits=1234&CallSid=CA1234567890ABCDE&Caller=%2B14158675310"
                                "&From=%2B14158675310";
  CHECK(Verify(e, secrets, DeliveryView{"POST", "/hooks/t", h, reordered, "foo=1&bar=2"}, now).ok());
  CHECK(Verify(e, secrets, DeliveryView{"POST", "/hooks/t", h, body, "foo=1&bar=3"}, now).code() ==
        Code::kUnauthenticated);
  // A malformed form body is refused as unauthenticated, not guessed at.
  CHECK(Verify(e, secrets, DeliveryView{"POST", "/hooks/t", h, body + "&x=%", "foo=1&bar=2"}, now).code() ==
        Code::kUnauthenticated);
}

TEST_CASE("form identify: pointers and form: parts read fields; the payload hash is of the raw bytes", "[verify]") {
  config::EndpointConfig e;
  e.signature.body_kind = "form";
  e.key.fields = {"form:MessageSid", "/MessageStatus"};
  e.key.event_type_pointer = "/MessageStatus";
  MapHeaders h{{"Content-Type", "application/x-www-form-urlencoded"}};
  const std::string body = "MessageSid=SM1&MessageStatus=delivered&MessageStatus=ignored";
  Result<EventIdentity> id = Identify(e, h, body, false);
  REQUIRE(id.ok());
  CHECK(id->event_id == "SM1:delivered");  // a repeated name gives its first value
  CHECK(id->event_type == "delivered");
  CHECK(id->payload_hash == HexEncode(Sha256(body)));

  e.key.fields = {"form:Missing"};
  CHECK(Identify(e, h, body, false).status().code() == Code::kInvalidArgument);
  e.key.fields = {"/MessageSid/x"};  // a field has no members: one segment only
  CHECK(Identify(e, h, body, false).status().code() == Code::kInvalidArgument);
  e.key.fields = {"form:MessageSid"};
  CHECK(Identify(e, h, "MessageSid=%", false).status().code() == Code::kInvalidArgument);
  e.key.fields = {"form:a/b"};  // a name with '/' is escaped in its pointer
  CHECK(Identify(e, h, "a%2Fb=v", false)->event_id == "v");
  e.key.fields = {};
  e.key.canonical_hash = true;  // a form body's hash key is the hash of its raw bytes
  CHECK(Identify(e, h, body, false)->event_id == "sha256:" + HexEncode(Sha256(body)));
  e.key.canonical_hash = false;

  e.signature.body_kind = "multipart";
  e.key.fields = {};
  e.key.id_pointer = "/submissionID";
  e.key.event_type_pointer = "";
  MapHeaders mh{{"Content-Type", "multipart/form-data; boundary=" + kB}};
  Result<EventIdentity> mid = Identify(e, mh, Part("submissionID", "58901") + "--" + kB + "--", false);
  REQUIRE(mid.ok());
  CHECK(mid->event_id == "58901");
  CHECK(Identify(e, MapHeaders{{"Content-Type", "multipart/form-data"}}, "x", false).status().code() ==
        Code::kInvalidArgument);
}

TEST_CASE("form send-test: sample bodies parse back into the fields the key reads", "[verify]") {
  config::EndpointConfig e;
  e.name = "t";
  e.signature.body_kind = "form";
  e.key.fields = {"form:MessageSid", "/MessageStatus"};
  e.key.event_type_pointer = "/Kind";
  const std::string body = SampleFormBody(e, "a b&c", "id 1");
  Result<std::vector<FormField>> r = ParseUrlEncoded(body);
  REQUIRE(r.ok());
  CHECK(Fields(r) == "[MessageSid=id 1_1][MessageStatus=id 1_2][Kind=a b&c][hookinbox=send-test][endpoint=t]");

  e.signature.body_kind = "multipart";
  const std::string multipart = SampleFormBody(e, "x", "id");
  const std::string type = FormContentType("multipart/form-data", multipart);
  CHECK(type == "multipart/form-data; boundary=\"" + std::string(kSampleBoundary) + "\"");
  Result<std::vector<FormField>> m = ReadFormFields("multipart", MapHeaders{{"Content-Type", type}}, multipart);
  REQUIRE(m.ok());
  CHECK(m->size() == 5);
  CHECK(FormContentType("application/json", multipart) == "application/json");
}
