// Signature format parsing and candidate extraction; see signature_header.h.
#include "verify/signature_header.h"

#include "common/encoding.h"
#include "common/headers.h"
#include "verify/text.h"

namespace hookinbox::verify {

namespace {

constexpr std::string_view kSig = "{signature}";
constexpr std::string_view kTs = "{timestamp}";

size_t CountOf(std::string_view s, std::string_view needle) {
  size_t n = 0;
  for (size_t pos = s.find(needle); pos != std::string_view::npos; pos = s.find(needle, pos + 1)) ++n;
  return n;
}

// True when every '{' in `format` starts {signature} or {timestamp}.
bool OnlyKnownPlaceholders(std::string_view format) {
  for (size_t pos = format.find('{'); pos != std::string_view::npos; pos = format.find('{', pos + 1)) {
    std::string_view rest = format.substr(pos);
    if (rest.substr(0, kSig.size()) != kSig && rest.substr(0, kTs.size()) != kTs) return false;
  }
  return true;
}

Status FormatError(std::string what) { return InvalidArgument("signature.format: " + what); }

// "v1,{signature}": Standard Webhooks entries "v1,<sig>" separated by spaces.
Result<SignatureFormat> ParseVersionedList(std::string_view format) {
  std::string_view version = format.substr(0, format.find(','));
  if (version.empty() || format.substr(version.size()) != ",{signature}" ||
      version.find_first_of(" {}") != std::string_view::npos) {
    return FormatError("a versioned list must look like \"v1,{signature}\"");
  }
  SignatureFormat f;
  f.kind = SignatureFormat::Kind::kList;
  f.pair_separator = ' ';
  f.kv_separator = ',';
  f.signature_key = std::string(version);
  return f;
}

// "t={timestamp},v1={signature}": every part is key=placeholder.
Result<SignatureFormat> ParseKeyValueList(std::string_view format, char pair_separator) {
  SignatureFormat f;
  f.kind = SignatureFormat::Kind::kList;
  f.pair_separator = pair_separator;
  // A trailing separator makes a list of a single key ("v1={signature},"):
  // every part with that key is a candidate, where the template
  // "v1={signature}" takes one — Revolut and PagerDuty send "v1=<a>,v1=<b>"
  // while two secrets are valid, and no timestamp part. Only the last part
  // may be empty.
  if (format.size() > 1 && format.back() == pair_separator) format.remove_suffix(1);
  for (std::string_view part : SplitTrimmed(format, pair_separator)) {
    size_t eq = part.find('=');
    std::string_view key = eq == std::string_view::npos ? part : TrimSpaces(part.substr(0, eq));
    std::string_view value = eq == std::string_view::npos ? "" : TrimSpaces(part.substr(eq + 1));
    if (key.empty() || (value != kSig && value != kTs)) {
      return FormatError("each part of a key-value list must be key={signature} or key={timestamp}");
    }
    (value == kSig ? f.signature_key : f.timestamp_key) = std::string(key);
  }
  if (EqualsIgnoreCase(f.signature_key, f.timestamp_key)) {
    return FormatError("the signature and the timestamp need different keys");
  }
  return f;
}

// "{timestamp},{signature}" and nothing else: Recurly's header carries no
// keys, only positions (timestamp first, then one signature per valid secret).
constexpr std::string_view kPositional = "{timestamp},{signature}";

Result<SignatureHeader> ExtractPositional(const SignatureFormat& f, std::string_view value) {
  std::vector<std::string_view> parts = SplitTrimmed(value, f.pair_separator);
  if (parts.size() < 2 || parts[0].empty()) return Unauthenticated("malformed signature");
  SignatureHeader out;
  out.timestamp = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    if (!parts[i].empty()) out.signatures.push_back(parts[i]);
  }
  if (out.signatures.empty()) return Unauthenticated("malformed signature");
  return out;
}

Result<SignatureFormat> ParseTemplate(std::string_view format) {
  if (CountOf(format, kTs) != 0) {
    return FormatError("{timestamp} is only supported in a key-value list such as \"t={timestamp},v1={signature}\"");
  }
  size_t pos = format.find(kSig);
  SignatureFormat f;
  f.prefix = std::string(format.substr(0, pos));
  f.suffix = std::string(format.substr(pos + kSig.size()));
  return f;
}

Result<SignatureHeader> ExtractTemplate(const SignatureFormat& f, std::string_view value) {
  value = TrimSpaces(value);
  if (value.size() < f.prefix.size() + f.suffix.size() || !StartsWithIgnoreCase(value, f.prefix) ||
      !EndsWithIgnoreCase(value, f.suffix)) {
    return Unauthenticated("malformed signature");
  }
  std::string_view sig = TrimSpaces(value.substr(f.prefix.size(), value.size() - f.prefix.size() - f.suffix.size()));
  if (sig.empty()) return Unauthenticated("malformed signature");
  return SignatureHeader{{sig}, std::nullopt};
}

Result<SignatureHeader> ExtractList(const SignatureFormat& f, std::string_view value) {
  SignatureHeader out;
  for (std::string_view part : SplitTrimmed(value, f.pair_separator)) {
    size_t sep = part.find(f.kv_separator);
    if (sep == std::string_view::npos) continue;  // not a key-value part: ignored like unknown keys
    std::string_view key = TrimSpaces(part.substr(0, sep));
    std::string_view val = TrimSpaces(part.substr(sep + 1));
    if (EqualsIgnoreCase(key, f.signature_key)) {
      if (!val.empty()) out.signatures.push_back(val);
    } else if (!f.timestamp_key.empty() && EqualsIgnoreCase(key, f.timestamp_key)) {
      // Two timestamps would leave it open which one was signed; refuse rather than guess.
      if (out.timestamp) return Unauthenticated("malformed signature");
      out.timestamp = val;
    }
  }
  if (out.signatures.empty()) return Unauthenticated("malformed signature");
  return out;
}

}  // namespace

