// action/exec_action.h — the `exec` action: run a command for each event.
//
// The command is `action.command` as an argv, executed directly (no shell,
// no PATH search: command[0] is an absolute path after config loading), in a
// process group of its own, with the body on stdin and a minimal environment:
// PATH, HOME, LANG, HOOKINBOX_EVENT_ID, HOOKINBOX_EVENT_TYPE,
// HOOKINBOX_IDEMPOTENCY_KEY, HOOKINBOX_ATTEMPT, and HOOKINBOX_TOKEN and
// HOOKINBOX_API when the input has them. Nothing else of hookinbox's
// environment, and no file descriptor but 0, 1 and 2, reaches it. Where the
// kernel allows a mount namespace, each of `secret_files` that exists reads
// as empty for the command (covered by /dev/null; exec_action.cpp says how
// and when it cannot be done).
//
// Outcome: exit 0 success (a last stdout line {"result_ref": "…"} gives the
// result_ref), exit 75 (EX_TEMPFAIL) transient, other exit codes and deaths
// by signal permanent. Past timeout_ms the whole process group is killed
// (SIGKILL) and the outcome is unknown, or transient when idempotent_target.
// When the command exits, anything it left running in its group is killed
// too, so a background child cannot hold the pipes open.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "action/action.h"

namespace hookinbox::action {

class ExecAction final : public Action {
 public:
  // `secret_files`: absolute paths to hide, config::SecretOrigins::files.
  explicit ExecAction(config::ActionConfig config, std::vector<std::string> secret_files = {});
  // Safe to call from several threads at once. SIGPIPE from writing to a
  // command that does not read stdin is blocked in the calling thread and
  // consumed, so it never kills hookinbox.
  Outcome Run(const ActionInput& input) override;

 private:
  config::ActionConfig config_;
  const std::vector<std::string> secret_files_;
};

}  // namespace hookinbox::action
