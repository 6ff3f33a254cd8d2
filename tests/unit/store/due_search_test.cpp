// A claim's cost does not depend on the events other endpoints hold
// (store/due_search.h): with 200 000 events kept by a receive-only endpoint
// and 50 000 due on an endpoint at its concurrency, a claim for a third
// endpoint visits what it visits on a database holding only that endpoint's
// event. Measured, not timed: on SQLite the statements' VM steps and their
// plans (EXPLAIN QUERY PLAN); on PostgreSQL the rows each plan node read
// (EXPLAIN ANALYZE), under both the custom and the generic plan a named
// prepared statement gets.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/due_search.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;
constexpr int64_t kNow = kT0 + 3'600'000;  // an hour later: everything below is due
constexpr int64_t kLease = 30000;

// `n` events of `endpoint` as the door stores them ('received', due since
// they arrived), received one ms apart from kT0 + `from`.
void Fill(const StoreFixture& f, const std::string& endpoint, int n, int64_t from) {
  const std::string at = std::to_string(kT0 + from) + " + i";
  f.Exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, status, received_at,"
         " next_attempt_at) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
         std::to_string(n) + ") SELECT 'generic', '" + endpoint + "', 'default', '" + endpoint +
         "_' || i, 'h', 'received', " + at + ", " + at + " FROM n");
}

// The mix of the issue: a receive-only endpoint's months of events, and an
// endpoint whose concurrency is full — its two running events under valid
// leases, 50 000 more due behind them.
void FillOthers(const StoreFixture& f) {
  Fill(f, "kept", 200000, 0);
  Fill(f, "busy", 50000, 0);
  f.Exec("UPDATE webhook_inbox SET status = 'processing', lease_owner = 'w', lease_until = " +
         std::to_string(kNow + kLease) + ", next_attempt_at = " + std::to_string(kNow + kLease) +
         " WHERE endpoint = 'busy' AND event_id IN ('busy_1', 'busy_2')");
}

// The third endpoint's one due event, received after all the others (so a
// search in one due order over every endpoint would meet it last).
int64_t AddThird(const StoreFixture& f) {
  Fill(f, "third", 1, 300000);
  return f.Count("SELECT id FROM webhook_inbox WHERE endpoint = 'third'");
}

// SQLite: what running `sql` with ?1 = text1 (when not empty) and ?2 = now costs.
struct SqliteCost {
  int64_t vm_steps = 0, fullscan_steps = 0, sorts = 0;
  std::string first;  // the first column of the first row
};

SqliteCost RunSqlite(const std::string& path, const std::string& sql, const std::string& text1) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  sqlite3_bind_text(st, 1, text1.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_bind_parameter_count(st) >= 2) sqlite3_bind_int64(st, 2, kNow);
  SqliteCost cost;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(st, 0);
    cost.first = text != nullptr ? reinterpret_cast<const char*>(text) : "";
  }
  cost.vm_steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
  cost.fullscan_steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0);
  cost.sorts = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_SORT, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return cost;
}

std::string SqlitePlan(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &st, nullptr) == SQLITE_OK);
  std::string out;
  while (sqlite3_step(st) == SQLITE_ROW) out += reinterpret_cast<const char*>(sqlite3_column_text(st, 3)) + std::string("\n");
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// PostgreSQL: rows every node of the executed plan read (returned + removed
// by a filter), and the node types and index names it used.
struct PgCost {
  double rows_visited = 0;
  std::vector<std::string> nodes;  // "Index Scan on webhook_inbox_due_by_endpoint", "Limit", …
};

void Walk(const nlohmann::json& node, PgCost& cost) {
  const double loops = node.value("Actual Loops", 1.0);
  cost.rows_visited += loops * (node.value("Actual Rows", 0.0) + node.value("Rows Removed by Filter", 0.0) +
                                node.value("Rows Removed by Index Recheck", 0.0));
  std::string name = node.value("Node Type", std::string());
  if (node.contains("Index Name")) name += " on " + node["Index Name"].get<std::string>();
  cost.nodes.push_back(name);
  if (node.contains("Plans")) {
    for (const auto& child : node["Plans"]) Walk(child, cost);
  }
}

