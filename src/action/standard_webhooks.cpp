#include "action/standard_webhooks.h"

#include "common/encoding.h"
#include "verify/crypto.h"

namespace hookinbox::action {

std::string StandardWebhooksSignature(std::string_view key, std::string_view webhook_id, int64_t timestamp_s,
                                      std::string_view body) {
  std::string signed_text;
  signed_text.reserve(webhook_id.size() + body.size() + 24);
  signed_text.append(webhook_id).append(".").append(std::to_string(timestamp_s)).append(".").append(body);
  return "v1," + Base64Encode(verify::Hmac(verify::HashAlg::kSha256, key, signed_text));
}

}  // namespace hookinbox::action
