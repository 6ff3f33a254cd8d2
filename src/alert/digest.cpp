// alert/digest.cpp — local-day arithmetic (mktime/localtime_r, so TZ and DST
// are the C library's) and the digest's words.
#include "alert/digest.h"

#include <cstdio>
#include <ctime>

namespace hookinbox::alert {
namespace {

std::string Count(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::tm Local(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  return tm;
}

// Local midnight of the day `tm` is in, `day_offset` days later (mktime normalises the date).
int64_t LocalMidnightMs(std::tm tm, int day_offset) {
  tm.tm_mday += day_offset;
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1;  // let the library decide, for the day's own offset
  return static_cast<int64_t>(std::mktime(&tm)) * 1000;
}

std::string DayName(int64_t ms) {
  std::tm tm = Local(ms);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string IncidentLine(const store::Incident& i) {
  std::string line = "- " + i.summary;
  if (!i.open()) line += " (resolved)";
  return line;
}

std::string Figures(const store::DayFigures& f) {
  std::string text = Count(f.received, "delivery", "deliveries") + " received, " +
                     Count(f.duplicates, "duplicate", "duplicates") + " absorbed (stored once, not processed twice)";
  if (f.rejected > 0) text += ", " + Count(f.rejected, "request", "requests") + " refused";
  text += ".\n\nOf the " + Count(f.events, "event", "events") + " that arrived: " + std::to_string(f.completed) +
          " processed, " + std::to_string(f.failed) + " failed (dead letters or unknown outcome), " +
          std::to_string(f.waiting) + " still waiting.";
  return text;
}

std::string Incidents(const DigestInput& in) {
  if (in.open_now.empty() && in.of_the_day.empty()) return "No incidents: nothing needs your attention.";
  std::string text = Count(static_cast<int64_t>(in.open_now.size()), "incident is", "incidents are") + " open now";
  text += in.open_now.empty() ? "." : ":";
  for (const auto& i : in.open_now) text += "\n" + IncidentLine(i);
  if (!in.of_the_day.empty()) {
    text += "\n\nThat day " + Count(static_cast<int64_t>(in.of_the_day.size()), "incident", "incidents") + " started:";
    for (const auto& i : in.of_the_day) text += "\n" + IncidentLine(i);
  }
  return text;
}

}  // namespace

LocalDay DayBefore(int64_t now_ms) {
  const std::tm today = Local(now_ms);
  LocalDay d;
  d.from_ms = LocalMidnightMs(today, -1);
  d.to_ms = LocalMidnightMs(today, 0);
  d.day = DayName(d.from_ms);
  return d;
}

std::optional<int> ParseTimeOfDay(const std::string& hh_mm) {
  int h = 0, m = 0;
  char tail = 0;
  if (hh_mm.size() != 5 || std::sscanf(hh_mm.c_str(), "%2d:%2d%c", &h, &m, &tail) != 2) return std::nullopt;
  if (h < 0 || h > 23 || m < 0 || m > 59) return std::nullopt;
  return h * 60 + m;
}

std::optional<LocalDay> DigestSchedule::Due(const std::string& digest_at, int64_t now_ms) const {
  const auto at = ParseTimeOfDay(digest_at);
  if (!at) return std::nullopt;
  const std::tm now = Local(now_ms);
  if (now.tm_hour * 60 + now.tm_min < *at) return std::nullopt;
  LocalDay day = DayBefore(now_ms);
  if (day.day == last_day_) return std::nullopt;
  return day;
}

Notification ComposeDigest(const DigestInput& in) {
  Notification n;
  n.kind = NotificationKind::kDigest;
  n.title = "hookinbox daily digest for " + in.day.day;
  n.text = Figures(in.figures) + "\n\n" + Incidents(in);
  if (!in.ui_url.empty()) n.text += "\n\nOpen hookinbox: " + in.ui_url;
  n.facts = {{"Received", std::to_string(in.figures.received)},
             {"Duplicates absorbed", std::to_string(in.figures.duplicates)},
             {"Processed", std::to_string(in.figures.completed)},
             {"Failed", std::to_string(in.figures.failed)},
             {"Waiting", std::to_string(in.figures.waiting)},
             {"Open incidents", std::to_string(in.open_now.size())}};
  n.link = in.ui_url;
  n.at_ms = in.now_ms;
  return n;
}

}  // namespace hookinbox::alert
