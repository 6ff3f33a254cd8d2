// fuzz_receive — the receive path in-process: http::Receiver (route, screen,
// read, verify, identify, claim, reply) over an in-memory store.
//
// Input (fuzz_input.h ParseRawRequest):
//   "<endpoint> [sign] [sample] [fail] [chunk=N] [nolength]"
//   "<METHOD> <target>"                      e.g. "POST /hooks/p-github?x=1"
//   "Header: value" lines, an empty line, then the body bytes.
// `sign` re-signs the body for <endpoint> with verify::SignDelivery (the
// signing mirror of Verify), so inputs reach Identify, the batch split, the
// semantic keys and the claim; `sample` replaces an empty body with
// send-test's sample for the endpoint (fresh random id). `fail` makes the
// store answer Unavailable (a full or locked database). `chunk` is the size
// of the pieces the body is handed over in; `nolength` sends no
// Content-Length. The endpoints are support/endpoints.h's: endpoints.toml
// plus one per provider preset.
//
// Checked per input (abort() on violation):
//  1 the status is one SPEC §3 allows (no 409, no 500);
//  2 nothing is claimed unless Verify passes on the same bytes (or the
//    endpoint is insecure): nothing is stored unauthenticated;
//  3 an accepted/duplicate/conflict answer made exactly one claim, and every
//    stored body is (a part of) the bytes received;
//  4 exactly one audit write per request (claim or record), whatever the fate;
//  5 a 503 carries Retry-After and stores nothing;
//  6 no secret in the answer (body or headers) nor in an audit reason,
//    unless the request carried that text itself (messages quote a header);
//  7 a JSON answer parses.
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "config/live.h"
#include "fuzz_input.h"
#include "http/receive.h"
#include "http/request_view.h"
#include "http/routes.h"
#include "support/endpoints.h"
#include "support/fake_store.h"
#include "verify/sign.h"
#include "verify/verify.h"

