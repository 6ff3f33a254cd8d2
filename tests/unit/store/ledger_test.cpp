#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::EffectClaimState;
using store::EffectEnd;
using store::HandlerGrant;

namespace {

constexpr int64_t kT0 = 1764511200000;  // SampleEvent's received_at
constexpr int64_t kLease = 30000;

struct LedgerFixture : StoreFixture {
  store::Ledger& ledger() { return *store; }

  // Stores an event and claims it for the worker: its token is the handler's.
  store::LeasedEvent Running(const std::string& event_id, const std::string& tenant = "default",
                             int64_t now = kT0) {
    auto e = SampleEvent(event_id, "h-" + event_id);
    e.tenant_id = tenant;
    REQUIRE(store->RecordEvent(e, SampleDelivery()).ok());
    auto c = store->LeaseDue("w-" + event_id, now, kLease, {});
    REQUIRE(c.ok());
    REQUIRE(c->has_value());
    REQUIRE((*c)->event_id == event_id);
    return **c;
  }

  HandlerGrant Grant(const store::LeasedEvent& c, int64_t now = kT0) {
    auto g = ledger().Authenticate(c.token, now);
    REQUIRE(g.ok());
    return *g;
  }

  EffectClaimState Claim(const HandlerGrant& g, const std::string& key, int64_t now = kT0,
                         std::string* ref = nullptr) {
    auto r = ledger().ClaimEffect(g, key, now);
    REQUIRE(r.ok());
    if (ref) *ref = r->external_ref;
    return r->state;
  }

  void Complete(const store::LeasedEvent& c, const std::string& owner) {
    store::AttemptResult r;
    r.id = c.id;
    r.owner = owner;
    r.attempt = c.attempt;
    r.outcome = store::AttemptOutcome::kCompleted;
    r.finished_at_ms = kT0 + 1000;
    REQUIRE(store->Finish(r).ok());
  }
};

}  // namespace

