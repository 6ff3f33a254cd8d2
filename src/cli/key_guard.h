// cli/key_guard.h — the key-derivation guard at start and reload: each
// endpoint's key settings (verify/key_spec.h) compared with the ones its
// stored events were keyed by (store/key_specs.h).
//
// Here because only cli/ sees both verify/ and store/. The caller (start,
// reload) decides what a refusal means: the old config keeps serving, or
// the process does not start. A refusal is data (one problem each), so a
// reload answers with its problems and the start prints them as text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/config.h"
#include "config/load.h"
#include "store/key_specs.h"

namespace hookinbox::cli {

// The key settings of every endpoint of `config`, in config order.
std::vector<store::KeySpecNow> KeySpecsOf(const config::Config& config);

// What GuardKeySpecs decided.
struct KeyGuardOutcome {
  Code code = Code::kOk;  // kOk: recorded; otherwise why it refused (see GuardKeySpecs)
  // One per refused endpoint, or one for an --accept-key-change name or the
  // database; never empty when refused. Problems without a key or line.
  std::vector<config::Problem> problems;

  bool ok() const { return code == Code::kOk; }
  // The refusal as one Status, its problems one per line (what a failed start prints).
  Status status() const;
};

// Checks every endpoint of `config` and, unless refused, records the new
// and changed settings (auditing each change as `actor`, e.g. "start:alice"
// or "reload:admin:10.0.0.5"). Refused — nothing recorded — with:
// InvalidArgument when `accepted` (--accept-key-change) names an endpoint
// the config does not have; Conflict naming every changed endpoint that
// still has stored events and is not in `accepted`, one
// store::ExplainKeySpecChange each. Unavailable when the database is.
KeyGuardOutcome GuardKeySpecs(store::KeySpecs& store, const config::Config& config,
                              const std::vector<std::string>& accepted, const std::string& actor, int64_t now_ms);

}  // namespace hookinbox::cli
