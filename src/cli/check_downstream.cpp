// `hookinbox check-downstream ENDPOINT`: does the endpoint's http target
// really honour Idempotency-Key? (SPEC §7; exit 0 yes, 1 no or cannot tell,
// 2 usage.)
//
// Sends one clearly marked probe twice, one after the other, through the same
// HttpAction the worker uses (so URL, CA, timeout, forward signature and
// result_ref settings are the endpoint's own), with one Idempotency-Key. The
// target deduplicates when the second answer reports the first effect: the
// same non-empty result_ref, or Idempotent-Replayed: true. Identical answers
// without a reference prove nothing (a target answering {"ok":true} to
// everything looks the same either way), so that is "cannot tell", not yes.
// The probe never touches the database; an admin runs this before setting
// idempotent_target = true.
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "common/clock.h"
#include "common/secret.h"
#include "action/action.h"

namespace hookinbox::cli {
namespace {

using nlohmann::json;

enum class Finding { kDeduplicates, kDoesNot, kCannotTell };

struct Verdict {
  Finding finding = Finding::kCannotTell;
  std::string why;
};

std::string Describe(const action::Outcome& o) {
  std::string text = o.http_status != 0 ? "HTTP " + std::to_string(o.http_status) : o.error;
  if (!o.result_ref.empty()) text += ", result_ref \"" + o.result_ref + "\"";
  if (o.replayed) text += ", marked as a replay";
  return text;
}

Verdict Judge(const action::Outcome& first, const action::Outcome& second) {
  using action::Verdict;
  if (first.verdict != Verdict::kSuccess) return {Finding::kCannotTell, "the first probe failed: " + Describe(first)};
  if (second.verdict != Verdict::kSuccess) {
    return {Finding::kCannotTell, "the second probe failed: " + Describe(second) +
                                      " (a target that deduplicates answers a repeat with the saved result)"};
  }
  if (second.replayed) return {Finding::kDeduplicates, "the second answer is marked Idempotent-Replayed"};
  if (first.result_ref.empty() || second.result_ref.empty()) {
    return {Finding::kCannotTell,
            "the answers carry no result_ref to compare; set action.result_ref_header or "
            "action.result_ref_pointer to where the target reports what it did"};
  }
  if (first.result_ref == second.result_ref) {
    return {Finding::kDeduplicates, "both answers report the same effect \"" + first.result_ref + "\""};
  }
  return {Finding::kDoesNot, "the second probe made a second effect: \"" + first.result_ref + "\" then \"" +
                                 second.result_ref + "\""};
}

// The probe: marked in its type, its body and a header, unique per run.
action::ActionInput Probe(const config::EndpointConfig& e) {
  action::ActionInput in;
  in.event_id = "hookinbox-probe-" + RandomHex(8);
  in.event_type = "hookinbox.idempotency_probe";
  in.provider = e.provider;
  in.endpoint = e.name;
  in.tenant = e.tenant;
  in.idempotency_key = action::IdempotencyKey(in.provider, in.endpoint, in.tenant, in.event_id);
  in.content_type = "application/json";
  in.body = json{{"hookinbox_probe", "idempotency-check"},
                 {"probe_id", in.event_id},
                 {"note", "sent twice with one Idempotency-Key by `hookinbox check-downstream`; "
                          "a deduplicating target applies it once and may ignore it"}}
                .dump();
  in.probe = true;
  return in;
}

}  // namespace

int RunCheckDownstream(const std::string& endpoint, const CommonOptions& common, std::ostream& out,
                       std::ostream& err) {
  // kComplete: the probe goes through the endpoint's own action (its ca_file
  // must be readable). An unusable config exits kExitUsage here, not
  // kExitFailure as elsewhere: 1 means "does not deduplicate or cannot tell".
  auto opened = OpenForCommand(common, {.verb = "check-downstream", .check = ConfigCheck::kComplete}, err);
  if (!opened) return kExitUsage;
  const config::EndpointConfig* e = opened->config.FindEndpoint(endpoint);
  if (e == nullptr) {
    err << "hookinbox check-downstream: no endpoint named \"" << endpoint << "\" in " << opened->config_path
        << "\n";
    return kExitUsage;
  }
  if (e->action.type != "http") {
    err << "hookinbox check-downstream: endpoint \"" << endpoint
        << "\" has no [endpoint.action] type = \"http\"; only an http target can be checked\n";
    return kExitUsage;
  }
  SystemClock clock;
  auto action = action::MakeAction(e->action, clock);
  action::ActionInput probe = Probe(*e);
  const action::Outcome first = action->Run(probe);
  probe.attempt = 2;
  const action::Outcome second = first.verdict == action::Verdict::kSuccess ? action->Run(probe) : action::Outcome{};
  const Verdict verdict = Judge(first, second);
  const char* summary = verdict.finding == Finding::kDeduplicates ? "deduplicates"
                        : verdict.finding == Finding::kDoesNot    ? "does NOT deduplicate"
                                                                  : "cannot tell";
  if (common.json) {
    out << json{{"endpoint", endpoint}, {"url", e->action.url}, {"result", summary}, {"reason", verdict.why},
                {"first", Describe(first)}, {"second", first.verdict == action::Verdict::kSuccess
                                                           ? json(Describe(second)) : json(nullptr)}}
               .dump()
        << "\n";
  } else {
    out << e->action.url << ": " << summary << " — " << verdict.why << "\n";
    if (verdict.finding == Finding::kDoesNot) {
      out << "keep idempotent_target = false for endpoint \"" << endpoint
          << "\": a lost answer must become `unknown`, not a second effect\n";
    }
  }
  return verdict.finding == Finding::kDeduplicates ? kExitOk : kExitFailure;
}

}  // namespace hookinbox::cli
