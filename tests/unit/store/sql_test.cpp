// store/sql: the SQL layer both backends share — placeholders, values that
// must come back byte for byte, how failures are classified, the reader pool,
// and a store that outlives its server connections.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "store/sql/placeholders.h"
#include "store/sql/pool.h"
#include "store/sql/sql.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::store;
using hookinbox::testing::SampleDelivery;
using hookinbox::testing::SampleEvent;
using hookinbox::testing::StoreFixture;

TEST_CASE("sql: ? becomes $n outside literals, identifiers and comments; ?N keeps its number", "[store][sql]") {
  auto n = sql::PostgresPlaceholders("SELECT ? , '?' , \"a?\" , ? -- ?\n/* ? */ , ?");
  CHECK(n.sql == "SELECT $1 , '?' , \"a?\" , $2 -- ?\n/* ? */ , $3");
  CHECK(n.parameters == 3);
  auto numbered = sql::PostgresPlaceholders("WHERE a = ?2 OR b = ?1 OR c = ?2 OR d = ?");
  CHECK(numbered.sql == "WHERE a = $2 OR b = $1 OR c = $2 OR d = $3");
  CHECK(numbered.parameters == 3);
  auto quoted = sql::PostgresPlaceholders("SELECT 'it''s ?', ?");
  CHECK(quoted.sql == "SELECT 'it''s ?', $1");
}

TEST_CASE("sql: text and blobs come back byte for byte, NULs included; integers and NULLs as bound",
          "[store][sql]") {
  StoreFixture f;
  auto db = f.Connect();
  db->Exec("CREATE TABLE t_values (i BIGINT, s TEXT, b " + std::string(f.postgres() ? "BYTEA" : "BLOB") + ")");
  const std::string blob("a\0b\xff\x01\\x00", 8);
  const std::string text = "caf\xc3\xa9 \"quoted\" 'single' ?";
  {
    auto ins = db->Prepare("INSERT INTO t_values (i, s, b) VALUES (?, ?, ?)");
    ins->bind(1, static_cast<int64_t>(-9007199254740993));
    ins->bind(2, text);
    ins->bindBlob(3, blob);
    CHECK(ins->exec() == 1);
    ins->reset();
    ins->bind(1);
    ins->bind(2);
    ins->bind(3);
    CHECK(ins->exec() == 1);
  }
  auto sel = db->Prepare("SELECT i, s, b, i IS NULL FROM t_values ORDER BY i IS NULL");
  REQUIRE(sel->executeStep());
  CHECK(sel->getColumn(0).getInt64() == -9007199254740993);
  CHECK(sel->getColumn(1).getString() == text);
  CHECK(sel->getColumn(2).getString() == blob);
  CHECK(sel->getColumn(2).getType() == sql::Type::kBlob);
  CHECK(sel->getColumn(3).getInt64() == 0);  // a boolean on PostgreSQL reads as 0 / 1
  REQUIRE(sel->executeStep());
  CHECK(sel->getColumn(0).isNull());
  CHECK(sel->getColumn(0).getType() == sql::Type::kNull);
  CHECK(sel->getColumn(1).getString().empty());
  CHECK(sel->getColumn(3).getInt64() == 1);
  CHECK_FALSE(sel->executeStep());
  CHECK(sql::QueryInt64(*db, "SELECT sum(i) FROM t_values") == -9007199254740993);  // numeric on PostgreSQL
}

TEST_CASE("sql: failures are classified the same on both backends", "[store][sql]") {
  StoreFixture f;
  auto db = f.Connect();
  db->Exec("CREATE TABLE t_unique (k TEXT PRIMARY KEY)");
  db->Exec("INSERT INTO t_unique (k) VALUES ('a')");
  try {
    db->Exec("INSERT INTO t_unique (k) VALUES ('a')");
    FAIL("a duplicate key was accepted");
  } catch (const sql::Error& e) {
    CHECK(e.failure() == sql::Failure::kConstraint);
  }
  try {
    db->Prepare("SELEC nonsense")->exec();
    FAIL("bad SQL ran");
  } catch (const sql::Error& e) {
    CHECK(e.failure() == sql::Failure::kOther);
  }
  // A failed statement inside a transaction leaves it to be rolled back, not committed half-done.
  {
    sql::Transaction txn(*db, sql::TxnMode::kWrite);
    db->Exec("INSERT INTO t_unique (k) VALUES ('b')");
    CHECK_THROWS_AS(db->Exec("INSERT INTO t_unique (k) VALUES ('a')"), sql::Error);
  }
  CHECK(sql::QueryInt64(*db, "SELECT count(*) FROM t_unique") == 1);
}

