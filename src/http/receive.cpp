// The receive path reads as its steps: Route → Screen → ReadCappedBody →
// Authenticate → Identify → Claim → reply. Each step returns a Status; the
// first failure is answered by Reject(), which writes the audit row first.
#include "http/receive.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <memory>
#include <random>
#include <nlohmann/json.hpp>

#include "common/log.h"
#include "common/metrics.h"
#include "common/secret.h"
#include "http/request_gate.h"
#include "http/request_view.h"
#include "http/respond.h"
#include "http/routes.h"
#include "verify/crypto.h"
#include "verify/handshake.h"
#include "verify/json.h"
#include "verify/verify.h"

namespace hookinbox::http {
namespace {

// Bodies of rejected requests up to this size are read and dropped so the
// connection stays usable; larger ones close the connection instead.
constexpr uint64_t kDrainLimit = 1 << 20;

struct Target {
  const config::EndpointConfig* endpoint = nullptr;
  std::string tenant_id;
  const std::vector<Secret>* secrets = nullptr;
};

Result<Target> Route(const config::Config& config, std::string_view path) {
  auto parsed = ParseHookPath(path);
  if (!parsed) return NotFound("unknown endpoint");
  const auto* endpoint = config.FindEndpoint(parsed->endpoint);
  if (endpoint == nullptr) return NotFound("unknown endpoint");
  if (endpoint->tenants.empty()) {
    if (!parsed->tenant.empty()) return NotFound("unknown tenant");
    return Target{endpoint, endpoint->tenant, &endpoint->secrets};
  }
  const auto* tenant = endpoint->FindTenant(parsed->tenant);
  if (tenant == nullptr) return NotFound("unknown tenant");
  return Target{endpoint, tenant->id, &tenant->secrets};
}

// Checks what can be checked before reading a byte of the body.
Status Screen(const config::Config& config, const Target& target, const httplib::Request& req) {
  if (Status st = CheckContentEncoding(req); !st.ok()) return st;
  if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) {
    return InvalidArgument("request has no body: Content-Length or chunked Transfer-Encoding required");
  }
  std::string type = verify::MediaTypeOf(req.get_header_value("Content-Type"));
  const auto& allowed = target.endpoint->content_types;
  if (std::find(allowed.begin(), allowed.end(), type) == allowed.end()) {
    return Unsupported("content type must be one of the endpoint's content_types");
  }
  const std::optional<uint64_t> declared = DeclaredLength(req);
  if (req.has_header("Content-Length") && !declared) {
    return InvalidArgument("Content-Length must be a decimal number of bytes");
  }
  if (declared && *declared > static_cast<uint64_t>(config.MaxBodyBytes(*target.endpoint))) {
    return TooLarge("body exceeds " + std::to_string(config.MaxBodyBytes(*target.endpoint)) + " bytes");
  }
  return Status::Ok();
}

// What happened to the request body when a delivery is answered early.
enum class Body {
  kConsumed,  // read completely: the connection can carry the next request
  kUnread,    // not touched yet: drain it when small, else close
  kBroken,    // a read was attempted and stopped part-way: close
};

// Leaves the connection safe after an answer: a small unread body is read
// and dropped so the connection stays usable; otherwise the connection is
// closed after the answer so leftover bytes are never parsed as a request.
void SettleBody(const httplib::Request& req, httplib::Response& res, Body body,
                const httplib::ContentReader* reader) {
  if (body == Body::kConsumed) return;
  // Draining goes through the library's reader, which would try to inflate
  // an encoded body; only a small, plain, declared-length body is drained.
  const std::optional<uint64_t> declared = DeclaredLength(req);
  bool drainable = body == Body::kUnread && reader != nullptr && declared && *declared <= kDrainLimit &&
                   !req.has_header("Transfer-Encoding") && !req.has_header("Content-Encoding");
  if (drainable) {
    int status = res.status;  // a failed read would overwrite our answer's status
    bool drained = (*reader)([](const char*, size_t) { return true; });
    res.status = status;
    if (drained) return;
  }
  CloseAfterResponse(res);
}

// What a GET delivery's query is stored and read as.
constexpr std::string_view kGetBodyType = "application/x-www-form-urlencoded";

// The raw query string without '?' ("" when none).
std::string_view RawQuery(const httplib::Request& req) {
  const size_t query_at = req.target.find('?');
  return query_at == std::string::npos ? std::string_view() : std::string_view(req.target).substr(query_at + 1);
}

// Writes one of the provider's own answers (EndpointConfig::answers).
void ReplyProvider(httplib::Response& res, const config::ProviderAnswer& answer) {
  res.status = answer.http_status;
  if (!answer.body.empty()) res.set_content(answer.body, answer.content_type);
}

Status CheckEventType(const config::EndpointConfig& endpoint, const std::string& event_type) {
  const auto& allowed = endpoint.event_types;
  if (allowed.empty() || std::find(allowed.begin(), allowed.end(), event_type) != allowed.end()) {
    return Status::Ok();
  }
  return Rejected("event type not accepted by this endpoint");
}

// SPEC §9: {"status":"accepted","events":[{"id":N,"event_id":"…","status":"…"},…]}.
std::string BatchReply(const std::vector<store::NewEvent>& events, const std::vector<store::RecordedEvent>& claims) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < claims.size(); ++i) {
    list.push_back({{"id", claims[i].inbox_id},
                    {"event_id", events[i].event_id},
                    {"status", std::string(store::ToSql(claims[i].outcome))}});
  }
  return nlohmann::ordered_json{{"status", "accepted"}, {"events", std::move(list)}}.dump();
}

