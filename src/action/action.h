// action/action.h — the effect the worker performs for one stored event.
//
// Owns: the input an action receives, the outcome it reports, the
// idempotency key every attempt of an event carries, and the factory that
// builds the configured action ([endpoint.action], SPEC §6 and §9 "Worker and
// actions"). Knows nothing of the store or of the incoming HTTP side: the
// worker loop reads an event, runs an Action and records its Outcome.
//
// The verdicts map onto SPEC §4: success → completed, transient →
// retryable_failed (worker/policy.h), permanent → dead_lettered, unknown → unknown
// (never retried automatically). `sent` says whether the downstream may have
// acted, which is what makes a lost answer `unknown` rather than transient.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "config/config.h"

namespace hookinbox::action {

// What one attempt of one event hands to its action. Plain data; the caller owns it.
struct ActionInput {
  std::string event_id;         // the provider's event id (or the derived key)
  std::string event_type;       // "" when the endpoint has none
  std::string idempotency_key;  // IdempotencyKey(provider, endpoint, tenant, event_id)
  int attempt = 1;              // 1 for the first attempt, counting every retry and replay
  std::string content_type;     // the original Content-Type, sent on unchanged
  std::string body;             // the original bytes
  std::string provider;
  std::string endpoint;
  std::string tenant;
  std::string token;  // the event's handler-API token; "" when api_base is empty (not sent then)
  std::string api_base;  // base URL of the handler API for exec (HOOKINBOX_API); "" = not set
  // Set only by `hookinbox check-downstream`: the request is a marked probe
  // (http sends X-Hookinbox-Probe: idempotency-check), not a stored event.
  bool probe = false;
};

// How much of each of an exec command's stdout and stderr is kept (the tail).
inline constexpr size_t kExecOutputCap = 64 * 1024;

enum class Verdict { kSuccess, kTransient, kPermanent, kUnknown };

// Why an attempt got no answer, when it got none: the worker counts retries
// by cause, and reading that back from `error` text would break with any
// rewording.
enum class NoAnswer {
  kNone,      // it answered (or the command exited)
  kNotSent,   // never reached the downstream: connection refused, TLS failed, fork failed
  kTimedOut,  // connecting or the command took longer than the action's timeout
  kLost,      // sent, then the connection failed before an answer
};

// "success" | "transient" | "permanent" | "unknown".
const char* VerdictName(Verdict v);

// What an attempt came to. `error` is short and safe to log and store: it
// never holds the body, a secret, a signature or the token.
struct Outcome {
  Verdict verdict = Verdict::kPermanent;
  bool sent = false;         // the request was sent / the command started: the effect may have happened
  int http_status = 0;       // http: the answer's status; 0 when none came
  std::optional<int> exit_code;  // exec: the exit status; unset when it did not exit normally
  std::string result_ref;    // success: the downstream's reference to what it did ("" when none)
  std::optional<int64_t> retry_after_ms;  // transient http: the downstream's Retry-After, from now
  // http: the answer said it repeats a saved result (Idempotent-Replayed:
  // true, as Stripe marks replays of an Idempotency-Key).
  bool replayed = false;
  // http with action.async: the answer was 202 Accepted, meaning "started".
  // The verdict stays kSuccess (the downstream took it), but the attempt is
  // not over: the worker hands the event to the handler (worker_loop.h) and
  // records nothing until the handler ends it through /v1/events/….
  bool started = false;
  NoAnswer no_answer = NoAnswer::kNone;
  std::string error;         // "" on success; e.g. "HTTP 503", "exit status 1", "timed out after 10000 ms"
  // exec only: the last bytes (at most kExecOutputCap) of what the command
  // printed. May hold anything the command wrote, payload included: for
  // tests and an operator's look, never for logs.
  std::string stdout_tail;
  std::string stderr_tail;
};

// The idempotency key of an event: lowercase hex of SHA-256 over
// "hookinbox-idempotency-v1" and the four parts, each preceded by its length
// (so no two different tuples share an encoding). 64 characters of [0-9a-f],
// safe in any header or environment variable, stable across attempts,
// replays and restarts, and revealing nothing of the parts. Sent as
// `Idempotency-Key`, `webhook-id` and HOOKINBOX_IDEMPOTENCY_KEY.
std::string IdempotencyKey(std::string_view provider, std::string_view endpoint, std::string_view tenant,
                           std::string_view event_id);

// One configured action. Run may be called from several threads at once.
class Action {
 public:
  virtual ~Action() = default;
  // Performs one attempt. Never throws; every failure is an Outcome.
  virtual Outcome Run(const ActionInput& input) = 0;
};

// The action `config` describes, or nullptr when config.type is "" (no
// action). `clock` (outliving the action) dates webhook-timestamp and
// Retry-After dates. Expects a validated config. `secret_files` are hidden
// from exec commands (config::SecretOrigins::files, action/exec_action.h).
std::unique_ptr<Action> MakeAction(const config::ActionConfig& config, const Clock& clock,
                                   const std::vector<std::string>& secret_files = {});

}  // namespace hookinbox::action
