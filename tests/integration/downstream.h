// tests/integration/downstream.h — drive the test downstream process.
//
// DownstreamProcess starts tests/support/downstream_main.cpp (a recording,
// scriptable HTTP server that deduplicates by Idempotency-Key like Stripe;
// its header comment lists the routes) as a child process, reads its port,
// and talks to its /_control routes. Kill() plays "downstream down"; Start()
// with the old port brings it back where hookinbox's config points.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "harness.h"
#include "support/temp_dir.h"

namespace hookinbox::testing {

class DownstreamProcess {
 public:
  // Started on a free port; `dedup` false plays a target that ignores Idempotency-Key.
  explicit DownstreamProcess(bool dedup = true);
  ~DownstreamProcess();  // SIGKILLs it

  // Starts it on `port` (0 = a free one) and waits until it listens; REQUIREs success.
  void Start(int port = 0);
  // SIGKILL, and waits until it is gone: connections are refused from now on.
  void Kill();
  int port() const { return port_; }
  std::string url(const std::string& path = "/effects") const;

  // Replies played in order, then `Default`'s (200 until set). A reply is
  // {"status":N, "retry_after":"S", "hold":bool, "delay_ms":N}.
  void Script(const nlohmann::json& replies) const;
  void Default(const nlohmann::json& reply) const;
  void Release() const;  // every held request answers
  nlohmann::json Calls() const;
  nlohmann::json Stats() const;

 private:
  nlohmann::json Control(const std::string& method, const std::string& what, const std::string& body = "") const;
  TempDir dir_;
  bool dedup_ = true;
  pid_t pid_ = -1;
  int port_ = 0;
  int starts_ = 0;
};

// Writes the standard test forward secret (whsec_…) into `inst`'s
// secrets/forward.secret and returns the [endpoint.action] table that
// forwards to `url` signed with it; append the table's other keys.
class Installation;
std::string ForwardingAction(const Installation& inst, const std::string& url);

// The worker tests' rig: an installation, its server and a downstream the
// test's config forwards to (the test writes the config, then starts the
// server), with the reads those tests share.
struct ForwardingRig {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess downstream;
  explicit ForwardingRig(bool dedup = true) : downstream(dedup) {}
  // POSTs `body` signed as the demo endpoint expects to /hooks/ENDPOINT;
  // REQUIREs 200 and returns the inbox id.
  int64_t DeliverBody(const std::string& body, const std::string& endpoint = "demo") const;
  // Delivers {"id":EVENT_ID,"type":"invoice.paid"} to demo.
  int64_t Deliver(const std::string& event_id) const;
  // `expr` over event `id`'s webhook_inbox row.
  std::string Field(int64_t id, const std::string& expr) const;
  // Polls until event `id` is in `status`.
  bool Becomes(int64_t id, const std::string& status,
               std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  // How many events match `where` (SQL over webhook_inbox).
  int64_t Count(const std::string& where) const;
};

// ForwardingAction for an idempotent target (result_ref from X-Ref, four at
// a time) plus a [worker] table with a 1 s lease and fast retries, so that a
// killed worker's events come back quickly: the crash tests' config.
std::string ForwardingConfig(const Installation& inst, const std::string& url);

}  // namespace hookinbox::testing
