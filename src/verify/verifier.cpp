// Verify(): the dispatch from `[endpoint.signature] scheme` to its verifier,
// and CheckEndpoint(), the start-up check of everything Verify and Identify
// will later trust the configuration to get right.
#include "verify/crypto.h"
#include "verify/public_key.h"
#include "verify/schemes.h"
#include "verify/signature_header.h"
#include "verify/signed_payload.h"
#include "verify/verify.h"

namespace hookinbox::verify {

namespace {

// Only what the verifier's own parsers can tell: config/validate.cpp already
// checked names, enums, placeholders and pointers, each with its line.
Status CheckSignature(const config::EndpointConfig& e) {
  const config::SignatureConfig& sig = e.signature;
  if (sig.scheme != "hmac" && sig.scheme != "token") return Status::Ok();
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return format.status();
  if (sig.scheme == "token") {
    return format->kind == SignatureFormat::Kind::kTemplate
               ? Status::Ok()
               : InvalidArgument("signature.format: a token needs a template such as \"Bearer {signature}\"");
  }
  SignedParts every{"", "", "", "", "", ""};
  every.form_sorted_kv = "";
  every.sorted_fields = "";
  every.access_key = "";
  if (ParseDigestAlg(sig.algorithm)) every.secret = "";  // {secret} belongs to digests only
  every.any_field = true;
  Result<std::string> expanded = ExpandSignedPayload(sig.signed_payload, every);
  return expanded.ok() ? Status::Ok() : expanded.status();
}

// Every header present, with an empty value: for expanding {header:NAME} at start-up.
class AnyHeaders final : public HeaderView {
 public:
  std::optional<std::string_view> Get(std::string_view) const override { return std::string_view(); }
};

// An asymmetric endpoint: its format and signed_payload, and every public key
// parsed (which also fills the key cache, so the first delivery does not pay).
Status CheckAsymmetric(const config::EndpointConfig& e, KeyKind kind) {
  const config::SignatureConfig& sig = e.signature;
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return format.status();
  AnyHeaders headers;
  SignedParts every{"", "", "", "", "", std::nullopt};
  every.headers = &headers;
  every.webhook_id = "";
  Result<std::string> expanded = ExpandSignedPayload(sig.signed_payload, every);
  if (!expanded.ok()) return expanded.status();
  for (size_t i = 0; i < e.public_keys.size(); ++i) {
    if (Status st = CheckPublicKey(kind, e.public_keys[i]); !st.ok()) {
      return InvalidArgument("public key " + std::to_string(i + 1) + " of " + std::to_string(e.public_keys.size()) +
                             " (public_key_env, public_key_file, public_keys_env, public_keys_file, in that order) "
                             "is not " + DescribeKey(kind) + ": " + st.message());
    }
  }
  return Status::Ok();
}

// A rotated-out secret (config/rotation.h) verifies only until its end; the
// copy is made only while some secret has one, so the usual path copies nothing.
const std::vector<Secret>& InForce(const std::vector<Secret>& secrets, int64_t now_ms, std::vector<Secret>& scratch) {
  bool any_ends = false;
  for (const Secret& s : secrets) any_ends = any_ends || s.valid_until_ms() != 0;
  if (!any_ends) return secrets;
  for (const Secret& s : secrets) {
    if (s.ValidAt(now_ms)) scratch.push_back(s);
  }
  return scratch;
}

}  // namespace

Status Verify(const config::EndpointConfig& endpoint, const std::vector<Secret>& all_secrets,
              const DeliveryView& delivery, int64_t now_ms) {
  std::vector<Secret> scratch;
  const std::vector<Secret>& secrets = InForce(all_secrets, now_ms, scratch);
  const std::string& scheme = endpoint.signature.scheme;
  if (scheme == "hmac") return VerifyHmac(endpoint, secrets, delivery, now_ms);
  if (scheme == "token") return VerifyToken(endpoint.signature, secrets, delivery);
  if (scheme == "basic") return VerifyBasic(secrets, delivery);
  if (scheme == "adyen-hmac") return VerifyAdyenHmac(secrets, delivery);
  if (scheme == "none") {
    // Config validation refuses this combination; refusing here too means a
    // validation bug fails closed instead of opening the endpoint.
    return endpoint.insecure ? Status::Ok() : Unauthenticated("endpoint accepts no unsigned deliveries");
  }
  if (AsymmetricKind(scheme)) return VerifyAsymmetric(endpoint, delivery, now_ms);
  return Internal("unknown signature scheme");
}

Status CheckEndpoint(const config::EndpointConfig& endpoint) {
  if (std::optional<KeyKind> kind = AsymmetricKind(endpoint.signature.scheme)) return CheckAsymmetric(endpoint, *kind);
  return CheckSignature(endpoint);
}

}  // namespace hookinbox::verify
