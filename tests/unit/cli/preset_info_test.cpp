// cli/preset_info.h and cli/init_provider.h: the keys a preset needs, derived
// from its fields, and the endpoint `init --provider` writes from them.
#include <catch2/catch.hpp>

#include <algorithm>

#include "cli/init_provider.h"
#include "cli/preset_info.h"
#include "verify/registry.h"

using namespace hookinbox;
using Keys = std::vector<std::string>;

namespace {

config::EndpointConfig WithScheme(std::string scheme, std::string signed_payload = "{body}") {
  config::EndpointConfig e;
  e.signature.scheme = std::move(scheme);
  e.signature.signed_payload = std::move(signed_payload);
  return e;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("presets: required keys follow the scheme, the signed payload and the handshake", "[cli][presets]") {
  CHECK(cli::RequiredKeys(WithScheme("hmac")) == Keys{"secret_file"});
  CHECK(cli::RequiredKeys(WithScheme("token")) == Keys{"secret_file"});
  CHECK(cli::RequiredKeys(WithScheme("basic")) == Keys{"secret_file"});
  // A scheme added later that is neither "none" nor asymmetric checks a secret.
  CHECK(cli::RequiredKeys(WithScheme("some-new-kind")) == Keys{"secret_file"});
  CHECK(cli::RequiredKeys(WithScheme("none")) == Keys{"insecure = true"});
  for (const char* asymmetric : {"ed25519", "ecdsa-p256-sha256", "rsa-sha256-cert"}) {
    CHECK(cli::RequiredKeys(WithScheme(asymmetric)) == Keys{"public_key_file"});
  }
  CHECK(cli::RequiredKeys(WithScheme("hmac", "{url}{body}")) == Keys{"secret_file", "public_url"});
  CHECK(cli::RequiredKeys(WithScheme("rsa-sha256-cert", "{timestamp}|{webhook_id}|{crc32}")) ==
        Keys{"public_key_file", "signature.webhook_id"});
  config::EndpointConfig meta = WithScheme("hmac");
  meta.handshake = "meta";
  CHECK(cli::RequiredKeys(meta) == Keys{"secret_file", "verify_token_file"});
  meta.handshake = "slack";  // answered without anything from the person
  CHECK(cli::RequiredKeys(meta) == Keys{"secret_file"});
}

TEST_CASE("presets: the table's own rows get the keys docs/providers.md asks for", "[cli][presets]") {
  auto required = [](const std::string& name) { return cli::FindPresetInfo(name).required; };
  CHECK(required("stripe") == Keys{"secret_file"});
  CHECK(required("twilio") == Keys{"secret_file", "public_url"});
  CHECK(required("square") == Keys{"secret_file", "public_url"});
  CHECK(required("hubspot") == Keys{"secret_file", "public_url"});
  CHECK(required("paypal") == Keys{"public_key_file", "signature.webhook_id"});
  CHECK(required("discord") == Keys{"public_key_file"});
  CHECK(required("sendgrid") == Keys{"public_key_file"});
  CHECK(required("jotform") == Keys{"insecure = true"});
  CHECK(required("meta") == Keys{"secret_file", "verify_token_file"});
  CHECK(required("postmark") == Keys{"secret_file"});
  CHECK(required("momo") == Keys{"secret_file", "signature.access_key"});
}

TEST_CASE("presets: every name and alias is listed once, aliases under their preset", "[cli][presets]") {
  std::vector<cli::PresetInfo> list = cli::ListPresets();
  std::vector<std::string> listed;
  for (const cli::PresetInfo& p : list) {
    REQUIRE(p.preset != nullptr);
    CHECK(p.preset->provider == p.name);
    CHECK(p.required == cli::RequiredKeys(*p.preset));
    listed.push_back(p.name);
    listed.insert(listed.end(), p.aliases.begin(), p.aliases.end());
  }
  std::vector<std::string> names = verify::PresetNames();
  std::sort(listed.begin(), listed.end());
  std::sort(names.begin(), names.end());
  CHECK(listed == names);

  cli::PresetInfo clerk = cli::FindPresetInfo("clerk");
  CHECK(clerk.name == "svix");
  CHECK(clerk.aliases == Keys{"clerk", "resend"});
  CHECK(cli::FindPresetInfo("meta").aliases == Keys{"facebook", "instagram", "whatsapp"});
  CHECK(cli::FindPresetInfo("standard-webhooks").aliases == Keys{"standardwebhooks"});
  CHECK(cli::FindPresetInfo("no-such-provider").preset == nullptr);
  CHECK(cli::FindPresetInfo("generic").preset == nullptr);  // not a preset
}

TEST_CASE("presets: each first-wave preset says where the provider shows its secret", "[cli][presets]") {
  for (const char* name :
       {"stripe", "github", "gitlab", "bitbucket", "shopify", "slack", "standard-webhooks", "svix", "typeform",
        "tally", "calendly", "intercom", "paddle", "square", "linear", "sentry", "vercel", "razorpay",
        "zoho-payments", "twilio", "jotform", "mollie", "woocommerce", "postmark", "pipedrive", "zendesk",
        "mailgun", "zoom", "hubspot", "meta", "discord", "sendgrid", "paypal"}) {
    INFO(name);
    CHECK_FALSE(verify::PresetSecretHint(name).empty());
    CHECK(verify::PresetSecretHint(name).find('\n') == std::string_view::npos);
  }
  CHECK(verify::PresetSecretHint("resend") == verify::PresetSecretHint("svix"));  // an alias finds its row
}

TEST_CASE("init --provider: an unknown or refused provider is an error naming `hookinbox presets`",
          "[cli][presets][init]") {
  auto unknown = cli::ProviderEndpointFor("no-such-provider");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == Code::kInvalidArgument);
  CHECK(Contains(unknown.status().message(), "hookinbox presets"));
  CHECK_FALSE(cli::ProviderEndpointFor("generic").ok());
  CHECK_FALSE(cli::ProviderEndpointFor("").ok());
  auto refused = cli::ProviderEndpointFor("discord-interactions");
  REQUIRE_FALSE(refused.ok());
  CHECK(Contains(refused.status().message(), "synchronous answer"));
}

TEST_CASE("init --provider: the endpoint names the provider, an empty 0600 secret file and the hint",
          "[cli][presets][init]") {
  auto stripe = cli::ProviderEndpointFor("stripe");
  REQUIRE(stripe.ok());
  CHECK(Contains(stripe->toml, "[[endpoint]]\nname = \"stripe\"\nprovider = \"stripe\"\n"));
  CHECK(Contains(stripe->toml, "secret_file = \"secrets/stripe.secret\""));
  CHECK(Contains(stripe->toml, "# Where stripe shows it: " + std::string(verify::PresetSecretHint("stripe"))));
  REQUIRE(stripe->files.size() == 1);
  CHECK(stripe->files[0].path == "secrets/stripe.secret");
  CHECK(stripe->files[0].content.empty());
  CHECK(stripe->files[0].mode == 0600);
  CHECK(stripe->signs_with_secret);

  // An alias names the endpoint and its provider as typed.
  auto clerk = cli::ProviderEndpointFor("clerk");
  REQUIRE(clerk.ok());
  CHECK(Contains(clerk->toml, "provider = \"clerk\""));
}

TEST_CASE("init --provider: what the person must decide or look up stays unset, so check-config refuses it",
          "[cli][presets][init]") {
  auto paypal = cli::ProviderEndpointFor("paypal");
  REQUIRE(paypal.ok());
  CHECK(Contains(paypal->toml, "public_key_file = \"secrets/paypal.public-key\""));
  CHECK(Contains(paypal->toml, "\n[endpoint.signature]\n# webhook_id = "));
  CHECK_FALSE(Contains(paypal->toml, "secret_file"));
  CHECK_FALSE(paypal->signs_with_secret);
  REQUIRE(paypal->files.size() == 1);
  CHECK(paypal->files[0].content.empty());

  auto jotform = cli::ProviderEndpointFor("jotform");
  REQUIRE(jotform.ok());
  CHECK(Contains(jotform->toml, "\n# insecure = true\n"));  // the opt-in is the person's
  CHECK_FALSE(Contains(jotform->toml, "\ninsecure"));
  CHECK(jotform->files.empty());

  auto twilio = cli::ProviderEndpointFor("twilio");
  REQUIRE(twilio.ok());
  CHECK(Contains(twilio->toml, "public_url = \"https://127.0.0.1:8443/hooks/twilio\""));

  // Meta's verify token is ours to choose: random, 0600.
  auto meta = cli::ProviderEndpointFor("meta");
  REQUIRE(meta.ok());
  REQUIRE(meta->files.size() == 2);
  CHECK(meta->files[1].path == "secrets/meta.verify-token");
  CHECK(meta->files[1].content.size() == 33);  // 16 random bytes as hex and a newline
  CHECK(meta->files[1].mode == 0600);
}
