// alert/notification.cpp — the stored (JSON) form of a notification.
#include "alert/notification.h"

#include <nlohmann/json.hpp>

namespace hookinbox::alert {

namespace {

constexpr std::pair<NotificationKind, const char*> kKindNames[] = {
    {NotificationKind::kStart, "start"},   {NotificationKind::kReminder, "reminder"},
    {NotificationKind::kResolved, "resolved"}, {NotificationKind::kDigest, "digest"},
    {NotificationKind::kTest, "test"},
};

}  // namespace

const char* NotificationKindName(NotificationKind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "test";
}

std::optional<NotificationKind> NotificationKindFromName(const std::string& name) {
  for (const auto& [k, n] : kKindNames) {
    if (name == n) return k;
  }
  return std::nullopt;
}

std::string NotificationToJson(const Notification& n) {
  nlohmann::json facts = nlohmann::json::array();
  for (const auto& [label, value] : n.facts) facts.push_back({{"label", label}, {"value", value}});
  nlohmann::json j = {{"kind", NotificationKindName(n.kind)},
                      {"title", n.title},
                      {"text", n.text},
                      {"facts", facts},
                      {"link", n.link},
                      {"condition", n.condition},
                      {"endpoint", n.endpoint},
                      {"incident_id", n.incident_id},
                      {"at_ms", n.at_ms}};
  return j.dump();
}

Result<Notification> NotificationFromJson(const std::string& json) {
  auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return InvalidArgument("notification: not a JSON object");
  try {
    Notification n;
    auto kind = NotificationKindFromName(j.at("kind").get<std::string>());
    if (!kind) return InvalidArgument("notification: unknown kind");
    n.kind = *kind;
    n.title = j.at("title").get<std::string>();
    n.text = j.value("text", std::string());
    for (const auto& f : j.value("facts", nlohmann::json::array())) {
      n.facts.emplace_back(f.at("label").get<std::string>(), f.at("value").get<std::string>());
    }
    n.link = j.value("link", std::string());
    n.condition = j.value("condition", std::string());
    n.endpoint = j.value("endpoint", std::string());
    n.incident_id = j.value("incident_id", int64_t{0});
    n.at_ms = j.value("at_ms", int64_t{0});
    return n;
  } catch (const nlohmann::json::exception&) {
    return InvalidArgument("notification: a field is missing or of the wrong type");
  }
}

}  // namespace hookinbox::alert
