// common/process_secrets.h — keeping secrets inside this process.
//
// hookinbox holds in memory every secret it verifies or signs with, the
// admin token and the storage URL. Another process of the same user — an
// exec action's command first of all — must not be able to read them from
// outside: not from a core file, not through /proc/<pid>/{environ,mem,maps,
// root,fd} or ptrace, and not from the environment the secrets came from.
// What the exec child may still open by path is action/exec_action.h's concern.
#pragma once

#include <string>
#include <vector>

namespace hookinbox {

// Marks the process non-dumpable and sets its core size limit to 0.
// Non-dumpable: no core file, and /proc/<pid>/{environ,mem,maps,root,fd} and
// ptrace then need CAP_SYS_PTRACE, not only the same uid. Root keeps that
// capability, so a handler running as root can still read everything. Call
// once, first thing; execve resets it, so exec children are dumpable again.
void KeepSecretsInProcess();

// Removes each named variable from the environment and overwrites its value
// where it lies: /proc/<pid>/environ shows the block the process started
// with, not `environ`, so unsetenv alone would leave the value readable there.
// Not thread-safe (getenv/unsetenv): call before any thread starts. Names not
// set are skipped.
void ScrubEnvironment(const std::vector<std::string>& names);

}  // namespace hookinbox
