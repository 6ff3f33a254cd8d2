#include "action/destination_auth.h"

#include "common/encoding.h"

namespace hookinbox::action {

void AddDestinationAuth(const config::ActionConfig& action, httplib::Headers& headers) {
  const std::string_view secret = action.auth_secret.bytes();
  if (action.auth.empty() || secret.empty()) return;
  if (action.auth == "bearer") {
    headers.emplace("Authorization", "Bearer " + std::string(secret));
  } else if (action.auth == "basic") {
    headers.emplace("Authorization", "Basic " + Base64Encode(secret));
  } else if (action.auth == "header") {
    headers.emplace(action.auth_header, std::string(secret));
  }
}

}  // namespace hookinbox::action
