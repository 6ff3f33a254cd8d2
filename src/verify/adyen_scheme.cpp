// scheme = "adyen-hmac": Adyen's standard webhooks sign each notification
// item, not the request. Every element of /notificationItems carries a
// NotificationRequestItem whose additionalData.hmacSignature is the base64
// HMAC-SHA256 of eight of its fields joined with ':' —
//   pspReference:originalReference:merchantAccountCode:merchantReference:
//   amount.value:amount.currency:eventCode:success
// (an absent field is the empty string) — keyed with the webhook's HMAC key
// (hex; config/ decodes it, as for scheme = "hmac" with secret_encoding =
// "hex"). A request is accepted only when every item verifies, since the
// batch is stored whole or not at all. No timestamp is signed.
// https://docs.adyen.com/development-resources/webhooks/verify-hmac-signatures
#include <string>

#include "common/encoding.h"
#include "verify/crypto.h"
#include "verify/json.h"
#include "verify/schemes.h"

namespace hookinbox::verify {

namespace {

using nlohmann::json;

// A field of the signed string: strings as they are, numbers (amount.value)
// in decimal, anything absent or of another type as "".
std::string Field(const json& item, std::string_view pointer) {
  const json* v = FindPointer(item, pointer);
  if (v == nullptr) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_integer()) return v->dump();
  return "";
}

}  // namespace

std::string AdyenSignedString(const nlohmann::json& item) {
  std::string out;
  for (std::string_view p : {"/pspReference", "/originalReference", "/merchantAccountCode", "/merchantReference",
                             "/amount/value", "/amount/currency", "/eventCode", "/success"}) {
    if (!out.empty() || p != "/pspReference") out += ':';
    out += Field(item, p);
  }
  return out;
}

Status VerifyAdyenHmac(const std::vector<Secret>& secrets, const DeliveryView& d) {
  if (!HasUsableSecret(secrets)) return Internal("endpoint has no secret");
  ParsedBody own(d.body);
  const Result<json>& doc = (d.parsed != nullptr ? *d.parsed : own).Get();
  if (!doc.ok()) return Unauthenticated("missing signature");
  const json* items = FindPointer(*doc, "/notificationItems");
  if (items == nullptr || !items->is_array() || items->empty()) return Unauthenticated("missing signature");
  for (const json& element : *items) {
    const json* item = FindPointer(element, "/NotificationRequestItem");
    const json* sig = item != nullptr ? FindPointer(*item, "/additionalData/hmacSignature") : nullptr;
    if (sig == nullptr || !sig->is_string()) return Unauthenticated("missing signature");
    std::optional<std::string> received = Base64Decode(sig->get<std::string>());
    if (!received || received->empty()) return Unauthenticated("malformed signature");
    const std::string signed_string = AdyenSignedString(*item);
    bool matched = false;
    for (const Secret& s : secrets) {
      if (!s.empty() && ConstantTimeEqual(Hmac(HashAlg::kSha256, s.bytes(), signed_string), *received)) matched = true;
    }
    if (!matched) return Unauthenticated("signature mismatch");
  }
  return Status::Ok();
}

}  // namespace hookinbox::verify
