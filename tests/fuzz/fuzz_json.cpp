// fuzz_json — verify::ParseJson and CanonicalJson over any body.
//
// ParseJson sees unauthenticated bytes: Verify parses the body for
// body-carried signatures and timestamps, and so do the handshake checks.
// Properties (abort() on violation):
//  * nothing escapes (ParseJson catches; CanonicalJson must not throw);
//  * nesting deeper than kMaxJsonDepth is always refused (counted here by an
//    independent scan, not the product's);
//  * the canonical form is a fixed point: Canonical(Parse(Canonical(x))) ==
//    Canonical(x), so the payload hash of a re-serialised retry equals the original's;
//  * canonical text is valid UTF-8 and parses.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_input.h"
#include "verify/json.h"
#include "verify/text.h"

namespace {

// Deepest bracket nesting outside strings, as a JSON parser sees it.
int MaxDepth(std::string_view s) {
  int depth = 0, max = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max = std::max(max, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hookinbox::verify;
  using hookinbox::fuzz::Check;
  const std::string_view body = hookinbox::fuzz::AsText(data, size);
  auto parsed = ParseJson(body);
  if (!parsed.ok()) return 0;
  Check(MaxDepth(body) <= kMaxJsonDepth, "accepted a document deeper than the limit");

  const std::string canonical = CanonicalJson(*parsed);
  Check(IsValidUtf8(canonical), "canonical text is not UTF-8");
  auto again = ParseJson(canonical);
  Check(again.ok(), "canonical text does not parse");
  Check(CanonicalJson(*again) == canonical, "canonical form is not a fixed point");
  return 0;
}