Result<SignatureFormat> ParseSignatureFormat(std::string_view format) {
  if (CountOf(format, kSig) != 1) return FormatError("must contain {signature} exactly once");
  if (CountOf(format, kTs) > 1) return FormatError("must contain {timestamp} at most once");
  if (!OnlyKnownPlaceholders(format)) return FormatError("only {signature} and {timestamp} are placeholders");
  // The pair separator is whichever of ',' (Stripe) or ';' (Paddle) the format uses.
  const bool comma = format.find(',') != std::string_view::npos;
  const bool semicolon = format.find(';') != std::string_view::npos;
  if (comma && semicolon) return FormatError("a key-value list separates its parts with ',' or ';', not both");
  if (!comma && !semicolon) return ParseTemplate(format);
  if (format == kPositional) {
    SignatureFormat f;
    f.kind = SignatureFormat::Kind::kPositional;
    return f;
  }
  if (comma && format.find('=') == std::string_view::npos) return ParseVersionedList(format);
  return ParseKeyValueList(format, comma ? ',' : ';');
}

Result<SignatureHeader> ParseSignatureHeader(const SignatureFormat& format, std::string_view value) {
  switch (format.kind) {
    case SignatureFormat::Kind::kTemplate: return ExtractTemplate(format, value);
    case SignatureFormat::Kind::kList: return ExtractList(format, value);
    case SignatureFormat::Kind::kPositional: return ExtractPositional(format, value);
  }
  return Unauthenticated("malformed signature");
}

bool KnownSignatureEncoding(std::string_view encoding) {
  return encoding == "hex" || Base64SignatureEncoding(encoding);
}

bool Base64SignatureEncoding(std::string_view encoding) { return encoding == "base64" || encoding == "base64url"; }

std::string EncodeSignature(std::string_view encoding, std::string_view raw) {
  if (encoding == "base64") return Base64Encode(raw);
  if (encoding == "base64url") return Base64UrlEncode(raw);
  return HexEncode(raw);
}

}  // namespace hookinbox::verify
