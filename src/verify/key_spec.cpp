// The key spec: exactly the settings Identify() and the stored key
// (provider, endpoint, tenant_id, event_id) depend on, each only where it is
// in force — a setting Identify() never reads (canonical_hash beside an
// id_pointer, volatile_fields beside an explicit id) is left out, so
// changing it does not look like a key change.
#include "verify/key_spec.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "common/digest.h"

namespace hookinbox::verify {

namespace {

using nlohmann::json;

constexpr size_t kFingerprintChars = 16;

// Header names are case-insensitive: "X-Id" and "x-id" read the same header.
std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool IsHeaderPart(const std::string& part) { return part.rfind(config::kHeaderField, 0) == 0; }

json FieldList(const std::vector<std::string>& fields) {
  json out = json::array();
  for (const std::string& f : fields) {
    out.push_back(IsHeaderPart(f) ? std::string(config::kHeaderField) + Lower(f.substr(config::kHeaderField.size()))
                                  : f);
  }
  return out;
}

// The one id source Identify() uses, first set wins (identify.cpp ExplicitId,
// IdFromHash); true when it reads the body (so the body kind matters).
bool AddIdSource(const config::EndpointConfig& e, json* out) {
  const config::KeyConfig& k = e.key;
  if (!k.id_header.empty()) {
    (*out)["id_header"] = Lower(k.id_header);
    return false;
  }
  if (!k.id_pointer.empty()) {
    (*out)["id_pointer"] = k.id_pointer;
    return true;
  }
  if (!k.fields.empty()) {
    (*out)["fields"] = FieldList(k.fields);
    return !std::all_of(k.fields.begin(), k.fields.end(), IsHeaderPart);
  }
  if (k.canonical_hash) {
    // The key is the hash of the body without its volatile fields.
    (*out)["canonical_hash"] = true;
    (*out)["volatile_fields"] = e.volatile_fields;
    return true;
  }
  (*out)["id_source"] = nullptr;  // none: check-config refuses it; still a distinct spec
  return false;
}

}  // namespace

KeySpec DescribeKeySpec(const config::EndpointConfig& e) {
  json spec = json::object();  // std::map underneath: keys come out sorted
  spec["provider"] = e.provider;
  // A single-tenant endpoint stores endpoint.tenant in every key; with
  // [[endpoint.tenants]] the tenant is the path's, the same for a redelivery
  // whatever tenants are added or removed, so only the mode counts.
  if (e.tenants.empty()) {
    spec["tenant"] = e.tenant;
  } else {
    spec["tenant_from_path"] = true;
  }
  const bool reads_body = AddIdSource(e, &spec);
  if (e.key.batch) {
    spec["batch"] = true;
    spec["batch_pointer"] = e.key.batch_pointer;
  }
  if (reads_body || e.key.batch) spec["body_kind"] = e.signature.body_kind;
  KeySpec out;
  out.text = spec.dump();
  out.fingerprint = Sha256Hex(out.text).substr(0, kFingerprintChars);
  return out;
}

std::string KeySpecFingerprint(const config::EndpointConfig& endpoint) { return DescribeKeySpec(endpoint).fingerprint; }

}  // namespace hookinbox::verify
