// admin/browser_guard.h — what keeps a web browser from being turned against
// the admin listener: DNS rebinding and content sniffing, framing, referrers.
//
// DNS rebinding: a page on evil.example makes the browser resolve its own
// name to 127.0.0.1 and then calls the admin listener "same-origin"; the
// request still says `Host: evil.example`. So every admin request must name
// a host we answer to (421 otherwise, 400 when there is no Host at all):
// any IP literal (a rebinding attack needs a name; an address was typed by
// whoever sent it, and handlers call the listener by address), "localhost",
// admin.listen's own host, and the names in admin.allowed_hosts. Port and
// letter case are ignored.
// Headers: every answer of the admin listener — the library's own 400 and
// 413 included — starts with SecurityHeaders() (the listener's default
// headers): nosniff, no framing, no referrer, and a CSP that lets nothing
// load or run (a JSON answer has no business running anything). The UI's
// own files replace that CSP with UsePagePolicy's, which lets the page load
// its own script and style and call its own origin, and nothing else.
// Pure: no I/O, no state.
#pragma once

#include <httplib.h>

#include <string_view>

#include "config/config.h"

namespace hookinbox::admin {

// The headers every admin answer carries; set as the listener's default headers.
httplib::Headers SecurityHeaders();

// Replaces the answer's CSP by the one the embedded UI page needs.
void UsePagePolicy(httplib::Response& res);

// True when `host_header` (a Host value: "name", "name:port", "[v6]:port")
// names a host the admin listener answers to under `admin`.
bool HostAllowed(const config::AdminConfig& admin, std::string_view host_header);

// Answers 400 (no Host) or 421 (a host not allowed) and returns true; false,
// answering nothing, when the request's Host is allowed.
bool RefuseForeignHost(const config::AdminConfig& admin, const httplib::Request& req, httplib::Response& res);

}  // namespace hookinbox::admin
