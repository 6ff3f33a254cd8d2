// The WorkQueue's writes on SQLite: claim, renew, finish, release, and the
// operator's resolve (replay is in sql_replay.cpp). Each runs as one
// operation of the single Writer, so each is one transaction (possibly sharing a group commit) and every conditional UPDATE
// is decided under the database's write lock — two claims, in this process
// or another, can never take the same row.
//
// Operations may be run twice (the Writer reruns a batch one by one when a
// neighbour throws), so each resets its outputs before writing them, and
// refusals are reported through an output, never by throwing: a throw would
// roll back what a refusal must keep (the 'lost' attempt row).
#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>

#include "common/digest.h"
#include "common/secret.h"
#include "store/attempt_record.h"
#include "store/claim_gate.h"
#include "store/due_search.h"
#include "store/event_actions.h"
#include "store/sql_bind.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

std::string ShortError(const std::string& error) {
  return error.size() <= kMaxErrorBytes ? error : error.substr(0, kMaxErrorBytes);
}

// A running event of `e`'s object makes `e` wait, whatever its lease says.
// The gate counts only holders under a valid lease (an expired holder is
// presumed dead, and is reclaimed before `e`, being due earlier); a running
// event's lease may have lapsed with its process alive, and it is not
// reclaimed, so without this `e` would run beside it.
std::optional<GateDecision> RunningHoldsObject(sql::Connection& db, const DueEvent& e,
                                               const std::vector<int64_t>& running, int64_t now_ms,
                                               int64_t lease_ms) {
  if (e.object_key.empty() || running.empty()) return std::nullopt;
  Prepared st(db,
              "SELECT id FROM webhook_inbox WHERE endpoint = ?1 AND tenant_id = ?2 AND object_key = ?3"
              " AND status = " + SqlLiteral(EventStatus::kProcessing) + " AND id IN (" +
                  Placeholders(4, running.size()) + ") LIMIT 1");
  st->bind(1, e.endpoint);
  st->bind(2, e.tenant_id);
  st->bind(3, e.object_key);
  for (size_t i = 0; i < running.size(); ++i) st->bind(static_cast<int>(4 + i), static_cast<int64_t>(running[i]));
  if (!st->executeStep()) return std::nullopt;
  const int64_t holder = st->getColumn(0).getInt64();
  // Its finish wakes `e` (AfterFinish); the lease length bounds the wait otherwise.
  return GateDecision{GateVerdict::kWait, "", holder, now_ms + lease_ms,
                      "waiting for event " + std::to_string(holder) + " (same object)"};
}

// The claim of a due event: one conditional UPDATE (still due, as read under
// the same write lock) that leases it, counts the attempt and sets a fresh
// handler token.
const std::string& LeaseSql() {
  static const std::string sql =
      "UPDATE webhook_inbox SET status = " + SqlLiteral(EventStatus::kProcessing) +
      ", lease_owner = ?1, lease_until = ?2, next_attempt_at = ?2,"
      " attempt_count = attempt_count + 1, token_hash = ?4, waiting_for = NULL"
      " WHERE id = ?5 AND status IN " + SqlList(kLeasableStatuses) + " AND next_attempt_at <= ?3"
      " AND (status <> " + SqlLiteral(EventStatus::kProcessing) + " OR lease_until < ?3)"
      " RETURNING id, provider, endpoint, tenant_id, event_id, event_type, payload_hash, attempt_count, received_at,"
      " COALESCE(retry_window_start, received_at)";
  return sql;
}

// How many due events one claim may skip or set waiting before it gives up
// for now (each such step is progress: the event leaves the due range).
constexpr int kMaxGateSteps = 64;

// Closes the open attempt rows of `inbox_id` (a previous owner's, whose
// lease expired); how many there were.
int CloseOpenAttempts(sql::Connection& db, int64_t inbox_id, const char* outcome, int64_t now_ms,
                      const std::string& error) {
  Prepared st(db,
              "UPDATE webhook_attempts SET outcome = ?, finished_at = ?, error = ?"
              " WHERE inbox_id = ? AND outcome IS NULL");
  st->bind(1, outcome);
  st->bind(2, static_cast<int64_t>(now_ms));
  st->bind(3, error);
  st->bind(4, static_cast<int64_t>(inbox_id));
  return st->exec();
}

