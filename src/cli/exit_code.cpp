#include "cli/exit_code.h"

namespace hookinbox::cli {

int ExitFor(const Status& status) {
  if (status.ok()) return kExitOk;
  return status.code() == Code::kInvalidArgument ? kExitUsage : kExitFailure;
}

}  // namespace hookinbox::cli
