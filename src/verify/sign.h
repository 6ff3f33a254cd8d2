// verify/sign.h — the mirror of verification: sign a delivery as the
// endpoint's provider would, for `hookinbox send-test`.
//
// Owns: building a sample body whose id, event type and timestamp sit where
// the endpoint's key and signature read them, and the headers a provider sends
// with it (signature or token or Basic credentials, timestamp, id and
// event-type headers, Content-Type). It reuses the verifier's own pieces
// (ParseSignatureFormat, ExpandSignedPayload, Hmac, the codecs), so whatever
// SignDelivery produces is what Verify and Identify accept. Pure apart from the
// random ids; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/secret.h"
#include "common/status.h"
#include "config/config.h"

namespace hookinbox::verify {

// The event type of a sample delivery unless the caller names another.
inline constexpr std::string_view kTestEventType = "hookinbox.test";

struct SignedDelivery {
  std::string method = "POST";  // "GET" for a provider that delivers so (VNPay); then body is empty
  std::string body;  // the exact bytes to send
  // Every header to send, Content-Type first. Holds the signature or the
  // secret itself (token, basic): never print the values.
  std::vector<std::pair<std::string, std::string>> headers;
  // What to add to the URL's query: "name=value" when the signature travels
  // there (signature.signature_source = "query:…", PandaDoc); for a GET the
  // whole signed form (VNPay's vnp_* parameters and vnp_SecureHash); empty
  // otherwise. Never print it.
  std::string query;
};

// A JSON sample for `endpoint`: a fresh unique id at key.id_pointer and at each
// JSON-Pointer part of key.fields, `event_type` at key.event_type_pointer, the
// current time (in signature.timestamp_unit) at signature.timestamp_pointer,
// and a "data" object. An endpoint whose signature covers the provider's own
// fields (VNPay, MoMo, ZaloPay, payOS) gets the provider's documented example
// with fresh key fields instead (provider_sample.h); its own type, a success
// code, stays unless `event_type` is other than kTestEventType.
std::string SampleBody(const config::EndpointConfig& endpoint, std::string_view event_type, int64_t now_ms);

// Signs `body` for `endpoint` with `secret` (HMAC key bytes as config/ resolved
// them; the token or "user:pass" for those schemes; for the asymmetric schemes
// the PEM private key matching the endpoint's public key) at `now_ms`. `method` and
// `url_for_signing` fill {method} and {url}; method "GET" moves the signed
// body into SignedDelivery::query (EndpointConfig::get_deliveries). A
// signature_source signature is placed where it says, over the fields it
// covers, read from `body` by the verifier's own code (signed_fields.h). Header ids (key.id_header and
// "header:" fields) get fresh UUID-like values; key.event_type_header gets
// `event_type`. InvalidArgument when the endpoint's configuration cannot be
// expressed (a format Verify would refuse, an unknown algorithm).
Result<SignedDelivery> SignDelivery(const config::EndpointConfig& endpoint, const Secret& secret, std::string body,
                                    int64_t now_ms, std::string_view method, std::string_view url_for_signing,
                                    std::string_view event_type = kTestEventType);

}  // namespace hookinbox::verify