// The attempt row keeps its token's hash, so the token is still recognised
// once a later claim or a replay replaced the event's (Ledger::Authenticate).
void OpenAttempt(sql::Connection& db, const LeasedEvent& e, const std::string& owner, const std::string& token_hash,
                 int64_t now_ms) {
  Prepared st(db,
              "INSERT INTO webhook_attempts (inbox_id, attempt, worker, started_at, token_hash) VALUES (?,?,?,?,?)");
  st->bind(1, static_cast<int64_t>(e.id));
  st->bind(2, e.attempt);
  st->bind(3, owner);
  st->bind(4, static_cast<int64_t>(now_ms));
  st->bind(5, token_hash);
  st->exec();
}

void ReadOriginalPayload(sql::Connection& db, LeasedEvent& e) {
  Prepared st(db, "SELECT content_type, body FROM webhook_payloads WHERE inbox_id = ? AND kind = 'original'");
  st->bind(1, static_cast<int64_t>(e.id));
  if (!st->executeStep()) return;
  e.content_type = st->getColumn(0).isNull() ? "" : st->getColumn(0).getString();
  const auto body = st->getColumn(1);
  e.body = body.getString();
}

std::optional<LeasedEvent> LeaseEvent(sql::Connection& db, const DueEvent& due, const std::string& owner,
                                      int64_t now_ms, int64_t lease_ms) {
  Prepared st(db, LeaseSql());
  st->bind(1, owner);
  st->bind(2, static_cast<int64_t>(now_ms + lease_ms));
  st->bind(3, static_cast<int64_t>(now_ms));
  // A new handler token per claim: the previous attempt's stops working.
  std::string token = NewHandlerToken();
  const std::string token_hash = Sha256Hex(token);
  st->bind(4, token_hash);
  st->bind(5, static_cast<int64_t>(due.id));
  if (!st->executeStep()) return std::nullopt;
  LeasedEvent e;
  e.token = std::move(token);
  e.id = st->getColumn(0).getInt64();
  e.provider = st->getColumn(1).getString();
  e.endpoint = st->getColumn(2).getString();
  e.tenant_id = st->getColumn(3).getString();
  e.event_id = st->getColumn(4).getString();
  e.event_type = st->getColumn(5).getString();
  e.payload_hash = st->getColumn(6).getString();
  e.attempt = st->getColumn(7).getInt();
  e.received_at_ms = st->getColumn(8).getInt64();
  e.retry_window_start_ms = st->getColumn(9).getInt64();
  e.lease_until_ms = now_ms + lease_ms;
  st->reset();
  e.reclaimed = CloseOpenAttempts(db, e.id, "lost", now_ms, "lease expired; event reclaimed") > 0;
  HoldBusinessKey(db, due, now_ms);
  OpenAttempt(db, e, owner, token_hash, now_ms);
  ReadOriginalPayload(db, e);
  return e;
}

// The oldest due event of one searched endpoint, kept while the claim's
// other steps run: only the endpoint whose event a step consumed is sought again.
struct Candidate {
  std::string endpoint;
  std::optional<DueEvent> due;
};

bool DueBefore(const DueEvent& a, const DueEvent& b) {
  return a.next_attempt_at_ms != b.next_attempt_at_ms ? a.next_attempt_at_ms < b.next_attempt_at_ms : a.id < b.id;
}

Candidate* Oldest(std::vector<Candidate>& candidates) {
  Candidate* best = nullptr;
  for (Candidate& c : candidates) {
    if (c.due && (best == nullptr || DueBefore(*c.due, *best->due))) best = &c;
  }
  return best;
}

