// action/connection_pool.cpp — see connection_pool.h.
#include "action/connection_pool.h"

namespace hookinbox::action {

ConnectionPool::Taken ConnectionPool::Take() {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  while (!idle_.empty()) {
    auto [out, used_at] = std::move(idle_.back());
    idle_.pop_back();
    if (now - used_at <= kMaxIdle) return {std::move(out), true};
  }
  return {Fresh(), false};
}

OutgoingClient ConnectionPool::Fresh() const {
  OutgoingClient out = ClientFor(action_, url_);
  out.client->set_keep_alive(true);
  // The request goes out in several writes (headers, body): with Nagle's
  // algorithm a later one waits for the ACK of the first, which a kept-alive
  // peer delays by up to 40 ms (a new connection ACKs at once).
  out.client->set_tcp_nodelay(true);
  return out;
}

void ConnectionPool::Give(OutgoingClient out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() >= kMaxIdleConnections) idle_.erase(idle_.begin());
  idle_.emplace_back(std::move(out), std::chrono::steady_clock::now());
}

}  // namespace hookinbox::action
