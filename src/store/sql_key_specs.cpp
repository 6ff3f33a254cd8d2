// KeySpecs on either backend (see key_specs.h). The check reads on a
// reader; the record decides again inside the Writer's transaction, which
// holds the database's write lock (SQLite BEGIN IMMEDIATE; on PostgreSQL the
// advisory lock every write transaction takes), so two replicas starting at
// once record one history row per change, and an event stored between the
// check and the record cannot slip an unaccepted change through.
//
// An endpoint "still holds stored events" when the inbox has any row of it
// under the provider last recorded for it: one seek into the inbox's unique
// key (provider, endpoint, tenant_id, event_id), whatever else is stored.
#include <algorithm>
#include <set>

#include "store/key_specs.h"
#include "store/sql_bind.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

struct RecordedSpec {
  bool found = false;
  std::string provider, fingerprint, spec;
};

RecordedSpec LatestSpec(sql::Connection& db, const std::string& endpoint) {
  Prepared st(db,
              "SELECT provider, fingerprint, spec FROM endpoint_key_specs WHERE endpoint = ?"
              " ORDER BY id DESC LIMIT 1");
  st->bind(1, endpoint);
  RecordedSpec out;
  if (st->executeStep()) {
    out = {true, st->getColumn(0).getString(), st->getColumn(1).getString(), st->getColumn(2).getString()};
  }
  return out;
}

// The endpoint's stored events, counted no further than one past the bound.
int64_t StoredEvents(sql::Connection& db, const std::string& provider, const std::string& endpoint) {
  Prepared st(db,
              "SELECT count(*) FROM (SELECT 1 FROM webhook_inbox WHERE provider = ? AND endpoint = ? LIMIT " +
                  std::to_string(kKeySpecEventsCounted + 1) + ") AS held");
  st->bind(1, provider);
  st->bind(2, endpoint);
  st->executeStep();
  return st->getColumn(0).getInt64();
}

// One endpoint of a check: what is recorded for it and, when its
// fingerprint changed, how many events it still holds.
struct Comparison {
  RecordedSpec recorded;
  bool changed = false;  // recorded, with another fingerprint
  int64_t stored_events = 0;
};

Comparison Compare(sql::Connection& db, const KeySpecNow& now) {
  Comparison c;
  c.recorded = LatestSpec(db, now.endpoint);
  c.changed = c.recorded.found && c.recorded.fingerprint != now.fingerprint;
  if (c.changed) c.stored_events = StoredEvents(db, c.recorded.provider, now.endpoint);
  return c;
}

KeySpecChange ChangeOf(const KeySpecNow& now, const Comparison& c) {
  return {now.endpoint, c.recorded.fingerprint, now.fingerprint, c.recorded.spec, now.spec, c.stored_events};
}

std::string EventsPhrase(int64_t n) {
  if (n > kKeySpecEventsCounted) return "more than " + std::to_string(kKeySpecEventsCounted) + " stored events";
  return std::to_string(n) + (n == 1 ? " stored event" : " stored events");
}

Status CheckSpecs(const std::vector<KeySpecNow>& specs) {
  std::set<std::string> seen;
  for (const KeySpecNow& s : specs) {
    if (s.endpoint.empty() || s.provider.empty() || s.fingerprint.empty() || s.spec.empty()) {
      return InvalidArgument("key spec of endpoint \"" + s.endpoint + "\" is incomplete");
    }
    if (!seen.insert(s.endpoint).second) return InvalidArgument("endpoint \"" + s.endpoint + "\" is named twice");
  }
  return Status::Ok();
}

void InsertSpec(sql::Connection& db, const KeySpecNow& s, const std::string& actor, int64_t now_ms) {
  Prepared st(db,
              "INSERT INTO endpoint_key_specs (endpoint, provider, fingerprint, spec, in_force_from, recorded_by)"
              " VALUES (?, ?, ?, ?, ?, ?)");
  st->bind(1, s.endpoint);
  st->bind(2, s.provider);
  st->bind(3, s.fingerprint);
  st->bind(4, s.spec);
  st->bind(5, now_ms);
  st->bind(6, actor);
  st->exec();
}

