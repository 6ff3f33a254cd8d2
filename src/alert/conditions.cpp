// alert/conditions.cpp — when each condition holds, and what it says to a
// person: what happened, where, since when, how many, and what to do. The
// words are for a business owner, not an operator: no SQL states without an
// explanation, never a payload, a header or a secret (only counts, names, times).
#include "alert/conditions.h"

#include <algorithm>
#include <cctype>
#include <ctime>

namespace hookinbox::alert {
namespace {

std::string Plural(int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "Stripe" for "stripe", "Lemon squeezy" for "lemon-squeezy"; "" for generic (no provider to name).
std::string ProviderLabel(const std::string& provider) {
  if (provider.empty() || provider == "generic") return "";
  std::string out = provider;
  std::replace(out.begin(), out.end(), '-', ' ');
  out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// The words a finding is made of; Finish turns them into the three messages.
struct Words {
  std::string start_title, start_text, todo;
  std::string resolved_title, resolved_text;
  std::vector<std::pair<std::string, std::string>> facts;
};

struct Subject {
  std::string condition, endpoint, provider;  // endpoint "" = installation
};

Notification Message(NotificationKind kind, const Subject& s, const std::string& title, const std::string& text,
                     const Words& w, const std::string& link, int64_t now_ms) {
  Notification n;
  n.kind = kind;
  n.title = title;
  n.text = text;
  n.facts = w.facts;
  n.link = link;
  n.condition = s.condition;
  n.endpoint = s.endpoint;
  n.at_ms = now_ms;
  return n;
}

Finding Finish(const Subject& s, bool holds, int64_t count, Words w, const std::string& link, int64_t now_ms) {
  if (!s.endpoint.empty()) w.facts.insert(w.facts.begin(), {"Endpoint", s.endpoint});
  if (!ProviderLabel(s.provider).empty()) w.facts.insert(w.facts.begin() + 1, {"Provider", ProviderLabel(s.provider)});
  const std::string text = w.start_text + "\n\n" + w.todo;
  Finding f;
  f.condition = s.condition;
  f.endpoint = s.endpoint;
  f.holds = holds;
  f.count = count;
  f.summary = w.start_title;
  f.start = Message(NotificationKind::kStart, s, w.start_title, text, w, link, now_ms);
  f.reminder = Message(NotificationKind::kReminder, s, "Still: " + w.start_title, text, w, link, now_ms);
  f.resolved = Message(NotificationKind::kResolved, s, w.resolved_title, w.resolved_text, w, link, now_ms);
  return f;
}

// The words of "deliveries to 'payments'", with the provider's name when there is one.
std::string DeliveriesTo(const Subject& s) {
  const std::string p = ProviderLabel(s.provider);
  return (p.empty() ? "Deliveries" : p + " deliveries") + " to '" + s.endpoint + "'";
}

Words DeadLetters(const Subject& s, int64_t n) {
  Words w;
  w.start_title = s.endpoint + ": " + Plural(n, "dead letter", "dead letters");
  w.start_text = Plural(n, "event", "events") + " for '" + s.endpoint +
                 "' could not be processed after every retry and " + (n == 1 ? "is" : "are") +
                 " now in the dead-letter queue. Nothing more happens to them on its own.";
  w.todo = "What to do: fix what made them fail (often the service they are forwarded to), then replay them "
           "from the Events page (or `hookinbox events replay --status dead_lettered --endpoint " + s.endpoint + "`).";
  w.resolved_title = s.endpoint + ": no dead letters left";
  w.resolved_text = "The dead letters of '" + s.endpoint + "' were replayed or resolved.";
  w.facts = {{"Dead letters", std::to_string(n)}};
  return w;
}

Words Unknown(const Subject& s, int64_t n) {
  Words w;
  w.start_title = s.endpoint + ": " + Plural(n, "event", "events") + " with an unknown outcome";
  w.start_text = Plural(n, "event", "events") + " for '" + s.endpoint +
                 "' may or may not have taken effect (for example, the service timed out after receiving it). "
                 "hookinbox does not retry them on its own, so nothing happens twice.";
  w.todo = "What to do: check in the receiving service whether each one took effect, then resolve it as done "
           "or replay it from the Events page.";
  w.resolved_title = s.endpoint + ": no events with an unknown outcome left";
  w.resolved_text = "Every event of '" + s.endpoint + "' with an unknown outcome was resolved or replayed.";
  w.facts = {{"Unknown", std::to_string(n)}};
  return w;
}

Words Conflicts(const Subject& s, int64_t n) {
  Words w;
  w.start_title = s.endpoint + ": " + Plural(n, "conflicting delivery", "conflicting deliveries");
  w.start_text = Plural(n, "delivery", "deliveries") + " to '" + s.endpoint +
                 "' in the last 24 hours reused an event id with different content. They were kept for "
                 "investigation and not processed.";
  w.todo = "What to do: compare them on the Conflicts page. If the provider changes a field on its own retries, "
           "list it in the endpoint's volatile_fields.";
  w.resolved_title = s.endpoint + ": no new conflicting deliveries";
  w.resolved_text = "No conflicting delivery reached '" + s.endpoint + "' in the last 24 hours.";
  w.facts = {{"Conflicts (24 h)", std::to_string(n)}};
  return w;
}

Words BacklogAge(const Subject& s, int64_t age_ms, int64_t oldest_ms) {
  Words w;
  w.start_title = s.endpoint + ": events waiting for " + HumanDuration(age_ms);
  w.start_text = "Events for '" + s.endpoint + "' are waiting: the oldest arrived " + HumanDuration(age_ms) +
                 " ago and has not been processed yet.";
  w.todo = "What to do: check that the service '" + s.endpoint +
           "' forwards to is up and answering. hookinbox keeps the events and keeps retrying.";
  w.resolved_title = s.endpoint + ": the backlog is moving again";
  w.resolved_text = "The events of '" + s.endpoint + "' are being processed again.";
  w.facts = {{"Oldest waiting since", UtcMinute(oldest_ms)}};
  return w;
}

Words SignatureFailures(const Subject& s, int64_t n) {
  const std::string p = ProviderLabel(s.provider);
  Words w;
  w.start_title = s.endpoint + ": " + Plural(n, "delivery", "deliveries") + " refused (signature does not match)";
  w.start_text = DeliveriesTo(s) + " are being refused because their signature does not match: " +
                 std::to_string(n) + " in the last 5 minutes.";
  w.todo = "If you rotated the signing secret at " + (p.empty() ? std::string("the sender") : p) +
           ", update it here. If you did not, someone may be sending forged requests.";
  w.resolved_title = s.endpoint + ": signatures match again";
  w.resolved_text = DeliveriesTo(s) + " are accepted again.";
  w.facts = {{"Refused (5 min)", std::to_string(n)}};
  return w;
}

Words Silence(const Subject& s, std::optional<int64_t> last_ms, int64_t silence_ms, int64_t now_ms) {
  const std::string p = ProviderLabel(s.provider);
  Words w;
  w.start_title = s.endpoint + ": no delivery for " + HumanDuration(last_ms ? now_ms - *last_ms : silence_ms);
  w.start_text = "No delivery has been accepted on '" + s.endpoint + "' for " +
                 (last_ms ? HumanDuration(now_ms - *last_ms) : "more than " + HumanDuration(silence_ms)) +
                 " (you expect one at least every " + HumanDuration(silence_ms) + ").";
  w.todo = "What to do: check at " + (p.empty() ? std::string("the sender") : p) +
           " that the webhook is still enabled and points here; some providers disable an endpoint after "
           "repeated failures.";
  w.resolved_title = s.endpoint + ": deliveries arrive again";
  w.resolved_text = "'" + s.endpoint + "' received a delivery again.";
  w.facts = {{"Last delivery", last_ms ? UtcMinute(*last_ms) : "none in the window"}};
  return w;
}

Words BreakerOpen(const Subject& s, int64_t since_ms, int64_t now_ms) {
  Words w;
  w.start_title = s.endpoint + ": sending paused for " + HumanDuration(now_ms - since_ms) + " (the service keeps failing)";
  w.start_text = "hookinbox stopped sending events of '" + s.endpoint + "' " + HumanDuration(now_ms - since_ms) +
                 " ago because the service they go to kept failing. It tries one now and then; the events are "
                 "kept and go out once it answers again.";
  w.todo = "What to do: check the service '" + s.endpoint + "' forwards to.";
  w.resolved_title = s.endpoint + ": the service answers again";
  w.resolved_text = "Events of '" + s.endpoint + "' are being sent again.";
  w.facts = {{"Since", UtcMinute(since_ms)}};
  return w;
}

// Evaluates the per-endpoint conditions of one endpoint.
void EvaluateEndpoint(const config::EndpointConfig& e, const store::EndpointSignals& sig, const CheckInput& in,
                      const std::string& link, std::vector<Finding>* out) {
  const config::AlertThresholds& t = e.alert;
  auto subject = [&](const char* c) { return Subject{c, e.name, e.provider}; };
  const int64_t now = in.now_ms;
  if (t.dead_letters) {
    out->push_back(Finish(subject("dead_letters"), sig.dead_lettered >= *t.dead_letters, sig.dead_lettered,
                          DeadLetters(subject("dead_letters"), sig.dead_lettered), link, now));
  }
  if (t.unknown) {
    out->push_back(Finish(subject("unknown"), sig.unknown >= *t.unknown, sig.unknown,
                          Unknown(subject("unknown"), sig.unknown), link, now));
  }
  if (t.conflicts) {
    out->push_back(Finish(subject("conflicts"), sig.conflicts >= *t.conflicts, sig.conflicts,
                          Conflicts(subject("conflicts"), sig.conflicts), link, now));
  }
  if (t.backlog_age_ms && e.HasAction()) {
    const int64_t oldest = sig.oldest_due_received_at_ms.value_or(now);
    const int64_t age = now - oldest;
    out->push_back(Finish(subject("backlog_age"), sig.oldest_due_received_at_ms && age >= *t.backlog_age_ms,
                          age / 1000, BacklogAge(subject("backlog_age"), age, oldest), link, now));
  }
  if (t.signature_failures) {
    out->push_back(Finish(subject("signature_failures"), sig.signature_failures >= *t.signature_failures,
                          sig.signature_failures, SignatureFailures(subject("signature_failures"), sig.signature_failures),
                          link, now));
  }
  if (t.silence_ms) {
    const bool silent = !sig.last_accepted_at_ms || now - *sig.last_accepted_at_ms >= *t.silence_ms;
    const int64_t quiet = sig.last_accepted_at_ms ? now - *sig.last_accepted_at_ms : *t.silence_ms;
    out->push_back(Finish(subject("silence"), silent, quiet / 1000,
                          Silence(subject("silence"), sig.last_accepted_at_ms, *t.silence_ms, now), link, now));
  }
  if (t.breaker_open_ms && e.HasAction()) {
    std::optional<int64_t> since = sig.breaker_open_since_ms;
    if (auto it = in.breaker_open_since_ms.find(e.name); since && it != in.breaker_open_since_ms.end()) {
      since = std::min(*since, it->second);
    }
    const int64_t open_ms = since ? now - *since : 0;
    out->push_back(Finish(subject("breaker_open"), since && open_ms >= *t.breaker_open_ms, open_ms / 1000,
                          BreakerOpen(subject("breaker_open"), since.value_or(now), now), link, now));
  }
}

constexpr int64_t kDayMs = 86400 * 1000;

void EvaluateCertificate(const config::AlertConfig& a, const CheckInput& in, const std::string& link,
                         std::vector<Finding>* out) {
  if (!a.certificate_days || !in.certificate_not_after_ms) return;
  const int64_t left_ms = *in.certificate_not_after_ms - in.now_ms;
  const int64_t days = std::max<int64_t>(0, left_ms / kDayMs);
  Words w;
  w.start_title = "The TLS certificate expires in " + Plural(days, "day", "days");
  w.start_text = "The certificate hookinbox serves to providers expires on " + UtcMinute(*in.certificate_not_after_ms) +
                 ". Once it has expired, providers refuse to deliver.";
  w.todo = "What to do: renew it (for example `certbot renew`) and reload hookinbox (`hookinbox reload`).";
  w.resolved_title = "The TLS certificate was renewed";
  w.resolved_text = "The certificate hookinbox serves is valid for more than " + Plural(*a.certificate_days, "day", "days") + ".";
  w.facts = {{"Expires", UtcMinute(*in.certificate_not_after_ms)}};
  out->push_back(Finish({"certificate_days", "", ""}, left_ms <= *a.certificate_days * kDayMs, days, w, link, in.now_ms));
}

void EvaluateStorage(const config::AlertConfig& a, const CheckInput& in, const std::string& link,
                     std::vector<Finding>* out) {
  if (in.installation && a.disk_free_bytes && in.installation->disk_free_bytes) {
    const int64_t free = *in.installation->disk_free_bytes;
    Words w;
    w.start_title = "Only " + HumanBytes(free) + " free for the database";
    w.start_text = "The disk holding the database has " + HumanBytes(free) +
                   " free. When it is full, hookinbox must refuse deliveries (providers retry them later).";
    w.todo = "What to do: free space on that disk, or keep less history (the endpoints' retention settings).";
    w.resolved_title = "Disk space is back above " + HumanBytes(*a.disk_free_bytes);
    w.resolved_text = "The disk holding the database has " + HumanBytes(free) + " free.";
    w.facts = {{"Free", HumanBytes(free)}};
    out->push_back(Finish({"disk_free", "", ""}, free < *a.disk_free_bytes, free, w, link, in.now_ms));
  }
  if (in.installation && a.database_size_bytes) {
    const int64_t size = in.installation->database_bytes;
    Words w;
    w.start_title = "The database has grown to " + HumanBytes(size);
    w.start_text = "The database has grown to " + HumanBytes(size) + ", past the " +
                   HumanBytes(*a.database_size_bytes) + " you set as a limit.";
    w.todo = "What to do: keep less history (the endpoints' retention settings), or raise alert.database_size.";
    w.resolved_title = "The database is back under " + HumanBytes(*a.database_size_bytes);
    w.resolved_text = "The database holds " + HumanBytes(size) + ".";
    w.facts = {{"Size", HumanBytes(size)}};
    out->push_back(Finish({"database_size", "", ""}, size > *a.database_size_bytes, size, w, link, in.now_ms));
  }
  if (a.storage_failures && in.storage_failures) {
    const int64_t n = *in.storage_failures;
    Words w;
    w.start_title = Plural(n, "delivery", "deliveries") + " turned away: storage unavailable";
    w.start_text = "hookinbox could not store " + Plural(n, "delivery", "deliveries") +
                   " in the last 5 minutes and answered 503. Providers retry them, but nothing of them is stored yet.";
    w.todo = "What to do: check the database (a full disk, its permissions, or the PostgreSQL server).";
    w.resolved_title = "Deliveries are stored again";
    w.resolved_text = "No delivery was turned away for lack of storage in the last 5 minutes.";
    w.facts = {{"Turned away (5 min)", std::to_string(n)}};
    out->push_back(Finish({"storage_failures", "", ""}, n >= *a.storage_failures, n, w, link, in.now_ms));
  }
}

}  // namespace

std::vector<Finding> Evaluate(const config::Config& config, const CheckInput& in) {
  std::vector<Finding> out;
  const std::string& link = config.alert.ui_url;
  for (const config::EndpointConfig& e : config.endpoints) {
    for (const store::EndpointSignals& sig : in.endpoints) {
      if (sig.endpoint == e.name) EvaluateEndpoint(e, sig, in, link, &out);
    }
  }
  EvaluateCertificate(config.alert, in, link, &out);
  EvaluateStorage(config.alert, in, link, &out);
  return out;
}

store::SignalQuery MakeSignalQuery(const config::Config& config, int64_t now_ms) {
  store::SignalQuery q;
  int64_t longest_silence = 0;
  for (const config::EndpointConfig& e : config.endpoints) {
    q.endpoints.push_back(e.name);
    if (e.HasAction()) q.with_action.push_back(e.name);
    longest_silence = std::max(longest_silence, e.alert.silence_ms.value_or(0));
  }
  q.conflicts_since_ms = now_ms - kConflictWindowMs;
  q.signatures_since_ms = now_ms - kSignatureWindowMs;
  q.accepted_since_ms = now_ms - longest_silence;
  return q;
}

std::string HumanDuration(int64_t ms) {
  const int64_t s = std::max<int64_t>(0, ms / 1000);
  if (s < 60) return Plural(s, "second", "seconds");
  if (s < 3600) return Plural(s / 60, "minute", "minutes");
  if (s < 86400) {
    const int64_t m = (s % 3600) / 60;
    return Plural(s / 3600, "hour", "hours") + (m ? " " + Plural(m, "minute", "minutes") : "");
  }
  const int64_t h = (s % 86400) / 3600;
  return Plural(s / 86400, "day", "days") + (h ? " " + Plural(h, "hour", "hours") : "");
}

std::string UtcMinute(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string HumanBytes(int64_t bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace hookinbox::alert