// The oldest due event the gate lets run, leased; those it skips or sets
// waiting on the way are written in the same transaction. Each searched
// endpoint costs one index seek (store/due_search.h), so the claim's cost
// follows the number of endpoints it may take, not the rows others hold.
// The caller's running events are left out by id (see WorkQueue::LeaseDue).
// Ids, not the lease owner's "<host>:<pid>" prefix: a worker stopped and
// started again in one process (tests, a future reload) must still take
// back the leases it released. Claims of several replicas never run at
// once: each holds the database's write lock (sql::TxnMode::kWrite).
std::optional<LeasedEvent> LeaseOldestDueInTransaction(sql::Connection& db, const WorkQueue::LeaseRequest& r,
                                                       const std::vector<int64_t>& running) {
  std::vector<Candidate> candidates;
  for (std::string& endpoint : SearchedEndpoints(db, r.endpoints, r.excluded_endpoints)) {
    std::optional<DueEvent> due = OldestDue(db, endpoint, r.now_ms, running);
    if (due) candidates.push_back({std::move(endpoint), std::move(due)});
  }
  for (int step = 0; step < kMaxGateSteps; ++step) {
    Candidate* next = Oldest(candidates);
    if (next == nullptr) return std::nullopt;
    const DueEvent& due = *next->due;
    std::optional<GateDecision> held = RunningHoldsObject(db, due, running, r.now_ms, r.lease_ms);
    const GateDecision decision = held ? *held : Gate(db, due, r.now_ms, r.lease_ms);
    if (decision.verdict == GateVerdict::kProceed) return LeaseEvent(db, due, r.owner, r.now_ms, r.lease_ms);
    // A 'processing' event here lost its lease (its worker died): that attempt ends as lost.
    CloseOpenAttempts(db, due.id, "lost", r.now_ms, "lease expired; event reclaimed");
    ApplyGate(db, due, decision, r.owner, r.now_ms);
    next->due = OldestDue(db, next->endpoint, r.now_ms, running);
  }
  return std::nullopt;
}

// The event's part of Finish, conditional on the lease (held by
// `lease_owner`: the worker, or the handler it handed the event to). True when it applied.
bool MoveEvent(sql::Connection& db, const AttemptResult& r, const std::string& lease_owner) {
  static const std::string kSql =
      "UPDATE webhook_inbox SET status = ?1, lease_owner = NULL, lease_until = NULL,"
      " next_attempt_at = ?2, completed_at = ?3,"
      " result_ref = CASE WHEN ?1 = " + SqlLiteral(EventStatus::kCompleted) + " THEN ?4 ELSE result_ref END,"
      " last_error = CASE WHEN ?1 = " + SqlLiteral(EventStatus::kCompleted) + " THEN last_error ELSE ?5 END"
      " WHERE id = ?6 AND lease_owner = ?7 AND status = " + SqlLiteral(EventStatus::kProcessing) +
      " AND attempt_count = ?8";
  Prepared st(db, kSql);
  st->bind(1, AttemptOutcomeName(r.outcome));
  // Only a retryable event waits for a next attempt; terminal states leave the due index.
  if (r.outcome == AttemptOutcome::kRetryableFailed) {
    st->bind(2, static_cast<int64_t>(r.next_attempt_at_ms));
  } else {
    st->bind(2);
  }
  if (r.outcome == AttemptOutcome::kCompleted) {
    st->bind(3, static_cast<int64_t>(r.finished_at_ms));
  } else {
    st->bind(3);
  }
  BindText(*st, 4, r.result_ref);
  BindText(*st, 5, ShortError(r.error));
  st->bind(6, static_cast<int64_t>(r.id));
  st->bind(7, lease_owner);
  st->bind(8, r.attempt);
  return st->exec() == 1;
}