namespace {

using namespace hookinbox;
using fuzz::Check;

struct World {
  explicit World(fuzz::FuzzEndpoints e) : endpoints(std::move(e)), live(endpoints.config) {}
  fuzz::FuzzEndpoints endpoints;
  config::LiveConfig live;  // a copy of endpoints.config, never replaced here
  FakeClock clock{fuzz::kNow};
  fuzz::FakeStore store;
  std::unique_ptr<http::Receiver> receiver;
};

World* world = nullptr;

bool Contains(std::string_view hay, std::string_view needle) {
  return !needle.empty() && hay.find(needle) != std::string_view::npos;
}

// The secrets the endpoint (or its tenant) verifies with, as the receive path picks them.
const std::vector<Secret>* SecretsFor(const config::EndpointConfig& e, const http::HookPath& path) {
  if (e.tenants.empty()) return &e.secrets;
  const config::TenantConfig* t = e.FindTenant(path.tenant);
  return t ? &t->secrets : nullptr;
}

// 2 and 3: claims only for authentic deliveries, storing the bytes received.
void CheckClaims(const httplib::Request& req, const std::string& body, int claims) {
  if (claims == 0 || world->store.fail_with_unavailable) return;
  auto path = http::ParseHookPath(req.path);
  Check(path.has_value(), "a claim for a path that names no endpoint");
  const config::EndpointConfig* e = world->endpoints.config.FindEndpoint(path->endpoint);
  Check(e != nullptr, "a claim for an unknown endpoint");
  const std::vector<Secret>* secrets = SecretsFor(*e, *path);
  Check(secrets != nullptr, "a claim for an unknown tenant");
  http::HttplibHeaders headers(req.headers);
  const size_t q = req.target.find('?');
  verify::DeliveryView view{req.method, req.path, headers, body,
                            q == std::string::npos ? "" : std::string_view(req.target).substr(q + 1)};
  Check(e->insecure || verify::Verify(*e, *secrets, view, fuzz::kNow).ok(), "stored a delivery that does not verify");
  for (const auto& stored : world->store.stored) {
    Check(stored.body.empty() || Contains(body, stored.body), "stored bytes that were not received");
  }
}

// The answer's body as the client gets it: CloseAfterResponse (http/request_view.cpp)
// moves it into a content provider that ends the connection afterwards.
std::string AnswerBody(const httplib::Response& res) {
  if (!res.content_provider_) return res.body;
  std::string out;
  httplib::DataSink sink;
  sink.write = [&out](const char* d, size_t n) {
    out.append(d, n);
    return true;
  };
  res.content_provider_(0, res.content_length_, sink);
  return out;
}

// True for the answers of a claim: {"status": "accepted" | "duplicate" |
// "conflict", …}. A handshake's answer may echo any word the sender chose.
bool ClaimAnswer(const std::string& answer) {
  const nlohmann::json j = nlohmann::json::parse(answer, nullptr, false);
  if (!j.is_object() || !j.contains("status") || !j["status"].is_string()) return false;
  const std::string status = j["status"].get<std::string>();
  return status == "accepted" || status == "duplicate" || status == "conflict";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  log::SetMinLevel(log::Level::kError);  // one line per delivery would drown libFuzzer's output
  world = new World(fuzz::LoadFuzzEndpoints());
  world->receiver = std::make_unique<http::Receiver>(world->live, world->store, world->clock);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  World& w = *world;
  w.store.Reset();
  const fuzz::RawRequest raw = fuzz::ParseRawRequest(fuzz::AsText(data, size));
  const std::string_view signer_name = raw.selector.substr(0, raw.selector.find(' '));
  w.store.fail_with_unavailable = fuzz::HasFlag(raw.selector, "fail");

  httplib::Request req;
  req.method = std::string(raw.method);
  req.target = std::string(raw.target);
  req.path = req.target.substr(0, req.target.find('?'));  // the library would also %-decode it
  req.remote_addr = "192.0.2.1";
  req.version = "HTTP/1.1";
  std::string body(raw.body);
  for (const auto& [name, value] : raw.headers) req.headers.emplace(std::string(name), std::string(value));

  const config::EndpointConfig* signer = w.endpoints.config.FindEndpoint(signer_name);
  auto key = w.endpoints.signing.find(std::string(signer_name));
  if (body.empty() && signer != nullptr && fuzz::HasFlag(raw.selector, "sample")) body = fuzz::SampleFor(*signer);
  if (fuzz::HasFlag(raw.selector, "sign") && signer != nullptr && key != w.endpoints.signing.end()) {
    const size_t q = raw.target.find('?');
    const std::string base = signer->public_url.empty() ? "https://hooks.example.com" + req.path : signer->public_url;
    const std::string url = q == std::string_view::npos ? base : base + std::string(raw.target.substr(q));
    auto signed_delivery = verify::SignDelivery(*signer, key->second, body, fuzz::kNow, req.method, url);
    if (signed_delivery.ok()) {
      body = signed_delivery->body;
      for (const auto& [name, value] : signed_delivery->headers) {
        req.headers.erase(name);
        req.headers.emplace(name, value);
      }
    }
  }
  if (!fuzz::HasFlag(raw.selector, "nolength") && !req.has_header("Content-Length") &&
      !req.has_header("Transfer-Encoding")) {
    req.headers.emplace("Content-Length", std::to_string(body.size()));
  }

  // The library hands the body over in pieces and stops at Content-Length;
  // a body shorter than declared is a connection closed early (false).
  const size_t chunk = std::max<size_t>(1, fuzz::FlagNumber(raw.selector, "chunk", body.size() + 1));
  const bool chunked = req.has_header("Transfer-Encoding");
  const uint64_t declared = chunked ? body.size() : req.get_header_value<uint64_t>("Content-Length");
  httplib::ContentReader reader(
      [&](httplib::ContentReceiver receive) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(declared, body.size()));
        for (size_t at = 0; at < n; at += chunk) {
          if (!receive(body.data() + at, std::min(chunk, n - at))) return false;
        }
        return declared <= body.size();
      },
      [](httplib::MultipartContentHeader, httplib::ContentReceiver) { return false; });

  if (!http::IsHooksPath(req.path)) return 0;  // the library routes these elsewhere
  httplib::Response res;
  if (req.method == "POST") {
    w.receiver->HandlePost(req, res, reader);
  } else {
    w.receiver->HandleOtherMethod(req, res);
  }
  w.receiver->AuditIfUnrecorded(req, res);  // as the server's logger does after every answer

  static const std::set<int> kAllowed = {200, 204, 400, 401, 403, 404, 405, 413, 415, 422, 503};
  Check(kAllowed.count(res.status) == 1, "an answer status SPEC §3 does not allow");

  const std::string answer = AnswerBody(res);
  const int claims = w.store.calls.record + w.store.calls.record_batch;
  // What the receiver read: the declared length of the body (a longer body is the next request's).
  CheckClaims(req, body.substr(0, static_cast<size_t>(std::min<uint64_t>(declared, body.size()))), claims);
  if (res.status == 200 && ClaimAnswer(answer)) Check(claims == 1, "a claim answer without exactly one claim");

  Check(w.store.calls.writes() == 1, "not exactly one audit write for the request");
  if (res.status == 503) {
    Check(w.store.stored.empty(), "a 503 stored an event");
    Check(res.has_header("Retry-After"), "a 503 without Retry-After");
  }

  const std::string_view sent = fuzz::AsText(data, size);
  for (const auto& s : w.endpoints.secrets) {
    if (Contains(sent, s)) continue;  // an answer may echo what the client itself sent
    Check(!Contains(answer, s), "a secret in the answer body");
    for (const auto& [name, value] : res.headers) Check(!Contains(value, s), "a secret in an answer header");
    for (const auto& d : w.store.deliveries) Check(!Contains(d.reason, s), "a secret in an audit reason");
  }

  if (res.get_header_value("Content-Type").rfind("application/json", 0) == 0) {
    Check(!nlohmann::json::parse(answer, nullptr, false).is_discarded(), "a JSON answer does not parse");
  }
  return 0;
}
