// JSON parsing, pointers and canonical form; see json.h.
//
// The depth limit is enforced by a byte scan before nlohmann sees the body
// (common/json_depth.h, shared with the admin payload view): the scan is
// linear, allocates nothing and stops at the first level too deep, so a
// megabyte of '[' costs one pass instead of a megabyte-deep document that
// every later recursive walk (canonicalisation, pointer removal) would have to
// survive.
#include "verify/json.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include "common/json_depth.h"
#include "verify/text.h"

namespace hookinbox::verify {

namespace {

using nlohmann::json;

// One limit for every JSON text the product parses: verify's public constant
// must not drift from the shared scan's.
static_assert(kMaxJsonDepth == ::hookinbox::kMaxJsonDepth);

// Rewrites integral floats as integers, recursively, so 1.0 and 1 serialise alike.
void NormaliseNumbers(json& v) {
  constexpr double kMaxExact = 9007199254740992.0;  // 2^53: beyond it doubles skip integers
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) <= kMaxExact) {
      v = static_cast<int64_t>(d);  // -0.0 becomes 0 here too
    }
  } else if (v.is_structured()) {
    for (auto& child : v) NormaliseNumbers(child);
  }
}

// The unescaped reference tokens of `pointer` ("/a~1b/*" → {"a/b", "*"}); the
// caller has checked that it is a valid, non-root pointer.
std::vector<std::string> PointerTokens(const std::string& pointer) {
  std::vector<std::string> tokens;
  for (size_t at = 1;;) {
    size_t slash = pointer.find('/', at);
    std::string token = pointer.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
    for (size_t t = token.find('~'); t != std::string::npos; t = token.find('~', t + 1)) {
      token.replace(t, 2, token[t + 1] == '1' ? "/" : "~");
    }
    tokens.push_back(std::move(token));
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return tokens;
}

// An array index token as RFC 6901 writes it: "0" or digits without a leading zero.
std::optional<size_t> ArrayIndex(const std::string& token, size_t size) {
  if (token.empty() || token.size() > 18 || token.find_first_not_of("0123456789") != std::string::npos ||
      (token.size() > 1 && token[0] == '0')) {
    return std::nullopt;
  }
  size_t i = static_cast<size_t>(std::stoull(token));
  return i < size ? std::optional(i) : std::nullopt;
}

// Removes what tokens[at..] names under `node`; "*" stands for every element
// or member at its level. Depth is bounded by the pointer, not the document.
void RemoveTokens(json& node, const std::vector<std::string>& tokens, size_t at) {
  const std::string& token = tokens[at];
  const bool last = at + 1 == tokens.size();
  if (token == "*") {
    if (!node.is_structured()) return;
    if (last) {
      node = node.is_array() ? json::array() : json::object();
      return;
    }
    for (auto& child : node) RemoveTokens(child, tokens, at + 1);
    return;
  }
  if (node.is_object()) {
    auto it = node.find(token);
    if (it == node.end()) return;
    if (last) {
      node.erase(it);
    } else {
      RemoveTokens(*it, tokens, at + 1);
    }
  } else if (node.is_array()) {
    std::optional<size_t> i = ArrayIndex(token, node.size());
    if (!i) return;
    if (last) {
      node.erase(*i);
    } else {
      RemoveTokens(node[*i], tokens, at + 1);
    }
  }
}

bool HasWildcard(const std::vector<std::string>& tokens) {
  for (const auto& t : tokens) {
    if (t == "*") return true;
  }
  return false;
}

}  // namespace

Result<json> ParseJson(std::string_view body) {
  if (!IsValidUtf8(body)) return InvalidArgument("body is not valid UTF-8");
  if (JsonNestsDeeperThan(body, kMaxJsonDepth)) {
    return InvalidArgument("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  try {
    json doc = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return InvalidArgument("body is not valid JSON");
    return doc;
  } catch (const std::exception&) {  // allocation failure: parse errors do not throw here
    return Internal("JSON parser failed");
  }
}

const Result<json>& ParsedBody::Get() {
  if (!parsed_) parsed_.emplace(ParseJson(body_));
  return *parsed_;
}

Result<json> ParsedBody::Take() {
  Get();
  Result<json> out = std::move(*parsed_);
  parsed_.reset();
  return out;
}

std::string CanonicalJson(const json& value) {
  json copy = value;
  return CanonicalJsonInPlace(&copy);
}

std::string CanonicalJsonInPlace(json* value) {
  NormaliseNumbers(*value);
  // nlohmann's default object is a std::map, so dump() already sorts keys by
  // byte order and escapes only what JSON requires. `replace` keeps dump from
  // throwing on invalid UTF-8, which only a document built in code can hold.
  return value->dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

bool IsValidJsonPointer(std::string_view pointer) {
  try {
    json::json_pointer p{std::string(pointer)};
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

const json* FindPointer(const json& doc, std::string_view pointer) {
  try {
    json::json_pointer p{std::string(pointer)};
    if (!doc.contains(p)) return nullptr;
    return &doc.at(p);
  } catch (const std::exception&) {  // malformed pointer, or an array index too large to parse
    return nullptr;
  }
}

void RemovePointers(json& doc, const std::vector<std::string>& pointers) {
  for (const std::string& pointer : pointers) {
    try {
      json::json_pointer p{pointer};  // validates the syntax
      if (p.empty()) continue;
      if (std::vector<std::string> tokens = PointerTokens(pointer); HasWildcard(tokens)) {
        RemoveTokens(doc, tokens, 0);
        continue;
      }
      if (!doc.contains(p)) continue;
      json& parent = doc.at(p.parent_pointer());
      if (parent.is_object()) {
        parent.erase(p.back());
      } else if (parent.is_array()) {
        parent.erase(static_cast<size_t>(std::stoull(p.back())));  // contains() checked the index
      }
    } catch (const std::exception&) {
      // Malformed pointers were rejected at config time; an odd one here changes nothing.
    }
  }
}

}  // namespace hookinbox::verify
