// common/json_depth.h — how deep a JSON text nests, measured before any
// parser sees it.
//
// Shared by verify/ (ParseJson refuses request bodies nested too deep) and
// admin/ (a stored payload is only parsed for redaction when shallow enough),
// so both draw the line at the same depth with the same scan. nlohmann parses
// and destroys iteratively, but dump(), copies and every recursive walk of
// ours recurse once per level: a body of a few hundred kilobytes of '[' is
// enough to overflow a thread's stack. Pure functions, thread-safe.
#pragma once

#include <string_view>

namespace hookinbox {

// The deepest nesting of arrays/objects any JSON text is parsed at.
inline constexpr int kMaxJsonDepth = 64;

// True when arrays/objects in `text` nest deeper than `limit`. Brackets
// inside strings do not count. Linear, allocates nothing, stops at the first
// level too deep; tolerates invalid JSON (the parser rejects it afterwards).
bool JsonNestsDeeperThan(std::string_view text, int limit = kMaxJsonDepth);

}  // namespace hookinbox
