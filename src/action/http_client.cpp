#include "action/http_client.h"

#include <cctype>

#include <time.h>

#include <nlohmann/json.hpp>

namespace hookinbox::action {

namespace {

// Where the path of `url` starts (npos when it has none).
size_t PathStart(const std::string& url) {
  const size_t scheme_end = url.find("://");
  return scheme_end == std::string::npos ? std::string::npos : url.find('/', scheme_end + 3);
}

}  // namespace

std::string OriginOf(const std::string& url) {
  std::string origin = url.substr(0, PathStart(url));
  for (char& c : origin) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return origin;
}

OutgoingClient ClientFor(const config::ActionConfig& action, const std::string& url) {
  const size_t path_at = PathStart(url);
  const std::string origin = path_at == std::string::npos ? url : url.substr(0, path_at);
  OutgoingClient out{std::make_unique<httplib::Client>(origin),
                     path_at == std::string::npos ? "/" : url.substr(path_at)};
  httplib::Client& client = *out.client;
  const time_t sec = static_cast<time_t>(action.timeout_ms / 1000);
  const time_t usec = static_cast<time_t>((action.timeout_ms % 1000) * 1000);
  client.set_connection_timeout(sec, usec);
  client.set_read_timeout(sec, usec);
  client.set_write_timeout(sec, usec);
  client.set_follow_location(false);
  client.set_keep_alive(false);
  client.enable_server_certificate_verification(true);
  if (!action.ca_file.empty()) client.set_ca_cert_path(action.ca_file);
  return out;
}

std::string ResultRefOf(const config::ActionConfig& action, const httplib::Response& res) {
  if (!action.result_ref_header.empty()) return res.get_header_value(action.result_ref_header.c_str());
  if (action.result_ref_pointer.empty()) return "";
  nlohmann::json doc = nlohmann::json::parse(res.body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return "";
  try {
    const nlohmann::json& v = doc.at(nlohmann::json::json_pointer(action.result_ref_pointer));
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number() || v.is_boolean()) return v.dump();
  } catch (const nlohmann::json::exception&) {
    // absent or a bad pointer: no result_ref
  }
  return "";
}

}  // namespace hookinbox::action
