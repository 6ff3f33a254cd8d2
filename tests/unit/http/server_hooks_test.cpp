// PublicServer's hooks for the worker: /readyz reports a stopped worker, and
// an accepted (new) event calls on_accepted while a duplicate does not.
#include <httplib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "config/live.h"
#include "http/server.h"
#include "store/sql_store.h"
#include "support/temp_dir.h"

using namespace hookinbox;

TEST_CASE("server hooks: /readyz is 503 while the worker is not running; on_accepted fires for new events", "[http]") {
  testing::TempDir dir;
  auto store = store::SqlStore::Open({dir.File("db.sqlite")});
  REQUIRE(store.ok());
  config::Config config;
  config.server.listen = "127.0.0.1:0";
  config.server.plain_http = true;
  config.server.threads = 4;
  config::EndpointConfig e;
  e.name = "open";
  e.insecure = true;
  e.signature.scheme = "none";
  e.key.id_pointer = "/id";
  config.endpoints.push_back(e);

  std::atomic<bool> worker_up{false};
  std::atomic<int> accepted{0};
  SystemClock clock;
  http::ServerHooks hooks{[&](const std::string&) { ++accepted; }, [&] { return worker_up.load(); }};
  config::LiveConfig live(config);
  auto server = http::PublicServer::Create(live, **store, clock, std::move(hooks));
  REQUIRE(server.ok());
  REQUIRE((*server)->Bind().ok());
  std::thread runner([&] { (void)(*server)->Run(); });

  httplib::Client client("127.0.0.1", (*server)->port());
  auto ready = client.Get("/readyz");
  for (int i = 0; i < 500 && !ready; ++i) ready = client.Get("/readyz");  // until the listener runs
  REQUIRE(ready);
  CHECK(ready->status == 503);
  CHECK(ready->body.find("worker") != std::string::npos);
  worker_up = true;
  CHECK(client.Get("/readyz")->status == 200);

  auto first = client.Post("/hooks/open", R"({"id":"e1"})", "application/json");
  REQUIRE(first);
  INFO(first->body);
  CHECK(first->status == 200);
  CHECK(accepted == 1);
  auto dup = client.Post("/hooks/open", R"({"id":"e1"})", "application/json");
  REQUIRE(dup);
  CHECK(dup->status == 200);
  CHECK(accepted == 1);  // a duplicate starts nothing

  while (!(*server)->Stop()) std::this_thread::yield();
  runner.join();
  (*store)->Close();
}
