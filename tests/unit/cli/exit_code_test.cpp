// cli/exit_code.h: a Status becomes the exit code SPEC §7 names.
#include <catch2/catch.hpp>

#include "cli/exit_code.h"

using namespace hookinbox;

TEST_CASE("exit code: ok is 0, a malformed argument is a usage error (2), anything else a failure (1)", "[cli]") {
  CHECK(cli::ExitFor(Status::Ok()) == cli::kExitOk);
  CHECK(cli::ExitFor(InvalidArgument("--url must start with http:// or https://")) == cli::kExitUsage);
  for (const Status& st : {NotFound("no event 7"), Unavailable("database is locked"), Internal("boom"),
                           Status(Code::kConflict, "in use")}) {
    CHECK(cli::ExitFor(st) == cli::kExitFailure);
  }
  CHECK(cli::kExitOk == 0);
  CHECK(cli::kExitFailure == 1);
  CHECK(cli::kExitUsage == 2);
}
