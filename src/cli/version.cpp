// `hookinbox --version`: one line with the version, the commit it was built
// from, and the SQLite and OpenSSL the process really runs with. The package
// links both dynamically, so an apt upgrade of libssl3 changes them under the
// same binary; when the runtime differs from the headers it was built with,
// both are shown so a bug report tells them apart.
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <sqlite3.h>

#include "cli/commands.h"

#ifndef HOOKINBOX_VERSION
#define HOOKINBOX_VERSION "0.0.0"
#endif

extern const char kHookinboxGitCommit[];  // generated: third_party/cmake/GitCommit.cmake

namespace hookinbox::cli {
namespace {

std::string SqliteVersion() {
  std::string text = std::string("SQLite ") + sqlite3_libversion();
  if (sqlite3_libversion_number() != SQLITE_VERSION_NUMBER) text += std::string(" (built ") + SQLITE_VERSION + ")";
  return text;
}

std::string OpensslVersion() {
  std::string text = OpenSSL_version(OPENSSL_VERSION);
  if (OpenSSL_version_num() != OPENSSL_VERSION_NUMBER) text += std::string(" (built ") + OPENSSL_VERSION_TEXT + ")";
  return text;
}

}  // namespace

std::string VersionLine() {
  return std::string("hookinbox ") + HOOKINBOX_VERSION + " (commit " + kHookinboxGitCommit + ", " + SqliteVersion() +
         ", " + OpensslVersion() + ")";
}

}  // namespace hookinbox::cli
