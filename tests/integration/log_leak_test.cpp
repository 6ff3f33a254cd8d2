// The log-leak check: runs after the integration suite
// (ctest fixture integration_log, FIXTURES_CLEANUP) and greps every server
// log the suite wrote (integration-<pid>.log, appended by the harness) for
// every secret, token, signature and payload the suite registered
// (integration-markers-<pid>.txt). It also checks that each log line a
// server wrote is one JSON object with ts, level and event.
#include <catch2/catch.hpp>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

struct File {
  std::string name, text;
};

std::vector<File> FilesLike(const std::string& dir, const std::string& prefix, const std::string& suffix) {
  std::vector<File> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0 || name.size() < suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    std::ifstream in(dir + "/" + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back({name, ss.str()});
  }
  ::closedir(d);
  return out;
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::vector<std::string> Markers(const std::vector<File>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    std::istringstream in(f.text);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) out.push_back(Unhex(line));
    }
  }
  return out;
}

// "file: marker #i (n bytes) found" for every marker some log contains. One
// pass per log: the k bytes at each position (k = the shortest marker's
// length, at most 16) are looked up among the markers' first k bytes, and
// only those markers compared — thousands of markers over megabytes of logs.
std::vector<std::string> Leaks(const std::vector<File>& logs, const std::vector<std::string>& markers) {
  size_t k = 16;
  for (const auto& m : markers) {
    if (!m.empty()) k = std::min(k, m.size());
  }
  std::unordered_map<std::string_view, std::vector<size_t>> by_start;
  for (size_t i = 0; i < markers.size(); ++i) {
    if (!markers[i].empty()) by_start[std::string_view(markers[i]).substr(0, k)].push_back(i);
  }
  std::vector<std::string> out;
  for (const auto& log : logs) {
    const std::string_view text(log.text);
    std::vector<bool> found(markers.size(), false);
    for (size_t at = 0; at + k <= text.size(); ++at) {
      const auto candidates = by_start.find(text.substr(at, k));
      if (candidates == by_start.end()) continue;
      for (size_t i : candidates->second) {
        if (text.substr(at).starts_with(markers[i])) found[i] = true;
      }
    }
    for (size_t i = 0; i < markers.size(); ++i) {
      if (!found[i]) continue;
      // Name the marker by its start only: the report must not print a whole secret.
      out.push_back(log.name + ": marker #" + std::to_string(i) + " (" + std::to_string(markers[i].size()) +
                    " bytes, starts " + markers[i].substr(0, 6) + "…) found");
    }
  }
  return out;
}

}  // namespace

TEST_CASE("log leak: the check itself finds a planted marker", "[log_leak]") {
  std::vector<File> logs = {{"a.log", "{\"event\":\"x\"}\n{\"event\":\"delivery\",\"ua\":\"whsec_PLANTED\"}\n"}};
  CHECK(Leaks(logs, {"whsec_PLANTED"}).size() == 1);
  CHECK(Leaks(logs, {"not-there"}).empty());
  // Markers of different lengths sharing a start; one at the very end of a log.
  CHECK(Leaks(logs, {"whsec_PLANTED\"}", "whsec_PLANTEX", "wh", "ua"}).size() == 3);
  CHECK(Leaks({{"b.log", "abc"}}, {"bc", "abcd"}).size() == 1);
  CHECK(Unhex("7b0a7d") == "{\n}");
}

TEST_CASE("log leak: no secret, token, signature or payload the suite used is in any server log", "[log_leak]") {
  const std::string dir = HOOKINBOX_SUITE_LOG_DIR;
  std::vector<File> logs = FilesLike(dir, "integration-", ".log");
  std::vector<std::string> markers = Markers(FilesLike(dir, "integration-markers-", ".txt"));
  size_t bytes = 0;
  for (const auto& l : logs) bytes += l.text.size();
  INFO(logs.size() << " logs, " << bytes << " bytes, " << markers.size() << " markers in " << dir);
  // An empty log or no markers means the suite did not run (or the harness
  // stopped archiving): that must fail rather than pass vacuously.
  REQUIRE(bytes > 10000);
  REQUIRE(markers.size() >= 20);
  std::vector<std::string> leaks = Leaks(logs, markers);
  for (const auto& leak : leaks) UNSCOPED_INFO(leak);
  CHECK(leaks.empty());
}

TEST_CASE("log leak: every line a server logged is one JSON object with ts, level and event", "[log_leak]") {
  std::vector<File> logs = FilesLike(HOOKINBOX_SUITE_LOG_DIR, "integration-", ".log");
  size_t json_lines = 0;
  std::vector<std::string> bad;
  for (const auto& log : logs) {
    std::istringstream in(log.text);
    std::string line;
    while (std::getline(in, line)) {
      // The harness captures stdout too: the first-run tour and CLI-style
      // error messages are plain text by design. JSON lines start with '{'.
      if (line.empty() || line[0] != '{') continue;
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("ts") || !j.contains("level") || !j.contains("event")) {
        if (bad.size() < 5) bad.push_back(log.name + ": " + line.substr(0, 200));
        continue;
      }
      ++json_lines;
    }
  }
  for (const auto& b : bad) UNSCOPED_INFO(b);
  CHECK(bad.empty());
  CHECK(json_lines > 100);
}