// `sql` (numbered ?1 ?2 parameters) as a named prepared statement, executed
// under `plan_cache_mode` ("force_custom_plan" or "force_generic_plan").
PgCost RunPostgres(const StoreFixture& f, std::string sql, const std::string& text1, const std::string& mode) {
  for (const char* n : {"1", "2"}) {
    for (size_t at; (at = sql.find(std::string("?") + n)) != std::string::npos;) sql.replace(at, 2, std::string("$") + n);
  }
  const bool with_now = sql.find("$2") != std::string::npos;
  auto db = f.Connect();
  db->Exec("SET plan_cache_mode = " + mode);
  db->Exec("PREPARE due_probe (text" + std::string(with_now ? ", bigint" : "") + ") AS " + sql);
  const std::string args = "'" + text1 + "'" + (with_now ? ", " + std::to_string(kNow) : "");
  const std::string plan = store::sql::QueryText(*db, "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE due_probe (" + args + ")");
  PgCost cost;
  Walk(nlohmann::json::parse(plan)[0]["Plan"], cost);
  return cost;
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

// The cost of `sql` for `text1`, in the unit of the backend (VM steps on
// SQLite, rows visited on PostgreSQL), checking the plan on the way: an index
// search, never a scan of the table or a sort.
double CostOf(const StoreFixture& f, const std::string& sql, const std::string& text1, const std::string& mode) {
  if (!f.postgres()) {
    const std::string plan = SqlitePlan(f.path, sql);
    INFO(plan);
    CHECK_THAT(plan, Catch::Contains("SEARCH webhook_inbox USING") && Catch::Contains("webhook_inbox_due_by_endpoint"));
    CHECK_THAT(plan, !Catch::Contains("SCAN") && !Catch::Contains("TEMP B-TREE"));
    SqliteCost cost = RunSqlite(f.path, sql, text1);
    CHECK(cost.fullscan_steps == 0);
    CHECK(cost.sorts == 0);
    return static_cast<double>(cost.vm_steps);
  }
  PgCost cost = RunPostgres(f, sql, text1, mode);
  const std::string nodes = Joined(cost.nodes);
  INFO(mode << "\n" << nodes);
  CHECK_THAT(nodes, Catch::Contains("webhook_inbox_due_by_endpoint"));
  CHECK_THAT(nodes, !Catch::Contains("Seq Scan") && !Catch::Contains("Sort") && !Catch::Contains("Bitmap"));
  return cost.rows_visited;
}

const char* kModes[] = {"force_custom_plan", "force_generic_plan"};

}  // namespace

TEST_CASE("due search: a claim for one endpoint costs the same beside 250 000 events of others",
          "[store][queue][due]") {
  StoreFixture empty;
  AddThird(empty);
  StoreFixture full;
  FillOthers(full);
  const int64_t third = AddThird(full);
  // As a live database would be: PostgreSQL's autovacuum analyses a table
  // this size; SQLite is never analysed (hookinbox does not run ANALYZE).
  if (full.postgres()) full.Exec("ANALYZE webhook_inbox");

  for (const char* mode : kModes) {
    const double before = CostOf(empty, store::due_sql::OldestDue(0), "third", mode);
    const double after = CostOf(full, store::due_sql::OldestDue(0), "third", mode);
    INFO(mode << ": " << before << " on the empty database, " << after << " beside the others");
    CHECK(before > 0);
    CHECK(after <= 2 * before);
    // The earliest due time, for the worker's sleep, the same way.
    CHECK(CostOf(full, store::due_sql::kEarliest, "third", mode) <= 2 * CostOf(empty, store::due_sql::kEarliest, "third", mode));
    if (!full.postgres()) break;  // one plan on SQLite
  }

  // The claim itself, as the worker makes it (naming the endpoints it may
  // take) and as a tool does (leaving out the ones it may not).
  store::WorkQueue::LeaseRequest named{"w", kNow, kLease, {}, {}, nullptr, std::vector<std::string>{"third"}};
  auto c = full.store->LeaseDue(named);
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  CHECK((*c)->id == third);
  CHECK(full.Count("SELECT count(*) FROM webhook_inbox WHERE status = 'processing'") == 3);
  full.Exec("UPDATE webhook_inbox SET status = 'received', lease_owner = NULL, lease_until = NULL, next_attempt_at = " +
            std::to_string(kNow - 1) + " WHERE id = " + std::to_string(third));
  auto t = full.store->LeaseDue("w", kNow, kLease, {"kept", "busy"});
  REQUIRE(t.ok());
  REQUIRE(t->has_value());
  CHECK((*t)->id == third);
}