std::string ClaimReply(const store::RecordedEvent& claim) {
  nlohmann::ordered_json body{{"status", std::string(store::ToSql(claim.outcome))}, {"id", claim.inbox_id}};
  if (claim.outcome == store::DeliveryOutcome::kDuplicate) {
    body["state"] = std::string(store::ToSql(claim.status));
    if (!claim.result_ref.empty()) body["result_ref"] = claim.result_ref;
  }
  return body.dump();
}

// 16 random hex digits naming one request in the log and in its answer's
// X-Request-Id, so a provider's support ticket can be matched to a line. It
// guards nothing, so a per-thread generator seeded once from the CSPRNG
// serves: OpenSSL's RAND_bytes on every request took a global OpenSSL lock (2.5 % of
// the server's CPU in a profile under load).
std::string NewRequestId() {
  thread_local std::mt19937_64 ids{[] {
    std::random_device os;  // getrandom(2), once per connection thread
    return (uint64_t{os()} << 32) ^ os();
  }()};
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(ids()));
  return std::string(out, 16);
}

// One line per request that reached /hooks/…: never the body, a header
// value that could authenticate, or the query (it may carry a token).
void LogDelivery(const store::DeliveryRecord& d, int64_t inbox_id, int64_t elapsed_us, const std::string& request_id) {
  log::Info("delivery", {{"request_id", request_id},
                         {"endpoint", d.endpoint},
                         {"provider", d.provider},
                         {"tenant", d.tenant_id},
                         {"event_id", d.event_id},
                         {"outcome", std::string(store::ToSql(d.outcome))},
                         {"status", d.http_status},
                         {"reason", d.reason},
                         {"inbox_id", inbox_id},
                         {"remote_addr", d.remote_addr},
                         {"latency_ms", static_cast<double>(elapsed_us) / 1000.0}});
}

// Counts one answered delivery (SPEC §9): accepted, duplicate and conflict
// are authenticated receipts; rejections carry a reason from a fixed set
// (a Status code name, "handshake" or "http"), never free text. Endpoint and
// provider come from the config, never from the request path, so an unknown
// endpoint counts with empty labels instead of creating a series per path.
void CountDelivery(const store::DeliveryRecord& d, std::string_view reject_reason = {}) {
  auto& registry = metrics::Registry::Default();
  using store::DeliveryOutcome;
  if (d.outcome == DeliveryOutcome::kRejected) {
    registry.Add(metrics::kRejectedTotal, {d.endpoint, d.provider, std::string(reject_reason)});
    return;
  }
  if (d.outcome == DeliveryOutcome::kIgnored) return;
  registry.Add(metrics::kReceivedTotal, {d.endpoint, d.provider});
  if (d.outcome == DeliveryOutcome::kDuplicate) registry.Add(metrics::kDuplicateTotal, {d.endpoint, d.provider});
  if (d.outcome == DeliveryOutcome::kConflict) registry.Add(metrics::kConflictTotal, {d.endpoint, d.provider});
}

