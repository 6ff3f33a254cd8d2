// admin/redact.h — what the admin API shows of a payload (GET
// /admin/api/events/{id}?payload=1): the body with the endpoint's `redact`
// JSON Pointers replaced by "[redacted]".
//
// Owns: applying the pointers ("*" = every element or member at that level,
// as in volatile_fields). A payload that must be redacted but is not JSON is
// withheld rather than shown whole: a pointer cannot be applied to it, and
// showing it would leak exactly what the operator asked to hide. So is one
// nested deeper than kMaxJsonDepth (common/json_depth.h), which is never
// parsed: re-serialising it would recurse past the end of the stack. Pure.
#pragma once

#include <string>
#include <vector>

namespace hookinbox::admin {

inline constexpr const char* kRedactedValue = "[redacted]";

struct ShownPayload {
  bool shown = false;    // false: withheld, `why` says so
  std::string body;      // the body to show: as stored, or re-serialised JSON after redaction
  bool redacted = false; // pointers were applied (the body is re-serialised, not the bytes received)
  std::string why;       // when withheld
};

ShownPayload ShowPayload(const std::string& body, const std::vector<std::string>& redact);

}  // namespace hookinbox::admin
