#include "admin/secret_json.h"

#include "admin/api_json.h"
#include "admin/query.h"
#include "admin/reload_json.h"
#include "admin/routes.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr const char* kSecret = "secret";
constexpr const char* kKeepOldUntil = "keep_old_until";

// A string member's bytes moved into a Secret, and the parsed copy zeroed:
// the json value goes on living until the caller's object is destroyed.
Result<Secret> TakeSecret(json& body) {
  auto it = body.find(kSecret);
  if (it == body.end()) return InvalidArgument("secret is missing: the new secret, as the provider gave it");
  if (!it->is_string()) return InvalidArgument("secret must be a string");
  std::string& bytes = it->get_ref<std::string&>();
  if (bytes.empty()) return InvalidArgument("secret is empty");
  if (bytes.size() > config::kMaxSecretBytes) {
    WipeBytes(bytes);
    return InvalidArgument("secret is over " + std::to_string(config::kMaxSecretBytes) + " bytes");
  }
  Secret secret(bytes);
  WipeBytes(bytes);
  return secret;
}

Result<int64_t> KeepOldUntil(const json& body, int64_t now_ms) {
  auto it = body.find(kKeepOldUntil);
  if (it == body.end() || it->is_null()) return now_ms + kDefaultKeepOldMs;
  Result<int64_t> until = InvalidArgument("keep_old_until must be a time (ISO-8601, a date or ms)");
  if (it->is_string()) {
    until = ParseTime(it->get<std::string>());
    if (!until.ok()) return InvalidArgument("keep_old_until: " + until.status().message());
  } else if (it->is_number_integer()) {
    until = it->get<int64_t>();
  }
  if (!until.ok()) return until.status();
  if (*until <= now_ms) return InvalidArgument("keep_old_until must be in the future");
  return until;
}

Status OnlyMembers(const json& body, bool retire) {
  for (const auto& [name, value] : body.items()) {
    if (retire) return InvalidArgument("retire takes no body members; unknown member " + name);
    if (name != kSecret && name != kKeepOldUntil) {
      return InvalidArgument("unknown member " + name + " (expected secret, keep_old_until)");
    }
  }
  return Status();
}

}  // namespace

void WipeBytes(std::string& s) {
  volatile char* p = s.data();
  for (size_t i = 0; i < s.size(); ++i) p[i] = '\0';
}

Result<config::SecretRotateAsk> ParseSecretAsk(const std::string& body, const std::string& endpoint, bool retire,
                                               int64_t now_ms) {
  auto parsed = ParseJsonObject(body, /*empty_ok=*/retire);
  if (!parsed.ok()) return parsed.status();
  json& j = *parsed;
  Status members = OnlyMembers(j, retire);
  config::SecretRotateAsk ask;
  ask.endpoint = endpoint;
  ask.retire = retire;
  if (retire) {
    if (!members.ok()) {
      (void)TakeSecret(j);  // a secret sent by mistake: its parsed copy is wiped all the same
      return members;
    }
    return ask;
  }
  // Taken (and the parsed copy zeroed) before any refusal, so no path leaves it behind.
  auto secret = TakeSecret(j);
  if (!members.ok()) return members;
  if (!secret.ok()) return secret.status();
  auto until = KeepOldUntil(j, now_ms);
  if (!until.ok()) return until.status();
  ask.next = std::move(secret).value();
  ask.keep_old_until_ms = *until;
  return ask;
}

ordered_json SecretAnswerJson(const std::string& endpoint, const config::SecretRotateAnswer& answer) {
  ordered_json out = ordered_json::object();
  if (!answer.status.ok()) out["error"] = answer.status.message();
  out["endpoint"] = endpoint;
  out["secret_file"] = answer.secret_file.empty() ? ordered_json(nullptr) : ordered_json(answer.secret_file);
  out["previous_until"] = IsoTime(answer.previous_until_ms);
  out["reloaded"] = answer.reloaded;
  out["reload"] = answer.reloaded ? ReloadAnswerJson(answer.reload) : ordered_json(nullptr);
  return out;
}

int SecretAnswerStatus(const config::SecretRotateAnswer& answer) {
  return answer.status.ok() ? 200 : http::HttpStatusFor(answer.status.code());
}

}  // namespace hookinbox::admin
