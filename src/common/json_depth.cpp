#include "common/json_depth.h"

namespace hookinbox {

// The scan lexes strings exactly as JSON does (a '"' opens one outside a
// string; inside, '\' escapes the next byte), so for valid JSON the depth it
// sees is the parser's. UTF-8 continuation bytes are never ASCII brackets.
bool JsonNestsDeeperThan(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace hookinbox
