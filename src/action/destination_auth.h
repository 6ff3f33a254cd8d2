// action/destination_auth.h — the credential an http action presents to its
// destination ([endpoint.action] auth, auth_header, auth_secret_env/_file).
//
// A destination such as n8n's Webhook node authenticates the caller with a
// header, Basic or a bearer token; it is sent on every forward and probe,
// next to (not instead of) the Standard Webhooks signature. The header value
// is the secret itself: callers must never log or store it.
#pragma once

#include <httplib.h>

#include "config/config.h"

namespace hookinbox::action {

// Adds the configured credential to `headers`: "Authorization: Bearer
// <token>", "Authorization: Basic base64(user:password)" or
// "<auth_header>: <token>". Nothing when action.auth is "" (or, unvalidated,
// no secret was resolved).
void AddDestinationAuth(const config::ActionConfig& action, httplib::Headers& headers);

}  // namespace hookinbox::action
