// store/key_specs.h — the key-derivation guard's record (schema.sql
// migration 10: endpoint_key_specs, webhook_inbox.key_spec).
//
// An event's idempotency key comes from its endpoint's key settings
// (verify/key_spec.h). If they change while the inbox still holds events of
// that endpoint, those events' keys no longer match what a redelivery gets:
// the provider's retry of an event already processed is stored and
// processed again. So every start and reload compares each endpoint's
// settings with the last ones recorded (CheckKeySpecs), refuses a change
// the operator has not accepted, and records the new settings
// (RecordKeySpecs), auditing each change in endpoint_actions.
// Knows nothing of config or verify: callers pass fingerprints and texts.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::store {

// An endpoint's key settings as configured now.
struct KeySpecNow {
  std::string endpoint;
  std::string provider;     // the provider its events are stored under (endpoint.provider)
  std::string fingerprint;  // verify::KeySpec::fingerprint
  std::string spec;         // verify::KeySpec::text: canonical JSON, never a secret
};

// An endpoint whose key settings differ from the last recorded ones while
// the inbox still holds events of it (under the recorded provider).
struct KeySpecChange {
  std::string endpoint;
  std::string old_fingerprint, new_fingerprint;
  std::string old_spec, new_spec;
  int64_t stored_events = 0;  // counted up to kKeySpecEventsCounted; more = "more than" that
};

// CheckKeySpecs counts an endpoint's stored events no further than this:
// enough to tell an operator "some" from "many", at a bounded cost.
inline constexpr int64_t kKeySpecEventsCounted = 10000;

// The refusal for `change`, saying what would happen and how to accept it:
// endpoint "payments": the idempotency key settings changed (fingerprint a → b)
// while 12 stored events still deduplicate by the old keys: …
std::string ExplainKeySpecChange(const KeySpecChange& change);

class KeySpecs {
 public:
  virtual ~KeySpecs() = default;

  // The endpoints of `specs` whose fingerprint differs from their last
  // recorded one and that still hold stored events, in the order of `specs`.
  // An endpoint with no recorded spec (new, or the first start after the
  // upgrade) is no change. Reads only.
  virtual Result<std::vector<KeySpecChange>> CheckKeySpecs(const std::vector<KeySpecNow>& specs) = 0;

  // In one transaction: records every endpoint of `specs` whose spec is new
  // or changed (in force from `now_ms`, recorded by `actor`), and writes an
  // endpoint_actions row (action key_spec_changed, `actor`, the old and new
  // fingerprints) for every change. Decides again inside the transaction:
  // when a change with stored events is not in `accepted` (another replica
  // stored its first event since CheckKeySpecs), returns Conflict with
  // ExplainKeySpecChange and writes nothing. Names in `accepted` that are
  // not such a change are ignored. InvalidArgument for an empty actor or an
  // incomplete spec (nothing written); Unavailable when the database is.
  virtual Status RecordKeySpecs(const std::vector<KeySpecNow>& specs, const std::vector<std::string>& accepted,
                                const std::string& actor, int64_t now_ms) = 0;
};

}  // namespace hookinbox::store
