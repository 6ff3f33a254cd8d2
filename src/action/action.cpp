#include "action/action.h"

#include "common/encoding.h"
#include "verify/crypto.h"
#include "action/exec_action.h"
#include "action/http_action.h"

namespace hookinbox::action {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kSuccess: return "success";
    case Verdict::kTransient: return "transient";
    case Verdict::kPermanent: return "permanent";
    case Verdict::kUnknown: return "unknown";
  }
  return "?";
}

std::string IdempotencyKey(std::string_view provider, std::string_view endpoint, std::string_view tenant,
                           std::string_view event_id) {
  std::string joined = "hookinbox-idempotency-v1";
  for (std::string_view part : {provider, endpoint, tenant, event_id}) {
    joined += '\n';
    joined += std::to_string(part.size());
    joined += ':';
    joined += part;
  }
  return HexEncode(verify::Sha256(joined));
}

std::unique_ptr<Action> MakeAction(const config::ActionConfig& config, const Clock& clock,
                                   const std::vector<std::string>& secret_files) {
  if (config.type == "http") return std::make_unique<HttpAction>(config, clock);
  if (config.type == "exec") return std::make_unique<ExecAction>(config, secret_files);
  return nullptr;
}

}  // namespace hookinbox::action
