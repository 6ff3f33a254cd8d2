// The endpoint `init --provider` writes (cli/init_provider.h).
//
// Design. The config must fail closed until the person has done their part:
// the secret file is created empty (check-config refuses an empty secret, so
// nothing is verified against a made-up value), a public key file likewise,
// PayPal's webhook_id is written commented out, and `insecure = true` for a
// provider that signs nothing is left for the person to uncomment — that
// opt-in is theirs to make, not init's. Only public_url gets a value, the
// local URL the tour sends to: a wrong public_url fails closed too (every
// signature over it mismatches), and it makes `send-test` work at once.
#include "cli/init_provider.h"

#include <algorithm>

#include "cli/preset_info.h"
#include "common/secret.h"
#include "verify/registry.h"

namespace hookinbox::cli {
namespace {

bool Requires(const PresetInfo& info, std::string_view key) {
  return std::find(info.required.begin(), info.required.end(), key) != info.required.end();
}

// A hint is preset data: kept on one comment line whatever it holds.
std::string OneLine(std::string text) {
  std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return text;
}

}  // namespace

Result<ProviderEndpoint> ProviderEndpointFor(std::string_view name) {
  const std::string quoted = "\"" + std::string(name) + "\"";
  if (std::string_view reason = verify::RefusedPresetReason(name); !reason.empty()) {
    return InvalidArgument("provider " + quoted + " is refused: " + std::string(reason));
  }
  const PresetInfo info = FindPresetInfo(name);
  if (info.preset == nullptr) {
    return InvalidArgument("unknown provider " + quoted + "; `hookinbox presets` lists every provider it knows");
  }
  // Only the table's own names get here, so `n` is safe in TOML strings and paths.
  const std::string n(name);
  ProviderEndpoint out;
  out.secret_hint = OneLine(info.secret_hint);
  out.signs_with_secret = Requires(info, "secret_file");
  std::string& t = out.toml;
  t += "# An endpoint for " + n + ", written by `hookinbox init --provider " + n + "`.\n";
  t += "# Give " + n + " the URL https://<your host>/hooks/" + n + " (docs/providers.md, section " + info.name +
       ").\n";
  if (!info.secret_hint.empty()) t += "# Where " + n + " shows it: " + OneLine(info.secret_hint) + "\n";
  t += "[[endpoint]]\n";
  t += "name = \"" + n + "\"\n";
  t += "provider = \"" + n + "\"\n";
  if (Requires(info, "secret_file")) {
    const std::string path = "secrets/" + n + ".secret";
    t += "secret_file = \"" + path + "\"   # created empty (0600): paste the secret into it, exactly as shown\n";
    out.files.push_back({path, "", 0600, "empty: paste " + n + "'s secret into it"});
    out.next_steps.push_back("paste " + n + "'s secret into " + path);
  }
  if (Requires(info, "public_key_file")) {
    const std::string path = "secrets/" + n + ".public-key";
    t += "public_key_file = \"" + path + "\"   # created empty: paste " + n + "'s public key into it, as shown\n";
    out.files.push_back({path, "", 0644, "empty: paste " + n + "'s public key into it"});
    out.next_steps.push_back("paste " + n + "'s public key into " + path);
  }
  if (Requires(info, "insecure = true")) {
    t += "# " + n + " signs nothing: deliveries cannot be authenticated. Uncomment to accept them anyway,\n"
         "# and protect the endpoint otherwise (an unguessable name, an IP allow-list at a proxy).\n"
         "# insecure = true\n";
    out.next_steps.push_back("decide on insecure = true: " + n + " signs nothing");
  }
  if (Requires(info, "public_url")) {
    t += "# " + n + " signs the URL it calls: replace this with exactly the URL you give " + n + ".\n";
    t += "public_url = \"https://127.0.0.1:8443/hooks/" + n + "\"\n";
    out.next_steps.push_back("set public_url to the exact URL you give " + n);
  }
  if (Requires(info, "verify_token_file")) {
    const std::string path = "secrets/" + n + ".verify-token";
    t += "verify_token_file = \"" + path + "\"   # random: paste it as the \"Verify token\" in " + n +
         "'s webhook settings\n";
    out.files.push_back({path, RandomHex(16) + "\n", 0600, "random: the Verify token to paste into " + n});
  }
  std::string signature_lines;  // commented out: check-config refuses the endpoint until they are set
  if (Requires(info, "signature.webhook_id")) {
    signature_lines += "# webhook_id = \"\"   # required: the Webhook ID " + n + " shows for this webhook (it is signed)\n";
    out.next_steps.push_back("set [endpoint.signature] webhook_id to the Webhook ID " + n + " shows");
  }
  if (Requires(info, "signature.access_key")) {
    signature_lines += "# access_key = \"\"   # required: the access key " + n + " gave you with the secret (it is signed)\n";
    out.next_steps.push_back("set [endpoint.signature] access_key to the access key " + n + " gave you");
  }
  if (!signature_lines.empty()) t += "\n[endpoint.signature]\n" + signature_lines;
  return out;
}

std::string ProviderTour(const std::string& dir, std::string_view name, const ProviderEndpoint& endpoint) {
  const std::string n(name);
  const std::string config = dir + "/hookinbox.toml";
  std::string out = "hookinbox is set up in " + dir + " with an endpoint for " + n + "\n";
  out += "  endpoint:    https://127.0.0.1:8443/hooks/" + n + " (give " + n + " https://<your host>/hooks/" + n + ")\n";
  if (!endpoint.secret_hint.empty()) out += "  secret:      " + endpoint.secret_hint + "\n";
  for (const ProviderFile& f : endpoint.files) out += "  file:        " + dir + "/" + f.path + " (" + f.what + ")\n";
  out += "  certificate: " + dir + "/tls/cert.pem (self-signed; replace it with one " + n + " trusts)\n";
  out += "  admin UI:    http://127.0.0.1:8081/admin/ (sign in with the token in " + dir + "/secrets/admin.token)\n";
  if (!endpoint.next_steps.empty()) {
    out += "\nBefore it starts (check-config says what is still missing):\n";
    for (const std::string& step : endpoint.next_steps) out += "  - " + step + "\n";
  }
  out += "\nThen:\n  hookinbox check-config -c " + config + "\n  hookinbox serve -c " + config + "\n";
  if (endpoint.signs_with_secret) {
    out += "  hookinbox send-test " + n + " -c " + config + "   # a sample signed as " + n +
           " would sign it\n";
  }
  return out;
}

}  // namespace hookinbox::cli
