// Tests of action/probe: the reconciliation probe's URL.
#include "action/probe.h"

#include <catch2/catch.hpp>

namespace hookinbox::action {

TEST_CASE("probe URL: placeholders are filled in, percent-encoded") {
  ActionInput in;
  in.idempotency_key = "abc123";
  in.event_id = "evt 1/ü?&";
  in.event_type = "order.created";
  CHECK(ExpandProbeUrl("http://h/o?k={idempotency_key}&e={event_id}&t={event_type}&k2={idempotency_key}", in) ==
        "http://h/o?k=abc123&e=evt%201%2F%C3%BC%3F%26&t=order.created&k2=abc123");
  CHECK(ExpandProbeUrl("http://h/static", in) == "http://h/static");
}

}  // namespace hookinbox::action
