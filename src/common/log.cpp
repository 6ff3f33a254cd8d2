// common/log.cpp — see log.h. Written without a JSON library: common/ sits
// below every module (tests/layering.sh) and needs only string escaping.
#include "common/log.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>

#include "common/encoding.h"

namespace hookinbox::log {
namespace {

std::atomic<int> g_min_level{static_cast<int>(Level::kInfo)};
std::mutex g_write_mu;  // keeps concurrent lines whole
std::mutex g_redact_mu;
// Replaced whole by SetRedactedFields; readers take a reference under g_redact_mu.
std::shared_ptr<const std::vector<std::string>> g_redacted = std::make_shared<std::vector<std::string>>();

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
  }
  return "info";
}

void AppendEscape(std::string& out, unsigned char c) {
  switch (c) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: break;
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", c);
  out += buf;
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

std::shared_ptr<const std::vector<std::string>> Redacted() {
  std::lock_guard<std::mutex> lock(g_redact_mu);
  return g_redacted;
}

// Digits with an optional sign and at most one inner decimal point: what the
// numeric constructors of Field produce, and nothing that could break a line.
bool IsNumber(std::string_view v) {
  if (!v.empty() && v[0] == '-') v.remove_prefix(1);
  if (v.empty() || v.front() == '.' || v.back() == '.') return false;
  if (std::count(v.begin(), v.end(), '.') > 1) return false;
  return std::all_of(v.begin(), v.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) {
      AppendEscape(out, c);
      ++i;
    } else if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (size_t n = Utf8SequenceLength(text, i); n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += "\\ufffd";  // one replacement per invalid byte
      ++i;
    }
  }
  out.push_back('"');
}

Field::Field(std::string_view k, double v) : key(k), number(true) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  value = buf;  // nan/inf fail IsNumber and are written quoted
}

void SetMinLevel(Level level) { g_min_level.store(static_cast<int>(level)); }

void SetRedactedFields(std::vector<std::string> names) {
  auto list = std::make_shared<const std::vector<std::string>>(std::move(names));
  std::lock_guard<std::mutex> lock(g_redact_mu);
  g_redacted = std::move(list);
}

std::string Format(Level level, std::string_view event, std::initializer_list<Field> fields, long long now_ms) {
  const auto redacted = Redacted();
  std::string line = "{\"ts\":\"" + IsoTime(now_ms) + "\",\"level\":\"" + LevelName(level) + "\",\"event\":";
  AppendJsonString(line, event);
  for (const Field& f : fields) {
    line.push_back(',');
    AppendJsonString(line, f.key);
    line.push_back(':');
    if (std::find(redacted->begin(), redacted->end(), f.key) != redacted->end()) {
      line += "\"[redacted]\"";
    } else if (f.number && IsNumber(f.value)) {
      line += f.value;
    } else {
      AppendJsonString(line, f.value);
    }
  }
  line += "}\n";
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
