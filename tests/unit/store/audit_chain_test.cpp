// The audit hash chains (store/audit_chain.h): the encoding's field
// boundaries, sealing by the store's own writes, and what verification names
// after a row is edited or removed behind the store's back.
#include <catch2/catch.hpp>

#include "store/audit_chain.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::AuditValue;

namespace {

constexpr int64_t kT0 = 1764511200000;

AuditValue Text(std::string s) {
  AuditValue v;
  v.type = AuditValue::Type::kText;
  v.bytes = std::move(s);
  return v;
}
AuditValue Int(int64_t i) {
  AuditValue v;
  v.type = AuditValue::Type::kInteger;
  v.integer = i;
  return v;
}

struct ChainFixture : StoreFixture {
  store::AuditReport Verify() const {
    auto r = store::VerifyAudit(*Connect());
    REQUIRE(r.ok());
    return *r;
  }
  int64_t Accept(const std::string& id, int64_t at = kT0) { return ClaimAt(SampleEvent(id, "h-" + id), at); }
  // Deletes delivery `id` by hand. Its payload row points at it, and the
  // foreign key holds for every PostgreSQL session (a second SQLite
  // connection does not check it), so the payload is detached first, as
  // anyone removing the row by hand would have to.
  void RemoveDelivery(int64_t id) const {
    const std::string sql_id = std::to_string(id);
    Exec("UPDATE webhook_payloads SET delivery_id = NULL WHERE delivery_id = " + sql_id +
         "; DELETE FROM webhook_deliveries WHERE id = " + sql_id);
  }
  // Claims the due event and finishes it with `outcome`.
  void Process(store::AttemptOutcome outcome, int64_t now = kT0 + 1000) {
    auto c = store->LeaseDue("w1", now, 30000, {});
    REQUIRE(c.ok());
    REQUIRE(c->has_value());
    store::AttemptResult r;
    r.id = (*c)->id;
    r.owner = "w1";
    r.attempt = (*c)->attempt;
    r.outcome = outcome;
    r.finished_at_ms = now + 10;
    r.next_attempt_at_ms = now + 60000;
    REQUIRE(store->Finish(r).ok());
  }
};

}  // namespace

TEST_CASE("audit chain: the encoding is length-prefixed and typed, so no value can move between fields",
          "[store][audit]") {
  const std::string t = store::kAttemptsTable;
  auto with = [&](std::vector<AuditValue> tail) {
    std::vector<AuditValue> v = {Int(1), Int(2), Int(1)};
    for (auto& x : tail) v.push_back(x);
    return store::AuditRowHash(t, 1, store::kGenesisHash, v);
  };
  CHECK(with({Text("ab"), Text("c")}) != with({Text("a"), Text("bc")}));
  CHECK(with({Text("")}) != with({AuditValue{}}));  // "" is not NULL
  CHECK(with({Int(1)}) != with({Text("1")}));       // 1 is not "1"
  CHECK(store::AuditRowHash(t, 1, store::kGenesisHash, {Int(1)}) !=
        store::AuditRowHash(t, 2, store::kGenesisHash, {Int(1)}));  // the position in the chain counts
  CHECK(store::AuditRowHash(t, 1, std::string(64, '1'), {Int(1)}) !=
        store::AuditRowHash(t, 1, store::kGenesisHash, {Int(1)}));  // so does the previous hash
  // The exact layout is pinned: text = u64be length ‖ bytes; integer = 'I' ‖ i64be.
  std::string bytes = store::EncodeAuditRow(t, 7, "p", {Int(258)});
  const std::string expect_start = std::string("\0\0\0\0\0\0\0\x12", 8) + "hookinbox-audit-v1" +
                                   std::string("\0\0\0\0\0\0\0\x10", 8) + "webhook_attempts" + "I" +
                                   std::string("\0\0\0\0\0\0\0\x07", 8) + std::string("\0\0\0\0\0\0\0\x01", 8) + "p" +
                                   std::string("\0\0\0\0\0\0\0\x02", 8) + "id" + "I" +
                                   std::string("\0\0\0\0\0\0\x01\x02", 8);
  CHECK(bytes.substr(0, expect_start.size()) == expect_start);
  CHECK(bytes.substr(expect_start.size(), 17) == std::string("\0\0\0\0\0\0\0\x08", 8) + "inbox_idN");
}

