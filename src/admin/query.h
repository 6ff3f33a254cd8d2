// admin/query.h — the admin API's query parameters: event filters, times,
// limits and the opaque pagination cursor.
//
// Owns: turning a request's parameters into store filters, refusing anything
// malformed with InvalidArgument naming the parameter (the API answers 400
// and reads nothing). Unknown and repeated parameters are refused too, so a
// typo ("statu=") cannot silently widen a list. Pure: no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "store/admin_queries.h"

namespace hookinbox::admin {

using QueryParams = std::multimap<std::string, std::string>;  // what httplib::Params is

inline constexpr int kDefaultPageSize = 50;
inline constexpr int kMaxPageSize = 1000;

// Milliseconds since the epoch from "1733011200000" (ms) or ISO-8601 UTC or
// with an offset: "2024-12-01", "2024-12-01T00:00:00Z",
// "2024-12-01T01:00:00.250+01:00". InvalidArgument otherwise.
Result<int64_t> ParseTime(std::string_view text);

// The cursor of the page after the one ending at `last_id` ("" for none), and back.
std::string EncodeEventCursor(int64_t last_id);
Result<int64_t> DecodeEventCursor(std::string_view cursor);
std::string EncodeConflictCursor(int64_t delivery_id, int position);
Result<std::pair<int64_t, int>> DecodeConflictCursor(std::string_view cursor);

// GET /admin/api/events: status, endpoint, tenant, type, q, since, until,
// limit, cursor. `allowed` lists the parameters this route takes (the queue
// routes fix status and take no status parameter).
Result<store::EventFilter> ParseEventQuery(const QueryParams& params,
                                           const std::vector<std::string_view>& allowed);
// The parameters GET /admin/api/events takes.
const std::vector<std::string_view>& EventQueryParams();

// GET /admin/api/conflicts: endpoint, limit, cursor.
Result<store::ConflictFilter> ParseConflictQuery(const QueryParams& params);

}  // namespace hookinbox::admin
