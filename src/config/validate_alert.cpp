// The cross-field rules of [alert], [[alert.channel]] and [endpoint.alert].
//
// Types, bounds, durations and sizes were checked by the loader; here each
// channel is checked against what its type needs (a destination, a sender
// and recipients, a signing secret) and the digest against the channels.
// A channel's URL is a credential (a chat webhook URL lets anyone post; an
// SMTP URL holds a password), so no message here quotes one.
#include <map>
#include <string>
#include <string_view>

#include "config/parsed.h"

namespace hookinbox::config {
namespace {

constexpr std::string_view kTypes = "email, slack, teams, discord or webhook";

bool IsChannelName(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '.' && c != '_' && c != '-') return false;
  }
  return s.front() != '.' && s.front() != '_' && s.front() != '-';
}

// A bare address (no display name): local@domain, printable ASCII, no spaces
// or the characters that would end or fold a header line.
bool IsMailAddress(std::string_view s) {
  const size_t at = s.find('@');
  if (at == 0 || at == std::string_view::npos || at + 1 >= s.size() || s.find('@', at + 1) != s.npos) return false;
  for (char c : s) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
    if (c == '<' || c == '>' || c == ',' || c == ';' || c == '"') return false;
  }
  return true;
}

// The host of scheme://[userinfo@]host[:port][/…], brackets removed.
std::string HostOf(std::string_view url) {
  size_t start = url.find("://");
  if (start == url.npos) return "";
  std::string_view rest = url.substr(start + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != rest.npos) rest.remove_prefix(at + 1);
  if (!rest.empty() && rest.front() == '[') return std::string(rest.substr(1, rest.find(']') - 1));
  return std::string(rest.substr(0, rest.find(':')));
}

bool HasControlOrSpace(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return true;
  }
  return false;
}

bool IsTimeOfDay(std::string_view s) {
  auto digit = [&](size_t i) { return s[i] >= '0' && s[i] <= '9'; };
  if (s.size() != 5 || s[2] != ':' || !digit(0) || !digit(1) || !digit(3) || !digit(4)) return false;
  return (s[0] - '0') * 10 + (s[1] - '0') < 24 && (s[3] - '0') * 10 + (s[4] - '0') < 60;
}

class AlertValidator {
 public:
  AlertValidator(const Parsed& parsed, Reporter& report) : p_(parsed), report_(report) {}

  void Run() {
    const AlertConfig& alert = p_.config.alert;
    for (size_t i = 0; i < alert.channels.size(); ++i) Channel(i);
    Digest(alert);
    if (!alert.ui_url.empty() && (alert.ui_url.rfind("http", 0) != 0 || HostOf(alert.ui_url).empty() ||
                                  HasControlOrSpace(alert.ui_url))) {
      report_.Error("alert.ui_url", "is not an http:// or https:// URL (got " + TomlQuote(alert.ui_url) + ")");
    }
  }