// The audit row of a change: fingerprints and settings (never a secret).
void InsertChangeAction(sql::Connection& db, const KeySpecChange& c, const std::string& actor, int64_t now_ms) {
  const std::string reason =
      "key settings " + c.old_fingerprint + " → " + c.new_fingerprint +
      (c.stored_events > 0 ? ", accepted while " + EventsPhrase(c.stored_events) + " kept their old keys"
                           : " (no stored events)") +
      "; was " + c.old_spec + "; now " + c.new_spec;
  Prepared st(db, "INSERT INTO endpoint_actions (endpoint, at, actor, action, reason) VALUES (?, ?, ?, ?, ?)");
  st->bind(1, c.endpoint);
  st->bind(2, now_ms);
  st->bind(3, actor);
  st->bind(4, "key_spec_changed");
  st->bind(5, reason);
  st->exec();
}

// Decides and writes inside the Writer's transaction; `refused` set = wrote nothing.
void RecordInTransaction(sql::Connection& db, const std::vector<KeySpecNow>& specs,
                         const std::vector<std::string>& accepted, const std::string& actor, int64_t now_ms,
                         Status* refused) {
  *refused = Status::Ok();  // the Writer may run an operation twice
  std::vector<std::pair<const KeySpecNow*, Comparison>> plan;
  for (const KeySpecNow& now : specs) {
    Comparison c = Compare(db, now);
    if (c.recorded.found && !c.changed) continue;
    const bool is_accepted = std::find(accepted.begin(), accepted.end(), now.endpoint) != accepted.end();
    if (c.stored_events > 0 && !is_accepted) {
      *refused = Status(Code::kConflict, ExplainKeySpecChange(ChangeOf(now, c)));
      return;
    }
    plan.emplace_back(&now, std::move(c));
  }
  for (const auto& [now, c] : plan) {
    InsertSpec(db, *now, actor, now_ms);
    if (c.changed) InsertChangeAction(db, ChangeOf(*now, c), actor, now_ms);
  }
}

}  // namespace

std::string ExplainKeySpecChange(const KeySpecChange& c) {
  const bool one = c.stored_events == 1;
  return "endpoint \"" + c.endpoint + "\": the idempotency key settings changed (fingerprint " + c.old_fingerprint +
         " → " + c.new_fingerprint + ") while " + EventsPhrase(c.stored_events) +
         (one ? " still deduplicates by its old key: a provider's redelivery of it"
              : " still deduplicate by the old keys: a provider's redelivery of one of them") +
         " would be stored and processed again as a new event. Start or reload with --accept-key-change " +
         c.endpoint + " to accept this. Was " + c.old_spec + "; now " + c.new_spec + ".";
}

Result<std::vector<KeySpecChange>> SqlStore::CheckKeySpecs(const std::vector<KeySpecNow>& specs) {
  if (Status st = CheckSpecs(specs); !st.ok()) return st;
  return WithReader<std::vector<KeySpecChange>>(
      *readers_, "check key specs", [&](sql::Connection& db) -> Result<std::vector<KeySpecChange>> {
        std::vector<KeySpecChange> out;
        for (const KeySpecNow& now : specs) {
          Comparison c = Compare(db, now);
          if (c.stored_events > 0) out.push_back(ChangeOf(now, c));
        }
        return out;
      });
}

Status SqlStore::RecordKeySpecs(const std::vector<KeySpecNow>& specs, const std::vector<std::string>& accepted,
                                const std::string& actor, int64_t now_ms) {
  if (Status st = CheckSpecs(specs); !st.ok()) return st;
  if (actor.empty()) return InvalidArgument("record key specs: actor is missing");
  Status refused;
  Status st = writer_->Submit(
      [&](sql::Connection& db) { RecordInTransaction(db, specs, accepted, actor, now_ms, &refused); });
  if (!st.ok()) return Prefixed("record key specs", st);
  return refused;
}

}  // namespace hookinbox::store
