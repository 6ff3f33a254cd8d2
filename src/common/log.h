// common/log.h — one structured line per event, to stderr.
//
// Lines look like `2026-11-30T14:00:00.123Z info event=delivery endpoint=demo status=200`.
// Callers pass named fields; values are quoted when they contain spaces and
// control characters are escaped, so a hostile header cannot forge a line.
// Never pass a secret, signature, token or body as a field: the type system
// cannot stop that, review and the before-stop check do.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace hookinbox::log {

enum class Level { kDebug, kInfo, kWarn, kError };

using Field = std::pair<std::string_view, std::string>;

// Lines below this level are dropped. Default: kInfo.
void SetMinLevel(Level level);

void Write(Level level, std::string_view event, std::initializer_list<Field> fields = {});

inline void Info(std::string_view event, std::initializer_list<Field> f = {}) { Write(Level::kInfo, event, f); }
inline void Warn(std::string_view event, std::initializer_list<Field> f = {}) { Write(Level::kWarn, event, f); }
inline void Error(std::string_view event, std::initializer_list<Field> f = {}) { Write(Level::kError, event, f); }

// Formats a line without writing it (exposed for tests).
std::string Format(Level level, std::string_view event, std::initializer_list<Field> fields, long long now_ms);

}  // namespace hookinbox::log
