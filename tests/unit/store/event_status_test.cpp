#include "store/event_status.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

using namespace hookinbox;
using store::DeliveryOutcome;
using store::EventStatus;

namespace {

std::string Schema() {
  std::ifstream in(std::string(HOOKINBOX_SOURCE_DIR) + "/schema.sql");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("event status: every state maps to its stored text and back", "[store]") {
  for (EventStatus s : store::kAllEventStatuses) CHECK(store::EventStatusFromSql(store::ToSql(s)) == s);
  CHECK(store::ToSql(EventStatus::kRetryableFailed) == "retryable_failed");
  CHECK_FALSE(store::EventStatusFromSql("Received").has_value());
  CHECK_FALSE(store::EventStatusFromSql("").has_value());
}

TEST_CASE("event status: SQL literals and lists are spelled as the schema spells them", "[store]") {
  CHECK(store::SqlLiteral(EventStatus::kProcessing) == "'processing'");
  CHECK(store::SqlList(store::kLeasableStatuses) == "('received', 'retryable_failed', 'processing')");
  const std::string schema = Schema();
  REQUIRE_FALSE(schema.empty());
  // The queries that rely on these partial indexes repeat their predicates literally.
  CHECK_THAT(schema, Catch::Contains("webhook_inbox_due_by_endpoint ON webhook_inbox (endpoint, next_attempt_at, id)\n"
                                     "  WHERE status IN " + store::SqlList(store::kLeasableStatuses)));
  CHECK_THAT(schema, Catch::Contains("webhook_inbox_attention ON webhook_inbox (endpoint, provider, status)\n"
                                     "  WHERE status IN " + store::SqlList(store::kAttentionStatuses)));
  for (EventStatus s : store::kAllEventStatuses) CHECK_THAT(schema, Catch::Contains(store::SqlLiteral(s)));
}

TEST_CASE("delivery outcome: every outcome maps to its stored text and back", "[store]") {
  for (DeliveryOutcome o : {DeliveryOutcome::kAccepted, DeliveryOutcome::kDuplicate, DeliveryOutcome::kConflict,
                            DeliveryOutcome::kRejected, DeliveryOutcome::kIgnored}) {
    CHECK(store::DeliveryOutcomeFromSql(store::ToSql(o)) == o);
  }
  CHECK_FALSE(store::DeliveryOutcomeFromSql("accept").has_value());
}
