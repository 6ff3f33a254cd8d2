// cli/cli.h — the command line: `hookinbox <verb> …` (SPEC §7).
//
// Owns: parsing (CLI11 is used nowhere else), dispatch to one file per
// subcommand, and the one mapping to exit codes: 0 ok, 1 failure, 2 usage.
#pragma once

#include <ostream>

namespace hookinbox::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

int Main(int argc, char** argv);

}  // namespace hookinbox::cli
