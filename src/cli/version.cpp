#include <openssl/crypto.h>
#include <sqlite3.h>

#include "cli/commands.h"

#ifndef HOOKINBOX_VERSION
#define HOOKINBOX_VERSION "0.0.0"
#endif

namespace hookinbox::cli {

std::string VersionLine() {
  return std::string("hookinbox ") + HOOKINBOX_VERSION + " (SQLite " + sqlite3_libversion() + ", " +
         OpenSSL_version(OPENSSL_VERSION) + ")";
}

}  // namespace hookinbox::cli