TEST_CASE("ledger: 20 events claiming one key at once: exactly one claims, the rest see in_progress",
          "[store][ledger]") {
  LedgerFixture f;
  std::vector<HandlerGrant> grants;
  for (int i = 0; i < 20; ++i) grants.push_back(f.Grant(f.Running("evt_" + std::to_string(i))));
  std::atomic<int> ready{0}, claimed{0}, in_progress{0}, other{0};
  std::vector<std::thread> threads;
  for (const auto& g : grants) {
    threads.emplace_back([&, g] {
      ++ready;
      while (ready.load() < 20) std::this_thread::yield();  // start together
      auto r = f.ledger().ClaimEffect(g, "charge:inv_1", kT0 + 10);
      if (!r.ok()) {
        ++other;
      } else if (r->state == EffectClaimState::kClaimed) {
        ++claimed;
      } else if (r->state == EffectClaimState::kInProgress) {
        ++in_progress;
      } else {
        ++other;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(claimed == 1);
  CHECK(in_progress == 19);
  CHECK(other == 0);
  CHECK(f.Count("SELECT count(*) FROM effects") == 1);
}

TEST_CASE("ledger: the holder claims again (any number of times) and stays the holder", "[store][ledger]") {
  LedgerFixture f;
  auto g = f.Grant(f.Running("evt_a"));
  CHECK(f.Claim(g, "k") == EffectClaimState::kClaimed);
  CHECK(f.Claim(g, "k") == EffectClaimState::kClaimed);
  CHECK(f.Text("SELECT inbox_id || ':' || status FROM effects") == std::to_string(g.inbox_id) + ":claimed");
}

TEST_CASE("ledger: done answers done with the external_ref, to other events and to a retry", "[store][ledger]") {
  LedgerFixture f;
  auto a = f.Running("evt_a");
  auto ga = f.Grant(a);
  REQUIRE(f.Claim(ga, "email:welcome") == EffectClaimState::kClaimed);
  REQUIRE(f.ledger().EndEffect(ga, "email:welcome", EffectEnd::kDone, "msg_123", kT0 + 5).ok());
  std::string ref;
  CHECK(f.Claim(ga, "email:welcome", kT0 + 6, &ref) == EffectClaimState::kDone);
  CHECK(ref == "msg_123");
  auto gb = f.Grant(f.Running("evt_b"));
  ref.clear();
  CHECK(f.Claim(gb, "email:welcome", kT0 + 7, &ref) == EffectClaimState::kDone);
  CHECK(ref == "msg_123");

  SECTION("the event's retry (a new attempt and token) still sees done") {
    // The attempt dies without finishing; its lease expires and the event is claimed again.
    auto again = f.store->LeaseDue("w-next", kT0 + kLease + 1, kLease, {});
    REQUIRE(again.ok());
    REQUIRE(again->has_value());
    REQUIRE((*again)->id == a.id);
    auto g2 = f.Grant(**again, kT0 + kLease + 2);
    CHECK(f.Claim(g2, "email:welcome", kT0 + kLease + 2, &ref) == EffectClaimState::kDone);
    CHECK(ref == "msg_123");
  }
}

TEST_CASE("ledger: only the holder ends an effect; repeats are harmless, contradictions conflict",
          "[store][ledger]") {
  LedgerFixture f;
  auto ga = f.Grant(f.Running("evt_a"));
  auto gb = f.Grant(f.Running("evt_b"));
  REQUIRE(f.Claim(ga, "k") == EffectClaimState::kClaimed);
  CHECK(f.ledger().EndEffect(gb, "k", EffectEnd::kDone, "x", kT0).code() == Code::kConflict);
  CHECK(f.ledger().EndEffect(gb, "never", EffectEnd::kDone, "x", kT0).code() == Code::kNotFound);
  CHECK(f.Text("SELECT status FROM effects") == "claimed");
  REQUIRE(f.ledger().EndEffect(ga, "k", EffectEnd::kDone, "ref_1", kT0).ok());
  CHECK(f.ledger().EndEffect(ga, "k", EffectEnd::kDone, "ref_1", kT0).ok());
  CHECK(f.ledger().EndEffect(ga, "k", EffectEnd::kDone, "ref_2", kT0).code() == Code::kConflict);
  CHECK(f.ledger().EndEffect(ga, "k", EffectEnd::kUnknown, "", kT0).code() == Code::kConflict);
  CHECK(f.Text("SELECT status || ':' || external_ref FROM effects") == "done:ref_1");
}

TEST_CASE("ledger: failed frees the key; unknown blocks it", "[store][ledger]") {
  LedgerFixture f;
  auto ga = f.Grant(f.Running("evt_a"));
  auto gb = f.Grant(f.Running("evt_b"));
  REQUIRE(f.Claim(ga, "f") == EffectClaimState::kClaimed);
  REQUIRE(f.ledger().EndEffect(ga, "f", EffectEnd::kFailed, "smtp 550", kT0).ok());
  CHECK(f.Claim(gb, "f") == EffectClaimState::kClaimed);
  CHECK(f.Text("SELECT inbox_id FROM effects WHERE effect_key = 'f'") == std::to_string(gb.inbox_id));

  REQUIRE(f.Claim(ga, "u") == EffectClaimState::kClaimed);
  REQUIRE(f.ledger().EndEffect(ga, "u", EffectEnd::kUnknown, "timeout", kT0).ok());
  CHECK(f.Claim(gb, "u") == EffectClaimState::kUnknown);
  CHECK(f.Claim(ga, "u") == EffectClaimState::kUnknown);
}

TEST_CASE("ledger: an expired holder's key is taken over; its token is refused", "[store][ledger]") {
  LedgerFixture f;
  auto a = f.Running("evt_a", "default", kT0);
  auto ga = f.Grant(a);
  REQUIRE(f.Claim(ga, "k") == EffectClaimState::kClaimed);
  auto gb = f.Grant(f.Running("evt_b", "default", kT0 + kLease));
  CHECK(f.Claim(gb, "k", kT0 + kLease - 1) == EffectClaimState::kInProgress);  // a's lease still runs
  CHECK(f.Claim(gb, "k", kT0 + kLease) == EffectClaimState::kClaimed);          // lease_until reached
  CHECK(f.ledger().Authenticate(a.token, kT0 + kLease).status().code() == Code::kUnauthenticated);
  CHECK(f.ledger().EndEffect(ga, "k", EffectEnd::kDone, "late", kT0 + kLease).code() == Code::kUnauthenticated);
  CHECK(f.Text("SELECT inbox_id || ':' || status FROM effects") == std::to_string(gb.inbox_id) + ":claimed");
}

TEST_CASE("ledger: a token stops working when its attempt completes or the event is re-claimed",
          "[store][ledger]") {
  LedgerFixture f;
  SECTION("completed") {
    auto a = f.Running("evt_a");
    auto ga = f.Grant(a);
    f.Complete(a, "w-evt_a");
    CHECK(f.ledger().Authenticate(a.token, kT0 + 1).status().code() == Code::kUnauthenticated);
    CHECK(f.ledger().ClaimEffect(ga, "k", kT0 + 1).status().code() == Code::kUnauthenticated);
    CHECK(f.ledger().PutStep(ga, "s", "text/plain", "x", kT0 + 1).code() == Code::kUnauthenticated);
    CHECK(f.ledger().GetStep(ga, "s", kT0 + 1).status().code() == Code::kUnauthenticated);
    CHECK(f.Count("SELECT count(*) FROM effects") + f.Count("SELECT count(*) FROM step_results") == 0);
  }
  SECTION("re-claimed after its lease expired: the new attempt's token works, the old one not") {
    auto a = f.Running("evt_a");
    auto again = f.store->LeaseDue("w2", kT0 + kLease + 1, kLease, {});
    REQUIRE(again.ok());
    REQUIRE(again->has_value());
    CHECK((*again)->token != a.token);
    CHECK(f.ledger().Authenticate(a.token, kT0 + kLease + 2).status().code() == Code::kUnauthenticated);
    CHECK(f.ledger().Authenticate((*again)->token, kT0 + kLease + 2).ok());
  }
  SECTION("malformed and unknown tokens") {
    CHECK(f.ledger().Authenticate("", kT0).status().code() == Code::kUnauthenticated);
    CHECK(f.ledger().Authenticate("hkt_xyz", kT0).status().code() == Code::kUnauthenticated);
    CHECK(f.ledger().Authenticate(store::NewHandlerToken(), kT0).status().code() == Code::kUnauthenticated);
  }
}

// The handler API tells a late handler (409, not counted) from a guess (401,
// counted as a failed login) by IsExpiredToken.
TEST_CASE("ledger: a token of an ended attempt is known as expired, also once a later attempt replaced it; a token "
          "never issued is not",
          "[store][ledger]") {
  LedgerFixture f;
  auto a = f.Running("evt_a");
  auto expired = [&](const std::string& token, int64_t now) {
    return store::IsExpiredToken(f.ledger().Authenticate(token, now).status());
  };
  SECTION("completed") {
    f.Complete(a, "w-evt_a");
    CHECK(expired(a.token, kT0 + 1));
  }
  SECTION("lease lapsed, then replaced by a later attempt's token") {
    CHECK(expired(a.token, kT0 + kLease));
    auto again = f.store->LeaseDue("w2", kT0 + kLease + 1, kLease, {});
    REQUIRE(again.ok());
    REQUIRE(again->has_value());
    CHECK(expired(a.token, kT0 + kLease + 2));
    CHECK(f.ledger().Authenticate((*again)->token, kT0 + kLease + 2).ok());
    CHECK(f.Count("SELECT count(DISTINCT token_hash) FROM webhook_attempts WHERE inbox_id = " +
                  std::to_string(a.id)) == 2);
  }
  SECTION("completed, replayed and claimed again: the replay's attempt holds another token") {
    f.Complete(a, "w-evt_a");
    REQUIRE(f.store->Replay(a.id, "cli:test", "", kT0 + 2000).ok());
    CHECK(expired(a.token, kT0 + 2001));
    auto again = f.store->LeaseDue("w2", kT0 + 2001, kLease, {});
    REQUIRE(again.ok());
    REQUIRE(again->has_value());
    CHECK(expired(a.token, kT0 + 2002));
  }
  SECTION("never issued") {
    auto unknown = f.ledger().Authenticate(store::NewHandlerToken(), kT0);
    CHECK(unknown.status().code() == Code::kUnauthenticated);
    CHECK_FALSE(store::IsExpiredToken(unknown.status()));
    CHECK_FALSE(store::IsExpiredToken(f.ledger().Authenticate("hkt_xyz", kT0).status()));
  }
}

TEST_CASE("ledger: effect keys are scoped to the tenant", "[store][ledger]") {
  LedgerFixture f;
  auto ga = f.Grant(f.Running("evt_a", "acme"));
  auto gb = f.Grant(f.Running("evt_b", "globex"));
  CHECK(f.Claim(ga, "k") == EffectClaimState::kClaimed);
  CHECK(f.Claim(gb, "k") == EffectClaimState::kClaimed);
  CHECK(f.Count("SELECT count(*) FROM effects") == 2);
}

TEST_CASE("ledger: steps are stored as-is per event; another event does not see them", "[store][ledger]") {
  LedgerFixture f;
  auto ga = f.Grant(f.Running("evt_a"));
  auto gb = f.Grant(f.Running("evt_b"));
  std::string body("label=\0urgent\xff", 14);
  REQUIRE(f.ledger().PutStep(ga, "classify", "application/x-custom", body, kT0).ok());
  auto got = f.ledger().GetStep(ga, "classify", kT0);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->body == body);
  CHECK((*got)->content_type == "application/x-custom");
  CHECK((*got)->attempt == 1);
  auto other = f.ledger().GetStep(gb, "classify", kT0);
  REQUIRE(other.ok());
  CHECK_FALSE(other->has_value());

  REQUIRE(f.ledger().PutStep(ga, "classify", "text/plain", "v2", kT0).ok());  // replaces
  CHECK((*f.ledger().GetStep(ga, "classify", kT0))->body == "v2");

  CHECK(f.ledger().PutStep(ga, "big", "text/plain", std::string(store::kMaxStepBytes + 1, 'x'), kT0).code() ==
        Code::kTooLarge);
  CHECK(f.ledger().PutStep(ga, std::string(201, 'n'), "text/plain", "x", kT0).code() == Code::kInvalidArgument);
  CHECK(f.ledger().PutStep(ga, "bad\nname", "text/plain", "x", kT0).code() == Code::kInvalidArgument);
  CHECK(f.Count("SELECT count(*) FROM step_results") == 1);
}

TEST_CASE("ledger: names are checked: empty, too long, control characters", "[store][ledger]") {
  CHECK(store::CheckLedgerName("key", "notify:evt_1:welcome").ok());
  CHECK(store::CheckLedgerName("key", std::string(200, 'k')).ok());
  CHECK(store::CheckLedgerName("key", "").code() == Code::kInvalidArgument);
  CHECK(store::CheckLedgerName("key", std::string(201, 'k')).code() == Code::kInvalidArgument);
  CHECK(store::CheckLedgerName("key", std::string("a\0b", 3)).code() == Code::kInvalidArgument);
  CHECK(store::CheckLedgerName("key", "tab\there").code() == Code::kInvalidArgument);
  CHECK(store::CheckLedgerName("key", "del\x7f").code() == Code::kInvalidArgument);
}

// One test of liveness (store/live_attempt.h) behind every handler-API
// operation: a grant is refused by all of them as soon as any part of it no
// longer holds — the attempt included, even with the token unchanged.
TEST_CASE("ledger: every operation refuses a grant whose attempt moved on, lapsed or ended, even with its token "
          "still the event's",
          "[store][ledger]") {
  LedgerFixture f;
  auto a = f.Running("evt_a");
  const HandlerGrant g = f.Grant(a);
  REQUIRE(f.Claim(g, "held") == EffectClaimState::kClaimed);
  int64_t now = kT0 + 1;
  SECTION("the attempt moved without a new token (a hand edit)") {
    f.Exec("UPDATE webhook_inbox SET attempt_count = attempt_count + 1 WHERE id = " + std::to_string(a.id));
  }
  SECTION("the lease ran out") { now = kT0 + kLease; }
  SECTION("the event left processing") {
    f.Exec("UPDATE webhook_inbox SET status = 'retryable_failed' WHERE id = " + std::to_string(a.id));
  }
  const std::string before = f.Text("SELECT attempt_count || '|' || status || '|' || lease_until FROM webhook_inbox");
  CHECK(f.ledger().ClaimEffect(g, "k", now).status().code() == Code::kUnauthenticated);
  CHECK(f.ledger().EndEffect(g, "held", EffectEnd::kDone, "ref", now).code() == Code::kUnauthenticated);
  CHECK(f.ledger().PutStep(g, "s", "text/plain", "x", now).code() == Code::kUnauthenticated);
  CHECK(f.ledger().GetStep(g, "s", now).status().code() == Code::kUnauthenticated);
  store::AttemptResult done;
  done.outcome = store::AttemptOutcome::kCompleted;
  done.finished_at_ms = now;
  CHECK(f.ledger().EndAttempt(g, done).code() == Code::kConflict);
  CHECK(f.ledger().RenewAttempt(g, now + kLease, now).code() == Code::kConflict);
  CHECK(f.Text("SELECT attempt_count || '|' || status || '|' || lease_until FROM webhook_inbox") == before);
  CHECK(f.Text("SELECT effect_key || ':' || status FROM effects") == "held:claimed");
  CHECK(f.Count("SELECT count(*) FROM step_results") == 0);
}
