#include "cli/init.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/init_provider.h"
#include "common/secret.h"
#include "http/tls.h"
#include "store/sql_store.h"

extern const char kHookinboxDefaultToml[];  // generated from packaging/hookinbox.default.toml

namespace hookinbox::cli {

Status WriteNewFile(const std::string& path, std::string_view content, unsigned mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) return Unavailable("cannot create " + path + ": " + std::strerror(errno));
  ssize_t n = ::write(fd, content.data(), content.size());
  bool ok = n == static_cast<ssize_t>(content.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) return Unavailable("cannot write " + path);
  return Status::Ok();
}

namespace {

namespace fs = std::filesystem;

// Creates `path` with `perms` when absent. An existing directory keeps its
// mode: init must never widen access to someone's home or data directory.
Status MakeDir(const fs::path& path, fs::perms perms) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Status::Ok();
  fs::create_directories(path, ec);
  if (ec) return Unavailable("cannot create directory " + path.string() + ": " + ec.message());
  fs::permissions(path, perms, ec);
  return Status::Ok();
}

// Keeps an existing certificate pair; makes one when neither file exists.
Status EnsureCertificate(const fs::path& cert, const fs::path& key) {
  std::error_code ec;
  bool has_cert = fs::exists(cert, ec), has_key = fs::exists(key, ec);
  if (has_cert && has_key) return Status::Ok();
  if (has_cert || has_key) {
    return InvalidArgument((has_cert ? cert : key).string() + " exists without " + (has_cert ? key : cert).string() +
                           "; remove it or supply both");
  }
  return http::WriteSelfSignedCertificate(cert.string(), key.string(), http::SelfSignedOptions{});
}

// The generated config: the embedded default plus an [admin] table naming
// the admin token file init writes. The default file itself stays free of
// it, so it loads where no token file exists (a package's sample config).
// A non-empty `endpoint` (init --provider) replaces the default's demo
// endpoint, which starts at its comment block before the first [[endpoint]].
std::string GeneratedConfig(const std::string& endpoint) {
  std::string toml = kHookinboxDefaultToml;
  if (!endpoint.empty()) {
    size_t at = toml.find("[[endpoint]]");
    if (at != std::string::npos) {
      size_t block = toml.rfind("\n\n", at);
      toml.erase(block == std::string::npos ? at : block + 2);
    }
    toml += endpoint;
  }
  const std::string admin =
      "[admin]\n"
      "listen = \"127.0.0.1:8081\"        # admin listener: web UI at /admin/, API, /metrics\n"
      "token_file = \"secrets/admin.token\" # bearer token for the UI and /admin/api (written by init)\n\n";
  size_t at = toml.find("[storage]");
  toml.insert(at == std::string::npos ? toml.size() : at, admin);
  return toml;
}

// Creates `file` under `root` unless something is there (init's rule).
Status EnsureFile(const fs::path& root, const ProviderFile& file) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(root / file.path, ec))) return Status::Ok();
  return WriteNewFile(root / file.path, file.content, file.mode);
}

}  // namespace

Status Initialize(const std::string& dir, const ProviderEndpoint* provider) {
  fs::path root(dir);
  std::error_code ec;
  if (fs::exists(root / "hookinbox.toml", ec)) {
    return InvalidArgument((root / "hookinbox.toml").string() + " already exists; not overwriting it");
  }
  for (const char* sub : {"", "tls", "secrets", "data"}) {
    if (Status st = MakeDir(root / sub, fs::perms::owner_all); !st.ok()) return st;
  }
  if (Status st = EnsureCertificate(root / "tls/cert.pem", root / "tls/key.pem"); !st.ok()) return st;
  if (provider == nullptr && !fs::exists(root / "secrets/demo.secret", ec)) {
    if (Status st = WriteNewFile(root / "secrets/demo.secret", RandomHex(32) + "\n", 0600); !st.ok()) return st;
  }
  for (size_t i = 0; provider != nullptr && i < provider->files.size(); ++i) {
    if (Status st = EnsureFile(root, provider->files[i]); !st.ok()) return st;
  }
  // The admin token: 32 random bytes as hex, readable by the owner only.
  if (!fs::exists(root / "secrets/admin.token", ec)) {
    if (Status st = WriteNewFile(root / "secrets/admin.token", RandomHex(32) + "\n", 0600); !st.ok()) return st;
  }
  // The database, with its schema, exactly as serve would create it.
  auto store = store::SqlStore::Open({(root / "data/hookinbox.db").string(), 5000, 1});
  if (!store.ok()) return store.status();
  (*store)->Close();
  // Last, so a half-finished init (disk full) is simply run again.
  return WriteNewFile(root / "hookinbox.toml", GeneratedConfig(provider ? provider->toml : ""), 0644);
}

