// Verify(): the dispatch from `[endpoint.signature] scheme` to its verifier,
// and CheckEndpoint(), the start-up check of everything Verify and Identify
// will later trust the configuration to get right.
#include "verify/crypto.h"
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
  Result<std::string> expanded = ExpandSignedPayload(sig.signed_payload, {"", "", "", "", ""});
  return expanded.ok() ? Status::Ok() : expanded.status();
}

}  // namespace

Status Verify(const config::EndpointConfig& endpoint, const std::vector<Secret>& secrets, const DeliveryView& delivery,
              int64_t now_ms) {
  const std::string& scheme = endpoint.signature.scheme;
  if (scheme == "hmac") return VerifyHmac(endpoint, secrets, delivery, now_ms);
  if (scheme == "token") return VerifyToken(endpoint.signature, secrets, delivery);
  if (scheme == "basic") return VerifyBasic(secrets, delivery);
  if (scheme == "none") {
    // Config validation refuses this combination; refusing here too means a
    // validation bug fails closed instead of opening the endpoint.
    return endpoint.insecure ? Status::Ok() : Unauthenticated("endpoint accepts no unsigned deliveries");
  }
  return Internal("unknown signature scheme");
}

Status CheckEndpoint(const config::EndpointConfig& endpoint) { return CheckSignature(endpoint); }

}  // namespace hookinbox::verify
