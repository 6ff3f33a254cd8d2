// tests/fuzz/fuzz_input.h — turns a fuzz input into the parts a harness needs.
//
// Inputs are text with parts separated by a line "---", so seed files are
// readable and libFuzzer's byte mutations stay meaningful (a mutated
// separator merges two parts, which is just another input). Used by every
// harness in both builds: the clang libFuzzer tree and the g++ replay
// (replay_main.cpp), so nothing here may need FuzzedDataProvider.h, which
// ships only with clang's runtime package.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

namespace hookinbox::fuzz {

inline constexpr std::string_view kPartSeparator = "\n---\n";

// A property every input must keep: when it does not, say which one and
// abort, so libFuzzer saves the input and the replay names it.
inline void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Exactly `n` parts of `text` (n >= 1): missing parts are empty; separators
// beyond the (n-1)th stay inside the last part.
inline std::vector<std::string_view> SplitParts(std::string_view text, size_t n) {
  std::vector<std::string_view> parts;
  parts.reserve(n);
  while (parts.size() + 1 < n) {
    size_t at = text.find(kPartSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + kPartSeparator.size());
  }
  parts.push_back(text);
  while (parts.size() < n) parts.emplace_back();
  return parts;
}

// Lines of `text` split on '\n' (a trailing '\r' is kept: hostile input).
inline std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// fuzz_receive's input: an HTTP-like request, parsed leniently by us (the
// real parser is the library's and is not under test here).
//   line 1: "<endpoint> [flags...]"   flags: sign, fail, chunk=<n>, cl=<n>, other
//   line 2: "<METHOD> <target>"
//   header lines "Name: value" until an empty line
//   the rest: the body, byte for byte
struct RawRequest {
  std::string_view selector;  // line 1
  std::string_view method = "POST";
  std::string_view target = "/hooks/x";
  std::vector<std::pair<std::string_view, std::string_view>> headers;
  std::string_view body;
};

inline RawRequest ParseRawRequest(std::string_view text) {
  RawRequest r;
  auto take_line = [&text]() {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  };
  r.selector = take_line();
  std::string_view request_line = take_line();
  if (size_t sp = request_line.find(' '); sp != std::string_view::npos) {
    r.method = request_line.substr(0, sp);
    r.target = request_line.substr(sp + 1);
  }
  while (!text.empty()) {
    std::string_view line = take_line();
    if (line.empty()) break;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // not a header: dropped, as a lenient reader would
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    r.headers.emplace_back(line.substr(0, colon), value);
  }
  r.body = text;
  return r;
}

// True when the space-separated `flags` contain `flag` exactly.
inline bool HasFlag(std::string_view flags, std::string_view flag) {
  for (size_t at = 0; at <= flags.size();) {
    size_t sp = flags.find(' ', at);
    if (sp == std::string_view::npos) sp = flags.size();
    if (flags.substr(at, sp - at) == flag) return true;
    at = sp + 1;
  }
  return false;
}

// The value of "name=<digits>" among the flags, or `fallback`.
inline size_t FlagNumber(std::string_view flags, std::string_view name, size_t fallback) {
  for (size_t at = flags.find(name); at != std::string_view::npos; at = flags.find(name, at + 1)) {
    bool starts_word = at == 0 || flags[at - 1] == ' ';
    size_t eq = at + name.size();
    if (!starts_word || eq >= flags.size() || flags[eq] != '=') continue;
    size_t n = 0, i = eq + 1;
    for (; i < flags.size() && flags[i] >= '0' && flags[i] <= '9' && n < (size_t{1} << 40); ++i) {
      n = n * 10 + static_cast<size_t>(flags[i] - '0');
    }
    return i == eq + 1 ? fallback : n;
  }
  return fallback;
}

}  // namespace hookinbox::fuzz
