// verify/json.h — parsing request bodies as JSON and their canonical form.
//
// Owns: the one place a body becomes a nlohmann::json (with a nesting limit,
// so a hostile body cannot exhaust the stack of whoever walks it), JSON Pointer
// look-ups that never throw, and the canonical serialisation behind the
// payload hash (SPEC §9 "Hashing"). nlohmann throws; nothing here lets an
// exception out.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hookinbox::verify {

// The deepest nesting of arrays/objects ParseJson accepts.
inline constexpr int kMaxJsonDepth = 64;

// `body` parsed. InvalidArgument for invalid JSON ("body is not valid JSON"),
// invalid UTF-8, or nesting deeper than kMaxJsonDepth.
Result<nlohmann::json> ParseJson(std::string_view body);

// A delivery body parsed as JSON at most once, on first use, and shared by
// every step of the receive path that reads it (signature fields, a
// handshake, identification): without it a Slack or Zoom delivery was
// parsed twice. `body` must outlive it.
class ParsedBody {
 public:
  explicit ParsedBody(std::string_view body) : body_(body) {}
  // ParseJson(body), computed on the first call.
  const Result<nlohmann::json>& Get();
  // The parse, handed over to a caller that edits the document (Identify
  // removes volatile fields); a later Get() parses again.
  Result<nlohmann::json> Take();

 private:
  std::string_view body_;
  std::optional<Result<nlohmann::json>> parsed_;
};

// Canonical text of `value`: keys sorted by byte order, no whitespace, strings
// as UTF-8 with only the escapes JSON requires, integral floats within ±2^53
// written as integers (1.0, 1e2 and -0.0 become 1, 100 and 0), other floats in
// shortest round-trip form, integers exact. Equal JSON values give equal text.
std::string CanonicalJson(const nlohmann::json& value);
// The same for a document the caller no longer needs as it was: normalises
// *value in place instead of copying it (a body's hash on the receive path).
std::string CanonicalJsonInPlace(nlohmann::json* value);

// True when `pointer` is a syntactically valid RFC 6901 JSON Pointer ("" or "/a/b~1c").
bool IsValidJsonPointer(std::string_view pointer);

// The value at `pointer` in `doc`, or nullptr when absent or the pointer is malformed.
const nlohmann::json* FindPointer(const nlohmann::json& doc, std::string_view pointer);

// Removes the value at each pointer from `doc`; absent targets, malformed
// pointers and the root pointer "" are ignored. A segment that is exactly "*"
// stands for every element or member at that level ("/*/attemptNumber" removes
// attemptNumber from each element of a batch array), so a member literally
// named "*" cannot be removed by itself.
void RemovePointers(nlohmann::json& doc, const std::vector<std::string>& pointers);

// The exact bytes of each element of the array at `pointer` in `text`, which
// must be JSON that ParseJson accepted: views into `text`, so a batch's events
// are stored as the provider sent them, never re-serialised. nullopt when the
// pointer names no array. (json_raw.cpp)
std::optional<std::vector<std::string_view>> RawArrayElements(std::string_view text, std::string_view pointer);

}  // namespace hookinbox::verify
