// `hookinbox send-test ENDPOINT`: sign a sample delivery exactly as the
// endpoint's provider would (verify/sign.h) and POST it to the running server
// (or GET it, its form in the query, for a provider that delivers so: VNPay),
// so a user can check their setup without waiting for the provider.
//
// The same signed delivery is sent --times N (the 2nd+ answer "duplicate"),
// one after another or, with --concurrent, from N threads released together.
// Nothing printed contains the secret or the signature: only the URL, the
// response status and the response body.
#include <httplib.h>
#include <openssl/x509.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <latch>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/local_address.h"
#include "cli/open_command.h"
#include "verify/public_key.h"
#include "verify/sign.h"

namespace hookinbox::cli {
namespace {

struct Target {
  std::string scheme;     // "http" | "https"
  std::string authority;  // "127.0.0.1:8443"
  std::string path;       // "/hooks/demo", with "?query" when given
  std::string Url() const { return scheme + "://" + authority + path; }
};

struct Response {
  int status = 0;     // 0 = no answer
  std::string body;   // the response body, or the connection error
};

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

// `url` ("https://host:port" or a full URL) split; the hooks path is added when it has none.
Result<Target> ParseTarget(const std::string& url, const std::string& hooks_path) {
  size_t sep = url.find("://");
  if (sep == std::string::npos) return InvalidArgument("--url must start with http:// or https://");
  Target t{url.substr(0, sep), url.substr(sep + 3), ""};
  if (t.scheme != "http" && t.scheme != "https") return InvalidArgument("--url must start with http:// or https://");
  size_t slash = t.authority.find('/');
  if (slash != std::string::npos) {
    t.path = t.authority.substr(slash);
    t.authority.resize(slash);
  }
  if (t.authority.empty()) return InvalidArgument("--url has no host");
  if (t.path.empty() || t.path == "/") t.path = hooks_path;
  return t;
}

// What the server verifies {url} against: the endpoint's public_url (plus our
// query), or, without one, the URL we send to.
std::string UrlForSigning(const config::EndpointConfig& e, const Target& t) {
  if (e.public_url.empty()) return t.Url();
  size_t q = t.path.find('?');
  return q == std::string::npos ? e.public_url : e.public_url + t.path.substr(q);
}

// A trust store with the system CAs plus the server's own certificate, so the
// self-signed default that init writes verifies, and so does a CA-issued one.
X509_STORE* TrustStore(const std::string& cert_path) {
  X509_STORE* store = X509_STORE_new();
  if (store == nullptr) return nullptr;
  X509_STORE_set_default_paths(store);
  std::error_code ec;
  if (!cert_path.empty() && std::filesystem::exists(cert_path, ec)) {
    X509_STORE_load_locations(store, cert_path.c_str(), nullptr);
  }
  return store;
}

Response SendOnce(const Target& t, const verify::SignedDelivery& d, const std::string& ca_cert, bool insecure) {
  httplib::Client client(t.scheme + "://" + t.authority);
  client.set_connection_timeout(std::chrono::seconds(10));
  client.set_read_timeout(std::chrono::seconds(30));
  if (t.scheme == "https") {
    client.enable_server_certificate_verification(!insecure);
    if (!insecure) client.set_ca_cert_store(TrustStore(ca_cert));  // the client's SSL_CTX takes ownership
  }
  httplib::Headers headers;
  std::string content_type;
  for (const auto& [name, value] : d.headers) {
    if (name == "Content-Type") {
      content_type = value;
    } else {
      headers.emplace(name, value);
    }
  }
  // A signature that travels in the query (PandaDoc), or a GET's whole signed
  // form (VNPay), is added to the path.
  const std::string path =
      d.query.empty() ? t.path : t.path + (t.path.find('?') == std::string::npos ? "?" : "&") + d.query;
  httplib::Result res =
      d.method == "GET" ? client.Get(path, headers) : client.Post(path, headers, d.body, content_type);
  if (!res) {
    std::string why = httplib::to_string(res.error());
    if (t.scheme == "https" && res.error() == httplib::Error::SSLServerVerification) {
      why += " (the certificate did not verify; --insecure-tls skips the check)";
    }
    return {0, "cannot reach " + t.Url() + ": " + why};
  }
  return {res->status, res->body};
}

std::vector<Response> SendAll(const Target& t, const verify::SignedDelivery& d, const std::string& ca_cert,
                              bool insecure, int times, bool concurrent) {
  std::vector<Response> out(static_cast<size_t>(times));
  if (!concurrent) {
    for (auto& r : out) r = SendOnce(t, d, ca_cert, insecure);
    return out;
  }
  std::latch start(times);  // released together, so the copies race at the server
  std::vector<std::thread> threads;
  for (int i = 0; i < times; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      out[static_cast<size_t>(i)] = SendOnce(t, d, ca_cert, insecure);
    });
  }
  for (auto& th : threads) th.join();
  return out;
}

// The bytes of `path`, or nullopt when it cannot be read.
std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string TrimNewlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

void Print(const std::vector<Response>& responses, bool json, std::ostream& out, std::ostream& err) {
  if (json) {
    auto list = nlohmann::json::array();
    for (const auto& r : responses) {
      nlohmann::json item{{"status", r.status}};
      if (r.status == 0) {
        item["error"] = r.body;
      } else {
        nlohmann::json parsed = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
        item["body"] = parsed.is_discarded() ? nlohmann::json(r.body) : parsed;
      }
      list.push_back(std::move(item));
    }
    out << list.dump(2) << "\n";
    return;
  }
  for (const auto& r : responses) {
    if (r.status == 0) {
      err << "hookinbox send-test: " << r.body << "\n";
    } else {
      out << r.status << " " << TrimNewlines(r.body) << "\n";
    }
  }
}

}  // namespace

