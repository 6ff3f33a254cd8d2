// Secret resolution: secret_env / secret_file / secrets_env / secrets_file → Secret.
//
// Sources are read in that order, so the first listed is "newest" (rotation:
// any of them verifies). Messages name the variable or the file, never the
// bytes. A value that is not a valid variable name is not echoed either: the
// likeliest reason is a secret pasted where its variable's name belongs.
//
// For scheme = "hmac" each secret is turned into its key bytes here, once
// (signature.secret_prefix removed, then signature.secret_encoding decoded),
// so a secret that does not decode is a config error with its key and line,
// and verify/ only ever sees key bytes. The decoders are common/encoding.h's,
// the same ones verify/ uses for signatures.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "common/clock.h"
#include "common/encoding.h"
#include "config/parsed.h"
#include "config/rotation.h"

namespace hookinbox::config {
namespace {

bool IsEnvName(std::string_view s) {
  if (s.empty() || s.size() > 128 || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string ModeText(unsigned mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

// WooCommerce keys its HMAC with the secret after wp_specialchars_decode(…,
// ENT_QUOTES): these entities become their characters, in one left-to-right
// pass ("&amp;lt;" → "&lt;", not "<"); anything else is kept as written.
std::string HtmlEntityDecode(std::string_view text) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'},  {"&#038;", '&'}, {"&#x26;", '&'},  {"&lt;", '<'},   {"&#060;", '<'},
      {"&gt;", '>'},   {"&#062;", '>'}, {"&quot;", '"'},  {"&#034;", '"'}, {"&#34;", '"'},
      {"&#x22;", '"'}, {"&#039;", '\''}, {"&#39;", '\''},  {"&#x27;", '\''}};
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (text[i] == '&') {
      for (const auto& [entity, c] : kEntities) {
        if (text.compare(i, entity.size(), entity) == 0) {
          out += c;
          i += entity.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

// --- Public keys of the asymmetric schemes (helper "asym") ---
bool IsAsymmetric(const std::string& scheme) {
  return scheme == "ed25519" || scheme == "ecdsa-p256-sha256" || scheme == "rsa-sha256-cert" || scheme == "rsa-sha256";
}

// What a public key of `scheme` should have been, when `text` plainly is not
// one; "" when its form fits. Only the form: config/ has no crypto library,
// so verify::CheckEndpoint parses the key itself at check-config and start-up.
// Never quotes the text (a private key pasted by mistake must not reach a log).
std::string PublicKeyFormProblem(const std::string& scheme, std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  text = begin == std::string_view::npos ? std::string_view() : text.substr(begin);
  text = text.substr(0, text.find_last_not_of(" \t\r\n") + 1);
  const bool pem_public = text.rfind("-----BEGIN PUBLIC KEY-----", 0) == 0;
  if (text.find("PRIVATE KEY") != std::string_view::npos) {
    return "a public key but a PRIVATE key: give hookinbox only the provider's public key";
  }
  if (scheme == "ed25519") {
    std::optional<std::string> raw = HexDecode(text);
    if (!raw) raw = Base64Decode(text);  // Telnyx shows the raw key in base64
    if (pem_public || (raw && raw->size() == 32)) return "";
    return "an Ed25519 public key: expected 64 hex digits (Discord's \"Public Key\"), base64 of the 32-byte key "
           "(Telnyx's \"Public Key\") or a PEM \"PUBLIC KEY\" block";
  }
  if (scheme == "ecdsa-p256-sha256") {
    std::optional<std::string> der = Base64Decode(text);
    if (pem_public || (der && !der->empty())) return "";
    return "an EC P-256 public key: expected base64 of a DER SubjectPublicKeyInfo (SendGrid's verification key) "
           "or a PEM \"PUBLIC KEY\" block";
  }
  if (scheme == "rsa-sha256") {
    std::optional<std::string> der = Base64Decode(text);
    if (pem_public || (der && !der->empty())) return "";
    return "an RSA public key: expected a PEM \"PUBLIC KEY\" block (Wise's published key) or its base64 DER";
  }
  if (text.rfind("-----BEGIN CERTIFICATE-----", 0) == 0) return "";
  return "a certificate: expected a PEM \"-----BEGIN CERTIFICATE-----\" block (the provider's signing certificate, "
         "pinned)";
}

constexpr const char* kNoPublicKey =
    "verifies with the provider's public key: set public_key_env or public_key_file (or public_keys_env / "
    "public_keys_file for rotation)";
// --- end of helper "asym"'s block ---

bool NeedsSecret(const SignatureConfig& s) {
  return s.scheme == "hmac" || s.scheme == "token" || s.scheme == "basic" || s.scheme == "adyen-hmac";
}

constexpr const char* kNoSecret = "no secret: set secret_env, secret_file, secrets_env or secrets_file";

class SecretReader {
 public:
  SecretReader(const Parsed& parsed, Reporter& report, bool read_values,
               const std::function<const char*(const std::string&)>& env, int64_t now_ms)
      : p_(parsed), report_(report), read_(read_values), env_(env), now_ms_(now_ms) {}

  // True when `sources` gave (or, not reading, would give) at least one value.
  // Reading, a source either yields a value or reports an error, so an empty
  // `read` after a clean Gather means none was configured.
  bool Found(const std::vector<Secret>& read, const SecretSources& sources) const {
    return !read.empty() || (!read_ && sources.any());
  }

  // Reads every source of `s` (keys under `at`) into `out`, reporting each
  // that fails. Returns false when any failed. With `sig` a HMAC signature,
  // each secret is stored as its key bytes (secret_prefix, secret_encoding).
  bool Gather(const SecretSources& s, const std::string& at, std::vector<Secret>& out,
              const SignatureConfig* sig = nullptr) {
    // adyen-hmac keys are HMAC keys too (hex, decoded like secret_encoding = "hex").
    key_format_ = sig != nullptr && (sig->scheme == "hmac" || sig->scheme == "adyen-hmac") ? sig : nullptr;
    size_t errors = errors_;
    if (p_.Has(at + ".secret_env")) FromEnv(at + ".secret_env", s.env, out);
    if (p_.Has(at + ".secret_file")) FromFile(at + ".secret_file", s.file, out);
    for (size_t i = 0; i < s.envs.size(); ++i) FromEnv(at + ".secrets_env[" + std::to_string(i) + "]", s.envs[i], out);
    for (size_t i = 0; i < s.files.size(); ++i) {
      FromFile(at + ".secrets_file[" + std::to_string(i) + "]", s.files[i], out);
    }
    return errors == errors_;
  }

  // Reads one value from `<at>.<name>_env` or `<at>.<name>_file` (at most
  // one may be set) into `out`, as a secret: never decoded, never printed.
  void GatherOne(const std::string& at, const std::string& name, const SecretSources& s, std::vector<Secret>& out) {
    key_format_ = nullptr;
    public_scheme_ = nullptr;
    const std::string env_key = at + "." + name + "_env";
    const std::string file_key = at + "." + name + "_file";
    if (p_.Has(env_key) && p_.Has(file_key)) {
      report_.Error(file_key, "set only one of " + name + "_env and " + name + "_file");
    }
    if (p_.Has(env_key)) FromEnv(env_key, s.env, out);
    if (p_.Has(file_key)) FromFile(file_key, s.file, out);
  }

  // Reads the admin bearer token into admin.token (the admin listener
  // compares requests against it); it stays empty when none is configured.
  void ResolveAdminToken(AdminConfig& admin) {
    std::vector<Secret> read;
    key_format_ = nullptr;
    if (p_.Has("admin.token_env") && p_.Has("admin.token_file")) {
      report_.Error("admin.token_file", "set only one of token_env and token_file");
    }
    if (p_.Has("admin.token_env")) FromEnv("admin.token_env", admin.token_env, read);
    // token_file was resolved against base_dir with the other paths already.
    if (p_.Has("admin.token_file")) FromFile("admin.token_file", admin.token_file, read);
    if (read.empty()) return;
    if (!StrongToken(p_.Has("admin.token_env") ? "admin.token_env" : "admin.token_file", read.front())) return;
    admin.token = read.front();
  }

  // A short token is one online guessing can find: the login limiter cannot
  // stop that alone, because it never refuses the right token (admin/auth.h).
  // The message gives the length, never the token.
  // Returns false, having reported it, when the token is too short.
  bool StrongToken(const std::string& key, const Secret& token) {
    if (token.bytes().size() >= kMinAdminTokenBytes) return true;
    Fail(key, "the token is " + std::to_string(token.bytes().size()) + " bytes; use at least " +
                  std::to_string(kMinAdminTokenBytes) + " random bytes, e.g. from: openssl rand -hex 32");
    return false;
  }

  // backend = "postgres" with url_env or url_file: reads the variable or
  // file into storage.url, as a secret (a URL may carry a password).
  // validate.cpp has already refused them with sqlite or beside another
  // source, so only what was read is checked here.
  void ResolveStorageUrl(StorageConfig& storage) {
    if (storage.backend != "postgres" || p_.Has("storage.url")) return;
    const bool from_env = p_.Has("storage.url_env");
    if (!from_env && !p_.Has("storage.url_file")) return;
    std::vector<Secret> read;
    key_format_ = nullptr;
    if (from_env) {
      FromEnv("storage.url_env", storage.url_env, read);
    } else {
      FromFile("storage.url_file", storage.url_file, read);
    }
    if (read.empty()) return;
    if (std::string problem = ConninfoProblem(read.front().bytes()); !problem.empty()) {
      Fail(from_env ? "storage.url_env" : "storage.url_file",
           (from_env ? "environment variable " + storage.url_env : "file " + p_.config.Resolve(storage.url_file)) +
               " " + problem);
      return;
    }
    storage.url = std::string(read.front().bytes());
  }

  // Reads admin.metrics_token_env into admin.metrics_token (admin/auth.h).
  // It must not be the admin token: a scraper's token would then also
  // replay events and download the database.
  void ResolveMetricsToken(AdminConfig& admin) {
    if (!p_.Has("admin.metrics_token_env")) return;
    std::vector<Secret> read;
    key_format_ = nullptr;
    FromEnv("admin.metrics_token_env", admin.metrics_token_env, read);
    if (read.empty() || !StrongToken("admin.metrics_token_env", read.front())) return;
    admin.metrics_token = read.front();
    if (!admin.token.empty() && ConstantTimeEqual(admin.metrics_token.bytes(), admin.token.bytes())) {
      report_.Error("admin.metrics_token_env", "must hold a different token than the admin token");
    }
  }

  // Reads the public key sources of the endpoint at `at` into `out`, each
  // checked for the form `scheme` needs (PublicKeyFormProblem). Public keys are
  // not secret: a readable file draws no chmod warning. Returns false when any failed.
  bool GatherPublicKeys(const SecretSources& s, const std::string& at, const std::string& scheme,
                        std::vector<Secret>& out) {
    key_format_ = nullptr;
    public_scheme_ = &scheme;
    size_t errors = errors_;
    if (p_.Has(at + ".public_key_env")) FromEnv(at + ".public_key_env", s.env, out);
    if (p_.Has(at + ".public_key_file")) FromFile(at + ".public_key_file", s.file, out);
    for (size_t i = 0; i < s.envs.size(); ++i) {
      FromEnv(at + ".public_keys_env[" + std::to_string(i) + "]", s.envs[i], out);
    }
    for (size_t i = 0; i < s.files.size(); ++i) {
      FromFile(at + ".public_keys_file[" + std::to_string(i) + "]", s.files[i], out);
    }
    public_scheme_ = nullptr;
    return errors == errors_;
  }

 private:
  void FromEnv(const std::string& key, const std::string& name, std::vector<Secret>& out) {
    if (name.empty()) {
      Fail(key, "must name an environment variable, not be empty");
      return;
    }
    if (!IsEnvName(name)) {
      Fail(key, "is not an environment variable name (letters, digits, '_'); "
                         "put the secret in the environment and write the variable's name here");
      return;
    }
    if (!read_) return;
    const char* value = env_ ? env_(name) : std::getenv(name.c_str());
    if (value == nullptr) {
      Fail(key, "environment variable " + name + " is not set");
    } else if (*value == '\0') {
      Fail(key, "environment variable " + name + " is empty");
    } else {
      Admit(key, "environment variable " + name, std::string(value), out);
    }
  }

  void FromFile(const std::string& key, const std::string& written, std::vector<Secret>& out) {
    if (written.empty()) {
      Fail(key, "must name a file, not be empty");
      return;
    }
    if (!read_) return;
    const std::string path = p_.config.Resolve(written);
    std::optional<std::string> bytes = ReadSecretText(key, path, What());
    if (!bytes) return;
    Admit(key, What() + " " + path, std::move(*bytes), out);
    if (public_scheme_ == nullptr && RotatableKey(key)) FromPreviousFile(key, path, out);
  }

  // The text of a secret file without its final newline; nullopt, reported, when it cannot be read
  // or is empty. Warns about a file others can read.
  std::optional<std::string> ReadSecretText(const std::string& key, const std::string& path, const std::string& what) {
    FileContent file = ReadSmallFile(path, kMaxSecretBytes);
    if (!file.ok) {
      Fail(key, "cannot read " + what + " " + path + ": " + file.error);
      return std::nullopt;
    }
    std::string& bytes = file.bytes;
    bytes.resize(WithoutFinalNewline(bytes).size());
    if (bytes.empty()) {
      Fail(key, what + " " + path + " is empty");
      return std::nullopt;
    }
    if ((file.mode & 077) != 0 && public_scheme_ == nullptr) {
      report_.Warn(key, "secret file " + path + " is readable by group or others (mode " + ModeText(file.mode) +
                            "); run chmod 600 on it");
    }
    return std::move(bytes);
  }

  // A rotated secret file (config/rotation.h): the previous secret beside it
  // joins the endpoint's secrets with its window's end, which the verifier
  // enforces per request.
  void FromPreviousFile(const std::string& key, const std::string& path, std::vector<Secret>& out) {
    Result<std::optional<Rotation>> rotation = ReadRotation(path);
    // A broken rotation must not stop the service (nor `secrets retire`,
    // which loads the config first): the previous secret is then refused,
    // the safe side, and the warning says how to clean up.
    const std::string retire = "; `hookinbox secrets retire " + EndpointNameOf(key) + "` removes " +
                               RotationStateFile(path) + " and " + PreviousSecretFile(path);
    if (!rotation.ok()) return report_.Warn(key, rotation.status().message() + ": the previous secret is not accepted" + retire);
    if (!rotation->has_value()) return;
    const int64_t until = (*rotation)->previous_until_ms;
    const std::string previous = PreviousSecretFile(path);
    if (now_ms_ != 0 && until <= now_ms_) {
      report_.Warn(key, "the previous secret (" + previous + ") is no longer accepted since " + FormatUtc(until) + retire);
    }
    FileContent file = ReadSmallFile(previous, kMaxSecretBytes);
    std::string bytes = file.ok ? std::string(WithoutFinalNewline(file.bytes)) : std::string();
    std::fill(file.bytes.begin(), file.bytes.end(), '\0');
    if (bytes.empty()) {
      return report_.Warn(key, "cannot read the previous secret file " + previous + ": " +
                                   (file.ok ? "it is empty" : file.error) + ", so it is not accepted" + retire);
    }
    if ((file.mode & 077) != 0) {
      report_.Warn(key, "secret file " + previous + " is readable by group or others (mode " + ModeText(file.mode) +
                            "); run chmod 600 on it");
    }
    Admit(key, "previous secret file " + previous, std::move(bytes), out, until);
  }

  // Only an endpoint's own secret_file is rotated (`hookinbox secrets rotate`,
  // config::NotRotatableReason): not a tenant's, nor an alert channel's
  // (whose key ends the same way).
  static bool RotatableKey(const std::string& key) {
    return key.starts_with("endpoint[") && key.ends_with("].secret_file") && key.find(".tenants") == std::string::npos;
  }

  // "endpoint[2].secret_file" → that endpoint's name.
  std::string EndpointNameOf(const std::string& key) const {
    const size_t index = std::strtoul(key.c_str() + std::strlen("endpoint["), nullptr, 10);
    return index < p_.config.endpoints.size() ? p_.config.endpoints[index].name : "ENDPOINT";
  }

  std::string What() const { return public_scheme_ != nullptr ? "public key file" : "secret file"; }

  // Stores `bytes` as a Secret, as HMAC key bytes when key_format_ says how.
  // Messages name where the secret came from and the encoding, never its bytes.
  // `valid_until_ms`: a rotated-out secret's end (0 = none).
  void Admit(const std::string& key, const std::string& origin, std::string bytes, std::vector<Secret>& out,
             int64_t valid_until_ms = 0) {
    Secret raw(std::move(bytes));  // wipes the text on every return path
    if (public_scheme_ != nullptr) {
      if (std::string problem = PublicKeyFormProblem(*public_scheme_, raw.bytes()); !problem.empty()) {
        Fail(key, origin + " does not hold " + problem);
        return;
      }
    }
    if (key_format_ == nullptr) {
      out.emplace_back(std::string(raw.bytes()), valid_until_ms);
      return;
    }
    std::string_view text = raw.bytes();
    const std::string& prefix = key_format_->secret_prefix;
    if (!prefix.empty() && text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
    const std::string& encoding = key_format_->secret_encoding;
    std::optional<std::string> key_bytes;
    if (encoding == "base64") {
      key_bytes = Base64Decode(text);
    } else if (encoding == "hex") {
      key_bytes = HexDecode(text);
    } else if (encoding == "html-entities") {
      key_bytes = HtmlEntityDecode(text);
    } else {
      key_bytes = std::string(text);
    }
    if (!key_bytes) {
      Fail(key, origin + " does not hold valid " + encoding + " (signature.secret_encoding = " + TomlQuote(encoding) +
                    (prefix.empty() ? "" : ", after removing secret_prefix") + ")");
    } else if (key_bytes->empty()) {
      Fail(key, origin + " holds no key bytes after removing secret_prefix and decoding");
    } else {
      out.emplace_back(std::move(*key_bytes), valid_until_ms);
    }
    if (key_bytes) std::fill(key_bytes->begin(), key_bytes->end(), '\0');  // moved-from or unused: wipe what is left
  }

  void Fail(const std::string& key, std::string message) {
    ++errors_;
    report_.Error(key, std::move(message));
  }

  const Parsed& p_;
  Reporter& report_;
  size_t errors_ = 0;
  const bool read_;  // false: check how sources are written, read none (LoadOptions::read_secrets)
  const std::function<const char*(const std::string&)>& env_;  // null: getenv (LoadOptions::env)
  const int64_t now_ms_;  // LoadOptions::now_ms
  const SignatureConfig* key_format_ = nullptr;  // the endpoint being gathered, when its secrets are HMAC keys
  const std::string* public_scheme_ = nullptr;   // the scheme whose public keys are being gathered
};

// The secret keys written directly on [[endpoint]] i, for the tenants conflict.
std::vector<std::string> EndpointSecretKeys(const Parsed& p, const std::string& at) {
  std::vector<std::string> keys;
  for (const char* name : {".secret_env", ".secret_file", ".secrets_env", ".secrets_file"}) {
    if (p.Has(at + name)) keys.push_back(at + name);
  }
  return keys;
}

// Fills e.public_keys for an asymmetric scheme (an error when there is none);
// for any other scheme, configured public keys are unused and warned about.
void ResolvePublicKeys(SecretReader& reader, EndpointConfig& e, const SecretSources& sources, const std::string& at,
                       Reporter& report) {
  if (!IsAsymmetric(e.signature.scheme)) {
    if (sources.any()) report.Warn(at, "public keys are unused with signature.scheme = " + TomlQuote(e.signature.scheme));
    return;
  }
  std::vector<Secret> keys;
  if (reader.GatherPublicKeys(sources, at, e.signature.scheme, keys) && !reader.Found(keys, sources)) {
    report.Error(at, "no public key: signature.scheme = " + TomlQuote(e.signature.scheme) + " " + kNoPublicKey);
  }
  for (const Secret& k : keys) e.public_keys.emplace_back(k.bytes());
}

// Meta's GET subscription check compares hub.verify_token with this; without
// it every check is refused (403), which is safe but worth saying at start-up.
void ResolveVerifyToken(SecretReader& reader, EndpointConfig& e, const SecretSources& sources, const std::string& at,
                        Reporter& report) {
  std::vector<Secret> token;
  reader.GatherOne(at, "verify_token", sources, token);
  if (!token.empty()) e.verify_token = token.front();
  if (e.handshake == "meta" && !sources.any()) {
    report.Warn(at, "no verify_token_env or verify_token_file: Meta's GET subscription check will be refused (403)");
  } else if (e.handshake != "meta" && sources.any()) {
    report.Warn(at, "verify_token_env / verify_token_file are unused: only provider meta answers a GET check");
  }
}

constexpr const char* kNotStandardWebhooks =
    "is not a Standard Webhooks secret: write whsec_ followed by standard base64, not the URL-safe alphabet "
    "(e.g. from: echo whsec_$(openssl rand -base64 32))";

// Decodes a Standard Webhooks secret ("whsec_" optional, then standard
// base64) into `out`; false when it is not one.
bool StandardWebhooksKey(const Secret& secret, Secret& out) {
  std::string_view text = secret.bytes();
  if (text.substr(0, 6) == "whsec_") text.remove_prefix(6);
  // Standard Webhooks libraries decode the standard alphabet only: a secret
  // with '-' or '_' would pass here and then fail every verification downstream.
  const bool url_safe = text.find_first_of("-_") != std::string_view::npos;
  std::optional<std::string> bytes = url_safe ? std::nullopt : Base64Decode(text);
  const bool ok = bytes && !bytes->empty();
  if (ok) out = Secret(*bytes);
  if (bytes) std::fill(bytes->begin(), bytes->end(), '\0');
  return ok;
}

// [endpoint.action] forward secret. Read as a Standard
// Webhooks secret: an optional "whsec_" prefix, then base64, decoded here
// once, the way the Standard Webhooks libraries the downstream uses read the
// same text. Required for type = "http": without it a forward cannot be told
// from a forgery by anyone who can reach the downstream URL.
void ResolveForwardSecret(SecretReader& reader, EndpointConfig& e, const SecretSources& sources,
                          const std::string& at, Reporter& report) {
  const std::string action_at = at + ".action";
  std::vector<Secret> read;
  reader.GatherOne(action_at, "forward_secret", sources, read);
  if (e.action.type != "http") {
    if (sources.any()) {
      report.Warn(action_at, "forward_secret_env / forward_secret_file are unused: only type = \"http\" signs forwards");
    }
    return;
  }
  if (read.empty()) {
    if (!sources.any()) {
      report.Error(action_at, "type = \"http\" needs forward_secret_env or forward_secret_file: the downstream verifies "
                              "each forward with it (Standard Webhooks), so nobody else who can reach the url can "
                              "forge an event; generate one with: echo whsec_$(openssl rand -base64 32)");
    }
    return;
  }
  const std::string key = at + ".action." + (sources.env.empty() ? "forward_secret_file" : "forward_secret_env");
  if (!StandardWebhooksKey(read.front(), e.action.forward_secret)) {
    report.Error(key, "the forward secret " + std::string(kNotStandardWebhooks));
  }
}

// [endpoint.action] auth_secret_env / auth_secret_file: the credential an
// http action presents to its destination (action/destination_auth.h). Read
// as it is written (no decoding); it goes into a header, so a control
// character (a line break in an env var) is refused, and basic needs the
// user:password form. Messages name the source, never the value. Where auth
// is unset or the action is not http, validate_handlers.cpp has said so.
void ResolveActionAuth(SecretReader& reader, EndpointConfig& e, const SecretSources& sources, const std::string& at,
                       Reporter& report) {
  const std::string action_at = at + ".action";
  std::vector<Secret> read;
  reader.GatherOne(action_at, "auth_secret", sources, read);
  if (read.empty() || e.action.type != "http" || e.action.auth.empty()) return;
  const std::string key = action_at + (sources.env.empty() ? ".auth_secret_file" : ".auth_secret_env");
  const std::string_view value = read.front().bytes();
  const bool control =
      std::any_of(value.begin(), value.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  if (control) {
    report.Error(key, "the credential holds a control character (a line break?); a header cannot carry it");
  } else if (e.action.auth == "basic" && value.find(':') == std::string_view::npos) {
    report.Error(key, "auth = \"basic\" needs user:password, and the credential has no ':'");
  } else {
    e.action.auth_secret = read.front();
  }
}

// A [[alert.channel]]'s destination (url for chat and webhook channels,
// smtp_url for email) from the key itself, or its _env or _file, checked once
// read. validate_alert.cpp has checked how the keys are written and the
// inline value; messages say where a bad value came from, never the value.
void ResolveChannelUrl(SecretReader& reader, const Parsed& p, size_t i, Reporter& report, AlertChannelConfig& c) {
  const ChannelSources& src = p.channel_sources[i];
  const std::string at = "alert.channel[" + std::to_string(i) + "]";
  const bool email = c.type == "email";
  const std::string name = email ? "smtp_url" : "url";
  if (p.Has(at + "." + name)) {
    c.*(email ? &AlertChannelConfig::smtp_url : &AlertChannelConfig::url) = Secret(email ? src.smtp_url : src.url);
    return;
  }
  SecretSources sources;
  sources.env = email ? src.smtp_url_env : src.url_env;
  sources.file = email ? src.smtp_url_file : src.url_file;
  std::vector<Secret> read;
  reader.GatherOne(at, name, sources, read);
  if (read.empty()) return;
  const std::string key = at + "." + name + (p.Has(at + "." + name + "_env") ? "_env" : "_file");
  if (std::string problem = ChannelUrlProblem(c.type, read.front().bytes()); !problem.empty()) {
    report.Error(key, "the " + name + " it holds " + problem);
    return;
  }
  c.*(email ? &AlertChannelConfig::smtp_url : &AlertChannelConfig::url) = read.front();
}

// Every channel's destination, and a webhook channel's signing key (decoded
// from "whsec_<base64>" as the receiver's Standard Webhooks library will).
void ResolveChannels(SecretReader& reader, Parsed& p, Reporter& report) {
  for (size_t i = 0; i < p.config.alert.channels.size() && i < p.channel_sources.size(); ++i) {
    AlertChannelConfig& c = p.config.alert.channels[i];
    if (c.type.empty()) continue;  // reported by validate_alert.cpp
    ResolveChannelUrl(reader, p, i, report, c);
    if (c.type != "webhook") continue;
    const std::string at = "alert.channel[" + std::to_string(i) + "]";
    std::vector<Secret> read;
    reader.GatherOne(at, "secret", p.channel_sources[i].secret, read);
    if (!read.empty() && !StandardWebhooksKey(read.front(), c.secret)) {
      report.Error(at + (p.Has(at + ".secret_env") ? ".secret_env" : ".secret_file"),
                   "the channel secret " + std::string(kNotStandardWebhooks));
    }
  }
}

void NoteSecretSources(const SecretSources& s, const Config& config, EndpointConfig& e) {
  e.secret_file = s.file.empty() ? "" : config.Resolve(s.file);
  e.other_secret_keys.clear();
  if (!s.env.empty()) e.other_secret_keys.push_back("secret_env");
  if (!s.envs.empty()) e.other_secret_keys.push_back("secrets_env");
  if (!s.files.empty()) e.other_secret_keys.push_back("secrets_file");
}

}  // namespace

void ResolveSecrets(Parsed& parsed, Reporter& report, bool read_values,
                    const std::function<const char*(const std::string&)>& env, int64_t now_ms) {
  SecretReader reader(parsed, report, read_values, env, now_ms);
  reader.ResolveAdminToken(parsed.config.admin);
  reader.ResolveMetricsToken(parsed.config.admin);
  reader.ResolveStorageUrl(parsed.config.storage);
  ResolveChannels(reader, parsed, report);
  for (size_t i = 0; i < parsed.config.endpoints.size(); ++i) {
    EndpointConfig& e = parsed.config.endpoints[i];
    const EndpointSources& sources = parsed.sources[i];
    const std::string at = "endpoint[" + std::to_string(i) + "]";
    const bool needs = NeedsSecret(e.signature);
    ResolvePublicKeys(reader, e, sources.public_keys, at, report);
    ResolveVerifyToken(reader, e, sources.verify_token, at, report);
    ResolveForwardSecret(reader, e, sources.forward_secret, at, report);
    ResolveActionAuth(reader, e, sources.auth_secret, at, report);

    NoteSecretSources(sources.secrets, parsed.config, e);
    if (e.tenants.empty()) {
      // A source that failed has its own error; "no secret" is for none configured.
      if (reader.Gather(sources.secrets, at, e.secrets, &e.signature) && needs &&
          !reader.Found(e.secrets, sources.secrets)) {
        report.Error(at, kNoSecret);
      }
      if (!needs && sources.secrets.any()) {
        report.Warn(at, "secrets are unused with signature.scheme = " + TomlQuote(e.signature.scheme));
      }
      continue;
    }
    // With tenants, each delivery is checked against its tenant's secrets
    // only; an endpoint-wide secret would silently be ignored.
    for (const std::string& key : EndpointSecretKeys(parsed, at)) {
      report.Error(key, "not allowed when the endpoint has [[endpoint.tenants]]; give each tenant its own secret");
    }
    for (size_t j = 0; j < e.tenants.size(); ++j) {
      const std::string tenant_at = at + ".tenants[" + std::to_string(j) + "]";
      const SecretSources& tenant_sources = sources.tenants[j];
      std::vector<Secret>& secrets = e.tenants[j].secrets;
      if (reader.Gather(tenant_sources, tenant_at, secrets, &e.signature) && needs &&
          !reader.Found(secrets, tenant_sources)) {
        report.Error(tenant_at, kNoSecret);
      }
    }
  }
}

}  // namespace hookinbox::config
