// GET /admin/api/export.db under its guards (admin/api_export.cpp): one
// export at a time, the free-space check before anything is written, and
// the deadline that ends a download. Drives AdminApi directly over a real
// SQLite file; the injected clock stands in for time.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "admin/admin_api.h"
#include "store/sql_store.h"
#include "admin/routes.h"
#include "support/temp_dir.h"

using namespace hookinbox;
using namespace hookinbox::admin;

namespace {

struct ExportFixture {
  testing::TempDir dir;
  FakeClock clock{1'700'000'000'000};
  config::Config config;
  std::unique_ptr<store::SqlStore> store;
  std::unique_ptr<config::LiveConfig> live;
  std::unique_ptr<AdminApi> api;
  ExportFixture() {
    config.base_dir = dir.path();
    config.storage.path = dir.File("data/hookinbox.db");
    auto opened = store::SqlStore::Open({config.storage.path, 2000, 64});
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    live = std::make_unique<config::LiveConfig>(config);
    api = std::make_unique<AdminApi>(*live, *store, clock);
  }
  std::unique_ptr<httplib::Response> Export() const {
    httplib::Request req;
    req.method = "GET";
    req.path = "/admin/api/export.db";
    auto res = std::make_unique<httplib::Response>();
    api->Handle(MatchAdminRoute(req.path), req, *res);
    return res;
  }
  // Pulls the whole body through the content provider; false when it stopped early.
  static bool Download(httplib::Response& res, std::string* body) {
    REQUIRE(res.content_provider_);
    httplib::DataSink sink;
    sink.write = [&](const char* data, size_t n) {
      body->append(data, n);
      return true;
    };
    while (body->size() < res.content_length_) {
      if (!res.content_provider_(body->size(), res.content_length_ - body->size(), sink)) return false;
    }
    return true;
  }
  // Hidden export files left in the data directory.
  int Leftovers() const {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.File("data"))) {
      if (e.path().filename().string().rfind(".hookinbox-export-", 0) == 0) ++n;
    }
    return n;
  }
};

}  // namespace

TEST_CASE("export: a second export while one is running gets 409; the slot frees when the first is gone",
          "[admin][export]") {
  ExportFixture f;
  auto first = f.Export();
  REQUIRE(first->status == 200);
  auto second = f.Export();
  CHECK(second->status == 409);
  CHECK(second->body == R"({"error":"another export is running; retry when it has finished"})");
  std::string body;
  CHECK(ExportFixture::Download(*first, &body));
  CHECK(body.rfind("SQLite format 3", 0) == 0);
  first.reset();  // the download is over: the answer and its file are gone
  auto third = f.Export();
  CHECK(third->status == 200);
  CHECK(f.Leftovers() == 0);
}

TEST_CASE("export: a download still running at the deadline is cut, and frees the slot", "[admin][export]") {
  ExportFixture f;
  auto res = f.Export();
  REQUIRE(res->status == 200);
  f.clock.Advance(AdminApi::kExportDeadlineMs - 1);
  std::string body;
  httplib::DataSink sink;
  sink.write = [&](const char* data, size_t n) {
    body.append(data, n);
    return true;
  };
  CHECK(res->content_provider_(0, 1024, sink));  // still within it
  f.clock.Advance(1);
  CHECK_FALSE(res->content_provider_(body.size(), 1024, sink));  // past it: the connection is closed
  res.reset();
  CHECK(f.Export()->status == 200);
}

TEST_CASE("export: too little free space for the copy is a 507 naming what it needs; nothing is written",
          "[admin][export]") {
  ExportFixture f;
  const auto real_size = std::filesystem::file_size(f.config.storage.path);
  // A sparse hole makes the database look far larger than any free space:
  // SQLite reads its page count from the header and ignores the rest.
  REQUIRE(::truncate(f.config.storage.path.c_str(), int64_t{8} << 40) == 0);  // 8 TiB
  auto res = f.Export();
  CHECK(res->status == 507);
  const std::string error = nlohmann::json::parse(res->body).at("error");
  CHECK(error.find("not enough free space for the export in " + f.dir.File("data")) == 0);
  CHECK(error.find("MiB are free") != std::string::npos);
  CHECK(f.Leftovers() == 0);
  // The refusal freed the slot: once the file is its real size again, exports work.
  REQUIRE(::truncate(f.config.storage.path.c_str(), static_cast<off_t>(real_size)) == 0);
  CHECK(f.Export()->status == 200);
}
