// Shared-secret schemes: a static token in a header (scheme = "token") and
// HTTP Basic credentials (scheme = "basic"). Both compare what the sender
// presents with each active secret; see MatchesAnySecret for why through digests.
#include "verify/crypto.h"
#include "verify/schemes.h"
#include "verify/signature_header.h"
#include "verify/text.h"

namespace hookinbox::verify {

bool HasUsableSecret(const std::vector<Secret>& secrets) {
  for (const Secret& s : secrets) {
    if (!s.empty()) return true;
  }
  return false;
}

// ConstantTimeEqual returns early on a length mismatch, which would reveal a
// token's length; digests are always 32 bytes, so only equality leaks.
bool MatchesAnySecret(std::string_view presented, const std::vector<Secret>& secrets) {
  const std::string presented_digest = Sha256(presented);
  bool matched = false;
  for (const Secret& s : secrets) {
    if (!s.empty() && ConstantTimeEqual(presented_digest, Sha256(s.bytes()))) matched = true;
  }
  return matched;
}

Status VerifyToken(const config::SignatureConfig& sig, const std::vector<Secret>& secrets, const DeliveryView& d) {
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return Internal(format.status().message());
  if (format->kind != SignatureFormat::Kind::kTemplate) return Internal("token scheme needs a template format");
  if (!HasUsableSecret(secrets)) return Internal("endpoint has no secret");

  std::optional<std::string_view> value = d.headers.Get(sig.header);
  if (!value || TrimSpaces(*value).empty()) return Unauthenticated("missing token");
  Result<SignatureHeader> parsed = ParseSignatureHeader(*format, *value);
  if (!parsed.ok()) return Unauthenticated("malformed token");
  if (!MatchesAnySecret(parsed->signatures.front(), secrets)) return Unauthenticated("token mismatch");
  return Status::Ok();
}

Status VerifyBasic(const std::vector<Secret>& secrets, const DeliveryView& d) {
  if (!HasUsableSecret(secrets)) return Internal("endpoint has no secret");
  std::optional<std::string_view> value = d.headers.Get("Authorization");
  if (!value || TrimSpaces(*value).empty()) return Unauthenticated("missing credentials");
  std::string_view v = TrimSpaces(*value);
  if (!StartsWithIgnoreCase(v, "Basic ")) return Unauthenticated("malformed credentials");
  std::optional<std::string> user_pass = Base64Decode(TrimSpaces(v.substr(6)));
  if (!user_pass || user_pass->find(':') == std::string::npos) return Unauthenticated("malformed credentials");
  const Secret presented(std::move(*user_pass));  // wiped on return: a correct one is the password
  if (!MatchesAnySecret(presented.bytes(), secrets)) return Unauthenticated("credentials mismatch");
  return Status::Ok();
}

}  // namespace hookinbox::verify