TEST_CASE("due search: listing the endpoints with pending events costs a seek per endpoint, not per event",
          "[store][queue][due]") {
  // The same three endpoints, one event each, against the full mix.
  StoreFixture few;
  Fill(few, "kept", 1, 0);
  Fill(few, "busy", 1, 0);
  AddThird(few);
  StoreFixture full;
  FillOthers(full);
  AddThird(full);
  if (full.postgres()) full.Exec("ANALYZE webhook_inbox");
  for (const char* mode : kModes) {
    double before = 0, after = 0;
    for (const char* from : {"", "busy", "kept", "third"}) {  // every step of the loose scan
      before += CostOf(few, store::due_sql::kNextPendingEndpoint, from, mode);
      after += CostOf(full, store::due_sql::kNextPendingEndpoint, from, mode);
    }
    INFO(mode << ": " << before << " with one event per endpoint, " << after << " beside 250 000");
    CHECK(after <= 2 * before);
    if (!full.postgres()) break;
  }
  auto db = full.Connect();
  CHECK(store::PendingEndpoints(*db) == std::vector<std::string>{"busy", "kept", "third"});
}

TEST_CASE("due search: the oldest due event of the named endpoints wins; running ones and leases held are passed",
          "[store][queue][due]") {
  StoreFixture f;
  Fill(f, "a", 3, 10);   // a_1 due at +11
  Fill(f, "b", 2, 0);    // b_1 due at +1: the oldest
  Fill(f, "c", 1, 20);
  const int64_t b1 = f.Count("SELECT id FROM webhook_inbox WHERE event_id = 'b_1'");
  const int64_t a1 = f.Count("SELECT id FROM webhook_inbox WHERE event_id = 'a_1'");
  auto db = f.Connect();
  auto oldest = store::OldestDue(*db, "b", kNow, {});
  REQUIRE(oldest);
  CHECK(oldest->id == b1);
  CHECK(oldest->next_attempt_at_ms == kT0 + 1);
  auto passed = store::OldestDue(*db, "b", kNow, {b1});  // b_1 runs in this process
  REQUIRE(passed);
  CHECK(passed->id != b1);
  CHECK_FALSE(store::OldestDue(*db, "b", kT0, {}));  // nothing is due before it arrived
  CHECK(store::EarliestDue(*db, std::vector<std::string>{"a", "c"}) == kT0 + 11);
  CHECK_FALSE(store::EarliestDue(*db, std::vector<std::string>{"none"}));

  store::WorkQueue::LeaseRequest only_a{"w", kNow, kLease, {}, {}, nullptr, std::vector<std::string>{"a", "c"}};
  auto c = f.store->LeaseDue(only_a);
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  CHECK((*c)->id == a1);  // b is older but not named
  // a_1's lease is held: it is not due again before it expires.
  CHECK(store::OldestDue(*db, "a", kNow, {})->id != a1);
  store::WorkQueue::LeaseRequest none{"w", kNow, kLease, {}, {}, nullptr, std::vector<std::string>{}};
  auto n = f.store->LeaseDue(none);
  REQUIRE(n.ok());
  CHECK_FALSE(n->has_value());
  auto next = f.store->NextDueAt(std::vector<std::string>{"c"});
  REQUIRE(next.ok());
  CHECK(*next == kT0 + 21);
  auto any = f.store->NextDueAt();
  REQUIRE(any.ok());
  CHECK(*any == kT0 + 1);
}
