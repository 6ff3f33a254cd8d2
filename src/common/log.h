// common/log.h — one JSON object per line, to stderr (journald-friendly).
//
// Lines look like
//   {"ts":"2026-11-30T14:00:00.123Z","level":"info","event":"delivery","endpoint":"demo","status":200}
// "ts", "level" and "event" come first, then the caller's fields in the order
// given. Strings are JSON-escaped (control characters as \uXXXX, bytes that
// are not valid UTF-8 as U+FFFD), so a hostile header can neither forge a line
// nor make one unparseable. Field names listed by SetRedactedFields (the
// config's [log] redact) are written with the value "[redacted]".
// Never pass a secret, signature, token or body as a field: the type system
// cannot stop that; review and the integration suite's log-leak test do.
//
// Thread-safety: every function may be called from any thread; concurrent
// lines are never interleaved.
#pragma once

#include <concepts>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookinbox::log {

enum class Level { kDebug, kInfo, kWarn, kError };

// One field of a line: a string, or an integer written as a JSON number.
struct Field {
  Field(std::string_view k, std::string v) : key(k), value(std::move(v)) {}
  Field(std::string_view k, const char* v) : key(k), value(v) {}
  Field(std::string_view k, std::string_view v) : key(k), value(v) {}
  template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char>)
  Field(std::string_view k, T v) : key(k), value(std::to_string(v)), number(true) {}
  Field(std::string_view k, double v);  // written with 3 decimals ("latency_ms":1.250)

  std::string_view key;
  std::string value;
  bool number = false;  // value holds decimal digits: written unquoted
};

// Lines below this level are dropped. Default: kInfo.
void SetMinLevel(Level level);

// Field names whose values every later line replaces by "[redacted]"
// ("ts", "level" and "event" cannot be redacted). Replaces the previous list.
void SetRedactedFields(std::vector<std::string> names);

void Write(Level level, std::string_view event, std::initializer_list<Field> fields = {});

inline void Info(std::string_view event, std::initializer_list<Field> f = {}) { Write(Level::kInfo, event, f); }
inline void Warn(std::string_view event, std::initializer_list<Field> f = {}) { Write(Level::kWarn, event, f); }
inline void Error(std::string_view event, std::initializer_list<Field> f = {}) { Write(Level::kError, event, f); }

// Formats a line without writing it (exposed for tests); applies the redaction list.
std::string Format(Level level, std::string_view event, std::initializer_list<Field> fields, long long now_ms);

// Appends `text` as a JSON string literal (with quotes) to `out`.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace hookinbox::log
