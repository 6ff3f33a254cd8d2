// fuzz_verify — every signature scheme and what follows it: verify::Verify
// (HMAC templates and lists, Stripe t=,v1=, Standard Webhooks, GitHub
// sha256=, Slack v0=, Shopify base64, tokens, Basic, Ed25519, ECDSA P-256,
// RSA certificates, form and body-carried signatures), the handshakes, and
// Identify / IdentifyBatch on what passes.
//
// Input (fuzz_input.h ParseRawRequest):
//   "<endpoint> [sign]"      an endpoint of support/endpoints.h ("p-stripe",
//                            "demo", …; any other word picks one by hash)
//   "<METHOD> <target>"      the path and query ({url} and Twilio's bodySHA256)
//   "Header: value" lines, an empty line, the body.
// `sign` re-signs the body with verify::SignDelivery (the signing mirror of
// Verify), so inputs reach the code behind a valid signature; `sample`
// replaces an empty body with send-test's sample for the endpoint (its id
// and type where the key reads them; a fresh random id each time).
// Properties (abort() on violation):
//  * a delivery SignDelivery signed verifies (sign ⇒ Verify ok) when the
//    body is send-test's sample, or when nothing signed lives in the body
//    (a body without Linear's timestamp or Mailgun's token cannot verify),
//    and the query carries no bodySHA256 of its own (Twilio's hash of a JSON
//    body: the input's value names some other body);
//  * a failure message holds no secret and no received signature value;
//  * Identify ok ⇒ event id of 1..kMaxEventIdBytes, event type at most
//    kMaxEventTypeBytes, payload hash 64 lowercase hex;
//  * IdentifyBatch ok ⇒ every element body lies inside the delivery body.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "common/headers.h"
#include "common/log.h"
#include "fuzz_input.h"
#include "support/endpoints.h"
#include "verify/form.h"
#include "verify/handshake.h"
#include "verify/sign.h"
#include "verify/verify.h"

namespace {

using namespace hookinbox;
using fuzz::Check;

const fuzz::FuzzEndpoints* endpoints = nullptr;

bool Inside(std::string_view outer, std::string_view inner) {
  return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

// A `bodySHA256` parameter in the request's query: the signer signs the URL
// as given, so a hash the input chose cannot match the body it signs.
bool QueryNamesBodyHash(std::string_view query) {
  auto params = verify::ParseUrlEncoded(query);
  if (!params.ok()) return false;
  for (const verify::FormField& p : *params) {
    if (p.name == "bodySHA256") return true;
  }
  return false;
}

bool IsLowerHex64(std::string_view s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

void CheckIdentity(const verify::EventIdentity& id) {
  Check(!id.event_id.empty() && id.event_id.size() <= verify::kMaxEventIdBytes, "event id length out of range");
  Check(id.event_type.size() <= verify::kMaxEventTypeBytes, "event type too long");
  Check(IsLowerHex64(id.payload_hash), "payload hash is not 64 lowercase hex");
}

// No secret in a failure message, and no echo of the received signature
// header. A message may hold the value's text by coincidence (a header name
// the sender chose as the value), so an echo is confirmed by verifying again
// with another value of the same length: an echo follows the value.
void CheckNoLeak(const Status& st, const verify::DeliveryView& view, const MapHeaders& headers,
                 const config::EndpointConfig& e, const std::vector<Secret>& secrets) {
  for (const std::string& s : endpoints->secrets) Check(st.message().find(s) == std::string::npos, "a secret in a message");
  auto v = view.headers.Get(e.signature.header);
  if (!v || v->size() < 8 || st.message().find(*v) == std::string::npos) return;
  MapHeaders swapped;
  const std::string other(v->size(), 'Q');
  swapped.Set(e.signature.header, other);
  for (const auto& [name, value] : headers.items()) {
    if (!EqualsIgnoreCase(name, e.signature.header)) swapped.Set(name, value);
  }
  const verify::DeliveryView again{view.method, view.path, swapped, view.body, view.query};
  Check(verify::Verify(e, secrets, again, fuzz::kNow).message().find(other) == std::string::npos,
        "the received signature is echoed in a message");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  log::SetMinLevel(log::Level::kError);
  endpoints = new fuzz::FuzzEndpoints(fuzz::LoadFuzzEndpoints());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::RawRequest raw = fuzz::ParseRawRequest(fuzz::AsText(data, size));
  const config::EndpointConfig& e =
      fuzz::PickEndpoint(endpoints->config, raw.selector.substr(0, raw.selector.find(' ')));
  const size_t q = raw.target.find('?');
  const std::string path(raw.target.substr(0, q));
  std::string query(q == std::string_view::npos ? std::string_view() : raw.target.substr(q + 1));
  std::string method(raw.method);
  std::string body(raw.body);
  MapHeaders headers;
  for (const auto& [name, value] : raw.headers) headers.Set(std::string(name), std::string(value));

  bool signed_here = false;  // signed, and must verify
  auto signer = endpoints->signing.find(e.name);
  const bool sample = body.empty() && fuzz::HasFlag(raw.selector, "sample");
  if (sample) body = fuzz::SampleFor(e);
  if (fuzz::HasFlag(raw.selector, "sign") && signer != endpoints->signing.end()) {
    const std::string url = e.public_url.empty() ? "https://hooks.example.com" + path : e.public_url;
    auto s = verify::SignDelivery(e, signer->second, body, fuzz::kNow, method, query.empty() ? url : url + "?" + query);
    if (s.ok()) {
      body = s->body;
      for (const auto& [name, value] : s->headers) headers.Set(name, value);
      // A signature in the query (PandaDoc) goes where send-test puts it; a
      // GET delivery (VNPay) is its query, which the receiver reads as the body.
      if (!s->query.empty()) query = query.empty() ? s->query : query + "&" + s->query;
      if (s->method == "GET") {
        method = "GET";
        body = query;
      }
      const config::SignatureConfig& sig = e.signature;
      signed_here = (sample || (sig.timestamp_pointer.empty() && sig.token_pointer.empty() &&
                                sig.signature_pointer.empty() && !verify::IsFormBodyKind(sig.body_kind))) &&
                    !QueryNamesBodyHash(query);
    }
  }
  const verify::DeliveryView view{method, path, headers, body, query};
  (void)verify::AnswerUnsignedHandshake(e, view);
  (void)verify::AnswerGetHandshake(e, query);

  const std::vector<Secret>& secrets = e.tenants.empty() ? e.secrets : e.tenants.front().secrets;
  const Status st = verify::Verify(e, secrets, view, fuzz::kNow);
  if (!st.ok()) {
    if (signed_here) std::fprintf(stderr, "endpoint %s: %s\n", e.name.c_str(), st.message().c_str());  // safe: no secrets
    Check(!signed_here, "a delivery SignDelivery signed does not verify");
    CheckNoLeak(st, view, headers, e, secrets);
    return 0;
  }
  (void)verify::AnswerSignedHandshake(e, secrets, view, fuzz::kNow);
  const bool is_json = verify::IsJsonMediaType(headers.Get("Content-Type").value_or(""));
  if (e.key.batch) {
    if (auto batch = verify::IdentifyBatch(e, headers, body); batch.ok()) {
      for (const auto& ev : *batch) {
        CheckIdentity(ev.identity);
        Check(Inside(body, ev.body), "a batch element lies outside the body");
      }
    }
  } else if (auto id = verify::Identify(e, headers, body, is_json); id.ok()) {
    CheckIdentity(*id);
  }
  return 0;
}
