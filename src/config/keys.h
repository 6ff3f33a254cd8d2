// config/keys.h — the one table of every configuration key.
//
// Owns: the list of keys the TOML file may contain, each with its type,
// bounds or allowed values, default and a one-line doc, and the setter that
// writes a parsed value into its field of config.h. load.cpp walks the file
// against this table (a key not in it is an error), `init` and the docs print
// it. Defaults are not written here twice: each is read back from a
// default-constructed struct of config.h, so the table cannot drift from it.
// The table knows nothing of TOML; load.cpp converts nodes to a KeyValue.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace hookinbox::config {

// kStringMap: a table whose keys are free text (event types) and whose values are strings.
// kDuration: a string such as "3d" (config/duration.h), held in ms.
// kSize: a string such as "500MB" or "10GB" (config/size.h), held in bytes.
enum class KeyType { kString, kInt, kBool, kStringArray, kTable, kTableArray, kStringMap, kDuration, kSize };

// "a string", "an integer", "true or false", "an array of strings", "a table",
// "an array of tables", "a table of strings", "a duration": how a type error
// names what was expected.
const char* KeyTypeName(KeyType type);

// Secret sources as written in the file. config.h keeps only the resolved
// Secret bytes, so the loader holds the sources here until secrets.cpp reads them.
struct SecretSources {
  std::string env;                 // secret_env
  std::string file;                // secret_file
  std::vector<std::string> envs;   // secrets_env
  std::vector<std::string> files;  // secrets_file
  bool any() const { return !env.empty() || !file.empty() || !envs.empty() || !files.empty(); }
};

// The sources of one [[endpoint]]: its own and those of each of its [[endpoint.tenants]].
struct EndpointSources {
  SecretSources secrets;
  // public_key_env / public_key_file / public_keys_env / public_keys_file, read
  // into EndpointConfig::public_keys (not secret, but resolved the same way).
  SecretSources public_keys;
  // verify_token_env / verify_token_file (only env and file are used), read
  // into EndpointConfig::verify_token for Meta's GET subscription check.
  SecretSources verify_token;
  // action.forward_secret_env / action.forward_secret_file (only env and file
  // are used), read into EndpointConfig::action.forward_secret.
  SecretSources forward_secret;
  // action.auth_secret_env / action.auth_secret_file (only env and file are
  // used), read into EndpointConfig::action.auth_secret.
  SecretSources auth_secret;
  std::vector<SecretSources> tenants;  // parallel to EndpointConfig::tenants
};

// The sources of one [[alert.channel]]'s URL, SMTP URL and signing secret,
// as written; secrets.cpp reads them into AlertChannelConfig's Secrets.
struct ChannelSources {
  std::string url, url_env, url_file;                 // chat and webhook channels
  std::string smtp_url, smtp_url_env, smtp_url_file;  // email
  SecretSources secret;                               // webhook: secret_env / secret_file
};

// Where a setter writes. Keys under [[endpoint]] need `endpoint` (and
// `sources`); keys under [[endpoint.tenants]] also need `tenant` and `tenant_sources`.
struct KeyTarget {
  Config* config = nullptr;
  EndpointConfig* endpoint = nullptr;
  EndpointSources* sources = nullptr;
  TenantConfig* tenant = nullptr;
  SecretSources* tenant_sources = nullptr;
  // Keys under [[alert.channel]] need both.
  AlertChannelConfig* channel = nullptr;
  ChannelSources* channel_sources = nullptr;
};

// A parsed value; only the member matching the key's type is meaningful.
struct KeyValue {
  std::string text;               // kString, kDuration, kSize (as written)
  int64_t number = 0;             // kInt; kDuration in ms; kSize in bytes
  bool off = false;               // `false` written for a key that allows it (KeyInfo::off_allowed)
  bool flag = false;              // kBool
  std::vector<std::string> list;  // kStringArray
  std::vector<std::pair<std::string, std::string>> map;  // kStringMap, in file order
};

struct KeyInfo {
  std::string path;           // "endpoint.signature.algorithm": arrays of tables without indices
  KeyType type = KeyType::kString;
  std::string doc;            // one line, for `init` and the docs
  std::string default_value;  // the default as TOML text ("" for tables and optional keys)
  // No default: unset means what `doc` says (worker.max_attempts: no limit;
  // endpoint.action.retry_for: worker.retry_for). default_value is then "".
  bool optional = false;
  int64_t min = 0;            // kInt: inclusive bounds
  int64_t max = 0;
  // The key may also be written `false`, which turns what it sets off (an
  // alert threshold); its default is then "false" when the field is unset.
  bool off_allowed = false;
  std::vector<std::string> allowed;  // kString: the only accepted values; empty = any
  // kString with `allowed`: the message for another value; {value} becomes the
  // value, quoted, and {allowed} the list. Empty: "must be one of {allowed} (got {value})".
  std::string rejection;
  // Writes a checked value into its field. Empty for tables and arrays of tables.
  std::function<void(const KeyTarget&, const KeyValue&)> set;
  // The field's current value as TOML text. Empty for tables and arrays of tables.
  std::function<std::string(const KeyTarget&)> get;

  // The message for a value outside `allowed` (or its bounds, for kInt).
  std::string RejectionFor(const KeyValue& value) const;
};

// Every known key, grouped by section in file order: [server], [admin],
// [storage], [worker], [alert], [[alert.channel]], [[endpoint]],
// [endpoint.signature], [endpoint.key], …, [endpoint.alert], [[endpoint.tenants]]. Built once; safe to call from any thread.
const std::vector<KeyInfo>& KnownKeys();

// The entry for `path` (without indices), or nullptr when the key is unknown.
const KeyInfo* FindKey(std::string_view path);

// `value` as a TOML basic string, quoted and escaped.
std::string TomlQuote(std::string_view value);

}  // namespace hookinbox::config
