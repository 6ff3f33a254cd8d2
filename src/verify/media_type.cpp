// Media-type helpers shared by the receive path and key derivation.
#include <cctype>
#include <string>

#include "verify/verify.h"

namespace hookinbox::verify {

std::string MediaTypeOf(std::string_view content_type) {
  std::string out;
  for (char c : content_type.substr(0, content_type.find(';'))) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

bool IsJsonMediaType(std::string_view content_type) {
  std::string type = MediaTypeOf(content_type);
  if (type == "application/json") return true;
  return type.rfind("application/", 0) == 0 && type.size() > 5 && type.compare(type.size() - 5, 5, "+json") == 0;
}

}  // namespace hookinbox::verify
