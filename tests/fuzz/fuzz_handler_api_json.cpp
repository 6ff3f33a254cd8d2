// fuzz_handler_api_json — the JSON bodies of the handler API (/v1) and the
// admin API: admin::ParseJsonObject, StringMember and Dump.
//
// Input: the request body. ParseJsonObject reads it for POST /v1/.../complete,
// /fail, /effects and the admin actions, from whoever holds a token.
// Properties (abort() on violation): an accepted body is a JSON object no
// deeper than kMaxJsonDepth (common/json_depth.h): a deeper one would make
// any later copy, dump() or recursive walk overflow the stack; string
// members read back and Dump never throws.
// Deep bodies (tests/fuzz/corpus/fuzz_handler_api_json/deep-*) are seeds,
// since random mutation does not build 100 000 brackets.
#include <cstdint>
#include <string>

#include "admin/api_json.h"
#include "common/json_depth.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hookinbox::admin;
  using hookinbox::fuzz::Check;
  const std::string body(hookinbox::fuzz::AsText(data, size));
  for (bool empty_ok : {false, true}) {
    auto parsed = ParseJsonObject(body, empty_ok);
    if (!parsed.ok()) continue;
    Check(parsed->is_object(), "accepted a body that is not an object");
    Check(!hookinbox::JsonNestsDeeperThan(body, hookinbox::kMaxJsonDepth), "accepted a body nested too deep");
    for (const char* name : {"key", "external_ref", "error", "note", "reason", "status"}) {
      auto member = StringMember(*parsed, name, false);
      if (member.ok() && !member->empty()) Check(parsed->at(name) == *member, "StringMember changed the value");
    }
    (void)Dump(*parsed);  // copies and dump() recurse: safe only because the depth is bounded
  }
  return 0;
}
