// verify/identity.h — Identify over a body that is already parsed (internal).
//
// Owns nothing new: it lets the batch split (batch.cpp) identify each element
// with exactly the rules Identify() applies to a whole body, instead of a copy.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "common/headers.h"
#include "common/status.h"
#include "config/config.h"
#include "verify/verify.h"

namespace hookinbox::verify {

// Identify() for `body` whose JSON form is `*doc` (nullptr for a body that is
// not JSON). Edits *doc: volatile fields are removed for the payload hash.
Result<EventIdentity> IdentifyParsed(const config::EndpointConfig& endpoint, const HeaderView& headers,
                                     std::string_view body, nlohmann::json* doc);

}  // namespace hookinbox::verify
