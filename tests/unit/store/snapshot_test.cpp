#include "store/snapshot.h"

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "store/audit_chain.h"
#include "store/snapshot_readme.h"
#include "store/sql/sqlite_connection.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr const char* kMarker = "PAYLOAD-MARKER-5d1c9e";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Tables and views of a database file, as SQLite lists them.
std::set<std::string> SchemaObjects(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement st(db, "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'");
  std::set<std::string> out;
  while (st.executeStep()) out.insert(st.getColumn(0).getString());
  return out;
}

// Files in `dir` other than the database and its WAL/SHM: leftovers of a snapshot.
std::set<std::string> Entries(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

// A store with one event whose payload and step result carry kMarker.
struct SnapshotFixture : StoreFixture {
  std::string out = dir.File("copy.db");

  SnapshotFixture() {
    auto r = store->RecordEvent(SampleEvent("evt_1", "h1", std::string(R"({"secret":")") + kMarker + "\"}"),
                                SampleDelivery());
    REQUIRE(r.ok());
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    SQLite::Statement st(db, "INSERT INTO step_results (inbox_id, name, content_type, body, attempt, stored_at)"
                             " VALUES (?, 'classify', 'text/plain', ?, 1, 1764511200000)");
    st.bind(1, r->inbox_id);
    st.bind(2, std::string("step ") + kMarker);
    st.exec();
  }
};

}  // namespace

TEST_CASE("snapshot README: every table and view of the live schema is described", "[snapshot][sqlite]") {
  StoreFixture f;
  const auto objects = SchemaObjects(f.path);
  REQUIRE(objects.count("webhook_inbox") == 1);  // the schema really was migrated
  for (const auto& name : objects) {
    INFO("table or view without a README description in store/snapshot_readme.cpp: " << name);
    CHECK_FALSE(store::ReadmeDescription(name).empty());
  }
  CHECK_FALSE(store::ReadmeDescription("README").empty());
  CHECK(store::ReadmeDescription("no_such_table").empty());
}

TEST_CASE("snapshot: a copy with payloads is one 0600 file with all rows, the views and a README", "[snapshot][sqlite]") {
  SnapshotFixture f;
  Status st = store::WriteSnapshot(f.path, f.out, {});
  REQUIRE(st.ok());

  struct stat sb{};
  REQUIRE(::stat(f.out.c_str(), &sb) == 0);
  CHECK((sb.st_mode & 0777) == 0600);
  CHECK_FALSE(std::filesystem::exists(f.out + "-wal"));
  CHECK_FALSE(std::filesystem::exists(f.out + "-journal"));
  CHECK(Entries(f.dir.path()) == std::set<std::string>{"copy.db", "data"});  // no temporary left behind

  SQLite::Database copy(f.out, SQLite::OPEN_READONLY);
  CHECK(copy.execAndGet("PRAGMA integrity_check").getString() == "ok");
  CHECK(copy.execAndGet("PRAGMA journal_mode").getString() == "delete");
  CHECK(copy.execAndGet("SELECT count(*) FROM webhook_inbox").getInt() == 1);
  CHECK(copy.execAndGet("SELECT event_id FROM webhook_inbox_iso").getString() == "evt_1");
  CHECK(copy.execAndGet("SELECT received_at FROM webhook_inbox_iso").getString() == "2025-11-30T14:00:00.000Z");
  CHECK(copy.execAndGet("SELECT count(*) FROM webhook_payloads").getInt() == 1);
  CHECK(ReadFile(f.out).find(kMarker) != std::string::npos);
  CHECK(copy.execAndGet("PRAGMA user_version").getInt() ==
        SQLite::Database(f.path, SQLite::OPEN_READONLY).execAndGet("PRAGMA user_version").getInt());

  // README: one row per table and view of the copy (README included) plus the 'snapshot' row.
  const auto objects = SchemaObjects(f.out);
  CHECK(copy.execAndGet("SELECT count(*) FROM README WHERE kind IN ('table', 'view')").getInt() ==
        static_cast<int>(objects.size()));
  for (const auto& name : objects) {
    SQLite::Statement row(copy, "SELECT description FROM README WHERE name = ?");
    row.bind(1, name);
    INFO(name);
    REQUIRE(row.executeStep());
    CHECK(row.getColumn(0).getString() == std::string(store::ReadmeDescription(name)));
  }
  const std::string made = copy.execAndGet("SELECT description FROM README WHERE name = 'snapshot'").getString();
  CHECK(made.find("Payload bodies are included") != std::string::npos);
  CHECK(made.find("online backup") != std::string::npos);
}

