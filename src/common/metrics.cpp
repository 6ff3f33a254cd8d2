// common/metrics.cpp — see metrics.h.
#include "common/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace hookinbox::metrics {
namespace {

const char* TypeName(Type type) {
  switch (type) {
    case Type::kCounter: return "counter";
    case Type::kGauge: return "gauge";
    case Type::kHistogram: return "histogram";
  }
  return "untyped";
}

Labels Zip(const std::vector<std::string>& names, const LabelValues& values) {
  Labels out;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) out.emplace_back(names[i], values[i]);
  return out;
}

void DeclareProductFamilies(Registry& r) {
  const std::vector<std::string> ep = {"endpoint", "provider"};
  const std::vector<std::string> ep_reason = {"endpoint", "provider", "reason"};
  r.Declare(kReceivedTotal, Type::kCounter,
            "Authenticated deliveries (accepted + duplicate + conflict) since the process started.", ep);
  r.Declare(kDuplicateTotal, Type::kCounter, "Deliveries of an event already stored, since the process started.",
            ep);
  r.Declare(kConflictTotal, Type::kCounter,
            "Deliveries reusing a stored event's key with a different payload, since the process started.", ep);
  r.Declare(kRejectedTotal, Type::kCounter,
            "Deliveries refused (not authenticated, malformed, unknown endpoint, ...) by reason.", ep_reason);
  r.Declare(kProcessingSeconds, Type::kHistogram, "Duration of processing attempts (the endpoint's action).", ep,
            ProcessingBuckets());
  r.Declare(kRetriesTotal, Type::kCounter, "Attempts that ended retryable_failed, by cause.", ep_reason);
  r.Declare(kAttemptsTotal, Type::kCounter, "Processing attempts that ended, by outcome.",
            {"endpoint", "provider", "outcome"});
  r.Declare(kAttemptsStartedTotal, Type::kCounter,
            "Attempts an async action answered 202 (started): handed to the handler, which ends them through "
            "/v1/events/complete, fail or unknown.",
            ep);
  r.Declare(kConnectionsCutTotal, Type::kCounter,
            "Connections reset by the connection guard (header_timeout, header_bytes, body_timeout).",
            {"listener", "reason"});
  r.Declare(kEffectsAlreadyDoneTotal, Type::kCounter,
            "Handler API effect claims answered \"done\": an effect already done, not repeated.", {});
  r.Declare(kReconcileGaps, Type::kGauge,
            "Event ids the last reconciliation (admin API) found never_received, not_completed or unknown.",
            {"endpoint", "kind"});
  r.Declare(kTlsCertificateExpiry, Type::kGauge,
            "When the certificate the listener serves expires (notAfter), as Unix seconds.", {"listener"});
  r.Declare(kConnectionsRefusedTotal, Type::kCounter,
            "Connections closed at accept: over max_connections or max_connections_per_address.",
            {"listener", "reason"});
}

}  // namespace

const std::vector<double>& ProcessingBuckets() {
  static const std::vector<double> kBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                               2.5,   5,    10,    30,   60,  120,  300};
  return kBuckets;
}

Registry& Registry::Default() {
  static Registry* registry = [] {
    auto* r = new Registry();  // never destroyed: worker threads may count during exit
    DeclareProductFamilies(*r);
    return r;
  }();
  return *registry;
}

void Registry::Declare(std::string name, Type type, std::string help, std::vector<std::string> label_names,
                       std::vector<double> buckets) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (families_.count(name) != 0) return;
  Family f;
  f.type = type;
  f.help = std::move(help);
  f.label_names = std::move(label_names);
  f.buckets = std::move(buckets);
  families_.emplace(std::move(name), std::move(f));
}

Registry::Series* Registry::Find(std::string_view name, Type type, const LabelValues& values) {
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto f = families_.find(name);
    if (f == families_.end() || f->second.type != type || f->second.label_names.size() != values.size()) {
      return nullptr;
    }
    auto s = f->second.series.find(values);
    if (s != f->second.series.end()) return s->second.get();
  }
  std::unique_lock<std::shared_mutex> lock(mu_);  // first sighting of this tuple
  Family& f = families_.find(name)->second;       // families are never removed
  auto& slot = f.series[values];
  if (!slot) slot = std::make_unique<Series>(&f.buckets);
  return slot.get();
}