 private:
  void Channel(size_t i) {
    const AlertChannelConfig& c = p_.config.alert.channels[i];
    const std::string at = "alert.channel[" + std::to_string(i) + "]";
    if (!p_.Has(at + ".name")) {
      report_.Error(at, "no name: every [[alert.channel]] needs a name");
    } else if (!IsChannelName(c.name)) {
      report_.Error(at + ".name", "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    } else if (auto [it, fresh] = names_.emplace(c.name, i); !fresh) {
      report_.Error(at + ".name", "duplicate channel name " + TomlQuote(c.name) + " (also alert.channel[" +
                                      std::to_string(it->second) + "])");
    }
    if (c.type.empty()) {
      report_.Error(at, "no type: set type to " + std::string(kTypes));
      return;
    }
    const bool email = c.type == "email";
    Sources(at, "url", !email);
    Sources(at, "smtp_url", email);
    if (email) {
      Email(c, at);
    } else {
      for (const char* key : {"from", "to"}) Unused(at, key, "only email channels have it");
    }
    if (c.type != "webhook") {
      for (const char* key : {"secret_env", "secret_file"}) Unused(at, key, "only webhook channels are signed");
    } else if (!p_.Has(at + ".secret_env") && !p_.Has(at + ".secret_file")) {
      report_.Error(at, "a webhook channel needs secret_env or secret_file: the receiver checks each alert with "
                        "it (Standard Webhooks); generate one with: echo whsec_$(openssl rand -base64 32)");
    }
    if (p_.Has(at + ".secret_env") && p_.Has(at + ".secret_file")) {
      report_.Error(at + ".secret_file", "set only one of secret_env and secret_file");
    }
    if (!email && p_.Has(at + ".url")) {
      if (std::string problem = ChannelUrlProblem(c.type, p_.channel_sources[i].url); !problem.empty()) {
        report_.Error(at + ".url", problem);
      }
    }
    if (email && p_.Has(at + ".smtp_url")) {
      if (std::string problem = ChannelUrlProblem(c.type, p_.channel_sources[i].smtp_url); !problem.empty()) {
        report_.Error(at + ".smtp_url", problem);
      }
    }
  }

  // `name`, `name_env`, `name_file`: exactly one when `needed`, none otherwise.
  void Sources(const std::string& at, const std::string& name, bool needed) {
    std::vector<std::string> set;
    for (const std::string& key : {name, name + "_env", name + "_file"}) {
      if (p_.Has(at + "." + key)) set.push_back(key);
    }
    if (!needed) {
      for (const std::string& key : set) Unused(at, key, "not used by type " + TomlQuote(Type(at)));
      return;
    }
    if (set.empty()) {
      report_.Error(at, "no " + name + ": set one of " + name + ", " + name + "_env and " + name + "_file");
    } else if (set.size() > 1) {
      report_.Error(at + "." + set[1], "set only one of " + name + ", " + name + "_env and " + name + "_file");
    }
  }

  void Email(const AlertChannelConfig& c, const std::string& at) {
    if (!p_.Has(at + ".from")) {
      report_.Error(at, "an email channel needs from, e.g. from = \"hookinbox@example.com\"");
    } else if (!IsMailAddress(c.from)) {
      report_.Error(at + ".from", "is not a bare e-mail address such as hookinbox@example.com (got " +
                                      TomlQuote(c.from) + ")");
    }
    if (c.to.empty()) report_.Error(p_.Has(at + ".to") ? at + ".to" : at, "an email channel needs to = [\"…\"], at least one recipient");
    for (size_t j = 0; j < c.to.size(); ++j) {
      if (!IsMailAddress(c.to[j])) {
        report_.Error(at + ".to[" + std::to_string(j) + "]",
                      "is not a bare e-mail address such as ops@example.com (got " + TomlQuote(c.to[j]) + ")");
      }
    }
  }

  void Unused(const std::string& at, const std::string& key, const std::string& why) {
    if (p_.Has(at + "." + key)) report_.Error(at + "." + key, "not allowed here: " + why);
  }

  std::string Type(const std::string& at) const {
    const size_t i = std::stoul(at.substr(at.find('[') + 1));
    return p_.config.alert.channels[i].type;
  }

  void Digest(const AlertConfig& alert) {
    if (!alert.digest_at.empty() && !IsTimeOfDay(alert.digest_at)) {
      report_.Error("alert.digest_at", "must be a time of day \"HH:MM\" from \"00:00\" to \"23:59\" (got " +
                                           TomlQuote(alert.digest_at) + ")");
    }
    if (!alert.digest_channel.empty() && names_.count(alert.digest_channel) == 0) {
      report_.Error("alert.digest_channel", "names no [[alert.channel]] (got " + TomlQuote(alert.digest_channel) +
                                                ")");
    }
    if (!alert.digest_at.empty() && alert.channels.empty()) {
      report_.Warn("alert.digest_at", "no [[alert.channel]] is configured: the digest goes nowhere");
    }
  }

  const Parsed& p_;
  Reporter& report_;
  std::map<std::string, size_t> names_;  // channel name → its index
};

}  // namespace

std::string ChannelUrlProblem(std::string_view type, std::string_view url) {
  if (HasControlOrSpace(url)) return "holds a space or a control character";
  const std::string host = HostOf(url);
  if (type == "email") {
    if (url.rfind("smtp://", 0) != 0 && url.rfind("smtps://", 0) != 0) {
      return "must start with smtp:// (STARTTLS, port 587) or smtps:// (implicit TLS, port 465)";
    }
    return host.empty() ? "has no host" : "";
  }
  const bool loopback = host == "127.0.0.1" || host == "localhost" || host == "::1";
  if (url.rfind("https://", 0) == 0) return host.empty() ? "has no host" : "";
  if (url.rfind("http://", 0) == 0) {
    return loopback ? "" : "must be an https:// URL (http:// only for 127.0.0.1 or localhost)";
  }
  return "must be an https:// URL";
}

void ValidateAlert(const Parsed& parsed, Reporter& report) { AlertValidator(parsed, report).Run(); }

}  // namespace hookinbox::config
