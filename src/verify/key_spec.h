// verify/key_spec.h — what decides an event's idempotency key, as text and
// as a fingerprint, so a change to it can be noticed before it does harm.
//
// Owns: the canonical description of an endpoint's key derivation: the
// provider and tenant that are part of the stored key, the one id source
// Identify() uses (identify.cpp, SPEC §2 order) with what it reads, batch
// splitting and the body kind the key fields are read from. Nothing else:
// secrets, signatures, actions, event types, alerts and retention do not
// change which key an event gets, so changing them never trips the guard.
// If the key an event would get under the new settings differs from the one
// it got when stored, a provider's redelivery of it is stored as a new event.
// Pure and thread-safe.
#pragma once

#include <string>

#include "config/config.h"

namespace hookinbox::verify {

struct KeySpec {
  // Canonical JSON (sorted keys, no whitespace) of the key settings; shown to
  // an operator and kept in endpoint_key_specs, so it must never hold a secret.
  std::string text;
  // The first 16 hex characters of SHA-256(text): equal text, equal fingerprint.
  std::string fingerprint;
};

// The key spec of `endpoint` as loaded (presets already applied). The text's
// format is part of the stored history: changing it would make every
// endpoint look changed after an upgrade, so only ever add a member for a
// new key setting, and only when that setting is in use.
KeySpec DescribeKeySpec(const config::EndpointConfig& endpoint);

// DescribeKeySpec(endpoint).fingerprint.
std::string KeySpecFingerprint(const config::EndpointConfig& endpoint);

}  // namespace hookinbox::verify
