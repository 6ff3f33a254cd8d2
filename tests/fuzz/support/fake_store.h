// tests/fuzz/support/fake_store.h — store::Ingest in memory, for fuzz_receive.
//
// Keeps the recording semantics of the real store (store/ingest.h): one key
// (provider, endpoint, tenant, event id) → accepted once, then duplicate for
// the same payload hash, conflict for another. Records every call so the
// harness can check the receive path's promises (one audit write per request,
// nothing stored unauthenticated, the stored body is the bytes received).
// `fail_with_unavailable` makes every write fail as a busy or full database
// does. Reset() between inputs keeps runs deterministic.
// Not thread-safe: libFuzzer calls the harness from one thread.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "store/ingest.h"

namespace hookinbox::fuzz {

class FakeStore final : public store::Ingest {
 public:
  struct Calls {
    int record = 0, record_batch = 0, rejected = 0, ignored = 0, unverified = 0;
    int writes() const { return record + record_batch + rejected + ignored + unverified; }
  };

  bool fail_with_unavailable = false;
  Calls calls;
  std::vector<store::NewEvent> stored;            // events accepted, in order
  std::vector<store::DeliveryRecord> deliveries;  // every audit record handed to us

  void Reset() {
    fail_with_unavailable = false;
    calls = {};
    stored.clear();
    deliveries.clear();
    keys_.clear();
  }

  Result<store::RecordedEvent> RecordEvent(const store::NewEvent& event, store::DeliveryRecord delivery) override {
    ++calls.record;
    if (fail_with_unavailable) return Unavailable("fake: database is full");
    deliveries.push_back(std::move(delivery));
    return RecordOne(event);
  }

  Result<std::vector<store::RecordedEvent>> RecordBatch(const std::vector<store::NewEvent>& events,
                                                        store::DeliveryRecord delivery) override {
    ++calls.record_batch;
    if (fail_with_unavailable) return Unavailable("fake: database is full");
    deliveries.push_back(std::move(delivery));
    std::vector<store::RecordedEvent> out;
    for (const auto& e : events) out.push_back(RecordOne(e));
    return out;
  }

  Status RecordRejected(store::DeliveryRecord d) override { return Record(calls.rejected, std::move(d)); }
  Status RecordIgnored(store::DeliveryRecord d) override { return Record(calls.ignored, std::move(d)); }
  Status RecordUnverifiedAnswer(store::DeliveryRecord d) override { return Record(calls.unverified, std::move(d)); }
  Status CheckWritable() override { return fail_with_unavailable ? Unavailable("fake") : Status::Ok(); }
  void Close() override {}

 private:
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  struct Row {
    int64_t id;
    std::string payload_hash;
  };

  store::RecordedEvent RecordOne(const store::NewEvent& e) {
    Key key{e.provider, e.endpoint, e.tenant_id, e.event_id};
    store::RecordedEvent r;
    auto it = keys_.find(key);
    if (it == keys_.end()) {
      int64_t id = static_cast<int64_t>(keys_.size()) + 1;
      keys_.emplace(key, Row{id, e.payload_hash});
      stored.push_back(e);
      r.outcome = store::DeliveryOutcome::kAccepted;
      r.inbox_id = id;
    } else {
      r.outcome = it->second.payload_hash == e.payload_hash ? store::DeliveryOutcome::kDuplicate
                                                            : store::DeliveryOutcome::kConflict;
      r.inbox_id = it->second.id;
    }
    r.status = store::EventStatus::kReceived;
    return r;
  }

  Status Record(int& counter, store::DeliveryRecord d) {
    ++counter;
    if (fail_with_unavailable) return Unavailable("fake: database is full");
    deliveries.push_back(std::move(d));
    return Status::Ok();
  }

  std::map<Key, Row> keys_;
};

}  // namespace hookinbox::fuzz
