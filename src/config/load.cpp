// TOML → Config: the only toml++ user.
//
// Loading runs in four passes over one Parsed, each reporting every problem
// it finds rather than stopping at the first:
//   1. parse (a syntax error ends loading: there is no tree to check);
//   2. walk the tree against the key table (keys.cpp): unknown keys, wrong
//      types, out-of-range numbers and disallowed values are errors; good
//      values are written into the structs, and every key's line is recorded.
//      An endpoint whose `provider` names a preset starts from the preset
//      before any of its keys is applied, wherever `provider` sits in it;
//      the user's keys then override the preset's values;
//   3. resolve relative paths against the config file's directory;
//   4. cross-field rules (validate.cpp) and secrets (secrets.cpp).
// toml++ throws on syntax errors; the throw is caught here and becomes a Problem.
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "config/duration.h"
#include "config/load.h"
#include "config/parsed.h"
#include "config/rotation.h"
#include "config/size.h"

namespace hookinbox::config {
namespace {

// A config file this large is a mistake (a log or a database named by -c).
constexpr size_t kMaxConfigBytes = 16 << 20;

int LineOf(const toml::source_region& where) { return static_cast<int>(where.begin.line); }

std::string Join(std::string_view prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : std::string(prefix) + "." + std::string(name);
}

std::string Index(std::string_view path, size_t i) { return std::string(path) + "[" + std::to_string(i) + "]"; }

const char* NodeTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array:
      return node.as_array()->is_array_of_tables() ? "an array of tables" : "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "unknown key", with the closest known key of the same table when one is near.
std::string UnknownKeyMessage(std::string_view table, std::string_view name) {
  const KeyInfo* best = nullptr;
  size_t best_distance = 3;  // suggest only for typos of at most two edits
  for (const KeyInfo& key : KnownKeys()) {
    std::string_view path = key.path;
    size_t dot = path.rfind('.');
    std::string_view parent = dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
    std::string_view leaf = dot == std::string_view::npos ? path : path.substr(dot + 1);
    if (parent != table) continue;
    size_t d = EditDistance(name, leaf);
    if (d < best_distance && d < leaf.size()) {
      best = &key;
      best_distance = d;
    }
  }
  if (best == nullptr) return "unknown key";
  return "unknown key; did you mean \"" + best->path.substr(best->path.rfind('.') + 1) + "\"?";
}

class Walker {
 public:
  Walker(Parsed& parsed, Reporter& report, const PresetLookup* presets)
      : parsed_(parsed), report_(report), presets_(presets) {}

  // Checks and applies every key of `table`, whose schema path (no indices) is
  // `schema` and whose indexed path is `at`.
  void Table(const toml::table& table, const std::string& schema, const std::string& at, const KeyTarget& target) {
    for (auto&& [name, node] : table) {
      int line = LineOf(name.source()) > 0 ? LineOf(name.source()) : LineOf(node.source());
      std::string key_at = Join(at, name.str());
      parsed_.lines[key_at] = line;
      // A quoted key such as "tls.cert" would otherwise look like a nested path.
      const KeyInfo* info = name.str().find_first_of(".[]") == std::string_view::npos
                                ? FindKey(Join(schema, name.str()))
                                : nullptr;
      if (info == nullptr) {
        report_.ErrorAt(key_at, line, UnknownKeyMessage(schema, name.str()));
      } else if (!HasType(*info, node)) {
        report_.ErrorAt(key_at, line, TypeMessage(*info, node));
      } else if (info->type == KeyType::kTable) {
        Table(*node.as_table(), info->path, key_at, target);
      } else if (info->type == KeyType::kTableArray) {
        TableArray(*info, *node.as_array(), key_at, target);
      } else if (auto value = Convert(*info, node, key_at, line)) {
        info->set(target, *value);
      }
    }
  }

 private:
  static bool HasType(const KeyInfo& info, const toml::node& node) {
    if (info.off_allowed && node.is_boolean()) return true;  // `false`; Convert refuses `true`
    switch (info.type) {
      case KeyType::kString: return node.is_string();
      case KeyType::kInt: return node.is_integer();
      case KeyType::kBool: return node.is_boolean();
      case KeyType::kStringArray: return node.is_array();  // elements are checked one by one
      case KeyType::kTable: return node.is_table();
      case KeyType::kTableArray: return node.is_array_of_tables();
      case KeyType::kStringMap: return node.is_table();
      case KeyType::kDuration: return node.is_string();
      case KeyType::kSize: return node.is_string();
    }
    return false;
  }

