// IsJsonMediaType: which Content-Types count as JSON.
#include <catch2/catch.hpp>

#include "verify/verify.h"

using hookinbox::verify::IsJsonMediaType;

TEST_CASE("media type: application/json and +json types are JSON, parameters ignored", "[verify]") {
  for (const char* yes : {"application/json", "Application/JSON", "application/json; charset=utf-8",
                          " application/json ", "application/vnd.api+json", "application/cloudevents+json;x=1"}) {
    INFO(yes);
    CHECK(IsJsonMediaType(yes));
  }
  for (const char* no : {"", "text/json", "application/x-www-form-urlencoded", "text/plain", "application/jsonx",
                         "application/+jsonx", "multipart/form-data"}) {
    INFO(no);
    CHECK_FALSE(IsJsonMediaType(no));
  }
}
