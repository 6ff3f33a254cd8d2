// One step of a secret rotation (see secret_rotation.h). Every refusal says
// what to do instead; no message holds a secret.
#include "cli/secret_rotation.h"

#include "common/clock.h"
#include "config/load.h"

namespace hookinbox::cli {
namespace {

using config::SecretRotateAnswer;
using config::SecretRotateAsk;

SecretRotateAnswer Refused(Code code, std::string message) {
  SecretRotateAnswer answer;
  answer.status = Status(code, std::move(message));
  return answer;
}

std::string Configured(const config::Config& config) {
  std::string out;
  for (const auto& e : config.endpoints) out += (out.empty() ? "" : ", ") + e.name;
  return out.empty() ? "none" : out;
}

// Why the config file as it now is cannot take the step: it does not load,
// or it no longer reads this endpoint's secret from the same file (an edit
// not yet reloaded). "" when it can.
std::string NotLoadable(const CheckedConfig& checked, const config::EndpointConfig& e, const std::string& path) {
  if (!checked.ok()) {
    std::string out = "the config file does not load with this change, so nothing changed:";
    for (const auto& p : checked.errors) out += "\n" + config::Describe(p, path);
    return out;
  }
  const config::EndpointConfig* now = checked.loaded.config.FindEndpoint(e.name);
  if (now == nullptr || config::RotatableSecretFile(*now) != e.secret_file) {
    return "the config file no longer reads endpoint \"" + e.name + "\"'s secret from " + e.secret_file +
           " (edited since it was loaded?): reload it first, then rotate, so nothing changed";
  }
  return "";
}

// After the files changed and checked: in force, then recorded; `undo` puts
// the files back when the change cannot be kept.
SecretRotateAnswer Finish(const config::EndpointConfig& e, const PutInForce& put_in_force,
                          const std::function<Status()>& undo, const std::function<Status()>& record) {
  InForce put = put_in_force();
  if (!put.keep) {
    std::string why = put.status.message();
    if (Status undone = undo(); !undone.ok()) why += "; putting the files back failed too: " + undone.message();
    return Refused(put.status.code(), why);
  }
  if (Status recorded = record(); !recorded.ok()) {
    return Refused(Code::kUnavailable,
                   "the change is made, but its audit row could not be written: " + recorded.message());
  }
  SecretRotateAnswer answer;
  answer.secret_file = e.secret_file;
  answer.in_force = put.status;
  return answer;
}

SecretRotateAnswer Rotate(const config::Config& in_force, const config::EndpointConfig& e, const SecretRotateAsk& ask,
                          const LoadNow& load_now, const PutInForce& put_in_force, store::EndpointStates& audit,
                          int64_t now_ms) {
  if (ask.next.empty()) return Refused(Code::kInvalidArgument, "the new secret is empty");
  if (ask.next.bytes().size() > config::kMaxSecretBytes) {
    return Refused(Code::kInvalidArgument, "the new secret is longer than 64 KiB");
  }
  // The state file keeps whole seconds: round down, so what is kept is what was said.
  const int64_t until = ask.keep_old_until_ms / 1000 * 1000;
  if (until <= now_ms) {
    return Refused(Code::kInvalidArgument,
                   "the time to keep the old secret until (" + FormatUtc(until) + ") is not in the future");
  }
  auto rotation = config::ReadRotation(e.secret_file);
  if (!rotation.ok()) {
    return Refused(Code::kConflict,
                   rotation.status().message() + "; `hookinbox secrets retire " + e.name + "` removes it");
  }
  if (rotation->has_value() && (*rotation)->previous_until_ms > now_ms) {
    return Refused(Code::kConflict, "a rotation of endpoint \"" + e.name +
                                        "\" is still in its window: the previous "
                                        "secret is accepted until " +
                                        FormatUtc((*rotation)->previous_until_ms) +
                                        ". Retire it first (hookinbox secrets retire " + e.name + ") or wait");
  }
  Result<Secret> before = config::WriteRotation(e.secret_file, ask.next.bytes(), until);
  if (!before.ok()) return Refused(before.status().code(), before.status().message());
  auto undo = [&] { return config::UndoRotation(e.secret_file, before->bytes()); };
  if (std::string why = NotLoadable(load_now(), e, in_force.path); !why.empty()) {
    if (Status undone = undo(); !undone.ok()) why += "; putting the old secret back failed too: " + undone.message();
    return Refused(Code::kInvalidArgument, why);
  }
  auto record = [&] {
    return audit.RecordSecretRotated(
        e.name, ask.actor, "new secret in " + e.secret_file + "; the previous one accepted until " + FormatUtc(until),
        now_ms);
  };
  SecretRotateAnswer answer = Finish(e, put_in_force, undo, record);
  if (answer.status.ok()) answer.previous_until_ms = until;
  return answer;
}

SecretRotateAnswer Retire(const config::EndpointConfig& e, const SecretRotateAsk& ask, const PutInForce& put_in_force,
                          store::EndpointStates& audit, int64_t now_ms) {
  auto removed = config::RemoveRotation(e.secret_file);
  if (!removed.ok()) return Refused(removed.status().code(), removed.status().message());
  if (!removed->has_value()) {
    SecretRotateAnswer answer;
    answer.secret_file = e.secret_file;
    answer.changed = false;  // nothing to retire: the state asked for
    return answer;
  }
  auto undo = [&] { return config::RestoreRotation(e.secret_file, **removed); };
  auto record = [&] {
    auto wrote = audit.RecordSecretRetired(e.name, ask.actor, "previous secret of " + e.secret_file + " retired",
                                           now_ms, /*only_after_rotation=*/false);
    return wrote.ok() ? Status::Ok() : wrote.status();
  };
  return Finish(e, put_in_force, undo, record);
}

}  // namespace

SecretRotateAnswer ApplySecretStep(const config::Config& in_force, const SecretRotateAsk& ask, const LoadNow& load_now,
                                   const PutInForce& put_in_force, store::EndpointStates& audit, int64_t now_ms,
                                   bool wait_for_lock) {
  const config::EndpointConfig* e = in_force.FindEndpoint(ask.endpoint);
  if (e == nullptr) {
    return Refused(Code::kNotFound, "no endpoint named \"" + ask.endpoint + "\" in " + in_force.path +
                                        " (configured: " + Configured(in_force) + ")");
  }
  if (std::string why = config::NotRotatableReason(*e); !why.empty()) return Refused(Code::kConflict, why);
  auto lock = config::SecretDirLock::Acquire(e->secret_file, wait_for_lock);
  if (!lock.ok()) return Refused(lock.status().code(), lock.status().message());
  return ask.retire ? Retire(*e, ask, put_in_force, audit, now_ms)
                    : Rotate(in_force, *e, ask, load_now, put_in_force, audit, now_ms);
}

}  // namespace hookinbox::cli
