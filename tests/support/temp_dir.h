// tests/support/temp_dir.h — a fresh directory per test, removed afterwards.
#pragma once

#include <string>

namespace hookinbox::testing {

class TempDir {
 public:
  TempDir();   // creates /tmp/hookinbox-test-XXXXXX (or under $TMPDIR)
  ~TempDir();  // removes it recursively
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  // Writes `content` to File(name) and returns that path.
  std::string Write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

}  // namespace hookinbox::testing
