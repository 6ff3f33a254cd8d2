// store/event_actions.h — what an operator's verbs write inside the writer's
// transaction (internal to SqlStore): the audit row of webhook_event_actions
// and the replay of one event, shared by the single and the bulk replay
// (sql_replay.cpp) so that both leave an event in exactly the same state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/event_status.h"
#include "store/sql/sql.h"

namespace hookinbox::store {

// One row of webhook_event_actions.
struct EventAction {
  int64_t id = 0, at_ms = 0;
  std::string actor, action, from_status, to_status, result_ref, note;
};
void InsertEventAction(sql::Connection& db, const EventAction& a);

// The status of `id` read inside the transaction (and its result_ref when
// asked); nullopt when there is no such event.
std::optional<EventStatus> StatusOf(sql::Connection& db, int64_t id, std::string* result_ref);

enum class ReplayVerdict {
  kReplayed,
  kNoSuchEvent,
  kNotReplayable,   // its state is not one a replay starts from (or not `only_from`)
  kPayloadPurged,   // retention removed the body the action would need
};

struct ReplayOne {
  ReplayVerdict verdict = ReplayVerdict::kNoSuchEvent;
  std::optional<EventStatus> from;  // the state it was in, when it exists
};

// Puts event `id` back to 'received' when it is replayable (and, with
// `only_from`, in that state): same key, due now, attempt_count 0, a new
// retry round (retry_window_start = now), lease and result cleared, and one
// audit row naming `actor`. Writes nothing otherwise. Runs inside the
// writer's transaction; throws sql::Error on a database failure.
ReplayOne ReplayEventInTransaction(sql::Connection& db, int64_t id, std::optional<EventStatus> only_from,
                                   const std::string& actor, const std::string& note, int64_t now_ms);

}  // namespace hookinbox::store