// Closes this owner's attempt row with `outcome`. A row already closed and
// sealed into the audit chain (closed 'lost' when another worker reclaimed
// the event) is left as it is: sealed audit rows never change.
// `only_unended`: nor a row an async handler already ended (its outcome
// stands; a worker that finds its lease gone only adds detail to 'lost').
void CloseAttempt(sql::Connection& db, const AttemptResult& r, const char* outcome, const std::string& error,
                  bool only_unended = false) {
  static const std::string kSql =
      "UPDATE webhook_attempts SET outcome = ?, finished_at = ?, http_status = ?, exit_code = ?,"
      " error = ? WHERE inbox_id = ? AND attempt = ? AND worker = ? AND chain_seq IS NULL"
      " AND id = (SELECT max(id) FROM webhook_attempts WHERE inbox_id = ? AND attempt = ? AND worker = ?)";
  Prepared st(db, only_unended ? kSql + " AND (outcome IS NULL OR outcome = 'lost')" : kSql);
  st->bind(1, outcome);
  st->bind(2, static_cast<int64_t>(r.finished_at_ms));
  BindOptional(*st, 3, r.http_status);
  BindOptional(*st, 4, r.exit_code);
  BindText(*st, 5, ShortError(error));
  for (int base : {6, 9}) {
    st->bind(base, static_cast<int64_t>(r.id));
    st->bind(base + 1, r.attempt);
    st->bind(base + 2, r.owner);
  }
  st->exec();
}

// The reconciliation probe's own attempt row, with the outcome it decided.
void InsertProbe(sql::Connection& db, const AttemptResult& r) {
  Prepared st(db,
              "INSERT INTO webhook_attempts (inbox_id, attempt, worker, started_at, finished_at, outcome,"
              " http_status, error, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'probe')");
  st->bind(1, static_cast<int64_t>(r.id));
  st->bind(2, r.attempt);
  st->bind(3, r.owner);
  st->bind(4, static_cast<int64_t>(r.probe->started_at_ms));
  st->bind(5, static_cast<int64_t>(r.finished_at_ms));
  st->bind(6, AttemptOutcomeName(r.outcome));
  BindOptional(*st, 7, r.probe->http_status);
  BindText(*st, 8, ShortError(r.probe->error));
  st->exec();
}


}  // namespace

std::string NewHandlerToken() { return "hkt_" + RandomHex(32); }

EventStatus StatusAfter(AttemptOutcome o) {
  switch (o) {
    case AttemptOutcome::kCompleted: return EventStatus::kCompleted;
    case AttemptOutcome::kRetryableFailed: return EventStatus::kRetryableFailed;
    case AttemptOutcome::kDeadLettered: return EventStatus::kDeadLettered;
    case AttemptOutcome::kUnknown: return EventStatus::kUnknown;
  }
  return EventStatus::kUnknown;
}

// ToSql's views are string literals, so their data() ends in NUL.
const char* AttemptOutcomeName(AttemptOutcome o) { return ToSql(StatusAfter(o)).data(); }

namespace {

// A record that is done already (WorkQueue's synchronous default).
class DonePendingRecord final : public WorkQueue::PendingRecord {
 public:
  DonePendingRecord(Status status, std::vector<Status> finished, std::vector<LeasedEvent> leased)
      : status_(std::move(status)), finished_(std::move(finished)), leased_(std::move(leased)) {}
  bool Ready() override { return true; }
  Status Wait(std::vector<Status>* finished, std::vector<LeasedEvent>* leased) override {
    *finished = std::move(finished_);
    *leased = std::move(leased_);
    return status_;
  }

 private:
  Status status_;
  std::vector<Status> finished_;
  std::vector<LeasedEvent> leased_;
};

}  // namespace

std::unique_ptr<WorkQueue::PendingRecord> WorkQueue::StartFinishAndLease(std::vector<AttemptResult> finishes,
                                                                         std::optional<LeaseRequest> next,
                                                                         int count) {
  std::vector<Status> finished;
  std::vector<LeasedEvent> leased;
  Status st;
  size_t first = 0;
  if (finishes.size() == 1 && next && count > 0) {  // the one-commit pair, where the store has it
    std::optional<LeasedEvent> claimed;
    finished.push_back(FinishAndLease(finishes[0], *next, &claimed));
    if (claimed) leased.push_back(std::move(*claimed));
    first = 1;
    --count;
  }
  for (size_t i = first; i < finishes.size(); ++i) finished.push_back(Finish(finishes[i]));
  for (int i = 0; next && i < count; ++i) {
    auto c = LeaseDue(*next);
    if (!c.ok()) {
      st = c.status();
      break;
    }
    if (!c->has_value()) break;
    leased.push_back(std::move(**c));
  }
  return std::make_unique<DonePendingRecord>(std::move(st), std::move(finished), std::move(leased));
}

