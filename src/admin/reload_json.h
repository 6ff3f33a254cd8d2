// admin/reload_json.h — the body and the answer of POST /admin/api/reload.
//
// Owns: reading the request body into a config::ReloadAsk (actor "admin")
// and writing a config::ReloadAnswer as the JSON `hookinbox reload` and
// scripts read:
//   {"applied": bool, "config": path, "generation": N, "changed": […],
//    "needs_restart": […], "warnings": [{"key", "line", "message"}],
//    "errors": [{"file", "key", "line", "message"}]}
// with its status: 200 when applied, 422 when refused. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "common/status.h"
#include "config/reload.h"

namespace hookinbox::admin {

// An empty body, or {"accept_key_change": ["endpoint", …]} (names non-empty,
// nothing else in the object). InvalidArgument saying what is wrong otherwise.
Result<config::ReloadAsk> ParseReloadAsk(const std::string& body);

nlohmann::ordered_json ReloadAnswerJson(const config::ReloadAnswer& answer);

// 200 when the answer says applied, else 422.
int ReloadAnswerStatus(const config::ReloadAnswer& answer);

}  // namespace hookinbox::admin
