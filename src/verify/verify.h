// verify/verify.h — is this delivery authentic, and what is it?
//
// Owns: signature and token checks over the exact raw bytes received, the
// timestamp tolerance against replay, and the derivation of the idempotency
// key, event type and payload hash (SPEC §2, §9 "Hashing").
// Knows nothing of HTTP libraries or storage: callers pass a HeaderView and
// the raw body. All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/headers.h"
#include "common/secret.h"
#include "common/status.h"
#include "config/config.h"

namespace hookinbox::verify {

class ParsedBody;

struct DeliveryView {
  std::string_view method;   // "POST"
  std::string_view path;     // "/hooks/payments", for schemes that sign it
  const HeaderView& headers;
  std::string_view body;     // the exact bytes received, never re-serialised
  std::string_view query = {};  // the raw query string without '?' ("" when none), for {url}
  // The body's one JSON parse, shared by the steps that read it (json.h);
  // nullptr: each step parses for itself.
  ParsedBody* parsed = nullptr;
};

// Checks the signature (or token, or Basic credentials) of `delivery` against
// every secret in `secrets` — any match passes (rotation); a secret with an
// end (Secret::valid_until_ms, a rotated-out one) only before it — and the signed
// timestamp against `now_ms` ± signature.tolerance_seconds.
// Returns ok, or Unauthenticated with a short reason safe to show a caller
// ("signature mismatch", "timestamp outside tolerance"); the message never
// contains a secret, the received signature or the expected one.
Status Verify(const config::EndpointConfig& endpoint, const std::vector<Secret>& secrets,
              const DeliveryView& delivery, int64_t now_ms);

struct EventIdentity {
  std::string event_id;      // the last part of (provider, endpoint, tenant_id, event_id)
  std::string event_type;    // empty when the endpoint names no source or the source is absent
  std::string payload_hash;  // lowercase hex SHA-256, see PayloadHash
  // [endpoint.business_key] (semantic_keys.cpp): hex SHA-256 of the operation
  // and the field values ("" = no business key), and a hint naming the
  // operation and fields without their values (safe to store and show).
  std::string business_key, business_key_hint;
  // [endpoint.ordering]: hex SHA-256 of the object id ("" = not ordered) and
  // its comparable version (an integer, or ms since the epoch for a time).
  std::string object_key;
  int64_t object_version = 0;
};

// The longest event id we accept (SPEC §2).
inline constexpr size_t kMaxEventIdBytes = 200;
// The longest event type we accept; it is stored, listed and logged like the id.
inline constexpr size_t kMaxEventTypeBytes = 200;

// Derives the identity of a delivery, parsing the body at most once (with
// `parsed`, that parse is shared with the steps before and taken over).
// `is_json` says the content type is JSON; a JSON body that does not parse is
// InvalidArgument. A configured id that is missing, empty, longer than
// kMaxEventIdBytes or malformed (control characters, invalid UTF-8) is
// InvalidArgument — never replaced by anything else.
Result<EventIdentity> Identify(const config::EndpointConfig& endpoint, const HeaderView& headers,
                               std::string_view body, bool is_json, ParsedBody* parsed = nullptr);

// One event of a batch delivery (key.batch): its identity and the exact bytes
// of its element inside the delivery body (a view into that body).
struct BatchEvent {
  EventIdentity identity;
  std::string_view body;
};

// Splits a batch delivery (key.batch = true) into its events: every element of
// the array at key.batch_pointer, identified with the key's pointers and
// volatile_fields taken relative to the element (headers as for Identify).
// An empty array, a missing array, or any element Identify would refuse is
// InvalidArgument naming the element's index — a batch is taken whole or not at all.
Result<std::vector<BatchEvent>> IdentifyBatch(const config::EndpointConfig& endpoint, const HeaderView& headers,
                                              std::string_view body);

// Checks what only the verifier's parsers can tell about an endpoint that
// config validation already accepted: that signature.format parses into a
// shape Verify understands (a token needs a plain template), that
// signed_payload expands, and for the asymmetric schemes that every public key
// parses as the scheme's kind (which also caches it for Verify; public_key.h).
// InvalidArgument naming the key. For check-config and start-up (config/ sits
// below verify/ and cannot call it).
Status CheckEndpoint(const config::EndpointConfig& endpoint);

// The media type of a Content-Type value: lower case, parameters and spaces
// removed ("Application/JSON; charset=utf-8" → "application/json").
std::string MediaTypeOf(std::string_view content_type);

// True for application/json and any application/*+json media type (parameters ignored).
bool IsJsonMediaType(std::string_view content_type);

}  // namespace hookinbox::verify
