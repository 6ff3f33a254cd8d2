// Helpers shared by the config tests: load TOML text, find a problem by key,
// and find the line a case marks with "#<" so line assertions survive edits.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "config/load.h"

namespace hookinbox::config::test {

// The secret of kEndpoint; set by Load() so every test using it is self-contained.
inline constexpr const char* kBaseSecretVar = "HOOKINBOX_CT_BASE_SECRET";

// A valid endpoint: append keys to it, or follow it with its sub-tables.
inline const std::string kEndpoint =
    "[[endpoint]]\n"
    "name = \"demo\"\n"
    "secret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
    "[endpoint.key]\n"
    "id_header = \"X-Event-Id\"\n";

inline LoadResult Load(const std::string& toml, const std::string& base_dir = "/etc/hookinbox") {
  ::setenv(kBaseSecretVar, "base-secret-value", 1);
  return LoadString(toml, "test.toml", base_dir);
}

inline const Problem* Find(const std::vector<Problem>& problems, const std::string& key) {
  for (const auto& p : problems) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

// Every problem as "line: key: message", for failure messages.
inline std::string Dump(const std::vector<Problem>& problems) {
  std::string out;
  for (const auto& p : problems) out += Describe(p, "test.toml") + "\n";
  return out.empty() ? "(none)" : out;
}

// The 1-based line of the first line containing "#<", 0 when none.
inline int MarkedLine(const std::string& toml) {
  size_t at = toml.find("#<");
  if (at == std::string::npos) return 0;
  int line = 1;
  for (size_t i = 0; i < at; ++i) line += toml[i] == '\n' ? 1 : 0;
  return line;
}

}  // namespace hookinbox::config::test
