#include "common/process_secrets.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>

namespace hookinbox {

void KeepSecretsInProcess() {
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // Belt and braces: with fs.suid_dumpable = 2 the kernel still dumps a
  // non-dumpable process (readable by root only). Under the systemd unit the
  // call fails (its filter denies setrlimit); LimitCORE=0 there does the same.
  const struct rlimit none = {0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
}

void ScrubEnvironment(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    char* value = std::getenv(name.c_str());
    if (value == nullptr) continue;
    const size_t length = std::strlen(value);
    ::unsetenv(name.c_str());
    // unsetenv only drops the pointer; the bytes stay where the kernel put them.
    ::explicit_bzero(value, length);
  }
}

}  // namespace hookinbox