void DescribeTarget(const Target& target, store::DeliveryRecord* audit) {
  audit->endpoint = target.endpoint->name;
  audit->provider = target.endpoint->provider;
  audit->tenant_id = target.tenant_id;
}

// Whether the current thread's request already got its audit row; lets the
// server's logger audit answers the library produced on its own.
thread_local bool t_audited = false;

class Delivery {
 public:
  // `config` is this request's snapshot: held to the end of the request.
  Delivery(std::shared_ptr<const config::Config> config, store::Ingest& store, const Clock& clock,
           const httplib::Request& req, httplib::Response& res,
           const std::function<void(const std::string&)>& on_accepted)
      : snapshot_(std::move(config)), config_(*snapshot_), store_(store), on_accepted_(on_accepted), req_(req),
        res_(res), started_(std::chrono::steady_clock::now()), audit_(DescribeRequest(req, clock.NowMs())),
        request_id_(NewRequestId()) {
    t_audited = true;  // every path below writes the row (or answers 503 when it cannot)
    res_.set_header("X-Request-Id", request_id_);
  }

  void Receive(const httplib::ContentReader& reader);
  void ReceiveOtherMethod();

 private:
  void ReceiveGet(const Target& target);
  // Authenticate → Identify → Claim → reply, for a body already read (or a GET's query).
  void Process(const Target& target, std::string body, std::string_view query, bool is_json);
  void ReceiveBatch(const Target& target, const HeaderView& headers, std::string body);
  void Reject(const Status& status, Body body, const httplib::ContentReader* reader = nullptr);
  void Ignore();
  // `authenticated`: the request proved its origin (a signature or Meta's verify token).
  void Answer(const verify::HandshakeAnswer& answer, bool authenticated);
  void Accept(const store::NewEvent& event);
  void AcceptBatch(const std::vector<store::NewEvent>& events);
  // Answers a claim the store could not make.
  void ClaimFailed(const Status& status);
  store::NewEvent NewEvent(const verify::EventIdentity& identity, std::string body) const {
    return {audit_.provider,   audit_.endpoint,     audit_.tenant_id,
            identity.event_id, identity.event_type, identity.payload_hash,
            verify::MediaTypeOf(audit_.content_type), std::move(body), audit_.received_at_ms,
            identity.business_key, identity.business_key_hint, identity.object_key, identity.object_version,
            key_spec_};
  }
  void SetTarget(const Target& target) {
    DescribeTarget(target, &audit_);
    key_spec_ = target.endpoint->key_spec;
    answers_ = &target.endpoint->answers;
  }
  int64_t ElapsedUs() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started_).count();
  }

  // The config this request started on; its Target points into it, so it is
  // held (never re-read) until the request ends, whatever a reload does.
  const std::shared_ptr<const config::Config> snapshot_;
  const config::Config& config_;
  store::Ingest& store_;
  const std::function<void(const std::string&)>& on_accepted_;  // may be empty
  const httplib::Request& req_;
  httplib::Response& res_;
  std::chrono::steady_clock::time_point started_;
  store::DeliveryRecord audit_;
  std::string request_id_;
  std::string key_spec_;  // the target endpoint's key settings fingerprint, stored with each event
  // The target endpoint's own answers (SPEC §10), or nullptr before routing.
  const config::ProviderAnswers* answers_ = nullptr;
};

void Delivery::Receive(const httplib::ContentReader& reader) {
  KeepMultipartRaw(req_);
  auto target = Route(config_, req_.path);
  if (!target.ok()) return Reject(target.status(), Body::kUnread, &reader);
  SetTarget(*target);
  if (Status st = Screen(config_, *target, req_); !st.ok()) return Reject(st, Body::kUnread, &reader);

  bool fully_read = false;
  auto body = ReadCappedBody(req_, reader, config_.MaxBodyBytes(*target->endpoint), &fully_read);
  if (!body.ok()) return Reject(body.status(), fully_read ? Body::kConsumed : Body::kBroken);
  audit_.body_bytes = static_cast<int64_t>(body->size());
  Process(*target, std::move(body).value(), RawQuery(req_),
          verify::IsJsonMediaType(req_.get_header_value("Content-Type")));
}

