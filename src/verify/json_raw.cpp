// RawArrayElements(): walks JSON text without building values, to find the
// byte ranges of a batch's elements. The text has already passed ParseJson,
// so the walk only needs to be right on valid JSON; it still never reads past
// the end, so a caller's mistake cannot turn into an overread.
#include <charconv>
#include <optional>
#include <string>

#include "verify/json.h"

namespace hookinbox::verify {
namespace {

class RawJson {
 public:
  explicit RawJson(std::string_view text) : text_(text) {}

  size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) ++pos_;
  }

  // Consumes `c` (after spaces) when it is next.
  bool Eat(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }

  // Skips one value; false when the text ends first.
  bool SkipValue() {
    SkipSpace();
    char c = Peek();
    if (c == '"') return SkipString();
    if (c == '{' || c == '[') return SkipContainer();
    while (!AtEnd() && Peek() != ',' && Peek() != '}' && Peek() != ']' && Peek() != ' ' && Peek() != '\t' &&
           Peek() != '\n' && Peek() != '\r') {
      ++pos_;  // a number or a literal
    }
    return true;
  }

  // The member name at the cursor, unescaped; nullopt when there is none.
  std::optional<std::string> ReadKey() {
    SkipSpace();
    size_t start = pos_;
    if (Peek() != '"' || !SkipString()) return std::nullopt;
    std::string_view raw = text_.substr(start, pos_ - start);
    if (raw.find('\\') == std::string_view::npos) return std::string(raw.substr(1, raw.size() - 2));
    nlohmann::json decoded = nlohmann::json::parse(raw, nullptr, false);  // escapes are rare in names
    if (!decoded.is_string()) return std::nullopt;
    return decoded.get<std::string>();
  }

 private:
  bool SkipString() {
    ++pos_;  // the opening quote
    while (!AtEnd()) {
      char c = text_[pos_++];
      if (c == '\\') {
        ++pos_;
      } else if (c == '"') {
        return true;
      }
    }
    return false;
  }

  // Skips an object or array by counting brackets outside strings.
  bool SkipContainer() {
    int depth = 0;
    while (!AtEnd()) {
      char c = Peek();
      if (c == '"') {
        if (!SkipString()) return false;
        continue;
      }
      ++pos_;
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return true;
    }
    return false;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// RFC 6901 unescaping of one reference token.
std::string Unescape(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

// Moves the cursor into the member or element named `token`.
bool Enter(RawJson& json, const std::string& token) {
  if (json.Eat('{')) {
    if (json.Eat('}')) return false;
    do {
      std::optional<std::string> key = json.ReadKey();
      if (!key || !json.Eat(':')) return false;
      if (*key == token) return true;
      if (!json.SkipValue()) return false;
    } while (json.Eat(','));
    return false;
  }
  if (!json.Eat('[')) return false;
  if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos) return false;
  // from_chars, not stoul: an index past size_t is simply absent, never an
  // exception out of verify/ (tests/fuzz/regress/fuzz_json_pointer/index-past-size_t).
  size_t index = 0;
  if (std::from_chars(token.data(), token.data() + token.size(), index).ec != std::errc()) return false;
  if (json.Eat(']')) return false;
  for (size_t i = 0; i < index; ++i) {
    if (!json.SkipValue() || !json.Eat(',')) return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<std::string_view>> RawArrayElements(std::string_view text, std::string_view pointer) {
  if (!IsValidJsonPointer(pointer)) return std::nullopt;
  RawJson json(text);
  size_t at = 0;
  while (at < pointer.size()) {
    size_t next = pointer.find('/', at + 1);
    if (next == std::string_view::npos) next = pointer.size();
    if (!Enter(json, Unescape(pointer.substr(at + 1, next - at - 1)))) return std::nullopt;
    at = next;
  }
  if (!json.Eat('[')) return std::nullopt;
  std::vector<std::string_view> elements;
  if (json.Eat(']')) return elements;
  do {
    json.SkipSpace();
    size_t start = json.pos();
    if (!json.SkipValue()) return std::nullopt;
    elements.push_back(text.substr(start, json.pos() - start));
  } while (json.Eat(','));
  if (!json.Eat(']')) return std::nullopt;
  return elements;
}

}  // namespace hookinbox::verify