TEST_CASE("audit chain: the store's own writes seal deliveries at once and attempts when they close",
          "[store][audit]") {
  ChainFixture f;
  f.Accept("evt_1");
  f.Accept("evt_1");  // duplicate delivery
  auto rejected = SampleDelivery();
  rejected.reason = "unauthenticated";
  REQUIRE(f.store->RecordRejected(rejected).ok());
  CHECK(f.Joined("SELECT chain_seq FROM webhook_deliveries ORDER BY id") == "1,2,3");
  CHECK(f.Count("SELECT seq FROM audit_chain_heads WHERE table_name = 'webhook_deliveries'") == 3);

  auto c = f.store->LeaseDue("w1", kT0 + 1000, 30000, {});
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE chain_seq IS NULL") == 1);  // in flight: not yet
  auto open = f.Verify();
  CHECK(open.ok);
  CHECK(open.chains.at(1).unsealed == 1);
  store::AttemptResult r;
  r.id = (*c)->id;
  r.owner = "w1";
  r.attempt = (*c)->attempt;
  r.outcome = store::AttemptOutcome::kCompleted;
  r.finished_at_ms = kT0 + 2000;
  REQUIRE(f.store->Finish(r).ok());
  CHECK(f.Count("SELECT chain_seq FROM webhook_attempts") == 1);
  auto done = f.Verify();
  INFO(done.broken << ": " << done.detail);
  CHECK(done.ok);
  CHECK(done.integrity == "ok");
  CHECK(done.chains.at(0).sealed == 3);
  CHECK(done.chains.at(1).sealed == 1);
  CHECK(done.chains.at(1).head_hash.size() == 64);
}

TEST_CASE("audit chain: an edited outcome is named by table and rowid", "[store][audit]") {
  ChainFixture f;
  f.Accept("evt_1");
  f.Accept("evt_2");
  f.Process(store::AttemptOutcome::kDeadLettered);
  f.Process(store::AttemptOutcome::kCompleted);
  REQUIRE(f.Verify().ok);
  int64_t first = f.Count("SELECT min(id) FROM webhook_attempts");
  f.Exec("UPDATE webhook_attempts SET outcome = 'completed' WHERE id = " + std::to_string(first));
  auto r = f.Verify();
  CHECK_FALSE(r.ok);
  CHECK(r.broken == "webhook_attempts rowid " + std::to_string(first));
  CHECK(r.detail.find("row_hash") != std::string::npos);

  ChainFixture g;
  g.Accept("evt_1");
  g.Accept("evt_2");
  g.Exec("UPDATE webhook_deliveries SET outcome = 'duplicate' WHERE id = 2");
  CHECK(g.Verify().broken == "webhook_deliveries rowid 2");
}

TEST_CASE("audit chain: a removed row is noticed, in the middle and at the end", "[store][audit]") {
  ChainFixture f;
  for (const char* id : {"evt_1", "evt_2", "evt_3"}) f.Accept(id);
  f.RemoveDelivery(2);
  auto middle = f.Verify();
  CHECK_FALSE(middle.ok);
  CHECK(middle.broken == "webhook_deliveries rowid 3");  // the row whose predecessor went
  CHECK(middle.detail.find("missing") != std::string::npos);

  ChainFixture g;
  for (const char* id : {"evt_1", "evt_2", "evt_3"}) g.Accept(id);
  g.RemoveDelivery(3);
  auto end = g.Verify();
  CHECK_FALSE(end.ok);
  CHECK(end.broken == "webhook_deliveries rowid 3");  // named from the chain head
}

TEST_CASE("audit chain: a folding row is sealed once its minute is over and never bumped after", "[store][audit]") {
  ChainFixture f;
  auto reject = [&](int64_t at) {
    auto d = SampleDelivery();
    d.received_at_ms = at;
    d.reason = "unauthenticated";
    REQUIRE(f.store->RecordRejected(d).ok());
  };
  for (int i = 0; i < store::kRejectedRowsPerMinute + 3; ++i) reject(kT0 + i);
  const std::string fold = "SELECT id FROM webhook_deliveries WHERE reason LIKE 'flood:%'";
  int64_t fold_id = f.Count(fold);
  CHECK(f.Count("SELECT request_count FROM webhook_deliveries WHERE id = " + std::to_string(fold_id)) == 3);
  CHECK(f.Count("SELECT chain_seq IS NULL FROM webhook_deliveries WHERE id = " + std::to_string(fold_id)) == 1);
  CHECK(f.Verify().ok);  // still open: not yet covered, not an error
  f.Accept("evt_later", kT0 + 120000);  // traffic two minutes on closes the fold row's minute
  CHECK(f.Count("SELECT chain_seq IS NOT NULL FROM webhook_deliveries WHERE id = " + std::to_string(fold_id)) == 1);
  reject(kT0 + 500);  // a late request of that minute: a new folding row, the sealed one unchanged
  CHECK(f.Count("SELECT request_count FROM webhook_deliveries WHERE id = " + std::to_string(fold_id)) == 3);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE reason LIKE 'flood:%'") == 2);
  auto r = f.Verify();
  INFO(r.broken << ": " << r.detail);
  CHECK(r.ok);
}

TEST_CASE("audit chain: rows left unsealed (as by a version before the chain) are sealed when the store opens",
          "[store][audit]") {
  ChainFixture f;
  f.Accept("evt_1");
  f.Accept("evt_2");
  f.store->Close();
  f.Exec("UPDATE webhook_deliveries SET chain_seq = NULL, row_hash = NULL; DELETE FROM audit_chain_heads");
  auto reopened = f.database.OpenStore(2000, 64);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE chain_seq IS NULL") == 0);
  CHECK(f.Verify().ok);
  CHECK(f.Count("SELECT count(*) FROM audit_checkpoints WHERE kind = 'genesis'") == 2);
}