  static std::string TypeMessage(const KeyInfo& info, const toml::node& node) {
    std::string expected = KeyTypeName(info.type);
    if (info.type == KeyType::kTableArray) expected += ", written [[" + info.path + "]]";
    if (info.type == KeyType::kDuration) expected += " such as \"3d\"";
    if (info.type == KeyType::kSize) expected += " such as \"1GB\"";
    if (info.off_allowed) expected += ", or false to turn it off";
    if (info.type == KeyType::kTable || info.type == KeyType::kStringMap) {
      expected += ", written [" + info.path + "]";
    }
    return "must be " + expected + ", not " + NodeTypeName(node);
  }

  // The checked value of a scalar or string-array key, or nullopt after reporting why not.
  std::optional<KeyValue> Convert(const KeyInfo& info, const toml::node& node, const std::string& at, int line) {
    KeyValue value;
    if (info.off_allowed && node.is_boolean()) {
      if (node.as_boolean()->get()) {
        report_.ErrorAt(at, line, "may be false (off) but not true: write the threshold itself to turn it on");
        return std::nullopt;
      }
      value.off = true;
      return value;
    }
    switch (info.type) {
      case KeyType::kString:
        value.text = node.as_string()->get();
        if (info.path == "endpoint.provider" && presets_ != nullptr) {
          // The table row allows only "generic"; the presets come from the lookup.
          KeyInfo widened = info;
          widened.allowed.insert(widened.allowed.end(), presets_->names.begin(), presets_->names.end());
          if (std::find(widened.allowed.begin(), widened.allowed.end(), value.text) == widened.allowed.end()) {
            std::string refused = presets_->refused ? presets_->refused(value.text) : std::string();
            report_.ErrorAt(at, line, refused.empty() ? widened.RejectionFor(value) : refused);
            return std::nullopt;
          }
        } else if (!info.allowed.empty() &&
                   std::find(info.allowed.begin(), info.allowed.end(), value.text) == info.allowed.end()) {
          report_.ErrorAt(at, line, info.RejectionFor(value));
          return std::nullopt;
        }
        break;
      case KeyType::kInt:
        value.number = node.as_integer()->get();
        if (value.number < info.min || value.number > info.max) {
          report_.ErrorAt(at, line, info.RejectionFor(value));
          return std::nullopt;
        }
        break;
      case KeyType::kDuration: {
        value.text = node.as_string()->get();
        std::string why;
        std::optional<int64_t> ms = ParseDurationMs(value.text, &why);
        if (!ms) {
          report_.ErrorAt(at, line, "must be a duration such as \"90s\", \"30m\", \"6h\" or \"3d\": " +
                                        TomlQuote(value.text) + " " + why);
          return std::nullopt;
        }
        value.number = *ms;
        break;
      }
      case KeyType::kSize: {
        value.text = node.as_string()->get();
        std::string why;
        std::optional<int64_t> bytes = ParseSizeBytes(value.text, &why);
        if (!bytes) {
          report_.ErrorAt(at, line, "must be a size such as \"500MB\", \"1GB\" or \"10GB\": " +
                                        TomlQuote(value.text) + " " + why);
          return std::nullopt;
        }
        value.number = *bytes;
        break;
      }
      case KeyType::kBool: value.flag = node.as_boolean()->get(); break;
      case KeyType::kStringArray: {
        bool ok = true;
        const toml::array& array = *node.as_array();
        for (size_t i = 0; i < array.size(); ++i) {
          int element_line = LineOf(array[i].source()) > 0 ? LineOf(array[i].source()) : line;
          parsed_.lines[Index(at, i)] = element_line;
          if (const auto* s = array[i].as_string()) {
            value.list.push_back(s->get());
          } else {
            report_.ErrorAt(Index(at, i), element_line, std::string("must be a string, not ") + NodeTypeName(array[i]));
            ok = false;
          }
        }
        if (!ok) return std::nullopt;
        break;
      }
      case KeyType::kStringMap: {
        bool ok = true;
        for (auto&& [name, element] : *node.as_table()) {
          const std::string element_at = Join(at, std::string(name.str()));
          int element_line = LineOf(element.source()) > 0 ? LineOf(element.source()) : line;
          parsed_.lines[element_at] = element_line;
          if (const auto* s = element.as_string()) {
            value.map.emplace_back(std::string(name.str()), s->get());
          } else {
            report_.ErrorAt(element_at, element_line, std::string("must be a string, not ") + NodeTypeName(element));
            ok = false;
          }
        }
        if (!ok) return std::nullopt;
        break;
      }
      case KeyType::kTable:
      case KeyType::kTableArray: return std::nullopt;
    }
    return value;
  }

