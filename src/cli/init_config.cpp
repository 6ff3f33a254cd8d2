// cli/init_config.cpp — `hookinbox init -c FILE`: create the state a config names.
//
// Design. The Debian postinst runs this on every `configure`, as root, before
// it chowns /var/lib/hookinbox to the service user; the conffile it reads
// names everything under /var/lib/hookinbox. So it must be idempotent, must
// never change what exists (an admin's certbot pair, a provider's secret, a
// database an older service may still have open during an upgrade) and must
// refuse a bad config before it creates anything. It therefore runs in two
// phases: Plan() loads the config without reading secrets and decides what is
// missing; only when the plan is sound does Apply() create it.
//
// "Missing" means lstat finds nothing, so a dangling symlink counts as present
// and is never followed: a root init must not be steered into writing outside
// the state directory by a link planted in a directory the service owns.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli/init.h"
#include "common/secret.h"
#include "config/load.h"
#include "http/tls.h"
#include "store/sql_store.h"
#include "verify/registry.h"
#include "verify/verify.h"

namespace hookinbox::cli {
namespace {

namespace fs = std::filesystem;

// A file Plan() found missing that Apply() writes with random bytes.
struct SecretToWrite {
  std::string path;
  std::string key;       // the config key naming it, for the printed line
  std::string provider;  // the endpoint's provider; "" for the admin token
};

struct InitPlan {
  std::vector<std::string> dirs;  // missing directories, each after its parent
  std::string cert, key;          // the TLS pair to make; empty when there is none to make
  std::vector<SecretToWrite> secrets;
  std::string database;  // the database file to create; empty when it exists
  bool empty() const { return dirs.empty() && cert.empty() && secrets.empty() && database.empty(); }
};

// Whether anything (even a dangling symlink) is at `path`; an error when that
// cannot be told (a parent not searchable, a file where a directory belongs).
Result<bool> Present(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  return Unavailable("cannot look at " + path + ": " + std::strerror(errno));
}

// Adds the missing ancestors of `file` to plan.dirs, outermost first, each once.
Status PlanParents(const std::string& file, InitPlan& plan) {
  std::vector<std::string> missing;
  for (fs::path dir = fs::path(file).parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
    Result<bool> present = Present(dir.string());
    if (!present.ok()) return present.status();
    if (*present) break;
    missing.push_back(dir.string());
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (std::find(plan.dirs.begin(), plan.dirs.end(), *it) == plan.dirs.end()) plan.dirs.push_back(*it);
  }
  return Status::Ok();
}

// The TLS pair: made only when neither half exists. One half alone is a
// mistake init cannot repair without overwriting or guessing (a certbot copy
// that failed half-way?), so it is an error naming both.
Status PlanCertificate(const config::ServerConfig& server, InitPlan& plan) {
  if (server.plain_http) return Status::Ok();
  Result<bool> cert = Present(server.tls_cert), key = Present(server.tls_key);
  if (!cert.ok()) return cert.status();
  if (!key.ok()) return key.status();
  if (*cert && *key) return Status::Ok();
  if (*cert || *key) {
    const std::string& has = *cert ? server.tls_cert : server.tls_key;
    const std::string& lacks = *cert ? server.tls_key : server.tls_cert;
    return InvalidArgument("server.tls_cert and server.tls_key: " + has + " exists but " + lacks +
                           " does not; supply both, or remove " + has + " to have init make a self-signed pair");
  }
  plan.cert = server.tls_cert;
  plan.key = server.tls_key;
  if (Status st = PlanParents(plan.cert, plan); !st.ok()) return st;
  return PlanParents(plan.key, plan);
}

Status PlanSecrets(const std::vector<config::SecretFile>& files, InitPlan& plan) {
  for (const config::SecretFile& f : files) {
    Result<bool> present = Present(f.path);
    if (!present.ok()) return present.status();
    bool planned = std::any_of(plan.secrets.begin(), plan.secrets.end(),
                               [&](const SecretToWrite& s) { return s.path == f.path; });
    if (*present || planned) continue;  // two endpoints sharing one file get one secret
    plan.secrets.push_back({f.path, f.key, f.provider});
    if (Status st = PlanParents(f.path, plan); !st.ok()) return st;
  }
  return Status::Ok();
}

// Only an absent file: opening an existing database would run migrations
// under a service that may still be using the old schema.
Status PlanDatabase(const std::string& path, InitPlan& plan) {
  Result<bool> present = Present(path);
  if (!present.ok()) return present.status();
  if (*present) return Status::Ok();
  plan.database = path;
  return PlanParents(path, plan);
}

// Every problem of the config, as check-config words it, joined into one message.
Status ConfigError(const std::vector<config::Problem>& problems, const std::string& path) {
  std::string message = path + " is not a valid config; nothing was created:";
  for (const config::Problem& p : problems) message += "\n  " + config::Describe(p, path);
  return InvalidArgument(message);
}

Result<InitPlan> Plan(const std::string& config_path, std::ostream& err) {
  static const config::PresetLookup presets{
      [](std::string_view name) { return verify::FindPreset(name); }, verify::PresetNames(),
      [](std::string_view name) { return std::string(verify::RefusedPresetReason(name)); }};
  config::LoadResult loaded = config::LoadFile(config_path, &presets, {.read_secrets = false, .env = nullptr});
  std::vector<config::Problem> errors = loaded.errors;
  for (size_t i = 0; loaded.ok() && i < loaded.config.endpoints.size(); ++i) {
    if (Status st = verify::CheckEndpoint(loaded.config.endpoints[i]); !st.ok()) {
      errors.push_back({"endpoint[" + std::to_string(i) + "]", 0, st.message()});
    }
  }
  if (!errors.empty()) return ConfigError(errors, config_path);
  for (const config::Problem& w : loaded.warnings) err << "warning: " << config::Describe(w, config_path) << "\n";

  const config::Config& c = loaded.config;
  InitPlan plan;
  if (Status st = PlanCertificate(c.server, plan); !st.ok()) return st;
  if (Status st = PlanSecrets(loaded.secret_files, plan); !st.ok()) return st;
  // A PostgreSQL database is created by its administrator and migrated by
  // `serve`; only an SQLite file is made here.
  if (c.storage.backend == "sqlite") {
    if (Status st = PlanDatabase(c.storage.path, plan); !st.ok()) return st;
  }
  return plan;
}

Status MakeDirectory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0) {
    return Unavailable("cannot create directory " + dir + ": " + std::strerror(errno));
  }
  // mkdir applies the umask; 0700 is exact whatever it is (it can only have narrowed it).
  ::chmod(dir.c_str(), 0700);
  return Status::Ok();
}

