// cli/exit_code.h — the exit codes of every verb (SPEC §7: 0 ok, 1 failure,
// 2 usage error) and the one map from a Status to them.
//
// A verb returns one of these constants, never a bare number. Where a Status
// judges what the user typed (a malformed --url, an unknown --status), the
// verb returns ExitFor(status). Where the Status comes from doing the work
// (the database, a file, the network), any failure is kExitFailure whatever
// its code: a kInvalidArgument from the store (a schema too new, a copy
// target in use) is not something the user could have typed differently.
#pragma once

#include "common/status.h"

namespace hookinbox::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// kExitOk for an ok Status, kExitUsage for kInvalidArgument (the command line
// asked for something malformed), kExitFailure for every other code.
int ExitFor(const Status& status);

}  // namespace hookinbox::cli
