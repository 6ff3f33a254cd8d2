// Provider handshakes (SPEC §9): each provider's proof-of-ownership or
// liveness request, recognised by its documented shape and answered the way
// that provider expects. Nothing here stores anything; the receive path
// records the request as an "ignored" delivery and never as an event.
#include "verify/handshake.h"

#include <cctype>
#include <optional>

#include "common/secret.h"
#include "verify/crypto.h"
#include "verify/form.h"
#include "verify/json.h"
#include "verify/text.h"

namespace hookinbox::verify {
namespace {

// A challenge we echo is reflected into our answer: only short tokens of
// letters, digits and "-_.~+/=" are echoed (providers send digits or
// base64/base64url tokens), so an answer can never carry markup or a header.
constexpr size_t kMaxChallengeBytes = 512;

bool IsEchoable(std::string_view s) {
  if (s.empty() || s.size() > kMaxChallengeBytes) return false;
  for (unsigned char c : s) {
    if (!std::isalnum(c) && std::string_view("-_.~+/=").find(static_cast<char>(c)) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

HandshakeAnswer Json(std::string what, const nlohmann::json& body) {
  return {200, "application/json", body.dump(), std::move(what)};
}

HandshakeAnswer Refuse(int status, std::string what, std::string reason) {
  return {status, "application/json", nlohmann::json{{"error", reason}}.dump(), std::move(what)};
}

// The string at `pointer`, or nullopt.
std::optional<std::string> StringAt(const nlohmann::json& doc, std::string_view pointer) {
  const nlohmann::json* v = FindPointer(doc, pointer);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

// Slack Events API: {"type":"url_verification","challenge":"…"} → the challenge as text.
std::optional<HandshakeAnswer> Slack(const nlohmann::json& doc) {
  if (StringAt(doc, "/type") != "url_verification") return std::nullopt;
  std::optional<std::string> challenge = StringAt(doc, "/challenge");
  if (!challenge || !IsEchoable(*challenge)) {
    return Refuse(400, "slack url_verification", "url_verification without a usable challenge");
  }
  return HandshakeAnswer{200, "text/plain", *challenge, "slack url_verification"};
}

// Zoom: {"event":"endpoint.url_validation","payload":{"plainToken":"…"}} →
// {"plainToken":…,"encryptedToken": hex HMAC-SHA256(secret token, plainToken)}.
std::optional<HandshakeAnswer> Zoom(const config::EndpointConfig& endpoint, const std::vector<Secret>& secrets,
                                    const DeliveryView& delivery, int64_t now_ms, const nlohmann::json& doc) {
  if (StringAt(doc, "/event") != "endpoint.url_validation") return std::nullopt;
  std::optional<std::string> plain = StringAt(doc, "/payload/plainToken");
  if (!plain || !IsEchoable(*plain)) {
    return Refuse(400, "zoom endpoint.url_validation", "endpoint.url_validation without a usable plainToken");
  }
  // Zoom proves ownership with the secret it signed this request with: during
  // a rotation that is whichever configured secret verifies it.
  for (const Secret& secret : secrets) {
    if (!Verify(endpoint, {secret}, delivery, now_ms).ok()) continue;
    std::string encrypted = HexEncode(Hmac(HashAlg::kSha256, secret.bytes(), *plain));
    return Json("zoom endpoint.url_validation", {{"plainToken", *plain}, {"encryptedToken", encrypted}});
  }
  return Refuse(401, "zoom endpoint.url_validation", "no secret verifies the validation request");
}

// Discord webhook events: type 0 is PING, answered 204 with no body
// (discord.com/developers/docs/events/webhook-events). An interactions PING
// (type 1 without an event) gets {"type":1} as SPEC §9 says; any other
// interaction needs a synchronous answer hookinbox cannot give.
std::optional<HandshakeAnswer> Discord(const nlohmann::json& doc) {
  const nlohmann::json* type = FindPointer(doc, "/type");
  if (type == nullptr || !type->is_number_integer()) return std::nullopt;
  if (*type == 0) return HandshakeAnswer{204, "", "", "discord ping"};
  if (FindPointer(doc, "/event") != nullptr) return std::nullopt;  // type 1 with an event: a webhook event
  if (*type == 1) return Json("discord interactions ping", {{"type", 1}});
  return Refuse(400, "discord interaction",
                "Discord interactions need a synchronous answer; point only webhook events at hookinbox");
}

// Twitch EventSub: a verified message whose Twitch-Eventsub-Message-Type is
// webhook_callback_verification carries {"challenge":"…"}; the answer is the
// challenge as text/plain with 200
// (dev.twitch.tv/docs/eventsub/handling-webhook-events/). Notifications and
// revocations are deliveries like any other.
std::optional<HandshakeAnswer> Twitch(const DeliveryView& delivery, const nlohmann::json& doc) {
  const char* what = "twitch webhook_callback_verification";
  if (TrimSpaces(delivery.headers.Get("Twitch-Eventsub-Message-Type").value_or("")) !=
      "webhook_callback_verification") {
    return std::nullopt;
  }
  std::optional<std::string> challenge = StringAt(doc, "/challenge");
  if (!challenge || !IsEchoable(*challenge)) return Refuse(400, what, "verification without a usable challenge");
  return HandshakeAnswer{200, "text/plain", *challenge, what};
}

// Viber: set_webhook is confirmed by a signed {"event":"webhook",…} callback
// that only needs a 200 (developers.viber.com/docs/api/rest-bot-api, "Callbacks").
std::optional<HandshakeAnswer> Viber(const nlohmann::json& doc) {
  if (StringAt(doc, "/event") != "webhook") return std::nullopt;
  return HandshakeAnswer{200, "", "", "viber webhook"};
}

// LINE's "Verify" button and Xero's intent-to-receive: a signed body whose
// /events array is empty, answered 200 with no body. A bad signature never
// gets here: Verify's 401 is the answer Xero's check expects for those.
std::optional<HandshakeAnswer> EmptyEvents(const nlohmann::json& doc, const char* what) {
  const nlohmann::json* events = FindPointer(doc, "/events");
  if (events == nullptr || !events->is_array() || !events->empty()) return std::nullopt;
  return HandshakeAnswer{200, "", "", what};
}

// Front application webhooks: saving the webhook sends a signed request with
// an x-front-challenge header, answered 200 with the challenge as the body
// (dev.frontapp.com/docs/application-webhooks).
std::optional<HandshakeAnswer> Front(const DeliveryView& delivery) {
  std::optional<std::string_view> challenge = delivery.headers.Get("x-front-challenge");
  if (!challenge) return std::nullopt;
  const std::string value(TrimSpaces(*challenge));
  if (!IsEchoable(value)) return Refuse(400, "front challenge", "x-front-challenge is empty or not echoable");
  return HandshakeAnswer{200, "text/plain", value, "front challenge"};
}

// The value of the first field `name` in a decoded form list, or nullopt.
std::optional<std::string> FieldValue(const std::vector<FormField>& fields, std::string_view name) {
  for (const FormField& f : fields) {
    if (f.name == name) return f.value;
  }
  return std::nullopt;
}

bool AllDigits(std::string_view s) {
  if (s.empty() || s.size() > 20) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::optional<HandshakeAnswer> AnswerSignedHandshake(const config::EndpointConfig& endpoint,
                                                     const std::vector<Secret>& secrets,
                                                     const DeliveryView& delivery, int64_t now_ms) {
  const std::string& kind = endpoint.handshake;
  if (kind == "front") return Front(delivery);  // recognised by its header, whatever the body
  if (kind != "slack" && kind != "zoom" && kind != "discord" && kind != "twitch" && kind != "viber" && kind != "line" &&
      kind != "xero") {
    return std::nullopt;
  }
  ParsedBody own(delivery.body);
  const Result<nlohmann::json>& doc = (delivery.parsed != nullptr ? *delivery.parsed : own).Get();
  if (!doc.ok() || !doc->is_object()) return std::nullopt;  // not a handshake; Identify reports the body
  if (kind == "slack") return Slack(*doc);
  if (kind == "zoom") return Zoom(endpoint, secrets, delivery, now_ms, *doc);
  if (kind == "twitch") return Twitch(delivery, *doc);
  if (kind == "viber") return Viber(*doc);
  if (kind == "line") return EmptyEvents(*doc, "line verify");
  if (kind == "xero") return EmptyEvents(*doc, "xero intent to receive");
  return Discord(*doc);
}

std::optional<HandshakeAnswer> AnswerUnsignedHandshake(const config::EndpointConfig& endpoint,
                                                       const DeliveryView& delivery) {
  if (endpoint.handshake != "woocommerce") return std::nullopt;
  // WooCommerce's creation ping: exactly "webhook_id=<n>", form-encoded, unsigned.
  if (MediaTypeOf(delivery.headers.Get("Content-Type").value_or("")) != "application/x-www-form-urlencoded") {
    return std::nullopt;
  }
  if (delivery.headers.Get(endpoint.signature.header)) return std::nullopt;  // signed: a real delivery
  Result<std::vector<FormField>> form = ParseUrlEncoded(delivery.body);
  if (!form.ok() || form->size() != 1 || (*form)[0].name != "webhook_id" || !AllDigits((*form)[0].value)) {
    return std::nullopt;
  }
  return HandshakeAnswer{200, "application/json", R"({"status":"ok"})", "woocommerce ping"};
}

namespace {

// Dropbox: GET ?challenge=<random> when a webhook URI is added; the answer
// echoes it as text/plain (www.dropbox.com/developers/reference/webhooks).
// Nothing in it is signed, so the answer is marked unverified.
std::optional<HandshakeAnswer> DropboxChallenge(std::string_view query) {
  const char* what = "dropbox challenge";
  Result<std::vector<FormField>> params = ParseUrlEncoded(query);
  if (!params.ok()) return Refuse(400, what, "query string is not valid form encoding");
  std::optional<std::string> challenge = FieldValue(*params, "challenge");
  if (!challenge || !IsEchoable(*challenge)) return Refuse(400, what, "challenge missing or not echoable");
  HandshakeAnswer answer{200, "text/plain", *challenge, what};
  answer.unverified = true;
  return answer;
}

}  // namespace

std::optional<HandshakeAnswer> AnswerGetHandshake(const config::EndpointConfig& endpoint, std::string_view query) {
  if (endpoint.handshake == "dropbox") return DropboxChallenge(query);
  if (endpoint.handshake != "meta") return std::nullopt;
  const char* what = "meta hub.challenge";
  Result<std::vector<FormField>> params = ParseUrlEncoded(query);
  if (!params.ok()) return Refuse(400, what, "query string is not valid form encoding");
  if (FieldValue(*params, "hub.mode") != "subscribe") return Refuse(400, what, "hub.mode must be subscribe");
  std::optional<std::string> challenge = FieldValue(*params, "hub.challenge");
  if (!challenge || !IsEchoable(*challenge)) return Refuse(400, what, "hub.challenge missing or not echoable");
  std::optional<std::string> token = FieldValue(*params, "hub.verify_token");
  if (endpoint.verify_token.empty() || !token || !ConstantTimeEqual(*token, endpoint.verify_token.bytes())) {
    return Refuse(403, what, "hub.verify_token does not match the endpoint's verify token");
  }
  return HandshakeAnswer{200, "text/plain", std::string(*challenge), what};
}

std::optional<HandshakeAnswer> AnswerHeadHandshake(const config::EndpointConfig& endpoint) {
  if (endpoint.handshake != "head") return std::nullopt;
  // Nothing to prove and nothing to echo: the provider only wants a 2xx.
  return HandshakeAnswer{200, "", "", "head check"};
}

}  // namespace hookinbox::verify
