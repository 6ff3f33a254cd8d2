// Form bodies through the real binary: a Twilio status callback signed here
// with OpenSSL (HMAC-SHA1 over the configured URL and the sorted fields) is
// accepted, its repeat is a duplicate and a forged one is refused; a Jotform
// multipart submission is accepted on an endpoint that opted in to unsigned
// deliveries; send-test signs form and multipart samples the server accepts.
#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>
#include <regex>
#include <string>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

constexpr const char* kTwilioToken = "twilio-integration-auth-token";
constexpr const char* kTwilioUrl = "https://hooks.example.com/hooks/twilio";
constexpr const char* kForm = "application/x-www-form-urlencoded";

std::string HmacSha1Base64(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  unsigned char out[64];
  int n = EVP_EncodeBlock(out, mac, static_cast<int>(len));
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

struct FormServer {
  Installation inst;
  ServerProcess server{inst};
  FormServer() {
    ::setenv("HOOKINBOX_IT_TWILIO_TOKEN", kTwilioToken, 1);
    inst.WriteTestConfig(std::string(R"(
[[endpoint]]
name = "twilio"
provider = "twilio"
secret_env = "HOOKINBOX_IT_TWILIO_TOKEN"
public_url = ")") + kTwilioUrl + R"("

[[endpoint]]
name = "forms"
provider = "jotform"
insecure = true
)");
    server.Start();
  }
  CommandResult Send(const std::string& args) const {
    return RunCommand(BinaryPath() + " send-test " + args + " -c " + inst.config_path() +
                      " --url https://127.0.0.1:" + std::to_string(server.port()) + " 2>&1");
  }
};

// A status callback as Twilio sends it, and its fields sorted by name
// (name then decoded value), written out by hand.
const std::string kBody =
    "AccountSid=AC0123456789abcdef0123456789abcdef&To=%2B15558675310&MessageStatus=delivered"
    "&MessageSid=SM5b3a1f0c2d4e6f8091a2b3c4d5e6f708&From=%2B15017122661&Body=Hello+there";
const std::string kSorted =
    "AccountSidAC0123456789abcdef0123456789abcdefBodyHello thereFrom+15017122661"
    "MessageSidSM5b3a1f0c2d4e6f8091a2b3c4d5e6f708MessageStatusdeliveredTo+15558675310";

}  // namespace

TEST_CASE("form: a signed Twilio callback is accepted, repeated is a duplicate, forged is 401", "[integration]") {
  FormServer s;
  const std::string signature = HmacSha1Base64(kTwilioToken, kTwilioUrl + kSorted);
  HttpResult first = s.server.Request("POST", "/hooks/twilio", kBody, {{"X-Twilio-Signature", signature}}, kForm);
  INFO(first.body);
  CHECK(first.status == 200);
  CHECK(first.body.find("\"accepted\"") != std::string::npos);
  HttpResult again = s.server.Request("POST", "/hooks/twilio", kBody, {{"X-Twilio-Signature", signature}}, kForm);
  INFO(again.body);
  CHECK(again.status == 200);
  CHECK(again.body.find("\"duplicate\"") != std::string::npos);
  CHECK(s.inst.Sql("SELECT event_id || '|' || event_type FROM webhook_inbox") ==
        "SM5b3a1f0c2d4e6f8091a2b3c4d5e6f708:delivered|delivered");

  // Same signature, one field changed: refused and not stored.
  std::string forged = kBody;
  forged.replace(forged.find("delivered"), 9, "undelivered");
  HttpResult bad = s.server.Request("POST", "/hooks/twilio", forged, {{"X-Twilio-Signature", signature}}, kForm);
  CHECK(bad.status == 401);
  HttpResult unsigned_ = s.server.Request("POST", "/hooks/twilio", kBody, {}, kForm);
  CHECK(unsigned_.status == 401);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "1");
}

// cpp-httplib parses multipart/form-data itself, and a plain body reader
// then throws (500); the receive path hands such bodies over raw
// (KeepMultipartRaw, http/request_gate.h), which these cases hold it to.
TEST_CASE("form: a Jotform multipart submission is accepted on an insecure endpoint",
          "[integration][multipart]") {
  FormServer s;
  const std::string b = "------WebKitFormBoundary7MA4YWxkTrZu0gW";
  auto part = [&](const std::string& n, const std::string& v) {
    return "--" + b + "\r\nContent-Disposition: form-data; name=\"" + n + "\"\r\n\r\n" + v + "\r\n";
  };
  const std::string body = part("formID", "241234567890") + part("submissionID", "5890123456789012345") +
                           part("rawRequest", R"({"q3_name":"Ada"})") + "--" + b + "--\r\n";
  HttpResult r = s.server.Request("POST", "/hooks/forms", body, {}, "multipart/form-data; boundary=" + b);
  INFO(r.body);
  CHECK(r.status == 200);
  CHECK(r.body.find("\"accepted\"") != std::string::npos);
  CHECK(s.inst.Sql("SELECT event_id FROM webhook_inbox") == "241234567890:5890123456789012345");
  // A broken multipart body is a 400, not an event.
  HttpResult broken = s.server.Request("POST", "/hooks/forms", part("formID", "1"), {},
                                       "multipart/form-data; boundary=" + b);
  CHECK(broken.status == 400);
}

namespace {

void CheckSendTest(const FormServer& s, const char* endpoint) {
  CommandResult out = s.Send(endpoint);
  INFO(out.out);
  CHECK(out.exit_code == 0);
  CHECK(std::regex_search(out.out, std::regex(R"(^200 \{.*"accepted")")));
  CHECK(out.out.find(kTwilioToken) == std::string::npos);
}

}  // namespace

TEST_CASE("form: send-test signs a Twilio form sample the server accepts", "[integration][send-test]") {
  FormServer s;
  CheckSendTest(s, "twilio");
}

TEST_CASE("form: send-test sends a Jotform multipart sample the server accepts",
          "[integration][send-test][multipart]") {
  FormServer s;
  CheckSendTest(s, "forms");
}
