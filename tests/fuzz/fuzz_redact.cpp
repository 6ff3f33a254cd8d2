// fuzz_redact — admin::ShowPayload over any stored payload and redact list.
//
// Input: redact pointers, one per line | the stored payload.
// The payload is whatever a delivery stored: on an endpoint that accepts a
// non-JSON content type it was never depth-checked (verify::ParseJson), so
// it may be JSON nested arbitrarily deep.
// Properties (abort() on violation): no crash (parse is iterative,
// dump() recurses, so a deep body must be withheld, never re-serialised);
// nothing nested deeper than kMaxJsonDepth is parsed for redaction; a
// redacted body re-parses; every plain pointer whose target existed now holds
// "[redacted]" (or sits inside a redacted ancestor). Deep seeds
// (corpus/fuzz_redact/deep-*) matter: libFuzzer did not build a 20 000-deep
// body on its own in 2.2 M runs.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "admin/redact.h"
#include "common/json_depth.h"
#include "fuzz_input.h"

using nlohmann::json;

namespace {

const json* At(const json& doc, const std::string& pointer) {
  try {
    json::json_pointer p(pointer);
    return doc.contains(p) ? &doc.at(p) : nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// True when `pointer` or one of its ancestors holds "[redacted]" in `out`
// (redacting "/user" after "/user/email" hides the child inside the parent).
bool HiddenAtOrAbove(const json& out, std::string pointer) {
  while (!pointer.empty()) {
    const json* v = At(out, pointer);
    if (v != nullptr && *v == hookinbox::admin::kRedactedValue) return true;
    pointer.erase(pointer.rfind('/'));
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hookinbox;
  auto parts = fuzz::SplitParts(fuzz::AsText(data, size), 2);
  std::vector<std::string> redact;
  for (std::string_view line : fuzz::Lines(parts[0])) {
    if (!line.empty() && line.front() == '/') redact.emplace_back(line);  // config validation demands a leading '/'
  }
  if (redact.empty()) redact.emplace_back("/password");  // ShowPayload parses only when something is redacted
  const std::string body(parts[1]);

  admin::ShownPayload shown = admin::ShowPayload(body, redact);
  if (!shown.shown || !shown.redacted) return 0;
  fuzz::Check(!JsonNestsDeeperThan(body), "a body nested too deep was parsed and re-serialised");

  json out = json::parse(shown.body, nullptr, /*allow_exceptions=*/false);
  fuzz::Check(!out.is_discarded(), "a redacted body is not JSON");
  // Only shallow documents are re-walked here: the harness must not
  // recurse where the product must not either.
  json original = json::parse(body, nullptr, false);
  for (const std::string& pointer : redact) {
    if (pointer.find("/*") != std::string::npos) continue;  // wildcards: covered by unit tests
    if (At(original, pointer) == nullptr) continue;
    fuzz::Check(HiddenAtOrAbove(out, pointer), "a value that should be hidden is shown");
  }
  return 0;
}
