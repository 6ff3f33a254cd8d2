#include "common/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace hookinbox::log {
namespace {

std::atomic<int> g_min_level{static_cast<int>(Level::kInfo)};
std::mutex g_write_mu;  // keeps concurrent lines whole

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
  }
  return "info";
}

bool NeedsQuotes(std::string_view v) {
  if (v.empty()) return true;
  for (unsigned char c : v) {
    if (c <= ' ' || c == '"' || c == '=' || c == 0x7f) return true;
  }
  return false;
}

void AppendValue(std::string& out, std::string_view v) {
  if (!NeedsQuotes(v)) {
    out.append(v);
    return;
  }
  out.push_back('"');
  for (unsigned char c : v) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out.append(buf);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
}

std::string IsoTime(long long now_ms) {
  std::time_t secs = static_cast<std::time_t>(now_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(now_ms % 1000));
  return buf;
}

}  // namespace

void SetMinLevel(Level level) { g_min_level.store(static_cast<int>(level)); }

std::string Format(Level level, std::string_view event, std::initializer_list<Field> fields, long long now_ms) {
  std::string line = IsoTime(now_ms);
  line.push_back(' ');
  line.append(LevelName(level));
  line.append(" event=");
  AppendValue(line, event);
  for (const auto& [key, value] : fields) {
    line.push_back(' ');
    line.append(key);
    line.push_back('=');
    AppendValue(line, value);
  }
  line.push_back('\n');
  return line;
}

void Write(Level level, std::string_view event, std::initializer_list<Field> fields) {
  if (static_cast<int>(level) < g_min_level.load()) return;
  using namespace std::chrono;
  // Log timestamps are for humans reading the journal, not for logic: the
  // system clock is acceptable here (the Clock rule covers decisions).
  long long now_ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  std::string line = Format(level, event, fields, now_ms);
  std::lock_guard<std::mutex> lock(g_write_mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace hookinbox::log
