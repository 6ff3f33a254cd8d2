// admin/secret_json.h — the body and the answer of POST
// /admin/api/endpoints/{name}/secret/rotate and …/secret/retire.
//
// Owns: reading a request body into a config::SecretRotateAsk and writing a
// config::SecretRotateAnswer as JSON:
//   rotate body  {"secret": "<new secret, as the provider gave it>",
//                 "keep_old_until": T}   (T optional: now + 24 h; ISO-8601,
//                                         a date or ms, as admin::ParseTime)
//   retire body  empty or {}
//   answer       {"endpoint", "secret_file", "previous_until" (ISO or null),
//                 "reloaded", "reload" (admin/reload_json.h's shape, or null)}
//                 plus "error" when the status is not ok.
// A refusal's message never quotes the body (it holds a secret). The secret
// read from the body is wiped from the parsed copy once moved into the ask.
// Pure: the caller gives the time.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "common/status.h"
#include "config/rotation.h"

namespace hookinbox::admin {

// How long the previous secret stays accepted when keep_old_until is not given.
inline constexpr int64_t kDefaultKeepOldMs = int64_t{24} * 3600 * 1000;

// The ask for `endpoint` (`retire` from the route), actor left empty.
// InvalidArgument saying what is wrong: a body that is not an object, a
// member other than secret / keep_old_until (any member at all to retire), a
// missing, empty, non-string or too long secret, a keep_old_until that is
// not a time or not after `now_ms`.
Result<config::SecretRotateAsk> ParseSecretAsk(const std::string& body, const std::string& endpoint, bool retire,
                                               int64_t now_ms);

// Zeroes `s`'s bytes through a volatile pointer, so the compiler cannot drop
// the writes as dead before the memory is freed: for request bodies and
// parsed copies that held a secret.
void WipeBytes(std::string& s);

nlohmann::ordered_json SecretAnswerJson(const std::string& endpoint, const config::SecretRotateAnswer& answer);

// 200 when the answer's status is ok, else the status's HTTP code.
int SecretAnswerStatus(const config::SecretRotateAnswer& answer);

}  // namespace hookinbox::admin
