// admin/replay_request.h — the body of POST /admin/api/events/replay (a bulk
// replay by filter) as a store filter.
//
// {"status": "dead_lettered"|"unknown"|"completed", "endpoint": "NAME",
//  "since": T, "until": T, "error": "TEXT", "dry_run": true|false, "note": "TEXT"}
// status and endpoint are required; T is what admin::ParseTime reads (ms
// since the epoch, as a number or digits, or ISO-8601). Unknown members are
// refused, so a typo ("endpont") cannot widen a replay to more than was
// meant. Pure: no I/O.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "common/status.h"
#include "store/admin_queries.h"

namespace hookinbox::admin {

struct ReplayRequest {
  store::ReplayFilter filter;
  bool dry_run = false;
  std::string note;
};

// InvalidArgument naming the member for anything malformed.
Result<ReplayRequest> ParseReplayRequest(const nlohmann::json& body);

}  // namespace hookinbox::admin