  // [[endpoint]], [[endpoint.tenants]] and [[alert.channel]]: sizes the
  // vectors, then walks each element with a target pointing at its struct.
  void TableArray(const KeyInfo& info, const toml::array& array, const std::string& at, const KeyTarget& target) {
    if (info.path == "alert.channel") {
      ChannelArray(info, array, at, target);
      return;
    }
    const bool endpoints = info.path == "endpoint";
    if (endpoints) {
      target.config->endpoints.resize(array.size());
      parsed_.sources.resize(array.size());
    } else {
      target.endpoint->tenants.resize(array.size());
      target.sources->tenants.resize(array.size());
    }
    for (size_t i = 0; i < array.size(); ++i) {
      std::string element_at = Index(at, i);
      parsed_.lines[element_at] = LineOf(array[i].source());
      KeyTarget element = target;
      if (endpoints) {
        element.endpoint = &target.config->endpoints[i];
        element.sources = &parsed_.sources[i];
        StartFromPreset(*array[i].as_table(), *element.endpoint);
      } else {
        element.tenant = &target.endpoint->tenants[i];
        element.tenant_sources = &target.sources->tenants[i];
      }
      Table(*array[i].as_table(), info.path, element_at, element);
    }
  }

  void ChannelArray(const KeyInfo& info, const toml::array& array, const std::string& at, const KeyTarget& target) {
    target.config->alert.channels.resize(array.size());
    parsed_.channel_sources.resize(array.size());
    for (size_t i = 0; i < array.size(); ++i) {
      std::string element_at = Index(at, i);
      parsed_.lines[element_at] = LineOf(array[i].source());
      KeyTarget element = target;
      element.channel = &target.config->alert.channels[i];
      element.channel_sources = &parsed_.channel_sources[i];
      Table(*array[i].as_table(), info.path, element_at, element);
    }
  }

  // An endpoint naming a known preset starts as a copy of it. An unknown name
  // is reported when the walk reaches the `provider` key.
  void StartFromPreset(const toml::table& table, EndpointConfig& endpoint) const {
    if (presets_ == nullptr || !presets_->find) return;
    const toml::node* node = table.get("provider");
    if (node == nullptr || !node->is_string()) return;
    const std::string& name = node->as_string()->get();
    if (const EndpointConfig* preset = presets_->find(name)) {
      endpoint = *preset;
      endpoint.provider = name;
    }
  }

