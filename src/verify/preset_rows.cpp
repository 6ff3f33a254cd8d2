// The builders preset rows share (verify/preset_rows.h).
#include "verify/preset_rows.h"

// Designated initializers name only what a provider sets (registry.cpp says why).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hookinbox::verify::presets {

using config::EndpointConfig;

EndpointConfig Endpoint(config::SignatureConfig signature, config::KeyConfig key,
                        std::vector<std::string> volatile_fields) {
  EndpointConfig e;
  e.signature = std::move(signature);
  e.key = std::move(key);
  e.volatile_fields = std::move(volatile_fields);
  return e;
}

EndpointConfig WithTypes(EndpointConfig e, std::vector<std::string> content_types) {
  e.content_types = std::move(content_types);
  return e;
}

EndpointConfig StandardWebhooks(const std::string& prefix) {
  return Endpoint({.header = prefix + "signature",
                   .format = "v1,{signature}",  // space-separated "v1,<base64>" entries; v1a (Ed25519) is ignored
                   .encoding = "base64",
                   .secret_encoding = "base64",
                   .secret_prefix = "whsec_",
                   .signed_payload = "{id}.{timestamp}.{body}",
                   .timestamp_header = prefix + "timestamp"},
                  {.id_header = prefix + "id", .event_type_pointer = "/type"});
}

}  // namespace hookinbox::verify::presets