const Registry::Series* Registry::FindExisting(std::string_view name, const LabelValues& values) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto f = families_.find(name);
  if (f == families_.end()) return nullptr;
  auto s = f->second.series.find(values);
  return s == f->second.series.end() ? nullptr : s->second.get();
}

void Registry::Add(std::string_view name, const LabelValues& values, uint64_t n) {
  if (Series* s = Find(name, Type::kCounter, values)) s->value.fetch_add(n, std::memory_order_relaxed);
}

void Registry::Set(std::string_view name, const LabelValues& values, double value) {
  if (Series* s = Find(name, Type::kGauge, values)) s->sum.store(value, std::memory_order_relaxed);
}

void Registry::Observe(std::string_view name, const LabelValues& values, double value) {
  Series* s = Find(name, Type::kHistogram, values);
  if (s == nullptr) return;
  // The bounds are the family's, fixed at Declare; the series points at them.
  const std::vector<double>& bounds = *s->bounds;
  size_t i = 0;
  while (i < bounds.size() && value > bounds[i]) ++i;
  // i == bounds.size(): above every bound, counted in +Inf only (via value).
  if (i < s->bucket_counts.size()) s->bucket_counts[i].fetch_add(1, std::memory_order_relaxed);
  s->sum.fetch_add(value, std::memory_order_relaxed);
  s->value.fetch_add(1, std::memory_order_relaxed);
}

uint64_t Registry::CounterValue(std::string_view name, const LabelValues& values) const {
  const Series* s = FindExisting(name, values);
  return s == nullptr ? 0 : s->value.load(std::memory_order_relaxed);
}

double Registry::GaugeValue(std::string_view name, const LabelValues& values) const {
  const Series* s = FindExisting(name, values);
  return s == nullptr ? 0 : s->sum.load(std::memory_order_relaxed);
}

uint64_t Registry::HistogramCount(std::string_view name, const LabelValues& values) const {
  return CounterValue(name, values);
}

std::string Registry::Render() const {
  std::string out;
  std::shared_lock<std::shared_mutex> lock(mu_);
  for (const auto& [name, f] : families_) {
    AppendHeader(out, name, f.type, f.help);
    for (const auto& [values, s] : f.series) {
      Labels labels = Zip(f.label_names, values);
      if (f.type == Type::kCounter) {
        AppendSample(out, name, labels, static_cast<double>(s->value.load(std::memory_order_relaxed)));
        continue;
      }
      if (f.type == Type::kGauge) {
        AppendSample(out, name, labels, s->sum.load(std::memory_order_relaxed));
        continue;
      }
      // Buckets are cumulative in the exposition; the count is read last and
      // raised to the +Inf bucket so a concurrent Observe never shows
      // count < bucket.
      uint64_t cumulative = 0;
      labels.emplace_back("le", "");
      for (size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += s->bucket_counts[i].load(std::memory_order_relaxed);
        labels.back().second = FormatValue(f.buckets[i]);
        AppendSample(out, name + "_bucket", labels, static_cast<double>(cumulative));
      }
      uint64_t count = std::max(cumulative, s->value.load(std::memory_order_relaxed));
      labels.back().second = "+Inf";
      AppendSample(out, name + "_bucket", labels, static_cast<double>(count));
      labels.pop_back();
      AppendSample(out, name + "_sum", labels, s->sum.load(std::memory_order_relaxed));
      AppendSample(out, name + "_count", labels, static_cast<double>(count));
    }
  }
  return out;
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[32];
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  // The shortest form that reads back as the same double ("0.1", not
  // "0.10000000000000001"), so bucket bounds look as configured.
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

void AppendHeader(std::string& out, std::string_view name, Type type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += TypeName(type);
  out += '\n';
}

void AppendSample(std::string& out, std::string_view name, const Labels& labels, double value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out += ',';
      out += labels[i].first;
      out += "=\"";
      out += EscapeLabelValue(labels[i].second);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  out += FormatValue(value);
  out += '\n';
}

}  // namespace hookinbox::metrics
