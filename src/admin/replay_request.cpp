#include "admin/replay_request.h"

#include <array>
#include <string_view>

#include "admin/api_json.h"
#include "admin/query.h"
#include "store/event_status.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;

constexpr size_t kMaxTextBytes = 1024;
constexpr std::array<std::string_view, 7> kMembers{"status", "endpoint", "since", "until", "error", "dry_run", "note"};

Status CheckMembers(const json& body) {
  for (const auto& [name, value] : body.items()) {
    bool known = false;
    for (std::string_view m : kMembers) known = known || m == name;
    if (!known) return InvalidArgument("unknown member " + name);
  }
  return Status::Ok();
}

// A time member: ms since the epoch as a number, or a string ParseTime reads; 0 when absent or null.
Result<int64_t> TimeMember(const json& body, const char* name) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return int64_t{0};
  Result<int64_t> t = InvalidArgument("");
  if (it->is_number_unsigned() || it->is_number_integer()) {
    t = it->get<int64_t>();
  } else if (it->is_string()) {
    t = ParseTime(it->get<std::string>());
  } else {
    return InvalidArgument(std::string(name) + " must be a time (ms since the epoch or ISO-8601)");
  }
  if (!t.ok()) return InvalidArgument(std::string(name) + ": " + t.status().message());
  if (*t <= 0) return InvalidArgument(std::string(name) + " must be after 1970-01-01");
  return *t;
}

Result<bool> DryRun(const json& body) {
  auto it = body.find("dry_run");
  if (it == body.end() || it->is_null()) return false;
  if (!it->is_boolean()) return InvalidArgument("dry_run must be true or false");
  return it->get<bool>();
}

Status CheckStatus(const std::string& status) {
  const auto s = store::EventStatusFromSql(status);
  if (!s || !store::IsOneOf(*s, store::kReplayableStatuses)) {
    return InvalidArgument("status must be \"dead_lettered\", \"unknown\" or \"completed\"");
  }
  return Status::Ok();
}

Status ReadText(const json& body, ReplayRequest& r) {
  const std::pair<const char*, std::string*> fields[] = {
      {"status", &r.filter.status}, {"endpoint", &r.filter.endpoint}, {"error", &r.filter.error_contains},
      {"note", &r.note}};
  for (const auto& [name, out] : fields) {
    const bool required = std::string_view(name) == "status" || std::string_view(name) == "endpoint";
    auto v = StringMember(body, name, required);
    if (!v.ok()) return v.status();
    if (required && v->empty()) return InvalidArgument(std::string(name) + " must not be empty");
    if (v->size() > kMaxTextBytes) return InvalidArgument(std::string(name) + " is longer than 1024 bytes");
    *out = *v;
  }
  return CheckStatus(r.filter.status);
}

}  // namespace

Result<ReplayRequest> ParseReplayRequest(const json& body) {
  if (Status st = CheckMembers(body); !st.ok()) return st;
  ReplayRequest r;
  if (Status st = ReadText(body, r); !st.ok()) return st;
  auto since = TimeMember(body, "since");
  if (!since.ok()) return since.status();
  auto until = TimeMember(body, "until");
  if (!until.ok()) return until.status();
  if (*since != 0 && *until != 0 && *until <= *since) return InvalidArgument("until must be after since");
  r.filter.since_ms = *since;
  r.filter.until_ms = *until;
  auto dry = DryRun(body);
  if (!dry.ok()) return dry.status();
  r.dry_run = *dry;
  return r;
}

}  // namespace hookinbox::admin
