#include "action/probe.h"

#include <nlohmann/json.hpp>

#include "common/encoding.h"
#include "action/destination_auth.h"
#include "action/http_client.h"
#include "action/sigpipe_guard.h"

namespace hookinbox::action {
namespace {

std::string BodyResultRef(const std::string& body) {
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("result_ref")) return "";
  const nlohmann::json& v = doc["result_ref"];
  return v.is_string() ? v.get<std::string>() : (v.is_number() ? v.dump() : "");
}

}  // namespace

std::string ExpandProbeUrl(const std::string& template_url, const ActionInput& input) {
  const std::pair<const char*, const std::string*> fields[] = {
      {"{idempotency_key}", &input.idempotency_key}, {"{event_id}", &input.event_id}, {"{event_type}", &input.event_type}};
  std::string url = template_url;
  for (const auto& [placeholder, value] : fields) {
    for (size_t at = url.find(placeholder); at != std::string::npos; at = url.find(placeholder, at)) {
      const std::string encoded = PercentEncode(*value);
      url.replace(at, std::string_view(placeholder).size(), encoded);
      at += encoded.size();
    }
  }
  return url;
}

ProbeResult Probe(const config::ActionConfig& action, const ActionInput& input) {
  SigpipeGuard sigpipe_guard;
  const std::string url = ExpandProbeUrl(action.probe_url, input);
  OutgoingClient out = ClientFor(action, url);
  httplib::Headers headers = {{"Idempotency-Key", input.idempotency_key},
                              {"X-Hookinbox-Event-Id", input.event_id},
                              {"X-Hookinbox-Probe", "reconcile"}};
  // The destination's credential goes only to the destination's own server:
  // a probe_url elsewhere (a provider's API, a status page) never gets it.
  if (OriginOf(url) == OriginOf(action.url)) AddDestinationAuth(action, headers);
  httplib::Result res = out.client->Get(out.path.c_str(), headers);
  ProbeResult r;
  if (!res) {
    r.error = "probe: no answer (" + httplib::to_string(res.error()) + ")";
    return r;
  }
  r.http_status = res->status;
  if (res->status == 200) {
    r.verdict = ProbeVerdict::kFound;
    r.result_ref = ResultRefOf(action, *res);
    if (r.result_ref.empty()) r.result_ref = BodyResultRef(res->body);
    r.error = "probe: found";
  } else if (res->status == 404) {
    r.verdict = ProbeVerdict::kNotFound;
    r.error = "probe: not found";
  } else {
    r.error = "probe: HTTP " + std::to_string(res->status) + " (cannot tell)";
  }
  return r;
}

}  // namespace hookinbox::action
