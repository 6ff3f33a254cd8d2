// common/digest.h — SHA-256, for every layer that fingerprints bytes: the
// verifier (signed payloads), the store (handler tokens are kept only as
// their digest) and the worker (idempotency keys). Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace hookinbox {

// SHA-256 of `data`: 32 raw bytes.
std::string Sha256(std::string_view data);

// Lowercase hex of Sha256(data): 64 characters.
std::string Sha256Hex(std::string_view data);

}  // namespace hookinbox