  Parsed& parsed_;
  Reporter& report_;
  const PresetLookup* presets_;
};

// A preset's value that is one of several alternatives (where the id comes
// from, where the event type comes from) must give way when the user names
// another alternative; otherwise overriding `id_pointer` on a preset that
// uses `id_header` would read as two id sources. Keys the user wrote stay.
void DropPresetAlternatives(Parsed& parsed) {
  for (size_t i = 0; i < parsed.config.endpoints.size(); ++i) {
    EndpointConfig& e = parsed.config.endpoints[i];
    if (e.provider == "generic") continue;
    const std::string at = "endpoint[" + std::to_string(i) + "].key.";
    auto has = [&](const char* name) { return parsed.Has(at + name); };
    if (has("id_header") || has("id_pointer") || has("fields") || has("canonical_hash")) {
      if (!has("id_header")) e.key.id_header.clear();
      if (!has("id_pointer")) e.key.id_pointer.clear();
      if (!has("fields")) e.key.fields.clear();
      if (!has("canonical_hash")) e.key.canonical_hash = false;
    }
    if (has("event_type_pointer") || has("event_type_header")) e.key.event_type_member_besides.clear();
    // A preset's signature outside the headers (PandaDoc's ?signature=) moves
    // back to a header the file names, unless the file names a source itself.
    const std::string sig_at = "endpoint[" + std::to_string(i) + "].signature.";
    if (parsed.Has(sig_at + "header") && !parsed.Has(sig_at + "signature_source")) e.signature.signature_source.clear();
    if (has("event_type_pointer") && !has("event_type_header")) e.key.event_type_header.clear();
    if (has("event_type_header") && !has("event_type_pointer")) e.key.event_type_pointer.clear();
  }
}

// [endpoint.alert] overrides [alert] key by key: a threshold the endpoint
// does not write is the installation's, wherever [alert] sits in the file.
void ApplyAlertDefaults(Parsed& parsed) {
  using T = AlertThresholds;
  constexpr std::pair<const char*, std::optional<int64_t> T::*> kThresholds[] = {
      {"dead_letters", &T::dead_letters}, {"unknown", &T::unknown},
      {"conflicts", &T::conflicts},       {"backlog_age", &T::backlog_age_ms},
      {"signature_failures", &T::signature_failures}, {"silence", &T::silence_ms},
      {"breaker_open", &T::breaker_open_ms},
  };
  const T& global = parsed.config.alert.thresholds;
  for (size_t i = 0; i < parsed.config.endpoints.size(); ++i) {
    const std::string at = "endpoint[" + std::to_string(i) + "].alert.";
    T& own = parsed.config.endpoints[i].alert;
    for (const auto& [name, field] : kThresholds) {
      if (!parsed.Has(at + name)) own.*field = global.*field;
    }
  }
}

// Paths in the file are relative to the file's directory (SPEC §9); the
// defaults are too, so `serve` finds tls/ and data/ next to its config
// whatever the working directory. Secret files are resolved when read.
void ResolvePaths(Config& c) {
  c.server.tls_cert = c.Resolve(c.server.tls_cert);
  c.server.tls_key = c.Resolve(c.server.tls_key);
  c.storage.path = c.Resolve(c.storage.path);
  c.admin.token_file = c.Resolve(c.admin.token_file);
  if (!c.admin.tls_cert.empty()) c.admin.tls_cert = c.Resolve(c.admin.tls_cert);
  if (!c.admin.tls_key.empty()) c.admin.tls_key = c.Resolve(c.admin.tls_key);
  for (EndpointConfig& e : c.endpoints) {
    if (!e.action.ca_file.empty()) e.action.ca_file = c.Resolve(e.action.ca_file);
    if (!e.action.command.empty() && !e.action.command[0].empty()) e.action.command[0] = c.Resolve(e.action.command[0]);
  }
  for (AlertChannelConfig& channel : c.alert.channels) {
    if (!channel.ca_file.empty()) channel.ca_file = c.Resolve(channel.ca_file);
  }
}

// The secret files init may create, resolved the way secrets.cpp resolves them when it reads them.
std::vector<SecretFile> SecretFiles(const Parsed& parsed) {
  const Config& c = parsed.config;
  std::vector<SecretFile> files;
  if (!c.admin.token_file.empty()) files.push_back({"admin.token_file", c.admin.token_file, ""});
  for (size_t i = 0; i < c.endpoints.size() && i < parsed.sources.size(); ++i) {
    const std::string at = "endpoint[" + std::to_string(i) + "]";
    const EndpointSources& sources = parsed.sources[i];
    const std::string& provider = c.endpoints[i].provider;
    if (!sources.secrets.file.empty()) {
      files.push_back({at + ".secret_file", c.Resolve(sources.secrets.file), provider});
    }
    for (size_t j = 0; j < sources.tenants.size(); ++j) {
      if (sources.tenants[j].file.empty()) continue;
      files.push_back({at + ".tenants[" + std::to_string(j) + "].secret_file", c.Resolve(sources.tenants[j].file),
                       provider});
    }
  }
  return files;
}

void AddSources(const SecretSources& s, SecretOrigins& out) {
  if (!s.env.empty()) out.env_names.push_back(s.env);
  out.env_names.insert(out.env_names.end(), s.envs.begin(), s.envs.end());
  if (!s.file.empty()) {
    out.files.push_back(s.file);
    // A rotation keeps the previous secret beside it (config/rotation.h);
    // covered whether or not it exists yet, since a rotation may begin later.
    out.files.push_back(PreviousSecretFile(s.file));
  }
  out.files.insert(out.files.end(), s.files.begin(), s.files.end());
}

// Every *_env variable and secret-bearing file the config names. Public keys'
// variables are included (nothing needs them once read), their files are not.
SecretOrigins SecretOriginsOf(const Parsed& parsed) {
  const Config& c = parsed.config;
  SecretOrigins out;
  for (const std::string* env : {&c.admin.token_env, &c.admin.metrics_token_env, &c.storage.url_env}) {
    if (!env->empty()) out.env_names.push_back(*env);
  }
  for (const std::string* file : {&c.admin.token_file, &c.server.tls_key, &c.admin.tls_key, &c.storage.url_file}) {
    if (!file->empty()) out.files.push_back(*file);
  }
  for (const EndpointSources& e : parsed.sources) {
    for (const SecretSources* s : {&e.secrets, &e.verify_token, &e.forward_secret, &e.auth_secret}) AddSources(*s, out);
    for (const SecretSources& tenant : e.tenants) AddSources(tenant, out);
    out.env_names.push_back(e.public_keys.env);
    out.env_names.insert(out.env_names.end(), e.public_keys.envs.begin(), e.public_keys.envs.end());
  }
  for (const ChannelSources& channel : parsed.channel_sources) {
    for (const std::string* env : {&channel.url_env, &channel.smtp_url_env, &channel.secret.env}) {
      out.env_names.push_back(*env);
    }
    for (const std::string* file : {&channel.url_file, &channel.smtp_url_file, &channel.secret.file}) {
      if (!file->empty()) out.files.push_back(*file);
    }
  }
  for (std::string& file : out.files) file = c.Resolve(file);
  std::erase(out.env_names, std::string());
  return out;
}

void SortByLine(std::vector<Problem>& problems) {
  std::stable_sort(problems.begin(), problems.end(),
                   [](const Problem& a, const Problem& b) { return a.line < b.line; });
}

}  // namespace

int Parsed::LineOf(std::string_view path) const {
  while (!path.empty()) {
    if (auto it = lines.find(path); it != lines.end()) return it->second;
    size_t cut = path.find_last_of(".[");
    if (cut == std::string_view::npos) break;
    path = path.substr(0, cut);
  }
  return 0;
}

void Reporter::ErrorAt(std::string key, int line, std::string message) {
  out_.errors.push_back(Problem{std::move(key), line, std::move(message)});
}

void Reporter::Warn(std::string key, std::string message) {
  int line = parsed_.LineOf(key);
  out_.warnings.push_back(Problem{std::move(key), line, std::move(message)});
}

LoadResult LoadString(std::string_view toml, const std::string& source_name, const std::string& base_dir,
                      const PresetLookup* presets, const LoadOptions& options) {
  LoadResult result;
  toml::table root;
  try {
    root = toml::parse(toml, std::string_view(source_name));
  } catch (const toml::parse_error& e) {
    result.errors.push_back(Problem{"", LineOf(e.source()), "TOML syntax error: " + std::string(e.description())});
    return result;
  }

  Parsed parsed;
  parsed.config.base_dir = base_dir;
  Reporter report(parsed, result);
  Walker(parsed, report, presets).Table(root, "", "", KeyTarget{&parsed.config});
  DropPresetAlternatives(parsed);
  ApplyAlertDefaults(parsed);
  ResolvePaths(parsed.config);
  Validate(parsed, report);
  ValidateAlert(parsed, report);
  ValidateHandlerAccess(parsed, report);
  ResolveSecrets(parsed, report, options.read_secrets, options.env, options.now_ms);
  result.secret_files = SecretFiles(parsed);
  parsed.config.secret_origins = SecretOriginsOf(parsed);

  SortByLine(result.errors);
  SortByLine(result.warnings);
  result.config = std::move(parsed.config);
  return result;
}

LoadResult LoadFile(const std::string& path, const PresetLookup* presets, const LoadOptions& options) {
  FileContent file = ReadSmallFile(path, kMaxConfigBytes);
  if (!file.ok) {
    LoadResult result;
    result.errors.push_back(Problem{"", 0, "cannot read config file " + path + ": " + file.error});
    return result;
  }
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  std::string base_dir = ec ? std::string() : absolute.lexically_normal().parent_path().string();
  LoadResult result = LoadString(file.bytes, path, base_dir, presets, options);
  result.config.path = path;
  return result;
}

std::string Describe(const Problem& p, const std::string& source_name) {
  std::string out = source_name;
  if (p.line > 0) out += ":" + std::to_string(p.line);
  out += ": ";
  if (!p.key.empty()) out += p.key + ": ";
  return out + p.message;
}

}  // namespace hookinbox::config
