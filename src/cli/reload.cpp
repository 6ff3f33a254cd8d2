// `hookinbox reload`: asks the running service to load its config file again
// (POST /admin/api/reload on its admin listener) and prints its answer.
//
// The CLI reads the same config file only to find the admin listener and the
// admin token; the service does the loading, the checks and the swap, and
// its answer says what changed, what waits for a restart, or why nothing
// changed. The token goes in the Authorization header and nowhere else.
#include <httplib.h>
#include <openssl/x509_vfy.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/local_address.h"
#include "cli/open_command.h"
#include "cli/reload_client.h"
#include "config/load.h"

namespace hookinbox::cli {
namespace {

constexpr const char* kReloadPath = "/admin/api/reload";

// Where the admin listener of the running service is, as the config says.
struct AdminTarget {
  std::string base_url;   // "https://127.0.0.1:8081"
  std::string cert_file;  // admin.tls_cert, resolved; "" = plain HTTP
};

AdminTarget TargetFor(const config::Config& cfg) {
  const bool tls = !cfg.admin.tls_cert.empty();
  return {std::string(tls ? "https" : "http") + "://" + ClientAuthority(cfg.admin.listen),
          tls ? cfg.Resolve(cfg.admin.tls_cert) : ""};
}

// Trusts admin.tls_cert's file and nothing else: as a CA, and — partial
// chains allowed — as the leaf itself, so a self-signed certificate and one
// a CA issued both verify. The host name is still checked (httplib).
X509_STORE* PinnedStore(const std::string& cert_file) {
  X509_STORE* store = X509_STORE_new();
  if (store == nullptr) return nullptr;
  X509_STORE_load_locations(store, cert_file.c_str(), nullptr);
  X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
  return store;
}

std::string WhyNoAnswer(httplib::Error error, const AdminTarget& t) {
  switch (error) {
    case httplib::Error::SSLServerVerification:
      return "its certificate did not verify against admin.tls_cert (" + t.cert_file +
             ") for this address; is that the certificate it serves?";
    case httplib::Error::SSLConnection:
      return "the TLS handshake failed; admin.tls_cert is set, so it should serve HTTPS — is `hookinbox serve` "
             "running with this config?";
    case httplib::Error::Connection: return "connection refused or unreachable — is `hookinbox serve` running?";
    case httplib::Error::Read:
    case httplib::Error::Write:
      return "the connection broke or timed out without an answer — is it `hookinbox serve` that listens there?";
    default: return httplib::to_string(error) + " — is `hookinbox serve` running?";
  }
}

ReloadReply PostReload(const AdminTarget& t, const Secret& token, const std::string& body) {
  httplib::Client client(t.base_url);
  client.set_connection_timeout(std::chrono::seconds(5));
  // The service reads every secret and may check stored keys before it answers.
  client.set_read_timeout(std::chrono::seconds(120));
  client.set_write_timeout(std::chrono::seconds(10));
  if (!t.cert_file.empty()) {
    client.enable_server_certificate_verification(true);
    client.set_ca_cert_store(PinnedStore(t.cert_file));  // the client's SSL_CTX takes ownership
  }
  httplib::Headers headers{{"Authorization", "Bearer " + std::string(token.bytes())}};
  httplib::Result res = client.Post(kReloadPath, headers, body, "application/json");
  if (!res) return {0, "", WhyNoAnswer(res.error(), t), t.base_url};
  return {res->status, res->body, "", t.base_url};
}

// "FILE:LINE: KEY: MESSAGE" for each entry of a warnings or errors list.
std::vector<std::string> ProblemLines(const nlohmann::json& list, const std::string& default_file) {
  std::vector<std::string> lines;
  if (!list.is_array()) return lines;
  for (const auto& p : list) {
    if (!p.is_object()) continue;
    config::Problem problem{p.value("key", ""), p.value("line", 0), p.value("message", "")};
    lines.push_back(config::Describe(problem, p.value("file", default_file)));
  }
  return lines;
}

std::vector<std::string> Strings(const nlohmann::json& answer, const char* field) {
  std::vector<std::string> out;
  auto it = answer.find(field);
  if (it == answer.end() || !it->is_array()) return out;
  for (const auto& s : *it) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

// The text of a reload answer (200 or 422); the exit code.
int PrintAnswer(const nlohmann::json& answer, const std::string& config_path, std::ostream& out, std::ostream& err) {
  const std::string file = answer.value("config", config_path);
  for (const auto& w : ProblemLines(answer.value("warnings", nlohmann::json::array()), file)) {
    err << "warning: " << w << "\n";
  }
  if (!answer.value("applied", false)) {
    err << "refused: nothing changed, still serving the previous config\n";
    for (const auto& e : ProblemLines(answer.value("errors", nlohmann::json::array()), file)) err << e << "\n";
    return kExitFailure;
  }
  out << "reloaded " << file << " (generation " << answer.value("generation", uint64_t{0}) << ")\n";
  const auto changed = Strings(answer, "changed");
  const auto restart = Strings(answer, "needs_restart");
  if (changed.empty() && restart.empty()) out << "changed: nothing\n";
  for (const auto& c : changed) out << "changed: " << c << "\n";
  for (const auto& r : restart) out << "needs a restart: " << r << "\n";
  return kExitOk;
}

// What the service's {"error": "…"} says, or its body as it came.
std::string ErrorText(const std::string& body) {
  nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_string()) {
    return parsed["error"].get<std::string>();
  }
  return body;
}

}  // namespace

int PrintReloadReply(const ReloadReply& reply, const std::string& config_path, bool json, const std::string& verb,
                     std::ostream& out, std::ostream& err) {
  if (reply.status == 0) {
    // No base URL: the config says too little to ask at all.
    err << verb << ": " << (reply.base_url.empty() ? "" : "cannot reach the running service at " + reply.base_url + ": ")
        << reply.error << "\n";
    return kExitFailure;
  }
  const bool answered = reply.status == 200 || reply.status == 422;
  if (json) {
    out << reply.body << (reply.body.empty() || reply.body.back() != '\n' ? "\n" : "");
    return reply.status == 200 ? kExitOk : kExitFailure;
  }
  nlohmann::json answer = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (answered && answer.is_object()) {
    try {
      return PrintAnswer(answer, config_path, out, err);
    } catch (const nlohmann::json::exception&) {
      // A field of the wrong type: reported below as an answer we cannot read.
    }
  }
  err << verb << ": the running service at " << reply.base_url << " ";
  if (answered) {
    err << "answered " << reply.status << " with a body that is not a reload answer\n";
  } else if (reply.status == 401) {
    err << "refused the admin token (401): the token " << config_path
        << " names (admin.token_env / admin.token_file) is not the one it holds — after changing the token "
           "in the file, reload once with `systemctl reload hookinbox` (SIGHUP), which needs no token\n";
  } else if (reply.status == 404) {
    err << "has no " << kReloadPath << " (404): it is older than `hookinbox reload`; restart it to load the config\n";
  } else {
    err << "answered " << reply.status << ": " << ErrorText(reply.body) << "\n";
  }
  return kExitFailure;
}

ReloadReply AskServiceToReload(const config::Config& cfg, const std::string& config_path,
                               const std::vector<std::string>& accept_key_change) {
  if (cfg.admin.token.empty()) {
    return {0, "", config_path + " sets no admin token (admin.token_env or admin.token_file), which the running "
                   "service's " + kReloadPath + " requires", ""};
  }
  auto listen = config::SplitListen(cfg.admin.listen);
  if (listen && listen->port == 0) {
    return {0, "", "admin.listen " + cfg.admin.listen +
                   " has port 0 (any free port), so the address of the running service is not known", ""};
  }
  const AdminTarget target = TargetFor(cfg);
  const std::string body = nlohmann::json{{"accept_key_change", accept_key_change}}.dump();
  return PostReload(target, cfg.admin.token, body);
}

namespace {

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

// An ENDPOINT the config does not have is a usage error: said here, before
// the service is asked.
bool KnownEndpoints(const ReloadOptions& options, const config::Config& cfg, const std::string& path,
                    std::ostream& err) {
  for (const auto& name : options.accept_key_change) {
    if (cfg.FindEndpoint(name) != nullptr) continue;
    std::vector<std::string> names;
    for (const auto& e : cfg.endpoints) names.push_back(e.name);
    err << "hookinbox reload: --accept-key-change: no endpoint named \"" << name << "\" in " << path
        << "; endpoints: " << Join(names) << "\n";
    return false;
  }
  return true;
}

}  // namespace

int RunReload(const ReloadOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  auto opened = OpenForCommand(common, {.verb = "reload", .point_to_check_config = false}, err);
  if (!opened) {
    err << "hookinbox reload: cannot use " << ConfigPath(common)
        << ", so the running service was not asked to reload: it keeps its config\n";
    return kExitFailure;
  }
  if (!KnownEndpoints(options, opened->config, opened->config_path, err)) return kExitUsage;
  const ReloadReply reply = AskServiceToReload(opened->config, opened->config_path, options.accept_key_change);
  return PrintReloadReply(reply, opened->config_path, common.json, "hookinbox reload", out, err);
}

}  // namespace hookinbox::cli
