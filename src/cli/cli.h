// cli/cli.h — the command line: `hookinbox <verb> …` (SPEC §7).
//
// Owns: parsing (CLI11 is used nowhere else) and dispatch to one file per
// subcommand. The exit codes and the Status map are cli/exit_code.h.
#pragma once

namespace hookinbox::cli {

// Parses argv, runs the verb and returns its exit code (cli/exit_code.h).
int Main(int argc, char** argv);

}  // namespace hookinbox::cli
