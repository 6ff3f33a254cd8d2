// admin/api_json.h — the admin API's JSON shapes for store rows.
//
// The same shapes as `hookinbox events … --json` (cli/events.cpp): times are
// ISO-8601 UTC strings ("2024-12-01T08:00:00.000Z"), absent values null, so
// one reader understands both. Effects and steps are described, never a
// step's body. Payloads are added by the caller (admin/redact.h). Pure.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "common/status.h"

#include "store/admin_queries.h"

namespace hookinbox::admin {

nlohmann::json IsoTime(int64_t ms);  // null for 0
nlohmann::json EventJson(const store::EventRow& e);
nlohmann::json DeliveryJson(const store::DeliveryRow& x);
nlohmann::json AttemptJson(const store::AttemptRow& a);
nlohmann::json ActionJson(const store::ActionRow& a);
// {"event": …, "deliveries": […], "attempts": […], "actions": […], "effects": […], "steps": […]}
nlohmann::json EventDetailJson(const store::EventDetail& d);
nlohmann::json ConflictJson(const store::ConflictRow& c);

// A request body as a JSON object; an empty body counts as {} when `empty_ok`.
Result<nlohmann::json> ParseJsonObject(const std::string& body, bool empty_ok);
// The string member `name`; "" when absent and not `required`.
Result<std::string> StringMember(const nlohmann::json& j, const char* name, bool required);

// Serialises for an answer; invalid UTF-8 (a non-UTF-8 payload) is replaced, not thrown.
std::string Dump(const nlohmann::json& j);

}  // namespace hookinbox::admin
