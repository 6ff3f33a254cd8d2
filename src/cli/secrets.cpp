// `hookinbox secrets rotate ENDPOINT --new-file FILE [--keep-old-until T]`
// and `hookinbox secrets retire ENDPOINT`: a secret rotation on the host,
// then a reload of the running service.
//
// The files are changed here, by whoever runs the command (usually root, who
// owns the secret files the service only reads); the step is checked and
// recorded as the admin API's would be (cli/secret_rotation.h), with the
// actor "cli:<os user>"; then the service is asked to reload, exactly as
// `hookinbox reload` asks. Nothing here prints a secret.
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "cli/reload_client.h"
#include "cli/replay_time.h"
#include "cli/secret_rotation.h"
#include "common/clock.h"

namespace hookinbox::cli {
namespace {

using nlohmann::ordered_json;

constexpr const char* kVerb = "hookinbox secrets";
constexpr auto kMaxSecretBytes = static_cast<std::streamsize>(config::kMaxSecretBytes);

// The new secret's bytes; nullopt, said on `err`, when FILE cannot be read,
// is empty or is far larger than any secret.
std::optional<Secret> ReadNewSecret(const std::string& path, std::ostream& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << kVerb << ": --new-file: cannot read " << path << "\n";
    return std::nullopt;
  }
  std::string bytes;
  bytes.resize(static_cast<size_t>(kMaxSecretBytes) + 1);
  in.read(bytes.data(), kMaxSecretBytes + 1);
  bytes.resize(static_cast<size_t>(in.gcount()));
  Secret secret(std::move(bytes));
  if (secret.bytes().size() > static_cast<size_t>(kMaxSecretBytes)) {
    err << kVerb << ": --new-file: " << path << " is larger than 64 KiB; is it the secret?\n";
    return std::nullopt;
  }
  if (secret.bytes().find_first_not_of("\r\n") == std::string_view::npos) {
    err << kVerb << ": --new-file: " << path << " is empty\n";
    return std::nullopt;
  }
  return secret;
}

// A refusal's exit code: what the command line asked cannot be done (an
// unknown endpoint, a bad secret or time) is a usage error.
int ExitForRefusal(const Status& st) {
  return st.code() == Code::kNotFound || st.code() == Code::kInvalidArgument ? kExitUsage : kExitFailure;
}

void PrintStep(const config::SecretRotateAsk& ask, const config::SecretRotateAnswer& answer, std::ostream& out) {
  if (!ask.retire) {
    out << ask.endpoint << ": new secret in " << answer.secret_file << "; the previous one is accepted until "
        << FormatUtc(answer.previous_until_ms) << ", then refused (recorded in the audit log)\n";
  } else if (answer.changed) {
    out << ask.endpoint << ": the previous secret is retired (recorded in the audit log); from the reload on, only "
        << "the secret in " << answer.secret_file << " is accepted\n";
  } else {
    out << ask.endpoint << ": no previous secret to retire; nothing changed\n";
  }
}

// `reply`: the reload asked after the change; null when nothing changed (none asked).
ordered_json StepJson(const config::SecretRotateAsk& ask, const config::SecretRotateAnswer& answer,
                      const ReloadReply* reply) {
  ordered_json j{
      {"endpoint", ask.endpoint},
      {"action", ask.retire ? "retire" : "rotate"},
      {"changed", answer.changed},
      {"secret_file", answer.secret_file},
      {"previous_until", ask.retire ? ordered_json(nullptr) : ordered_json(FormatUtc(answer.previous_until_ms))}};
  ordered_json reload = reply ? ordered_json::parse(reply->body, nullptr, /*allow_exceptions=*/false) : nullptr;
  j["reloaded"] = reply != nullptr && reply->status == 200;
  j["reload"] = reload.is_discarded() ? ordered_json(nullptr) : reload;
  j["reload_error"] = reply != nullptr && reply->status == 0 ? ordered_json(reply->error) : ordered_json(nullptr);
  return j;
}

int Step(config::SecretRotateAsk ask, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  // Loading scrubs the *_env variables it read; the check after the write
  // loads again, so it reads them from this copy (as serve's reloads do).
  const StartEnvironment env = StartEnvironment::Capture();
  auto opened = OpenForCommand(common, {.verb = "secrets"}, err);
  if (!opened) return kExitFailure;
  if (!opened->OpenStore(err)) return kExitFailure;
  const std::string path = opened->config_path;
  ReloadReply reply;
  bool asked = false;
  auto put_in_force = [&]() -> InForce {
    reply = AskServiceToReload(opened->config, path, {});
    asked = true;
    if (reply.status == 200) return {};
    // No service answered (not running, or the config says too little to
    // ask it): the files stay, its next start or reload reads them.
    if (reply.status == 0) return {true, Status(Code::kUnavailable, reply.error)};
    return {false, Status(Code::kConflict, "the running service did not put it in force, so nothing changed")};
  };
  const config::SecretRotateAnswer answer = ApplySecretStep(
      opened->config, ask, [&] { return LoadAndCheck(path, false, &env); }, put_in_force, *opened->store,
      SystemClock().NowMs(), /*wait_for_lock=*/true);
  if (!answer.status.ok()) {
    if (asked && reply.status != 0) PrintReloadReply(reply, path, /*json=*/false, kVerb, out, err);
    err << kVerb << ": " << answer.status.message() << "\n";
    return ExitForRefusal(answer.status);
  }
  if (common.json) {
    out << StepJson(ask, answer, asked ? &reply : nullptr).dump(2, ' ', false, ordered_json::error_handler_t::replace)
        << "\n";
    return !asked || reply.status == 200 ? kExitOk : kExitFailure;
  }
  PrintStep(ask, answer, out);
  if (!asked) return kExitOk;  // nothing to retire: nothing to reload
  const int code = PrintReloadReply(reply, path, /*json=*/false, kVerb, out, err);
  if (code != kExitOk) {
    err << kVerb << ": the files are changed and recorded; the service uses them once it starts or reloads "
        << "(systemctl reload hookinbox, or hookinbox reload)\n";
  }
  return code;
}

}  // namespace

int RunSecretsRotate(const SecretsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  const int64_t now_ms = SystemClock().NowMs();
  auto until = ParseFutureTime(options.keep_old_until, now_ms);
  if (!until.ok()) {
    err << kVerb << ": --keep-old-until: " << until.status().message() << "\n";
    return kExitUsage;
  }
  std::optional<Secret> next = ReadNewSecret(options.new_file, err);
  if (!next) return kExitUsage;
  config::SecretRotateAsk ask;
  ask.endpoint = options.endpoint;
  ask.next = std::move(*next);
  ask.keep_old_until_ms = *until;
  ask.actor = CliActor();
  return Step(std::move(ask), common, out, err);
}

int RunSecretsRetire(const SecretsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  config::SecretRotateAsk ask;
  ask.endpoint = options.endpoint;
  ask.retire = true;
  ask.actor = CliActor();
  return Step(std::move(ask), common, out, err);
}

}  // namespace hookinbox::cli
