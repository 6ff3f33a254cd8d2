// store/store.cpp — the plain helpers store.h declares, apart from SQLite so
// that code linking no database (the fuzz tree's receive path) shares them.
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
