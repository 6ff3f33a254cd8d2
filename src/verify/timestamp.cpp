// RFC 3339 parsing and formatting; see timestamp.h.
//
// The calendar arithmetic is the proleptic Gregorian day count of the civil
// date, computed per 400-year era (146097 days each) so it holds for every
// year the parser accepts without tables.
#include "verify/timestamp.h"

#include <cstdio>

namespace hookinbox::verify {

namespace {

// Reads exactly `n` ASCII digits at `pos`, advancing it; nullopt otherwise.
std::optional<int> Digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to y-m-d. Shifting the year to start in March puts the
// leap day last, so the day-of-year has a closed form.
int64_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;                                 // [0, 399]
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;         // [0, 146096]
  return era * 146097 + doe - 719468;
}

// The inverse of DaysFromCivil.
void CivilFromDays(int64_t z, int& y, int& m, int& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  y = static_cast<int>(yoe + era * 400 + (m <= 2 ? 1 : 0));
}

// The zone at `pos` as an offset east of UTC in minutes; consumes the rest.
std::optional<int> ParseZone(std::string_view s, size_t pos) {
  if (pos >= s.size()) return std::nullopt;  // no zone: local time, ambiguous
  const char sign = s[pos++];
  if (sign == 'Z' || sign == 'z') return pos == s.size() ? std::optional(0) : std::nullopt;
  if (sign != '+' && sign != '-') return std::nullopt;
  std::optional<int> hh = Digits(s, pos, 2);
  if (!hh || *hh > 23) return std::nullopt;
  int mm = 0;
  if (pos < s.size()) {
    Expect(s, pos, ':');  // "+HH:MM" or "+HHMM"
    std::optional<int> m = Digits(s, pos, 2);
    if (!m || *m > 59 || pos != s.size()) return std::nullopt;
    mm = *m;
  }
  const int minutes = *hh * 60 + mm;
  return sign == '-' ? -minutes : minutes;
}

}  // namespace

std::optional<int64_t> ParseRfc3339Millis(std::string_view s) {
  size_t pos = 0;
  std::optional<int> year = Digits(s, pos, 4);
  if (!year || !Expect(s, pos, '-')) return std::nullopt;
  std::optional<int> month = Digits(s, pos, 2);
  if (!month || *month < 1 || *month > 12 || !Expect(s, pos, '-')) return std::nullopt;
  std::optional<int> day = Digits(s, pos, 2);
  if (!day || *day < 1 || *day > DaysInMonth(*year, *month)) return std::nullopt;
  if (pos >= s.size() || (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ')) return std::nullopt;
  ++pos;
  std::optional<int> hour = Digits(s, pos, 2);
  if (!hour || *hour > 23 || !Expect(s, pos, ':')) return std::nullopt;
  std::optional<int> minute = Digits(s, pos, 2);
  if (!minute || *minute > 59 || !Expect(s, pos, ':')) return std::nullopt;
  std::optional<int> second = Digits(s, pos, 2);
  if (!second || *second > 59) return std::nullopt;

  int millis = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t digits = 0;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++digits) {
      if (digits < 3) millis = millis * 10 + (s[pos] - '0');
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) millis *= 10;
  }
  std::optional<int> offset_minutes = ParseZone(s, pos);
  if (!offset_minutes) return std::nullopt;

  const int64_t days = DaysFromCivil(*year, *month, *day);
  const int64_t seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second - int64_t{*offset_minutes} * 60;
  return seconds * 1000 + millis;
}

std::string FormatRfc3339Utc(int64_t unix_seconds) {
  int64_t days = unix_seconds / 86400;
  int64_t rem = unix_seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  int y = 0, m = 0, d = 0;
  CivilFromDays(days, y, m, d);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, static_cast<int>(rem / 3600),
                static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60));
  return buf;
}

}  // namespace hookinbox::verify
