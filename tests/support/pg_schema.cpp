#include "support/pg_schema.h"

#include <cstdint>
#include <random>

namespace hookinbox::testing {

std::string UniqueSchemaName(const std::string& prefix) {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  static const char* kHex = "0123456789abcdef";
  std::string name = prefix;
  for (int i = 0; i < 16; ++i) name.push_back(kHex[rng() % 16]);
  return name;
}

std::string WithSearchPath(const std::string& url, const std::string& schema) {
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema +
         "&application_name=" + schema;
}

}  // namespace hookinbox::testing
