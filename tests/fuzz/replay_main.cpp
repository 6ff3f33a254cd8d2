// tests/fuzz/replay_main.cpp — runs the fuzz targets over files, without libFuzzer.
//
// fuzz_replay CORPUS_ROOT REGRESS_ROOT [TARGET...]
// Built in the normal, asan and tsan g++ builds (ctest `fuzz_replay`), so
// every seed (CORPUS_ROOT/<target>/) and every crash ever found
// (REGRESS_ROOT/<target>/) goes through each target under all three
// sanitizers on every CI run. The harnesses' entry points are renamed per
// target by tests/fuzz/CMakeLists.txt and listed in fuzz_targets.inc.
// Fails when a target has no seed at all (a missing corpus would make the
// replay vacuous); a target without regressions is fine.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct ReplayTarget {
  const char* name;
  int (*test_one_input)(const uint8_t*, size_t);
  int (*initialize)(int*, char***);
};

}  // namespace

#include "fuzz_targets.inc"

namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every regular file under `dir`, sorted for a stable order; empty when absent.
std::vector<fs::path> FilesUnder(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.') files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool Wanted(const char* name, int argc, char** argv) {
  if (argc <= 3) return true;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_replay CORPUS_ROOT REGRESS_ROOT [TARGET...]\n");
    return 2;
  }
  int status = 0;
  for (const ReplayTarget& t : kTargets) {
    if (!Wanted(t.name, argc, argv)) continue;
    const std::vector<fs::path> seeds = FilesUnder(fs::path(argv[1]) / t.name);
    const std::vector<fs::path> regress = FilesUnder(fs::path(argv[2]) / t.name);
    if (seeds.empty()) {
      std::fprintf(stderr, "fuzz_replay: %s: no seeds in %s/%s\n", t.name, argv[1], t.name);
      status = 1;
      continue;
    }
    if (t.initialize != nullptr) t.initialize(&argc, &argv);
    const auto start = std::chrono::steady_clock::now();
    for (const auto* list : {&seeds, &regress}) {
      for (const fs::path& f : *list) {
        const std::string bytes = ReadAll(f);
        // Named before running, so a crash's last line says which file did it.
        std::fprintf(stderr, "replay %s %s\n", t.name, f.c_str());
        t.test_one_input(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      }
    }
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "fuzz_replay: %s: %zu seeds, %zu regressions, ok (%lld ms)\n", t.name, seeds.size(),
                 regress.size(), static_cast<long long>(ms));
  }
  return status;
}
