// action/connection_pool.h — kept-alive connections of one http action
// (internal to action/).
//
// Only for a downstream that deduplicates by Idempotency-Key
// (action.idempotent_target): a kept-alive connection the downstream closed
// while it was idle can fail a request after it was written, and only there
// is sending it again on a new connection harmless. Every other downstream
// gets a new connection per request, as before, so a stale connection never
// turns into an unknown outcome or a second effect.
//
// A connection idle longer than kMaxIdle is not reused: common servers close
// idle keep-alive connections after 5 s (Node.js, Apache, cpp-httplib) or
// more, and one well inside that is rarely closed under a request.
// Thread-safety: Take and Give may be called from any thread.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "action/http_client.h"
#include "config/config.h"

namespace hookinbox::action {

class ConnectionPool {
 public:
  static constexpr std::chrono::milliseconds kMaxIdle{2000};
  static constexpr size_t kMaxIdleConnections = 64;

  ConnectionPool(const config::ActionConfig& action, std::string url) : action_(action), url_(std::move(url)) {}

  struct Taken {
    OutgoingClient out;
    bool reused = false;  // it carried a request before: the downstream may have closed it meanwhile
  };
  // The most recently used idle connection, or a new one.
  Taken Take();
  // A new connection (the retry after a reused one failed).
  OutgoingClient Fresh() const;
  // Back for reuse, after an answer that left the connection open.
  void Give(OutgoingClient out);

 private:
  const config::ActionConfig& action_;
  const std::string url_;
  std::mutex mu_;
  std::vector<std::pair<OutgoingClient, std::chrono::steady_clock::time_point>> idle_;  // oldest first
};

}  // namespace hookinbox::action
