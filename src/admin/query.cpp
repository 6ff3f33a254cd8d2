#include "admin/query.h"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <optional>

#include "common/encoding.h"
#include "store/event_status.h"

namespace hookinbox::admin {
namespace {

// A cursor is the hex of a tagged keyset: hex needs no escaping in a query
// string, and the tag stops one list's cursor from being used on another.
// It is opaque to clients only by contract; nothing in it is secret.
constexpr std::string_view kEventCursorTag = "ev:";
constexpr std::string_view kConflictCursorTag = "cf:";

Status Bad(std::string_view param, const std::string& why) {
  return InvalidArgument("parameter " + std::string(param) + ": " + why);
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Reads `n` digits at `pos` of `s` into `out`; false when they are not there.
bool Digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size() || !AllDigits(s.substr(pos, n))) return false;
  out = static_cast<int>(*ParseInt(s.substr(pos, n)));
  return true;
}

// "Z", "+HH:MM" or "-HH:MM" at the end of an ISO time: its offset in seconds.
std::optional<int64_t> ParseOffset(std::string_view s) {
  if (s == "Z" || s == "z") return 0;
  int h = 0, m = 0;
  if (s.size() != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' || !Digits(s, 1, 2, h) || !Digits(s, 4, 2, m) ||
      h > 23 || m > 59) {
    return std::nullopt;
  }
  int64_t secs = h * 3600 + m * 60;
  return s[0] == '+' ? secs : -secs;
}

std::optional<int64_t> ParseIso(std::string_view s) {
  std::tm tm{};
  int year = 0, month = 0, day = 0;
  if (!Digits(s, 0, 4, year) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, month) || s[7] != '-' ||
      !Digits(s, 8, 2, day) || month < 1 || month > 12 || day < 1 || day > 31) {
    return std::nullopt;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  int64_t ms = 0, offset = 0;
  if (s.size() > 10) {
    if ((s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s.size() < 20 || s[13] != ':' || s[16] != ':' ||
        !Digits(s, 11, 2, tm.tm_hour) || !Digits(s, 14, 2, tm.tm_min) || !Digits(s, 17, 2, tm.tm_sec) ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60) {
      return std::nullopt;
    }
    size_t pos = 19;
    if (s[pos] == '.') {
      size_t end = s.find_first_not_of("0123456789", pos + 1);
      if (end == std::string_view::npos || end == pos + 1) return std::nullopt;
      std::string frac(s.substr(pos + 1, std::min<size_t>(end - pos - 1, 3)));
      frac.resize(3, '0');
      ms = *ParseInt(frac);
      pos = end;
    }
    auto off = ParseOffset(s.substr(pos));
    if (!off) return std::nullopt;
    offset = *off;
  }
  std::time_t t = ::timegm(&tm);
  if (tm.tm_mday != day) return std::nullopt;  // timegm normalised a day past the month's end
  return (static_cast<int64_t>(t) - offset) * 1000 + ms;
}

// The single value of `name`, nullopt when absent; Bad when repeated.
Result<std::optional<std::string>> One(const QueryParams& params, std::string_view name) {
  auto [lo, hi] = params.equal_range(std::string(name));
  if (lo == hi) return std::optional<std::string>();
  if (std::next(lo) != hi) return Bad(name, "given more than once");
  return std::optional<std::string>(lo->second);
}

Status CheckKnown(const QueryParams& params, const std::vector<std::string_view>& allowed) {
  for (const auto& [name, value] : params) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return InvalidArgument("unknown parameter " + name);
    }
  }
  return Status::Ok();
}

Result<int> ParseLimit(const std::optional<std::string>& text) {
  if (!text) return kDefaultPageSize;
  auto v = ParseInt(*text);
  if (!v || *v < 1 || *v > kMaxPageSize) return Bad("limit", "must be 1.." + std::to_string(kMaxPageSize));
  return static_cast<int>(*v);
}

bool KnownStatus(std::string_view s) { return store::EventStatusFromSql(s).has_value(); }

// Text parameters of the event filter: where each goes and whether it may be empty.
// The "limit" and "cursor" every paged list takes, checked in that order;
// the cursor is "" when absent or empty (the first page).
struct Paging {
  int limit = 0;
  std::string cursor;
};
Result<Paging> ReadPaging(const QueryParams& params) {
  auto limit = One(params, "limit");
  if (!limit.ok()) return limit.status();
  auto n = ParseLimit(*limit);
  if (!n.ok()) return n.status();
  auto cursor = One(params, "cursor");
  if (!cursor.ok()) return cursor.status();
  return Paging{*n, cursor->value_or("")};
}

