// action/http_client.h — the outgoing HTTP client the http action and the
// reconciliation probe share (internal to action/).
//
// One client per request: no connection is reused, so a request never
// inherits a half-dead keep-alive socket. The action's timeout bounds each
// phase (connect, each write, each read); redirects are never followed; https
// verifies the server against action.ca_file or the system CAs.
#pragma once

#include <httplib.h>

#include <memory>
#include <string>

#include "config/config.h"

namespace hookinbox::action {

struct OutgoingClient {
  std::unique_ptr<httplib::Client> client;
  std::string path;  // "/path?query" of the URL
};

// "https://api.example.com:8443" of a URL: its scheme and authority,
// lower-cased. Two URLs with the same origin reach the same server.
std::string OriginOf(const std::string& url);

// A client for `url` (an http:// or https:// URL) configured from `action`.
OutgoingClient ClientFor(const config::ActionConfig& action, const std::string& url);

// result_ref from action.result_ref_header, or from action.result_ref_pointer
// into a JSON answer; "" when neither is set or the answer has none.
std::string ResultRefOf(const config::ActionConfig& action, const httplib::Response& res);

}  // namespace hookinbox::action