TEST_CASE("snapshot: without payloads the bodies are gone from the file, the inbox rows stay", "[snapshot][sqlite]") {
  SnapshotFixture f;
  store::SnapshotOptions options;
  options.with_payloads = false;
  REQUIRE(store::WriteSnapshot(f.path, f.out, options).ok());

  CHECK(ReadFile(f.out).find(kMarker) == std::string::npos);  // not even in free pages
  CHECK(Entries(f.dir.path()) == std::set<std::string>{"copy.db", "data"});  // both temporaries gone
  struct stat sb{};
  REQUIRE(::stat(f.out.c_str(), &sb) == 0);
  CHECK((sb.st_mode & 0777) == 0600);
  SQLite::Database copy(f.out, SQLite::OPEN_READONLY);
  CHECK(copy.execAndGet("PRAGMA integrity_check").getString() == "ok");
  CHECK(copy.execAndGet("PRAGMA journal_mode").getString() == "delete");
  CHECK(copy.execAndGet("SELECT count(*) FROM README WHERE kind IN ('table', 'view')").getInt() ==
        static_cast<int>(SchemaObjects(f.out).size()));
  CHECK(copy.execAndGet("SELECT count(*) FROM webhook_inbox").getInt() == 1);
  CHECK(copy.execAndGet("SELECT count(*) FROM webhook_deliveries").getInt() == 1);
  CHECK(copy.execAndGet("SELECT count(*) FROM webhook_payloads").getInt() == 0);
  CHECK(copy.execAndGet("SELECT bytes FROM step_results_iso WHERE name = 'classify'").getInt() == 0);
  const std::string made = copy.execAndGet("SELECT description FROM README WHERE name = 'snapshot'").getString();
  CHECK(made.find("NOT included") != std::string::npos);
  // The live database still has its payload.
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads") == 1);
}

TEST_CASE("snapshot: an existing out_path is refused and left untouched", "[snapshot][sqlite]") {
  SnapshotFixture f;
  f.dir.Write("copy.db", "precious");
  Status st = store::WriteSnapshot(f.path, f.out, {});
  CHECK(st.code() == Code::kConflict);
  CHECK(st.message().find("already exists") != std::string::npos);
  CHECK(ReadFile(f.out) == "precious");
  CHECK(Entries(f.dir.path()) == std::set<std::string>{"copy.db", "data"});
}

TEST_CASE("snapshot: a missing database is an error and creates nothing", "[snapshot][sqlite]") {
  TempDir dir;
  Status st = store::WriteSnapshot(dir.File("absent.db"), dir.File("copy.db"), {});
  CHECK_FALSE(st.ok());
  CHECK(Entries(dir.path()).empty());
}

TEST_CASE("snapshot: an out_path in a missing directory is an error", "[snapshot][sqlite]") {
  SnapshotFixture f;
  Status st = store::WriteSnapshot(f.path, f.dir.File("no/such/dir/copy.db"), {});
  CHECK(st.code() == Code::kUnavailable);
}

TEST_CASE("snapshot: taken while the store writes, the copy holds every event acknowledged before it", "[snapshot][sqlite]") {
  StoreFixture f;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acknowledged{0};  // events 1..acknowledged are committed
  std::thread writer([&] {
    for (int i = 1; !stop.load(); ++i) {
      auto r = f.store->RecordEvent(SampleEvent("evt_" + std::to_string(i), "h" + std::to_string(i)), SampleDelivery());
      if (!r.ok()) return;
      acknowledged.store(i);
    }
  });
  REQUIRE(PollUntilTrue([&] { return acknowledged.load() >= 50; }));
  for (int round = 0; round < 3; ++round) {
    const int64_t before = acknowledged.load();
    const std::string out = f.dir.File("copy" + std::to_string(round) + ".db");
    REQUIRE(store::WriteSnapshot(f.path, out, {}).ok());
    SQLite::Database copy(out, SQLite::OPEN_READONLY);
    CHECK(copy.execAndGet("PRAGMA integrity_check").getString() == "ok");
    SQLite::Statement missing(copy,
                              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
                              " SELECT count(*) FROM n WHERE 'evt_' || i NOT IN (SELECT event_id FROM webhook_inbox)");
    missing.bind(1, before);
    REQUIRE(missing.executeStep());
    CHECK(missing.getColumn(0).getInt() == 0);
    const int64_t target = before + 20;
    REQUIRE(PollUntilTrue([&] { return acknowledged.load() >= target; }));  // the writer was never blocked
  }
  stop = true;
  writer.join();
  CHECK(acknowledged.load() > 0);
}