std::string Tour(const std::string& dir, const std::string& base_url) {
  std::string cert = dir + "/tls/cert.pem";
  std::string secret = dir + "/secrets/demo.secret";
  std::string url = base_url + "/hooks/demo";
  std::string out;
  out += "hookinbox is set up in " + dir + "\n";
  out += "  endpoint:    " + url + "\n";
  out += "  secret:      " + secret + " (HMAC-SHA256 key for the demo endpoint)\n";
  out += "  certificate: " + cert + " (self-signed; pass it to curl with --cacert)\n";
  out += "  database:    " + dir + "/data/hookinbox.db\n";
  out += "  admin UI:    http://127.0.0.1:8081/admin/ (sign in with the token in " + dir + "/secrets/admin.token)\n\n";
  out += "Send a signed test delivery (run it twice: the second answer is \"duplicate\"):\n\n";
  out += "  body='{\"id\":\"evt_demo_1\",\"type\":\"demo.ping\",\"data\":{\"hello\":\"world\"}}'; ts=$(date +%s); "
         "sig=$(printf '%s' \"$ts.$body\" | openssl dgst -sha256 -hmac \"$(cat " + secret +
         ")\" | sed 's/^.* //'); "
         "curl -sS --cacert " + cert + " -H 'Content-Type: application/json' -H \"X-Timestamp: $ts\" "
         "-H \"X-Signature: sha256=$sig\" --data-binary \"$body\" " + url + "; echo\n";
  return out;
}

int RunInit(const InitOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  if (!common.config_path.empty()) {
    if (!options.dir.empty() || !options.provider.empty()) {
      err << "hookinbox init: give either DIR (and --provider) or -c FILE, not both\n";
      return kExitUsage;
    }
    // Any failure is 1, also kInvalidArgument: that blames the config file, not the command line.
    Status st = InitializeFromConfig(common.config_path, out, err);
    if (!st.ok()) err << "hookinbox init: " << st.message() << "\n";
    return st.ok() ? kExitOk : kExitFailure;
  }
  // The provider before anything is written: an unknown one leaves nothing behind.
  std::optional<ProviderEndpoint> provider;
  if (!options.provider.empty()) {
    Result<ProviderEndpoint> made = ProviderEndpointFor(options.provider);
    if (!made.ok()) {
      err << "hookinbox init: " << made.status().message() << "\n";
      return kExitUsage;
    }
    provider = std::move(*made);
  }
  const std::string dir = options.dir.empty() ? "." : options.dir;
  if (Status st = Initialize(dir, provider ? &*provider : nullptr); !st.ok()) {
    err << "hookinbox init: " << st.message() << "\n";
    return kExitFailure;
  }
  std::error_code ec;
  std::string abs = fs::weakly_canonical(fs::absolute(dir), ec).string();
  if (provider) {
    out << ProviderTour(abs, options.provider, *provider);
    return kExitOk;
  }
  out << Tour(abs, "https://127.0.0.1:8443")
      << "\nStart it with: hookinbox serve -c " << abs << "/hookinbox.toml\n";
  return kExitOk;
}

}  // namespace hookinbox::cli