// A GET delivery (EndpointConfig::get_deliveries, VNPay IPN): its query string
// is its form body, taken through the same steps as a POST's body, so it is
// stored, deduplicated and audited the same way.
void Delivery::ReceiveGet(const Target& target) {
  std::string query(RawQuery(req_));
  // The audit row keeps the path without the query: the query carries the signature.
  audit_.path = req_.path;
  audit_.content_type = std::string(kGetBodyType);
  audit_.body_bytes = static_cast<int64_t>(query.size());
  // A GET body is never read (its bytes end the connection): such a request is not a delivery.
  if (req_.has_header("Content-Length") || req_.has_header("Transfer-Encoding")) {
    return Reject(InvalidArgument("a GET delivery carries no body"), Body::kBroken);
  }
  if (query.empty()) return Reject(InvalidArgument("GET delivery without a query string"), Body::kConsumed);
  if (query.size() > static_cast<uint64_t>(config_.MaxBodyBytes(*target.endpoint))) {
    return Reject(TooLarge("query exceeds " + std::to_string(config_.MaxBodyBytes(*target.endpoint)) + " bytes"),
                  Body::kConsumed);
  }
  const std::string signed_query = query;  // the request's query stays readable as the query too
  Process(target, std::move(query), signed_query, false);
}

void Delivery::Process(const Target& target, std::string body, std::string_view query, bool is_json) {
  HttplibHeaders headers(req_.headers);
  verify::ParsedBody parsed(body);  // one JSON parse for every step below
  verify::DeliveryView view{req_.method, req_.path, headers, body, query, &parsed};
  if (auto answer = verify::AnswerUnsignedHandshake(*target.endpoint, view)) return Answer(*answer, false);
  if (Status st = verify::Verify(*target.endpoint, *target.secrets, view, audit_.received_at_ms); !st.ok()) {
    return Reject(st, Body::kConsumed);
  }
  if (auto answer = verify::AnswerSignedHandshake(*target.endpoint, *target.secrets, view, audit_.received_at_ms)) {
    return Answer(*answer, true);
  }
  if (target.endpoint->key.batch) return ReceiveBatch(target, headers, std::move(body));
  auto identity = verify::Identify(*target.endpoint, headers, body, is_json, &parsed);
  if (!identity.ok()) return Reject(identity.status(), Body::kConsumed);
  audit_.event_id = identity->event_id;
  audit_.event_type = identity->event_type;
  audit_.payload_hash = identity->payload_hash;
  if (Status st = CheckEventType(*target.endpoint, identity->event_type); !st.ok()) {
    if (target.endpoint->ignore_other_event_types) return Ignore();
    return Reject(st, Body::kConsumed);
  }

  Accept(NewEvent(*identity, std::move(body)));
}

// A batch is taken whole: every element must identify, and the allow-list
// either drops the other types (ignore_other_event_types) or refuses the batch.
void Delivery::ReceiveBatch(const Target& target, const HeaderView& headers, std::string body) {
  auto batch = verify::IdentifyBatch(*target.endpoint, headers, body);
  if (!batch.ok()) return Reject(batch.status(), Body::kConsumed);
  std::vector<store::NewEvent> events;
  for (const verify::BatchEvent& e : *batch) {
    if (Status st = CheckEventType(*target.endpoint, e.identity.event_type); !st.ok()) {
      if (target.endpoint->ignore_other_event_types) continue;
      return Reject(Rejected("batch event " + e.identity.event_id + ": " + st.message()), Body::kConsumed);
    }
    events.push_back(NewEvent(e.identity, std::string(e.body)));
  }
  if (events.empty()) return Ignore();
  audit_.payload_hash = HexEncode(verify::Sha256(body));  // the request's own bytes; each event has its hash
  AcceptBatch(events);
}