int RunSendTest(const SendTestOptions& opt, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  // kComplete: it signs as the endpoint's verifier checks, and trusts the
  // server's own certificate.
  auto opened = OpenForCommand(
      common, {.verb = "send-test", .check = ConfigCheck::kComplete, .point_to_check_config = false}, err);
  if (!opened) return kExitFailure;
  const config::Config& cfg = opened->config;
  const config::EndpointConfig* e = cfg.FindEndpoint(opt.endpoint);
  if (e == nullptr) {
    std::vector<std::string> names;
    for (const auto& ep : cfg.endpoints) names.push_back(ep.name);
    err << "hookinbox send-test: no endpoint named \"" << opt.endpoint << "\" in " << opened->config_path
        << "; endpoints: " << Join(names) << "\n";
    return kExitUsage;
  }

  // Tenants: which secrets, and the /hooks/{endpoint}/{tenant} path.
  const std::vector<Secret>* secrets = &e->secrets;
  std::string hooks_path = "/hooks/" + e->name;
  if (!e->tenants.empty()) {
    std::vector<std::string> ids;
    for (const auto& t : e->tenants) ids.push_back(t.id);
    const config::TenantConfig* tenant = opt.tenant.empty() ? nullptr : e->FindTenant(opt.tenant);
    if (tenant == nullptr) {
      err << "hookinbox send-test: endpoint \"" << e->name << "\" has tenants; "
          << (opt.tenant.empty() ? "pass --tenant ID" : "no tenant \"" + opt.tenant + "\"") << " (tenants: "
          << Join(ids) << ")\n";
      return kExitUsage;
    }
    secrets = &tenant->secrets;
    hooks_path += "/" + tenant->id;
  } else if (!opt.tenant.empty()) {
    err << "hookinbox send-test: endpoint \"" << e->name << "\" has no tenants; drop --tenant\n";
    return kExitUsage;
  }
  Secret secret;  // the newest non-empty one; "none" needs none; asymmetric: the --private-key PEM
  if (verify::AsymmetricKind(e->signature.scheme)) {
    // hookinbox holds only the provider's public key here (SPEC §9).
    if (opt.private_key.empty()) {
      err << "hookinbox send-test: endpoint \"" << e->name << "\" verifies " << e->signature.scheme
          << " signatures with the provider's public key, which cannot sign; pass --private-key FILE, a PEM "
             "private key whose public key the endpoint lists\n";
      return kExitUsage;
    }
    std::optional<std::string> pem = ReadWholeFile(opt.private_key);
    if (!pem) {
      err << "hookinbox send-test: cannot read --private-key " << opt.private_key << "\n";
      return kExitUsage;
    }
    secret = Secret(std::move(*pem));
  } else if (!opt.private_key.empty()) {
    err << "hookinbox send-test: endpoint \"" << e->name << "\" signs with a shared secret (scheme "
        << e->signature.scheme << "); --private-key is only for ed25519, ecdsa-p256-sha256, rsa-sha256-cert and rsa-sha256\n";
    return kExitUsage;
  }
  for (const Secret& s : *secrets) {
    if (!secret.empty()) break;
    if (!s.empty()) secret = s;
  }
  if (secret.empty() && e->signature.scheme != "none") {
    err << "hookinbox send-test: endpoint \"" << e->name << "\" has no secret to sign with\n";
    return kExitFailure;
  }

  const std::string base = opt.url.empty() ? std::string(cfg.server.plain_http ? "http" : "https") + "://" +
                                                 ClientAuthority(cfg.server.listen)
                                           : opt.url;
  Result<Target> target = ParseTarget(base, hooks_path);
  if (!target.ok()) {
    err << "hookinbox send-test: " << target.status().message() << "\n";
    return ExitFor(target.status());  // --url is malformed: a usage error
  }

  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  const std::string event_type = opt.event_type.empty() ? std::string(verify::kTestEventType) : opt.event_type;
  std::string body;
  if (!opt.body_file.empty()) {
    std::ifstream in(opt.body_file, std::ios::binary);
    if (!in) {
      err << "hookinbox send-test: cannot read " << opt.body_file << "\n";
      return kExitUsage;
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    body = bytes.str();
  } else {
    body = verify::SampleBody(*e, event_type, now_ms);
  }
  // A provider that delivers with GET (VNPay) is imitated: the signed form goes in the query.
  const std::string_view method = e->get_deliveries ? "GET" : "POST";
  Result<verify::SignedDelivery> signed_delivery =
      verify::SignDelivery(*e, secret, std::move(body), now_ms, method, UrlForSigning(*e, *target), event_type);
  if (!signed_delivery.ok()) {
    err << "hookinbox send-test: cannot sign for endpoint \"" << e->name
        << "\": " << signed_delivery.status().message() << "\n";
    return kExitFailure;
  }

  std::vector<Response> responses = SendAll(*target, *signed_delivery, cfg.Resolve(cfg.server.tls_cert),
                                            opt.insecure_tls, opt.times, opt.concurrent);
  Print(responses, common.json, out, err);
  for (const auto& r : responses) {
    if (r.status < 200 || r.status > 299) return kExitFailure;
  }
  return kExitOk;
}

}  // namespace hookinbox::cli
