#include "admin/redact.h"

#include <nlohmann/json.hpp>

#include <string_view>

#include "common/json_depth.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;

// The pointer's reference tokens, unescaped (~1 → '/', ~0 → '~').
std::vector<std::string> Tokens(std::string_view pointer) {
  std::vector<std::string> out;
  if (pointer.empty()) return out;
  size_t pos = 1;  // config validation guarantees the leading '/'
  while (true) {
    size_t next = pointer.find('/', pos);
    std::string token(pointer.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    std::string unescaped;
    for (size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        unescaped += token[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        unescaped += token[i];
      }
    }
    out.push_back(std::move(unescaped));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return out;
}

bool ArrayIndex(const std::string& token, size_t size, size_t& index) {
  if (token.empty() || token.size() > 9 || (token.size() > 1 && token[0] == '0')) return false;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
  }
  index = std::stoul(token);
  return index < size;
}

// Replaces what tokens[i..] reaches below `node`; a path that does not exist is left alone.
void Apply(json& node, const std::vector<std::string>& tokens, size_t i) {
  if (i == tokens.size()) {
    node = kRedactedValue;
    return;
  }
  const std::string& t = tokens[i];
  if (t == "*") {
    if (node.is_object() || node.is_array()) {
      for (auto& child : node) Apply(child, tokens, i + 1);
    }
  } else if (node.is_object()) {
    auto it = node.find(t);
    if (it != node.end()) Apply(*it, tokens, i + 1);
  } else if (size_t index = 0; node.is_array() && ArrayIndex(t, node.size(), index)) {
    Apply(node[index], tokens, i + 1);
  }
}

}  // namespace

ShownPayload ShowPayload(const std::string& body, const std::vector<std::string>& redact) {
  ShownPayload out;
  if (redact.empty()) {
    out.shown = true;
    out.body = body;
    return out;
  }
  // Checked before parsing, not after: parsing is iterative, but dump() below
  // recurses once per level, and a stored body a few hundred kilobytes deep
  // overflowed the stack of the serve process. Such a body
  // never passed verify::ParseJson: it was accepted as a non-JSON type.
  if (JsonNestsDeeperThan(body)) {
    out.why = "withheld: the endpoint redacts fields (endpoint.redact) and this payload nests deeper than " +
              std::to_string(kMaxJsonDepth) + " levels, too deep to redact safely";
    return out;
  }
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    out.why = "withheld: the endpoint redacts fields (endpoint.redact) and this payload is not JSON, so they "
              "cannot be removed from it";
    return out;
  }
  for (const std::string& pointer : redact) Apply(doc, Tokens(pointer), 0);
  out.shown = true;
  out.redacted = true;
  out.body = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  return out;
}

}  // namespace hookinbox::admin