Result<std::optional<LeasedEvent>> SqlStore::LeaseDue(const std::string& owner, int64_t now_ms, int64_t lease_ms,
                                                      const std::vector<std::string>& excluded_endpoints,
                                                          const std::vector<int64_t>& running_ids) {
  return LeaseDue(LeaseRequest{owner, now_ms, lease_ms, excluded_endpoints, running_ids, nullptr, std::nullopt});
}

Status SqlStore::RenewLease(int64_t id, const std::string& owner, int attempt, int64_t until_ms) {
  bool renewed = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    static const std::string kSql =
        // Never shortens it: on an async endpoint the handler may renew for
        // longer while the worker still waits for its 202.
        "UPDATE webhook_inbox SET lease_until = CASE WHEN lease_until > ?1 THEN lease_until ELSE ?1 END,"
        " next_attempt_at = CASE WHEN lease_until > ?1 THEN lease_until ELSE ?1 END"
        " WHERE id = ?2 AND lease_owner = ?3 AND status = " + SqlLiteral(EventStatus::kProcessing) +
        " AND attempt_count = ?4";
    Prepared up(db, kSql);
    up->bind(1, static_cast<int64_t>(until_ms));
    up->bind(2, static_cast<int64_t>(id));
    up->bind(3, owner);
    up->bind(4, attempt);
    renewed = up->exec() == 1;
  });
  if (!st.ok()) return Prefixed("renew lease", st);
  if (!renewed) return Status(Code::kConflict, "renew lease: lease lost for event " + std::to_string(id));
  return Status::Ok();
}

Status CheckResult(const AttemptResult& r) {
  if (r.owner.empty() || (r.outcome == AttemptOutcome::kRetryableFailed && r.next_attempt_at_ms <= 0)) {
    return InvalidArgument("finish: an owner, and for retryable_failed a next attempt time, are required");
  }
  return Status::Ok();
}

bool FinishInTransaction(sql::Connection& db, const AttemptResult& r, const std::string* lease_owner) {
  if (MoveEvent(db, r, lease_owner != nullptr ? *lease_owner : r.owner)) {
    CloseAttempt(db, r, r.probe ? AttemptOutcomeName(AttemptOutcome::kUnknown) : AttemptOutcomeName(r.outcome),
                 r.error);
    if (r.probe) InsertProbe(db, r);
    AfterFinish(db, r.id, StatusAfter(r.outcome), r.finished_at_ms);
    return true;
  }
  // Someone else owns the event now (or it was released): record what we
  // would have done, change nothing else.
  CloseAttempt(db, r, "lost", std::string("lease lost before finish; would have been ") + AttemptOutcomeName(r.outcome),
               /*only_unended=*/true);
  return false;
}

namespace {

Status FinishStatus(const AttemptResult& r, bool moved) {
  if (!moved) return Status(Code::kConflict, "finish: lease lost for event " + std::to_string(r.id));
  return Status::Ok();
}

}  // namespace

Status SqlStore::Finish(const AttemptResult& r) {
  if (Status ok = CheckResult(r); !ok.ok()) return ok;
  bool moved = false;
  Status st = writer_->Submit([&](sql::Connection& db) { moved = FinishInTransaction(db, r); });
  if (!st.ok()) return Prefixed("finish", st);
  return FinishStatus(r, moved);
}

namespace {

// One claim of a LeaseRequest inside the writer's transaction. With a
// RunningSet, its ids are read here, when the claim runs, and the claimed id
// added here, so the next claim in the same batch leaves it out; Undo()
// takes it back out when the transaction did not commit (or is rerun).
class LiveLease {
 public:
  explicit LiveLease(const WorkQueue::LeaseRequest& r) : r_(r) {}
  std::optional<LeasedEvent> Run(sql::Connection& db) {
    Undo();  // a rerun after a rolled-back batch starts over
    std::optional<LeasedEvent> e =
        LeaseOldestDueInTransaction(db, r_, r_.running != nullptr ? r_.running->Snapshot() : r_.running_ids);
    if (e && r_.running != nullptr) {
      r_.running->Add(e->id);
      added_ = e->id;
    }
    return e;
  }
  void Undo() {
    if (added_ != 0) r_.running->Remove(added_);
    added_ = 0;
  }

