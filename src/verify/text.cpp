// Byte-string helpers; see text.h.
#include "verify/text.h"

#include "common/encoding.h"
#include "common/headers.h"

namespace hookinbox::verify {


bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t len = Utf8SequenceLength(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

bool HasControlChars(std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitTrimmed(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t pos = s.find(sep);
    parts.push_back(TrimSpaces(s.substr(0, pos)));
    if (pos == std::string_view::npos) return parts;
    s.remove_prefix(pos + 1);
  }
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

bool EndsWithIgnoreCase(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && EqualsIgnoreCase(s.substr(s.size() - suffix.size()), suffix);
}

}  // namespace hookinbox::verify