// A line for a created secret. A provider-issued secret cannot be made up:
// the note tells the admin to replace a random one for such an endpoint.
std::string SecretLine(const SecretToWrite& s) {
  std::string line = "created " + s.path + " (" + s.key + ", random)";
  if (!s.provider.empty() && s.provider != "generic") {
    line += "; if " + s.provider + " issues this secret, replace the file's content with it";
  }
  return line;
}

// Creates what `plan` lists, in dependency order, printing each as it is made.
// On a failure part of it may exist; running init again finishes the rest.
Status Apply(const InitPlan& plan, std::ostream& out) {
  for (const std::string& dir : plan.dirs) {
    if (Status st = MakeDirectory(dir); !st.ok()) return st;
    out << "created directory " << dir << "\n";
  }
  if (!plan.cert.empty()) {
    if (Status st = http::WriteSelfSignedCertificate(plan.cert, plan.key, http::SelfSignedOptions{}); !st.ok()) {
      return st;
    }
    out << "created " << plan.cert << " and " << plan.key << " (self-signed P-256 pair)\n";
  }
  for (const SecretToWrite& s : plan.secrets) {
    if (Status st = WriteNewFile(s.path, RandomHex(32) + "\n", 0600); !st.ok()) return st;
    out << SecretLine(s) << "\n";
  }
  if (!plan.database.empty()) {
    // Exactly as serve creates it: an O_EXCL 0600 file, then the schema.
    auto store = store::SqlStore::Open({plan.database, 5000, 1});
    if (!store.ok()) return store.status();
    (*store)->Close();
    out << "created " << plan.database << " (database, schema applied)\n";
  }
  return Status::Ok();
}

}  // namespace

Status InitializeFromConfig(const std::string& config_path, std::ostream& out, std::ostream& err) {
  Result<InitPlan> plan = Plan(config_path, err);
  if (!plan.ok()) return plan.status();
  if (plan->empty()) {
    out << config_path << ": nothing to do (every file it names exists)\n";
    return Status::Ok();
  }
  return Apply(*plan, out);
}

}  // namespace hookinbox::cli