TEST_CASE("sql: the pool opens at most its size, hands a connection to one caller at a time, and ends a "
          "transaction left open on a connection given back", "[store][sql]") {
  StoreFixture f;
  std::atomic<int> opened{0};
  sql::ConnectionPool pool([&] { ++opened; return f.Connect(); }, 2, nullptr);
  std::atomic<bool> got{false};
  std::thread waiter;
  {
    auto a = pool.Acquire();
    auto b = pool.Acquire();
    CHECK(&*a != &*b);
    CHECK_FALSE(pool.TryAcquire().has_value());  // all out: no waiting
    waiter = std::thread([&] {
      auto c = pool.Acquire();  // waits for a or b
      got = true;
    });
    CHECK_FALSE(got.load());  // both are out: it cannot have one yet
    a->Begin(sql::TxnMode::kRead);  // given back mid-transaction: not reused
  }
  waiter.join();
  CHECK(got.load());
  CHECK(opened.load() <= 3);
  auto again = pool.Acquire();
  CHECK_FALSE(again->InTransaction());
  pool.Close();
  CHECK_THROWS_AS(pool.Acquire(), sql::Error);
}

TEST_CASE("sql: a store whose server connections were cut reconnects: reads and writes work again", "[store][sql][postgres]") {
  StoreFixture f;
  if (!f.postgres()) return;  // SQLite has no server to lose
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_before"), SampleDelivery()).ok());
  REQUIRE(f.database.CutPostgresSessions() >= 1);
  // The first write on the dead connection may fail (Unavailable, never a
  // half-written row); within a few tries the writer has a new one.
  bool claimed = false;
  for (int i = 0; i < 3 && !claimed; ++i) {
    auto r = f.store->RecordEvent(SampleEvent("evt_after"), SampleDelivery());
    if (!r.ok()) CHECK(r.status().code() == Code::kUnavailable);
    claimed = r.ok();
  }
  CHECK(claimed);
  auto page = f.store->ListEvents({});
  if (!page.ok()) page = f.store->ListEvents({});  // the reader's first use may meet the cut too
  REQUIRE(page.ok());
  CHECK(page->events.size() == 2);
}

TEST_CASE("sql: a delivery whose header text is not UTF-8 (or holds a NUL) is still claimed, on both backends",
          "[store][sql]") {
  StoreFixture f;
  auto d = SampleDelivery();
  d.user_agent = std::string("agent \xff\xfe cut \xe2\x82", 14);   // Latin-1 bytes, a character cut short
  d.content_type = std::string("text/plain\0x", 12);
  auto r = f.store->RecordEvent(SampleEvent("evt_bytes"), d);
  INFO(r.status().message());
  REQUIRE(r.ok());
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE user_agent LIKE 'agent %'") == 1);
}

TEST_CASE("sql: a write that timed out waiting for another session's write lock leaves the store writable",
          "[store][sql][postgres]") {
  StoreFixture f;
  if (!f.postgres()) return;  // SQLite's lock waits: writer_fault_test.cpp
  auto store = f.database.OpenStore(200, 64);  // a 200 ms budget
  auto other = f.Connect();
  other->Begin(sql::TxnMode::kWrite);  // holds the database's write lock
  auto blocked = store->RecordEvent(SampleEvent("evt_blocked"), SampleDelivery());
  REQUIRE_FALSE(blocked.ok());
  CHECK(blocked.status().code() == Code::kUnavailable);
  other->Rollback();
  auto r = store->RecordEvent(SampleEvent("evt_after"), SampleDelivery());
  INFO(r.status().message());
  CHECK(r.ok());
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE event_id = 'evt_blocked'") == 0);
}