void Delivery::ClaimFailed(const Status& status) {
  // Nothing was written, so nothing was promised: the provider retries.
  log::Error("claim_failed", {{"request_id", request_id_}, {"endpoint", audit_.endpoint}, {"error", status.message()}});
  // A busy or full database would refuse the audit row too (after another
  // busy wait); any other failure still gets its row.
  if (status.code() != Code::kUnavailable) {
    Reject(status, Body::kConsumed);
  } else {
    ReplyError(res_, status);
    audit_.outcome = store::DeliveryOutcome::kRejected;  // for the count and the log line only: no row was written
    audit_.http_status = res_.status;
    CountDelivery(audit_, CodeName(status.code()));
    LogDelivery(audit_, 0, ElapsedUs(), request_id_);
  }
}

void Delivery::AcceptBatch(const std::vector<store::NewEvent>& events) {
  auto claims = store_.RecordBatch(events, audit_);
  if (!claims.ok()) {
    ClaimFailed(claims.status());
    return;
  }
  ReplyJson(res_, 200, BatchReply(events, *claims));
  audit_.outcome = store::BatchOutcome(*claims);
  for (const store::RecordedEvent& c : *claims) {
    if (c.outcome == store::DeliveryOutcome::kAccepted && on_accepted_) on_accepted_(audit_.endpoint);  // one wake per event
  }
  audit_.http_status = 200;
  CountDelivery(audit_);
  LogDelivery(audit_, 0, ElapsedUs(), request_id_);
}

void Delivery::Accept(const store::NewEvent& event) {
  // The row records the status really sent. Every preset answers a new
  // event and a duplicate with the same status (only the body differs).
  if (answers_ != nullptr && answers_->enabled()) audit_.http_status = answers_->accepted.http_status;
  auto claim = store_.RecordEvent(event, audit_);
  if (!claim.ok()) {
    ClaimFailed(claim.status());
    return;
  }
  if (answers_ != nullptr && answers_->enabled()) {
    // The provider's own answer, still only now that the claim is durable; a
    // conflict is answered as a duplicate (a retry would not change it).
    ReplyProvider(res_, claim->outcome == store::DeliveryOutcome::kAccepted ? answers_->accepted : answers_->duplicate);
  } else {
    ReplyJson(res_, 200, ClaimReply(*claim));
  }
  if (claim->outcome == store::DeliveryOutcome::kAccepted && on_accepted_) on_accepted_(audit_.endpoint);
  audit_.outcome = claim->outcome;
  audit_.http_status = res_.status;
  CountDelivery(audit_);
  LogDelivery(audit_, claim->inbox_id, ElapsedUs(), request_id_);
}

void Delivery::ReceiveOtherMethod() {
  auto target = Route(config_, req_.path);
  if (target.ok()) SetTarget(*target);
  if (target.ok() && req_.method == "GET" && target->endpoint->get_deliveries) return ReceiveGet(*target);
  // Bodies of other methods are never read here, so a request that carries
  // one gets no handshake answer (its unread bytes would follow it on a kept
  // connection) and ends its connection.
  const bool has_body = req_.has_header("Content-Length") || req_.has_header("Transfer-Encoding");
  if (target.ok() && !has_body && req_.method == "GET") {
    const size_t query_at = req_.target.find('?');
    std::string_view query = query_at == std::string::npos ? "" : std::string_view(req_.target).substr(query_at + 1);
    // Meta answers 2xx only with the verify token; Dropbox's challenge proves nothing (unverified).
    if (auto answer = verify::AnswerGetHandshake(*target->endpoint, query)) return Answer(*answer, !answer->unverified);
  }
  // SurveyMonkey's and Mandrill's URL check: unauthenticated, and stores nothing.
  if (target.ok() && !has_body && req_.method == "HEAD") {
    if (auto answer = verify::AnswerHeadHandshake(*target->endpoint)) return Answer(*answer, false);
  }
  Reject(target.ok() ? NotAllowed("only POST is accepted here") : target.status(),
         has_body ? Body::kBroken : Body::kConsumed);
}