 private:
  const WorkQueue::LeaseRequest& r_;
  int64_t added_ = 0;
};

Status CheckLeaseRequest(const WorkQueue::LeaseRequest& r) {
  if (r.owner.empty() || r.lease_ms <= 0) return InvalidArgument("claim due: owner and a positive lease are required");
  return Status::Ok();
}

}  // namespace

Result<std::optional<LeasedEvent>> SqlStore::LeaseDue(const LeaseRequest& request) {
  if (Status ok = CheckLeaseRequest(request); !ok.ok()) return ok;
  LiveLease claim(request);
  std::optional<LeasedEvent> taken;
  Status st = writer_->Submit([&](sql::Connection& db) { taken = claim.Run(db); });
  if (!st.ok()) {
    claim.Undo();
    return Prefixed("claim due", st);
  }
  return taken;
}

Status SqlStore::FinishAndLease(const AttemptResult& r, const LeaseRequest& next,
                                std::optional<LeasedEvent>* claimed) {
  claimed->reset();
  if (Status ok = CheckResult(r); !ok.ok()) return ok;
  if (Status ok = CheckLeaseRequest(next); !ok.ok()) return ok;
  LiveLease claim(next);
  bool moved = false;
  std::optional<LeasedEvent> taken;
  Status st = writer_->Submit([&](sql::Connection& db) {
    taken.reset();
    moved = FinishInTransaction(db, r);
    taken = claim.Run(db);
  });
  if (!st.ok()) {
    claim.Undo();
    return Prefixed("finish", st);
  }
  *claimed = std::move(taken);
  return FinishStatus(r, moved);
}

namespace {

// Finishes and leases in the writer's queue, awaited later. Its state lives
// on the heap: the operation runs on the writer thread after the call returned.
class SqlPendingRecord final : public WorkQueue::PendingRecord {
 public:
  struct State {
    State(std::vector<AttemptResult> f, std::optional<WorkQueue::LeaseRequest> n, int count)
        : finishes(std::move(f)), next(std::move(n)), moved(finishes.size(), false) {
      if (next) {
        claims.reserve(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) claims.emplace_back(*next);  // each refers to *next, which never moves
      }
    }
    void Undo() {
      for (LiveLease& c : claims) c.Undo();
    }
    std::vector<AttemptResult> finishes;
    std::optional<WorkQueue::LeaseRequest> next;
    std::vector<LiveLease> claims;
    std::vector<bool> moved;
    std::vector<LeasedEvent> taken;
  };

  SqlPendingRecord(std::shared_ptr<State> state, std::future<Status> done)
      : state_(std::move(state)), done_(std::move(done)) {}

  bool Ready() override { return done_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }

  Status Wait(std::vector<Status>* finished, std::vector<LeasedEvent>* leased) override {
    finished->clear();
    leased->clear();
    Status st = done_.get();
    if (!st.ok()) {
      state_->Undo();
      st = Prefixed(state_->finishes.empty() ? "claim due" : "finish", st);
      finished->assign(state_->finishes.size(), st);
      return st;
    }
    for (size_t i = 0; i < state_->finishes.size(); ++i) {
      finished->push_back(FinishStatus(state_->finishes[i], state_->moved[i]));
    }
    *leased = std::move(state_->taken);
    return Status::Ok();
  }

 private:
  std::shared_ptr<State> state_;
  std::future<Status> done_;
};

}  // namespace

