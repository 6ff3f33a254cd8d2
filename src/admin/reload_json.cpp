#include "admin/reload_json.h"

#include "admin/api_json.h"

namespace hookinbox::admin {
namespace {

using nlohmann::ordered_json;

constexpr const char* kAcceptKeyChange = "accept_key_change";
constexpr int kUnprocessable = 422;

ordered_json Strings(const std::vector<std::string>& list) {
  ordered_json out = ordered_json::array();
  for (const std::string& s : list) out.push_back(s);
  return out;
}

// Warnings are about the file just read; errors name it too, so a script can
// print "FILE:LINE: KEY: MESSAGE" as check-config does.
ordered_json Problems(const std::vector<config::Problem>& problems, const std::string* file) {
  ordered_json out = ordered_json::array();
  for (const config::Problem& p : problems) {
    ordered_json item = ordered_json::object();
    if (file != nullptr) item["file"] = *file;
    item["key"] = p.key;
    item["line"] = p.line;
    item["message"] = p.message;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

Result<config::ReloadAsk> ParseReloadAsk(const std::string& body) {
  config::ReloadAsk ask;
  ask.actor = "admin";
  auto parsed = ParseJsonObject(body, /*empty_ok=*/true);
  if (!parsed.ok()) {
    return InvalidArgument(parsed.status().message() + "; send no body, or {\"accept_key_change\": [\"ENDPOINT\"]}");
  }
  for (const auto& [name, value] : parsed->items()) {
    if (name != kAcceptKeyChange) {
      return InvalidArgument("unknown member \"" + name + "\"; the body takes only accept_key_change");
    }
  }
  auto list = parsed->find(kAcceptKeyChange);
  if (list == parsed->end()) return ask;
  if (!list->is_array()) return InvalidArgument("accept_key_change must be an array of endpoint names");
  for (const auto& name : *list) {
    if (!name.is_string() || name.get<std::string>().empty()) {
      return InvalidArgument("accept_key_change must be an array of endpoint names");
    }
    ask.accept_key_change.push_back(name.get<std::string>());
  }
  return ask;
}

ordered_json ReloadAnswerJson(const config::ReloadAnswer& answer) {
  ordered_json out = ordered_json::object();
  out["applied"] = answer.applied;
  out["config"] = answer.config_path;
  out["generation"] = answer.generation;
  out["changed"] = Strings(answer.changed);
  out["needs_restart"] = Strings(answer.needs_restart);
  out["warnings"] = Problems(answer.warnings, nullptr);
  out["errors"] = Problems(answer.errors, &answer.config_path);
  return out;
}

int ReloadAnswerStatus(const config::ReloadAnswer& answer) { return answer.applied ? 200 : kUnprocessable; }

}  // namespace hookinbox::admin