// The store's own snapshot, on either backend (a row copy from PostgreSQL).
TEST_CASE("snapshot: the store's snapshot is one SQLite file with every row, README and sound audit chains; "
          "without payloads no body is left", "[store][snapshot]") {
  StoreFixture f;
  auto r = f.store->RecordEvent(SampleEvent("evt_1", "h1", std::string(R"({"secret":")") + kMarker + "\"}"),
                                SampleDelivery());
  REQUIRE(r.ok());
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_1", "h1"), SampleDelivery()).ok());  // a duplicate delivery
  const std::string with = f.dir.File("with.db"), without = f.dir.File("without.db");
  REQUIRE(f.store->Snapshot(with, {true, nullptr}).ok());
  REQUIRE(f.store->Snapshot(without, {false, nullptr}).ok());
  CHECK(f.store->Snapshot(with, {true, nullptr}).code() == Code::kConflict);  // never overwrites
  for (const std::string& file : {with, without}) {
    INFO(file);
    SQLite::Database db(file, SQLite::OPEN_READONLY);
    CHECK(db.execAndGet("SELECT count(*) FROM webhook_inbox").getInt() == 1);
    CHECK(db.execAndGet("SELECT count(*) FROM webhook_deliveries").getInt() == 2);
    CHECK(db.execAndGet("SELECT id FROM webhook_inbox").getInt64() == r->inbox_id);
    CHECK(db.execAndGet("SELECT count(*) FROM README WHERE name = 'snapshot'").getInt() == 1);
    store::sql::SqliteConnection connection(std::make_unique<SQLite::Database>(file, SQLite::OPEN_READONLY));
    auto audit = store::VerifyAudit(connection);
    REQUIRE(audit.ok());
    INFO(audit->broken << ": " << audit->detail);
    CHECK(audit->ok);
  }
  CHECK(ReadFile(with).find(kMarker) != std::string::npos);
  CHECK(ReadFile(without).find(kMarker) == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(with + "-wal"));
}

TEST_CASE("snapshot: a deadline that passes stops the copy with Unavailable and leaves nothing behind",
          "[snapshot][sqlite]") {
  SnapshotFixture f;
  for (int asked_before_stop : {0, 1}) {
    INFO("deadline passes after " << asked_before_stop << " checks");
    int asked = 0;
    store::SnapshotOptions options;
    options.past_deadline = [&] { return asked++ >= asked_before_stop; };
    Status st = store::WriteSnapshot(f.path, f.out, options);
    CHECK(st.code() == Code::kUnavailable);
    CHECK(st.message() == "snapshot: deadline passed");
    CHECK(Entries(f.dir.path()) == std::set<std::string>{"data"});
  }
  store::SnapshotOptions never;
  never.past_deadline = [] { return false; };
  CHECK(store::WriteSnapshot(f.path, f.out, never).ok());
}

TEST_CASE("snapshot: the peak size it may need, and the free space of a directory", "[snapshot]") {
  CHECK(store::SnapshotPeakBytes(1000, {true, nullptr}) == 1000);
  CHECK(store::SnapshotPeakBytes(1000, {false, nullptr}) == 3000);
  TempDir dir;
  auto free_bytes = store::FreeBytes(dir.path());
  REQUIRE(free_bytes.ok());
  CHECK(*free_bytes > 0);
  auto missing = store::FreeBytes(dir.File("no/such/dir"));
  CHECK(missing.status().code() == Code::kUnavailable);
  CHECK(missing.status().message().find(dir.File("no/such/dir")) != std::string::npos);
}
