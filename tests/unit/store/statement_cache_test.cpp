// store/statement_cache: what the writer relies on — one compiled statement
// per text while a cache is open on the thread's connection, reset and
// unbound between uses, never handed out twice at once, and nothing cached
// for another connection or after the cache is gone.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/statement_cache.h"
#include "store/writer.h"
#include "store_fixture.h"

using namespace hookinbox;
using hookinbox::store::Prepared;
using hookinbox::store::StatementCache;

namespace {

SQLite::Statement* Use(SQLite::Database& db, const std::string& sql) {
  Prepared st(db, sql);
  return &*st;
}

}  // namespace

TEST_CASE("statement cache: one statement per text while the cache is open", "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE t (v INTEGER)");
  StatementCache cache(db);
  SQLite::Statement* first = Use(db, "INSERT INTO t VALUES (?)");
  CHECK(Use(db, "INSERT INTO t VALUES (?)") == first);
  CHECK(Use(db, "SELECT v FROM t") != first);
  CHECK(cache.size() == 2);
}

TEST_CASE("statement cache: a reused statement starts reset and unbound", "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE t (v INTEGER)");
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
  CHECK(db.execAndGet("SELECT count(*) FROM t WHERE v IS NULL").getInt() == 1);
  {
    Prepared sel(db, "SELECT v FROM t ORDER BY rowid");
    REQUIRE(sel->executeStep());  // left mid-result: the next use must start over
  }
  Prepared sel(db, "SELECT v FROM t ORDER BY rowid");
  REQUIRE(sel->executeStep());
  CHECK(sel->getColumn(0).getInt() == 7);
}

TEST_CASE("statement cache: the same text nested gets a statement of its own", "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2)");
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
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  SQLite::Database other(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
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
  REQUIRE(f.store->Claim(hookinbox::testing::SampleEvent("evt_a"), hookinbox::testing::SampleDelivery()).ok());
  REQUIRE(f.store->Claim(hookinbox::testing::SampleEvent("evt_b"), hookinbox::testing::SampleDelivery()).ok());
  auto dup = f.store->Claim(hookinbox::testing::SampleEvent("evt_a"), hookinbox::testing::SampleDelivery());
  REQUIRE(dup.ok());
  CHECK(dup->outcome == store::ClaimOutcome::kDuplicate);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 2);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 3);
}
