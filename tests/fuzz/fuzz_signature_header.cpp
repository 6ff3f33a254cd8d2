// fuzz_signature_header — the signature header value of every scheme:
// verify::ParseSignatureFormat (the configured format) and
// ParseSignatureHeader (the received value), then the codecs the schemes
// apply to a candidate (hex for GitHub's sha256=, base64 for Shopify's and
// Standard Webhooks' v1,).
//
// Input: format | header value. The value is also read with the fixed
// formats of the presets (Stripe t=,v1=; Paddle ts=;h1=; Standard Webhooks
// "v1,"; GitHub sha256=; Slack v0=; a bare signature), so the fuzzer always
// reaches the list and template parsers whatever it does to the format.
// Properties (abort() on violation): every returned view lies inside the
// value and no candidate is empty; a decoded candidate re-encodes to text
// that decodes to the same bytes.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/encoding.h"
#include "fuzz_input.h"
#include "verify/signature_header.h"

namespace {

using namespace hookinbox::verify;
using hookinbox::fuzz::Check;

bool Inside(std::string_view outer, std::string_view inner) {
  return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

void CheckCodecs(std::string_view candidate) {
  if (auto raw = hookinbox::HexDecode(candidate)) {
    Check(hookinbox::HexDecode(hookinbox::HexEncode(*raw)) == raw, "hex does not round-trip");
  }
  if (auto raw = hookinbox::Base64Decode(candidate)) {
    Check(hookinbox::Base64Decode(hookinbox::Base64Encode(*raw)) == raw, "base64 does not round-trip");
  }
}

void ReadWith(const SignatureFormat& format, std::string_view value) {
  auto header = ParseSignatureHeader(format, value);
  if (!header.ok()) return;
  Check(!header->signatures.empty(), "a parsed header has no signature");
  for (std::string_view s : header->signatures) {
    Check(!s.empty(), "an empty signature candidate");
    Check(Inside(value, s), "a signature view lies outside the value");
    CheckCodecs(s);
  }
  if (header->timestamp) Check(Inside(value, *header->timestamp), "the timestamp view lies outside the value");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const kPresetFormats[] = {"t={timestamp},v1={signature}", "ts={timestamp};h1={signature}",
                                               "v1,{signature}", "sha256={signature}", "v0={signature}",
                                               "{signature}", "Bearer {signature}"};
  auto parts = hookinbox::fuzz::SplitParts(hookinbox::fuzz::AsText(data, size), 2);
  // The value is copied so ASan sees any read past its end.
  const std::string value(parts[1]);
  if (auto format = ParseSignatureFormat(parts[0]); format.ok()) ReadWith(*format, value);
  for (const char* f : kPresetFormats) {
    auto format = ParseSignatureFormat(f);
    Check(format.ok(), "a preset format does not parse");
    ReadWith(*format, value);
  }
  return 0;
}