std::unique_ptr<WorkQueue::PendingRecord> SqlStore::StartFinishAndLease(std::vector<AttemptResult> finishes,
                                                                        std::optional<LeaseRequest> next,
                                                                        int count) {
  Status invalid;
  for (const AttemptResult& r : finishes) {
    if (invalid.ok()) invalid = CheckResult(r);
  }
  if (invalid.ok() && next) invalid = CheckLeaseRequest(*next);
  if (!invalid.ok()) {
    std::vector<Status> each(finishes.size(), invalid);
    return std::make_unique<DonePendingRecord>(std::move(invalid), std::move(each), std::vector<LeasedEvent>());
  }
  auto state = std::make_shared<SqlPendingRecord::State>(std::move(finishes), std::move(next), std::max(count, 0));
  std::future<Status> done = writer_->SubmitAsync([state](sql::Connection& db) {
    state->Undo();  // a rerun after a rolled-back batch starts over
    state->taken.clear();
    for (size_t i = 0; i < state->finishes.size(); ++i) state->moved[i] = FinishInTransaction(db, state->finishes[i]);
    for (LiveLease& claim : state->claims) {
      std::optional<LeasedEvent> e = claim.Run(db);
      if (!e) break;
      state->taken.push_back(std::move(*e));
    }
  });
  return std::make_unique<SqlPendingRecord>(std::move(state), std::move(done));
}

Result<int> SqlStore::ReleaseLeases(const std::string& owner, int64_t now_ms, const std::string& reason) {
  int released = 0;
  Status st = writer_->Submit([&](sql::Connection& db) {
    Prepared attempts(db,
                      "UPDATE webhook_attempts SET outcome = 'released', finished_at = ?1, error = ?3"
                      " WHERE outcome IS NULL AND worker = ?2 AND inbox_id IN (SELECT id FROM webhook_inbox"
                      "  WHERE status = " + SqlLiteral(EventStatus::kProcessing) + " AND lease_owner = ?2)");
    attempts->bind(1, static_cast<int64_t>(now_ms));
    attempts->bind(2, owner);
    attempts->bind(3, reason);
    attempts->exec();
    // The attempt was started, so attempt_count keeps counting it. The lease
    // ends just before now: a claim at `now` (which needs lease_until < now)
    // takes the event at once.
    Prepared events(db,
                    "UPDATE webhook_inbox SET lease_until = ?1 - 1, next_attempt_at = ?1 - 1"
                    " WHERE status = " + SqlLiteral(EventStatus::kProcessing) + " AND lease_owner = ?2");
    events->bind(1, static_cast<int64_t>(now_ms));
    events->bind(2, owner);
    released = events->exec();
  });
  if (!st.ok()) return Prefixed("release leases", st);
  return released;
}

Status SqlStore::Resolve(int64_t id, const std::string& as, const std::string& result_ref, const std::string& note,
                            const std::string& actor, int64_t now_ms) {
  std::string what = "resolve " + std::to_string(id);
  const std::optional<EventStatus> to = EventStatusFromSql(as);
  if (to != EventStatus::kCompleted && to != EventStatus::kDeadLettered) {
    return InvalidArgument(what + ": --as must be completed or dead_lettered, not '" + as + "'");
  }
  std::optional<EventStatus> from;
  Status st = writer_->Submit([&](sql::Connection& db) {
    from = StatusOf(db, id, nullptr);
    if (from != EventStatus::kUnknown) return;
    Prepared up(db,
                "UPDATE webhook_inbox SET status = ?1,"
                " completed_at = CASE WHEN ?1 = " + SqlLiteral(EventStatus::kCompleted) + " THEN ?2 END,"
                " result_ref = CASE WHEN ?1 = " + SqlLiteral(EventStatus::kCompleted) + " THEN ?3 ELSE result_ref END"
                " WHERE id = ?4 AND status = " + SqlLiteral(EventStatus::kUnknown));
    up->bind(1, as);
    up->bind(2, static_cast<int64_t>(now_ms));
    BindText(*up, 3, result_ref);
    up->bind(4, static_cast<int64_t>(id));
    up->exec();
    AfterFinish(db, id, *to, now_ms);
    InsertEventAction(db, {id, now_ms, actor, "resolve", std::string(ToSql(*from)), as, result_ref, note});
  });
  if (!st.ok()) return Prefixed(what, st);
  if (!from) return NotFound(what + ": no such event");
  if (from != EventStatus::kUnknown) {
    return Status(Code::kConflict,
                  what + ": event is " + std::string(ToSql(*from)) + "; only unknown events can be resolved");
  }
  return Status::Ok();
}

}  // namespace hookinbox::store
