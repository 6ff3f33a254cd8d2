// cli/load_config.h — load a config and run every check on it, for
// check-config and serve alike: config validation (with lines), the files it
// names, and what only the verifier can parse (config/ cannot call verify/).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "config/load.h"

namespace hookinbox::cli {

struct CheckedConfig {
  config::LoadResult loaded;
  std::vector<config::Problem> errors;  // loaded.errors plus file and verifier problems
  bool ok() const { return errors.empty(); }
};

CheckedConfig LoadAndCheck(const std::string& path);

// "warning: …" / "error: …" lines, one per problem.
void PrintProblems(const CheckedConfig& checked, const std::string& path, std::ostream& err);

}  // namespace hookinbox::cli
