// config/parsed.h — what the loader hands to validation and secret resolution.
//
// Internal to config/: load.cpp fills a Parsed from the TOML tree (recording
// the line of every key it saw), then validate.cpp and secrets.cpp check it
// and report through a Reporter, which finds a problem's line from its key
// path. Nothing here knows toml++.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "config/keys.h"
#include "config/load.h"

namespace hookinbox::config {

struct Parsed {
  Config config;
  std::vector<EndpointSources> sources;  // parallel to config.endpoints
  std::vector<ChannelSources> channel_sources;  // parallel to config.alert.channels
  // Line of every key, table and array element present in the file, by its
  // indexed path ("endpoint[0].key.fields[1]").
  std::map<std::string, int, std::less<>> lines;

  // True when `path` was written in the file (rather than left at its default).
  bool Has(std::string_view path) const { return lines.find(path) != lines.end(); }
  // The line of `path`, or of its nearest enclosing key present in the file; 0 when none.
  int LineOf(std::string_view path) const;
};

// Collects problems into a LoadResult, finding each one's line from its key.
class Reporter {
 public:
  Reporter(const Parsed& parsed, LoadResult& out) : parsed_(parsed), out_(out) {}
  void Error(std::string key, std::string message) { ErrorAt(key, parsed_.LineOf(key), std::move(message)); }
  void Warn(std::string key, std::string message);
  void ErrorAt(std::string key, int line, std::string message);

 private:
  const Parsed& parsed_;
  LoadResult& out_;
};

// Why `conninfo` cannot be a libpq connection string (URL or keyword form),
// or "" when its form fits; never quotes it (it may hold a password). validate.cpp.
std::string ConninfoProblem(std::string_view conninfo);

// Cross-field rules (validate.cpp). Types and single-key bounds were checked by the loader.
void Validate(const Parsed& parsed, Reporter& report);

// The rules of [alert], [[alert.channel]] and [endpoint.alert] (validate_alert.cpp).
void ValidateAlert(const Parsed& parsed, Reporter& report);

// The rules of what handlers and destinations see (validate_handlers.cpp):
// admin.handler_api_listen / handler_api_url and [endpoint.action] auth.
void ValidateHandlerAccess(const Parsed& parsed, Reporter& report);

// Shared single-value checks of validate.cpp.
// Why `listen` is not host:port, or "" when it is.
std::string ListenProblem(std::string_view listen);
// An http:// or https:// URL with a host and no spaces or control characters.
bool IsHttpUrl(const std::string& url);
// An RFC 9110 field name: one or more tchar.
bool IsHeaderName(std::string_view s);

// Why `url` cannot be the destination of a channel of `type` ("email": an
// smtp:// or smtps:// URL; otherwise https://, or http:// to 127.0.0.1 or
// localhost), or "" when it can. Never quotes the URL (it is a credential).
std::string ChannelUrlProblem(std::string_view type, std::string_view url);

// Reads every secret the endpoints and tenants name into their `secrets`, and
// checks the admin token resolves without keeping it (secrets.cpp). With
// `read_values` false it checks only how each source is written and reads
// none (LoadOptions::read_secrets). `env` null: getenv (LoadOptions::env).
// `now_ms` (LoadOptions::now_ms): a rotated-out secret whose end is past it
// is warned about; 0 = no such warning.
void ResolveSecrets(Parsed& parsed, Reporter& report, bool read_values = true,
                    const std::function<const char*(const std::string&)>& env = nullptr, int64_t now_ms = 0);

// The outcome of reading a small file (files.cpp).
struct FileContent {
  bool ok = false;
  std::string bytes;    // the content when ok
  std::string error;    // why not, e.g. "No such file or directory"
  unsigned mode = 0;    // permission bits (st_mode & 07777)
};

// `text` without the one final newline ("\n" or "\r\n") editors and `echo`
// add to a secret file: it is never part of the secret.
std::string_view WithoutFinalNewline(std::string_view text);

// Reads the regular file `path` if it is at most `max_bytes` long.
FileContent ReadSmallFile(const std::string& path, size_t max_bytes);

// Why the regular file `path` cannot be opened for reading, or "" when it can. Reads nothing.
std::string UnreadableReason(const std::string& path);

}  // namespace hookinbox::config
