// One step of a secret rotation (see secret_rotation.h). Every refusal says
// what to do instead; no message holds a secret.
#include "cli/secret_rotation.h"

#include "common/clock.h"
#include "config/load.h"

namespace hookinbox::cli {
namespace {

using config::SecretRotateAnswer;
using config::SecretRotateAsk;

constexpr size_t kMaxSecretBytes = 64 * 1024;  // as the config reads secret files

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

std::string Joined(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// Why `e`'s secret cannot be rotated through its secret_file, or "".
std::string NotRotatable(const config::EndpointConfig& e) {
  const std::string& scheme = e.signature.scheme;
  if (scheme != "hmac" && scheme != "token" && scheme != "basic") {
    return "endpoint \"" + e.name + "\" verifies with signature.scheme = \"" + scheme +
           "\", not with a secret: for a provider's public key, list the new key first in public_keys_file and "
           "reload";
  }
  if (!e.tenants.empty()) {
    return "endpoint \"" + e.name + "\" has a secret per tenant: list the new file first in that tenant's "
           "secrets_file = [new, old] and reload";
  }
  if (e.secret_file.empty() || !e.other_secret_keys.empty()) {
    const std::string keys = Joined(e.other_secret_keys);
    if (keys.find("env") != std::string::npos) {
      return "endpoint \"" + e.name + "\" reads its secret from the environment (" + keys +
             "): a running service cannot see a new value. Move the secret into a file (secret_file) and "
             "rotate that, or list both variables with secrets_env = [\"NEW\", \"OLD\"] and restart";
    }
    return "endpoint \"" + e.name + "\" lists its secrets in secrets_file: put the new file first, reload, and "
           "remove the old one later (or use a single secret_file to rotate with this command)";
  }
  return "";
}

// The problems of a config that does not load, one per line.
std::string ProblemText(const CheckedConfig& checked, const std::string& path) {
  std::string out;
  for (const auto& p : checked.errors) out += "\n" + config::Describe(p, path);
  return out;
}

SecretRotateAnswer Rotate(const config::Config& in_force, const config::EndpointConfig& e, const SecretRotateAsk& ask,
                          const LoadNow& load_now, store::EndpointStates& audit, int64_t now_ms) {
  if (ask.next.empty()) return Refused(Code::kInvalidArgument, "the new secret is empty");
  if (ask.next.bytes().size() > kMaxSecretBytes) {
    return Refused(Code::kInvalidArgument, "the new secret is longer than 64 KiB");
  }
  // The state file keeps whole seconds: round down, so what is kept is what was said.
  const int64_t until = ask.keep_old_until_ms / 1000 * 1000;
  if (until <= now_ms) {
    return Refused(Code::kInvalidArgument, "the time to keep the old secret until (" + FormatUtc(until) +
                                               ") is not in the future");
  }
  auto rotation = config::ReadRotation(e.secret_file);
  if (!rotation.ok()) return Refused(Code::kConflict, rotation.status().message());
  if (rotation->has_value() && (*rotation)->previous_until_ms > now_ms) {
    return Refused(Code::kConflict, "a rotation of endpoint \"" + e.name + "\" is still in its window: the previous "
                                        "secret is accepted until " + FormatUtc((*rotation)->previous_until_ms) +
                                        ". Retire it first (hookinbox secrets retire " + e.name + ") or wait");
  }
  Result<Secret> before = config::WriteRotation(e.secret_file, ask.next.bytes(), until);
  if (!before.ok()) return Refused(before.status().code(), before.status().message());
  // Loaded as the reload will load it: a new secret the endpoint's encoding
  // cannot decode (or any other problem) puts the old files back.
  CheckedConfig checked = load_now();
  std::string why;
  if (!checked.ok()) {
    why = "the config does not load with the new secret, so nothing changed:" + ProblemText(checked, in_force.path);
  } else {
    const std::string reason = "new secret in " + e.secret_file + "; the previous one accepted until " +
                               FormatUtc(until);
    Status recorded = audit.RecordSecretRotated(e.name, ask.actor, reason, now_ms);
    if (recorded.ok()) {
      SecretRotateAnswer answer;
      answer.previous_until_ms = until;
      answer.secret_file = e.secret_file;
      return answer;
    }
    why = "the rotation could not be recorded in the audit log, so nothing changed: " + recorded.message();
  }
  Status undone = config::UndoRotation(e.secret_file, before->bytes());
  if (!undone.ok()) why += "; putting the old secret back failed too: " + undone.message();
  return Refused(checked.ok() ? Code::kUnavailable : Code::kInvalidArgument, why);
}

SecretRotateAnswer Retire(const config::EndpointConfig& e, const SecretRotateAsk& ask, store::EndpointStates& audit,
                          int64_t now_ms) {
  auto rotation = config::ReadRotation(e.secret_file);
  SecretRotateAnswer answer;
  answer.secret_file = e.secret_file;
  if (rotation.ok() && !rotation->has_value()) {
    answer.changed = false;  // nothing to retire: the state asked for
    return answer;
  }
  if (Status removed = config::RemoveRotation(e.secret_file); !removed.ok()) {
    return Refused(removed.code(), removed.message());
  }
  const std::string reason = "previous secret of " + e.secret_file + " retired";
  auto recorded = audit.RecordSecretRetired(e.name, ask.actor, reason, now_ms, /*only_after_rotation=*/false);
  if (!recorded.ok()) {
    return Refused(Code::kUnavailable, "the previous secret was removed, but the audit row could not be written: " +
                                           recorded.status().message());
  }
  return answer;
}

}  // namespace

SecretRotateAnswer ApplySecretStep(const config::Config& in_force, const SecretRotateAsk& ask, const LoadNow& load_now,
                                   store::EndpointStates& audit, int64_t now_ms) {
  const config::EndpointConfig* e = in_force.FindEndpoint(ask.endpoint);
  if (e == nullptr) {
    return Refused(Code::kNotFound, "no endpoint named \"" + ask.endpoint + "\" in " + in_force.path +
                                        " (configured: " + Configured(in_force) + ")");
  }
  if (std::string why = NotRotatable(*e); !why.empty()) return Refused(Code::kConflict, why);
  return ask.retire ? Retire(*e, ask, audit, now_ms) : Rotate(in_force, *e, ask, load_now, audit, now_ms);
}

}  // namespace hookinbox::cli
