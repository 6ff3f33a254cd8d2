// store/ingest.cpp — the plain helpers ingest.h declares, apart from SQLite so
// that code linking no database (the fuzz tree's receive path) shares them.
#include "store/ingest.h"

#include <algorithm>

namespace hookinbox::store {

DeliveryOutcome BatchOutcome(const std::vector<RecordedEvent>& events) {
  auto any = [&](DeliveryOutcome o) {
    return std::any_of(events.begin(), events.end(), [o](const RecordedEvent& e) { return e.outcome == o; });
  };
  if (any(DeliveryOutcome::kAccepted)) return DeliveryOutcome::kAccepted;
  return any(DeliveryOutcome::kConflict) ? DeliveryOutcome::kConflict : DeliveryOutcome::kDuplicate;
}

}  // namespace hookinbox::store
