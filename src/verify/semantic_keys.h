// verify/semantic_keys.h — the business key and the ordering guard's object
// and version of one event, read from its JSON (internal to verify/).
//
// Owns: turning [endpoint.business_key] and [endpoint.ordering] into the
// EventIdentity fields the store keeps. Values are never kept: the business
// key and the object id become SHA-256 digests (they may be personal data:
// an e-mail address, an order number), and the hint names only the operation
// and the pointers plus a short digest prefix, so an auditor can tell keys
// apart without learning whose they are.
#pragma once

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "config/config.h"
#include "verify/verify.h"

namespace hookinbox::verify {

// Fills out->business_key(_hint), object_key and object_version from `doc`
// (the event's JSON, before volatile fields are removed; nullptr for a body
// that is not JSON). Errors (InvalidArgument, the delivery is refused with
// 400): an operation applies but a field is missing; the object id is present
// but its version is missing or not an integer, a Unix time or an RFC 3339
// time; the endpoint needs JSON and the body is not.
Status AddSemanticKeys(const config::EndpointConfig& endpoint, const nlohmann::json* doc, EventIdentity* out);

// A version value as a comparable integer: JSON integers as they are, digit
// strings as integers, RFC 3339 times as ms since the epoch; else nullopt.
// Integers outside int64 (above 9223372036854775807, as a number or as a
// string) are nullopt, never wrapped; negative integers are kept in both
// forms (a time before 1970 is negative too).
std::optional<int64_t> ComparableVersion(const nlohmann::json& value);

}  // namespace hookinbox::verify
