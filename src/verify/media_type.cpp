// Media-type helpers shared by the receive path and key derivation.
#include <cctype>
#include <string>

#include "verify/verify.h"

namespace hookinbox::verify {

bool IsJsonMediaType(std::string_view content_type) {
  std::string_view type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && std::isspace(static_cast<unsigned char>(type.back()))) type.remove_suffix(1);
  while (!type.empty() && std::isspace(static_cast<unsigned char>(type.front()))) type.remove_prefix(1);
  std::string lower;
  for (char c : type) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "application/json") return true;
  return lower.rfind("application/", 0) == 0 && lower.size() > 5 && lower.compare(lower.size() - 5, 5, "+json") == 0;
}

}  // namespace hookinbox::verify
