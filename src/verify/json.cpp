// JSON parsing, pointers and canonical form; see json.h.
//
// The depth limit is enforced by a byte scan before nlohmann sees the body:
// the scan is linear, allocates nothing and stops at the first level too deep,
// so a megabyte of '[' costs one pass instead of a megabyte-deep document that
// every later recursive walk (canonicalisation, pointer removal) would have to
// survive.
#include "verify/json.h"

#include <cmath>
#include <cstdint>

#include "verify/text.h"

namespace hookinbox::verify {

namespace {

using nlohmann::json;

// True when arrays/objects in `body` nest deeper than `limit`. Brackets inside
// strings do not count; the scan tolerates invalid JSON (the parser rejects it).
bool NestsDeeperThan(std::string_view body, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : body) {
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

}  // namespace

Result<json> ParseJson(std::string_view body) {
  if (!IsValidUtf8(body)) return InvalidArgument("body is not valid UTF-8");
  if (NestsDeeperThan(body, kMaxJsonDepth)) {
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

std::string CanonicalJson(const json& value) {
  json copy = value;
  NormaliseNumbers(copy);
  // nlohmann's default object is a std::map, so dump() already sorts keys by
  // byte order and escapes only what JSON requires. `replace` keeps dump from
  // throwing on invalid UTF-8, which only a document built in code can hold.
  return copy.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
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
      json::json_pointer p{pointer};
      if (p.empty() || !doc.contains(p)) continue;
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
