// verify/handshake.h — provider handshakes, answered and never stored.
//
// Owns: recognising the requests a provider sends to prove an endpoint is
// theirs or alive (Slack url_verification, Zoom endpoint.url_validation,
// Meta's GET hub.challenge, Discord PING, WooCommerce's unsigned ping, Twitch
// EventSub's challenge, Dropbox's GET challenge, the HEAD check of SurveyMonkey
// and Mandrill, Viber's "webhook" callback, LINE's and Xero's empty events,
// Front's challenge) and the
// exact answer each provider documents (SPEC §9). Which handshake an endpoint
// answers is preset data (EndpointConfig::handshake); a generic endpoint
// answers none. Pure functions, thread-safe; no HTTP library.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/secret.h"
#include "config/config.h"
#include "verify/verify.h"

namespace hookinbox::verify {

struct HandshakeAnswer {
  int http_status = 200;
  std::string content_type;  // empty when the answer has no body (204)
  std::string body;
  std::string what;          // for the audit row and the log: "slack url_verification"
  // True when nothing in the request proved it came from the provider
  // (Dropbox's GET challenge): the receive path audits it like an unsigned
  // ping, folded with rejections, so anyone able to send it cannot fill the disk.
  bool unverified = false;
};

// For a POST that passed Verify: the handshake answer when the body is one
// (Slack, Zoom, Discord, Viber, LINE, Xero and Front sign their handshakes
// like any delivery; Front's is recognised by its x-front-challenge header). Zoom's
// encryptedToken is made with the secret that verified the request.
std::optional<HandshakeAnswer> AnswerSignedHandshake(const config::EndpointConfig& endpoint,
                                                     const std::vector<Secret>& secrets,
                                                     const DeliveryView& delivery, int64_t now_ms);

// For a POST before Verify: WooCommerce's ping when a webhook is created is a
// form body "webhook_id=<n>" without a signature; answered 200 unstored.
std::optional<HandshakeAnswer> AnswerUnsignedHandshake(const config::EndpointConfig& endpoint,
                                                       const DeliveryView& delivery);

// For a GET: Meta's subscription check (hub.mode=subscribe, hub.verify_token,
// hub.challenge in the query) or Dropbox's ?challenge= (unverified). nullopt
// when the endpoint answers no GET handshake; a wrong or missing verify token
// is a 403 answer.
std::optional<HandshakeAnswer> AnswerGetHandshake(const config::EndpointConfig& endpoint, std::string_view query);

// For a HEAD: SurveyMonkey and Mandrill check that a webhook URL exists with
// a HEAD request (no body, no signature) before they save the webhook; an
// endpoint whose handshake is "head" answers it 200 with no body. nullopt
// for every other endpoint (they keep answering 405).
std::optional<HandshakeAnswer> AnswerHeadHandshake(const config::EndpointConfig& endpoint);

}  // namespace hookinbox::verify
