// store/statement_cache: what the writer relies on — one compiled statement
// per text while a cache is open on the thread's connection, reset and
// unbound between uses, never handed out twice at once, and nothing cached
// for another connection or after the cache is gone.
#include <catch2/catch.hpp>

#include "store/statement_cache.h"
#include "store/writer.h"
#include "store_fixture.h"

using namespace hookinbox;
using hookinbox::store::Prepared;
using hookinbox::store::StatementCache;

namespace {

store::sql::Statement* Use(store::sql::Connection& db, const std::string& sql) {
  Prepared st(db, sql);
  return &*st;
}

// A connection of the test's own to the fixture's database (either backend), with a table t.
struct CacheFixture : hookinbox::testing::StoreFixture {
  std::unique_ptr<store::sql::Connection> db = Connect();
  CacheFixture() { db->Exec("CREATE TABLE t (v BIGINT)"); }
};

}  // namespace

TEST_CASE("statement cache: one statement per text while the cache is open", "[store]") {
  CacheFixture f;
  store::sql::Connection& db = *f.db;
  StatementCache cache(db);
  store::sql::Statement* first = Use(db, "INSERT INTO t VALUES (?)");
  CHECK(Use(db, "INSERT INTO t VALUES (?)") == first);
  CHECK(Use(db, "SELECT v FROM t") != first);
  CHECK(cache.size() == 2);
}

TEST_CASE("statement cache: a reused statement starts reset and unbound", "[store]") {
  CacheFixture f;
  store::sql::Connection& db = *f.db;
  StatementCache cache(db);
  {
    Prepared ins(db, "INSERT INTO t VALUES (?)");
    ins->bind(1, 7);
    ins->exec();
  }
  {
    Prepared ins(db, "INSERT INTO t VALUES (?)");
    ins->exec();  // no binding: the 7 of the last use must not leak into this row
  }
  CHECK(store::sql::QueryInt64(db, "SELECT count(*) FROM t WHERE v IS NULL") == 1);
  // 7 first, then the NULL row as 0: a use that went on from the last one would read 0.
  const std::string select = "SELECT coalesce(v, 0) FROM t ORDER BY coalesce(v, 0) DESC";
  {
    Prepared sel(db, select);
    REQUIRE(sel->executeStep());  // left mid-result: the next use must start over
  }
  Prepared sel(db, select);
  REQUIRE(sel->executeStep());
  CHECK(sel->getColumn(0).getInt() == 7);
}

TEST_CASE("statement cache: the same text nested gets a statement of its own", "[store]") {
  CacheFixture f;
  store::sql::Connection& db = *f.db;
  db.Exec("INSERT INTO t VALUES (1), (2)");
  StatementCache cache(db);
  Prepared outer(db, "SELECT v FROM t ORDER BY v");
  REQUIRE(outer->executeStep());
  {
    Prepared inner(db, "SELECT v FROM t ORDER BY v");
    CHECK(&*inner != &*outer);
    REQUIRE(inner->executeStep());
    CHECK(inner->getColumn(0).getInt() == 1);
  }
  REQUIRE(outer->executeStep());  // the inner use did not reset the outer one
  CHECK(outer->getColumn(0).getInt() == 2);
}

TEST_CASE("statement cache: nothing is cached for another connection or after the cache closed", "[store]") {
  CacheFixture f;
  store::sql::Connection& db = *f.db;
  auto other_connection = f.Connect();
  store::sql::Connection& other = *other_connection;
  {
    StatementCache cache(db);
    Use(other, "SELECT 1");
    CHECK(cache.size() == 0);
    Use(db, "SELECT 1");
    CHECK(cache.size() == 1);
  }
  // No cache open: each use prepares (and frees) its own statement; the
  // statements of the closed cache are gone with it.
  Prepared a(db, "SELECT 1");
  Prepared b(db, "SELECT 1");
  CHECK(&*a != &*b);
}

TEST_CASE("statement cache: the writer's statements survive across transactions", "[store]") {
  hookinbox::testing::StoreFixture f;
  // Two claims, two transactions: both go through the writer's cache and
  // both rows are there (a statement left bound or mid-step would fail the second).
  REQUIRE(f.store->RecordEvent(hookinbox::testing::SampleEvent("evt_a"), hookinbox::testing::SampleDelivery()).ok());
  REQUIRE(f.store->RecordEvent(hookinbox::testing::SampleEvent("evt_b"), hookinbox::testing::SampleDelivery()).ok());
  auto dup = f.store->RecordEvent(hookinbox::testing::SampleEvent("evt_a"), hookinbox::testing::SampleDelivery());
  REQUIRE(dup.ok());
  CHECK(dup->outcome == store::DeliveryOutcome::kDuplicate);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 2);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 3);
}
