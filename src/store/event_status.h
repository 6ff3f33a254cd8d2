// store/event_status.h — the states an inbox event can be in, and the
// outcomes a delivery row can record, each mapped to its stored text in this
// one place.
//
// The texts are what schema.sql's CHECK constraints allow and what SPEC §4
// and the public JSON, CLI output and metric labels show; they never change.
// C++ code compares the enums; SQL that must name a state spells it with
// SqlLiteral / SqlList, so the text comes from here too. Statements whose
// plans depend on a partial index (webhook_inbox_due_by_endpoint,
// webhook_inbox_attention) keep the index's literal IN-list, built from the
// sets below: a bound parameter would hide the predicate from the planner.
// Plain data and pure functions: links without a database.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace hookinbox::store {

// webhook_inbox.status (SPEC §4).
enum class EventStatus { kReceived, kProcessing, kCompleted, kRetryableFailed, kDeadLettered, kUnknown, kSkipped };

constexpr std::string_view ToSql(EventStatus s) {
  switch (s) {
    case EventStatus::kReceived: return "received";
    case EventStatus::kProcessing: return "processing";
    case EventStatus::kCompleted: return "completed";
    case EventStatus::kRetryableFailed: return "retryable_failed";
    case EventStatus::kDeadLettered: return "dead_lettered";
    case EventStatus::kUnknown: return "unknown";
    case EventStatus::kSkipped: return "skipped";
  }
  return "unknown";
}

inline constexpr std::array kAllEventStatuses{EventStatus::kReceived,        EventStatus::kProcessing,
                                              EventStatus::kCompleted,       EventStatus::kRetryableFailed,
                                              EventStatus::kDeadLettered,    EventStatus::kUnknown,
                                              EventStatus::kSkipped};

// nullopt for a text that names no state.
constexpr std::optional<EventStatus> EventStatusFromSql(std::string_view text) {
  for (EventStatus s : kAllEventStatuses) {
    if (ToSql(s) == text) return s;
  }
  return std::nullopt;
}

// The states a worker may lease: waiting ones by their next attempt,
// processing ones once their lease expired. The predicate of the partial
// index webhook_inbox_due_by_endpoint, in its order.
inline constexpr std::array kLeasableStatuses{EventStatus::kReceived, EventStatus::kRetryableFailed,
                                              EventStatus::kProcessing};
// The states that need a person (dead-letter and unknown queues): the
// predicate of the partial index webhook_inbox_attention, in its order.
inline constexpr std::array kAttentionStatuses{EventStatus::kDeadLettered, EventStatus::kUnknown};
// Final states: retention may remove such events.
inline constexpr std::array kFinishedStatuses{EventStatus::kCompleted, EventStatus::kDeadLettered,
                                              EventStatus::kSkipped};
// The states an operator may replay from.
inline constexpr std::array kReplayableStatuses{EventStatus::kDeadLettered, EventStatus::kUnknown,
                                                EventStatus::kCompleted};

template <size_t N>
constexpr bool IsOneOf(EventStatus s, const std::array<EventStatus, N>& set) {
  for (EventStatus member : set) {
    if (member == s) return true;
  }
  return false;
}

// The state as an SQL string literal: 'processing'.
inline std::string SqlLiteral(EventStatus s) { return "'" + std::string(ToSql(s)) + "'"; }

// A parenthesised SQL list of the states, in the given order:
// ('received', 'retryable_failed', 'processing').
template <size_t N>
std::string SqlList(const std::array<EventStatus, N>& set) {
  std::string out = "(";
  for (size_t i = 0; i < N; ++i) out += (i > 0 ? ", " : "") + SqlLiteral(set[i]);
  return out + ")";
}

// webhook_deliveries.outcome: what became of one HTTP delivery. Recording
// an event's idempotency key yields one of the first three (also the per-event
// outcome of a batch, webhook_delivery_events.outcome); rejected and ignored
// deliveries never reach a key.
enum class DeliveryOutcome { kAccepted, kDuplicate, kConflict, kRejected, kIgnored };

constexpr std::string_view ToSql(DeliveryOutcome o) {
  switch (o) {
    case DeliveryOutcome::kAccepted: return "accepted";
    case DeliveryOutcome::kDuplicate: return "duplicate";
    case DeliveryOutcome::kConflict: return "conflict";
    case DeliveryOutcome::kRejected: return "rejected";
    case DeliveryOutcome::kIgnored: return "ignored";
  }
  return "rejected";
}

// nullopt for a text that names no outcome.
constexpr std::optional<DeliveryOutcome> DeliveryOutcomeFromSql(std::string_view text) {
  for (DeliveryOutcome o : {DeliveryOutcome::kAccepted, DeliveryOutcome::kDuplicate, DeliveryOutcome::kConflict,
                            DeliveryOutcome::kRejected, DeliveryOutcome::kIgnored}) {
    if (ToSql(o) == text) return o;
  }
  return std::nullopt;
}

}  // namespace hookinbox::store
