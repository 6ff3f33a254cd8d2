// tests/fuzz/support/claim_outcome.cpp — store::ClaimOutcomeName for the
// standalone fuzz tree, which builds the receive path without SQLite; the
// same text as store/sqlite_store.cpp (the g++ replay links that one).
#include "store/store.h"

namespace hookinbox::store {

const char* ClaimOutcomeName(ClaimOutcome o) {
  switch (o) {
    case ClaimOutcome::kAccepted: return "accepted";
    case ClaimOutcome::kDuplicate: return "duplicate";
    case ClaimOutcome::kConflict: return "conflict";
  }
  return "accepted";
}

}  // namespace hookinbox::store