void Delivery::Reject(const Status& status, Body body, const httplib::ContentReader* reader) {
  // A refused signature gets the provider's own refusal where it has one
  // (VNPay's 200 {"RspCode":"97"}): the audit row still says rejected.
  const bool provider_refusal = answers_ != nullptr && answers_->enabled() && answers_->refused.http_status != 0 &&
                                status.code() == Code::kUnauthenticated;
  audit_.outcome = store::DeliveryOutcome::kRejected;
  audit_.http_status = provider_refusal ? answers_->refused.http_status : HttpStatusFor(status.code());
  audit_.reason = std::string(CodeName(status.code())) + ": " + status.message();
  bool recorded = true;
  if (Status st = store_.RecordRejected(audit_); !st.ok()) {
    log::Warn("audit_write_failed", {{"error", st.message()}});
    recorded = false;
  }
  // The provider's refusal may be a 2xx (VNPay), which ends its retries: only
  // with the audit row written; otherwise the usual error, and it retries.
  if (provider_refusal && recorded) {
    ReplyProvider(res_, answers_->refused);
  } else {
    ReplyError(res_, status);
  }
  SettleBody(req_, res_, body, reader);
  CountDelivery(audit_, CodeName(status.code()));
  LogDelivery(audit_, 0, ElapsedUs(), request_id_);
}

// A handshake is recorded like any delivery, as "ignored" when answered and
// "rejected" when refused, and never becomes an event.
void Delivery::Answer(const verify::HandshakeAnswer& answer, bool authenticated) {
  audit_.http_status = answer.http_status;
  audit_.reason = "handshake: " + answer.what;
  Status recorded;
  if (answer.http_status < 300) {
    audit_.outcome = store::DeliveryOutcome::kIgnored;
    recorded = authenticated ? store_.RecordIgnored(audit_) : store_.RecordUnverifiedAnswer(audit_);
  } else {
    audit_.outcome = store::DeliveryOutcome::kRejected;
    recorded = store_.RecordRejected(audit_);
  }
  if (!recorded.ok() && answer.http_status < 300) {
    ReplyError(res_, recorded);  // a handshake we cannot audit is retried by the provider
    return;
  }
  res_.status = answer.http_status;
  if (!answer.body.empty()) res_.set_content(answer.body, answer.content_type);
  CountDelivery(audit_, "handshake");
  LogDelivery(audit_, 0, ElapsedUs(), request_id_);
}

void Delivery::Ignore() {
  // With the provider's own answers, an ignored event is answered as
  // accepted: done as far as the provider is concerned, so no retry.
  const bool provider_answer = answers_ != nullptr && answers_->enabled();
  audit_.outcome = store::DeliveryOutcome::kIgnored;
  audit_.http_status = provider_answer ? answers_->accepted.http_status : 200;
  audit_.reason = "event type not in the endpoint's event_types";
  if (Status st = store_.RecordIgnored(audit_); !st.ok()) {
    ReplyError(res_, st);  // the audit row is part of the promise; let the provider retry
    return;
  }
  if (provider_answer) {
    ReplyProvider(res_, answers_->accepted);
  } else {
    ReplyJson(res_, 200, R"({"status":"ignored"})");
  }
  LogDelivery(audit_, 0, ElapsedUs(), request_id_);
}

}  // namespace

void Receiver::HandlePost(const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader) const {
  Delivery(live_.Current(), store_, clock_, req, res, on_accepted_).Receive(reader);
}

void Receiver::HandleOtherMethod(const httplib::Request& req, httplib::Response& res) const {
  Delivery(live_.Current(), store_, clock_, req, res, on_accepted_).ReceiveOtherMethod();
}

void Receiver::AuditIfUnrecorded(const httplib::Request& req, const httplib::Response& res) const {
  bool audited = t_audited;
  t_audited = false;  // the logger runs once after every answer: ready for the next request
  if (audited || !IsHooksPath(req.path)) return;
  store::DeliveryRecord audit = DescribeRequest(req, clock_.NowMs());
  const std::shared_ptr<const config::Config> config = live_.Current();  // one snapshot for this row
  if (auto target = Route(*config, req.path); target.ok()) DescribeTarget(*target, &audit);
  audit.outcome = store::DeliveryOutcome::kRejected;
  audit.http_status = res.status;
  audit.reason = "http: answered " + std::to_string(res.status) + " by the HTTP layer";
  if (Status st = store_.RecordRejected(audit); !st.ok()) log::Warn("audit_write_failed", {{"error", st.message()}});
  CountDelivery(audit, "http");
  LogDelivery(audit, 0, 0, NewRequestId());  // the answer has gone already: no X-Request-Id
}

}  // namespace hookinbox::http
