// tests/support/temp_dir.h — a fresh directory per test, removed afterwards,
// and the small file and port questions tests ask about what they made.
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

// The whole file ("" when it cannot be read).
std::string ReadWholeFile(const std::string& path);
// Whether `path` exists (a link counts, whatever it points at).
bool PathExists(const std::string& path);
// The permission bits of `path` (st_mode & 07777); 0 when it does not exist.
unsigned FileMode(const std::string& path);
// A loopback TCP port that was free a moment ago and has nothing listening:
// for "the service is not running" cases.
int ClosedLoopbackPort();

}  // namespace hookinbox::testing