Status ReadEventText(const QueryParams& params, store::EventFilter& f) {
  const std::pair<std::string_view, std::string*> fields[] = {{"status", &f.status}, {"endpoint", &f.endpoint},
                                                              {"tenant", &f.tenant}, {"type", &f.event_type},
                                                              {"q", &f.id_contains}};
  for (const auto& [name, out] : fields) {
    auto v = One(params, name);
    if (!v.ok()) return v.status();
    if (*v) *out = **v;  // "" = no condition, as when absent (an empty form field)
  }
  if (!f.status.empty() && !KnownStatus(f.status)) return Bad("status", "unknown status '" + f.status + "'");
  return Status::Ok();
}

Status ReadTimes(const QueryParams& params, store::EventFilter& f) {
  for (auto [name, out] : {std::pair<std::string_view, int64_t*>{"since", &f.since_ms}, {"until", &f.until_ms}}) {
    auto v = One(params, name);
    if (!v.ok()) return v.status();
    if (!*v || (*v)->empty()) continue;
    auto t = ParseTime(**v);
    if (!t.ok()) return Bad(name, t.status().message());
    if (*t <= 0) return Bad(name, "must be after 1970-01-01");
    *out = *t;
  }
  if (f.since_ms != 0 && f.until_ms != 0 && f.until_ms <= f.since_ms) return Bad("until", "must be after since");
  return Status::Ok();
}

}  // namespace

Result<int64_t> ParseTime(std::string_view text) {
  if (AllDigits(text)) {
    auto v = ParseInt(text);
    if (!v) return InvalidArgument("not a time: milliseconds out of range");
    return *v;
  }
  auto t = ParseIso(text);
  if (!t) return InvalidArgument("not a time: write milliseconds since the epoch or ISO-8601, e.g. 2024-12-01T08:00:00Z");
  return *t;
}

std::string EncodeEventCursor(int64_t last_id) {
  return last_id > 0 ? HexEncode(std::string(kEventCursorTag) + std::to_string(last_id)) : "";
}

Result<int64_t> DecodeEventCursor(std::string_view cursor) {
  auto raw = HexDecode(cursor);
  if (!raw || raw->rfind(kEventCursorTag, 0) != 0) return Bad("cursor", "not a cursor this list returned");
  auto id = ParseInt(std::string_view(*raw).substr(kEventCursorTag.size()));
  if (!id || *id <= 0) return Bad("cursor", "not a cursor this list returned");
  return *id;
}

std::string EncodeConflictCursor(int64_t delivery_id, int position) {
  return HexEncode(std::string(kConflictCursorTag) + std::to_string(delivery_id) + ":" + std::to_string(position));
}

Result<std::pair<int64_t, int>> DecodeConflictCursor(std::string_view cursor) {
  auto raw = HexDecode(cursor);
  Status bad = Bad("cursor", "not a cursor this list returned");
  if (!raw || raw->rfind(kConflictCursorTag, 0) != 0) return bad;
  std::string_view rest = std::string_view(*raw).substr(kConflictCursorTag.size());
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return bad;
  auto d = ParseInt(rest.substr(0, colon));
  auto p = ParseInt(rest.substr(colon + 1));
  if (!d || !p || *d <= 0 || *p < 0 || *p > 1000000) return bad;
  return std::make_pair(*d, static_cast<int>(*p));
}

const std::vector<std::string_view>& EventQueryParams() {
  static const std::vector<std::string_view> kParams = {"status", "endpoint", "tenant", "type", "q",
                                                        "since",  "until",    "limit",  "cursor"};
  return kParams;
}

Result<store::EventFilter> ParseEventQuery(const QueryParams& params, const std::vector<std::string_view>& allowed) {
  if (Status st = CheckKnown(params, allowed); !st.ok()) return st;
  store::EventFilter f;
  if (Status st = ReadEventText(params, f); !st.ok()) return st;
  if (Status st = ReadTimes(params, f); !st.ok()) return st;
  auto paging = ReadPaging(params);
  if (!paging.ok()) return paging.status();
  f.limit = paging->limit;
  if (!paging->cursor.empty()) {
    auto id = DecodeEventCursor(paging->cursor);
    if (!id.ok()) return id.status();
    f.before_id = *id;
  }
  return f;
}

Result<store::ConflictFilter> ParseConflictQuery(const QueryParams& params) {
  if (Status st = CheckKnown(params, {"endpoint", "limit", "cursor"}); !st.ok()) return st;
  store::ConflictFilter f;
  auto endpoint = One(params, "endpoint");
  if (!endpoint.ok()) return endpoint.status();
  if (*endpoint) f.endpoint = **endpoint;
  auto paging = ReadPaging(params);
  if (!paging.ok()) return paging.status();
  f.limit = paging->limit;
  if (!paging->cursor.empty()) {
    auto keyset = DecodeConflictCursor(paging->cursor);
    if (!keyset.ok()) return keyset.status();
    f.before_delivery_id = keyset->first;
    f.before_position = keyset->second;
  }
  return f;
}

}  // namespace hookinbox::admin
