// common/metrics.h — the process's counters and histograms, and the
// Prometheus text exposition (format 0.0.4) they are rendered in.
//
// Design: a Registry holds families (one name, one type, one help text, fixed
// label names) and, per family, one series per label-value tuple. Counting
// finds the series under a shared lock (an exclusive one only the first time
// a tuple is seen) and then updates atomics, so two threads counting into
// existing series never wait for each other. Label values are free text from
// the config (endpoint, provider) or a small fixed set chosen by the caller
// (reason): callers must never pass request data as a label value, or the
// series count grows without bound.
//
// Counters start at 0 when the process starts; they are not seeded from the
// database. Prometheus counters may reset (rate() and increase() treat a drop
// as a restart), while seeding would mean counting all of webhook_deliveries
// (no index serves it) on every start, and would make two processes on one
// file (serve + a CLI) disagree. What must survive a restart is state
// (backlog, dead letters, unknown): admin/metrics reads that from the
// database at scrape time.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookinbox::metrics {

// Label values in the family's label-name order.
using LabelValues = std::vector<std::string>;
// name=value pairs, for rendering.
using Labels = std::vector<std::pair<std::string, std::string>>;

enum class Type { kCounter, kGauge, kHistogram };

// Upper bounds (seconds) of webhook_processing_seconds: from 5 ms to 5 min,
// fine enough around typical downstream latencies that p95 is useful.
const std::vector<double>& ProcessingBuckets();

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The process registry, with the product's families (names below) declared.
  static Registry& Default();

  // Declares a family. Declaring a name twice keeps the first declaration.
  void Declare(std::string name, Type type, std::string help, std::vector<std::string> label_names,
               std::vector<double> buckets = {});

  // Adds `n` to a counter series. Unknown family or wrong label count: ignored
  // (a metrics bug must never fail a delivery).
  void Add(std::string_view name, const LabelValues& values, uint64_t n = 1);
  // Sets a gauge series to `value` (a process-held state: a certificate's
  // expiry, the last reconciliation's findings).
  void Set(std::string_view name, const LabelValues& values, double value);
  // Records one observation into a histogram series.
  void Observe(std::string_view name, const LabelValues& values, double value);

  // The value of a counter series, 0 when absent (for tests and `stats`).
  uint64_t CounterValue(std::string_view name, const LabelValues& values) const;
  // The value of a gauge series, 0 when absent.
  double GaugeValue(std::string_view name, const LabelValues& values) const;
  // Count of observations of a histogram series, 0 when absent.
  uint64_t HistogramCount(std::string_view name, const LabelValues& values) const;

  // Every declared family in exposition format, families sorted by name,
  // series by label values. A family with no series yet still gets its
  // HELP/TYPE lines so dashboards see the name.
  std::string Render() const;

 private:
  struct Series {
    explicit Series(const std::vector<double>* b) : bounds(b), bucket_counts(b->size()) {}
    const std::vector<double>* bounds;                // the family's bucket bounds (never change)
    std::atomic<uint64_t> value{0};                   // counter value, or histogram count
    std::atomic<double> sum{0};                       // histogram sum, or gauge value
    std::vector<std::atomic<uint64_t>> bucket_counts;  // histogram: non-cumulative per bucket
  };
  struct Family {
    Type type = Type::kCounter;
    std::string help;
    std::vector<std::string> label_names;
    std::vector<double> buckets;
    std::map<LabelValues, std::unique_ptr<Series>> series;  // guarded by mu_
  };

  // The series for `values`, created on first use; nullptr on a type or arity mismatch.
  Series* Find(std::string_view name, Type type, const LabelValues& values);
  const Series* FindExisting(std::string_view name, const LabelValues& values) const;

  mutable std::shared_mutex mu_;  // guards families_ and each family's series map (not the atomics)
  std::map<std::string, Family, std::less<>> families_;
};

// --- Exposition helpers, shared with admin/metrics for the state gauges. ---

// "# HELP name help\n# TYPE name type\n" (help escaped: backslash, newline).
void AppendHeader(std::string& out, std::string_view name, Type type, std::string_view help);
// "name{a="x",b="y"} value\n", label values escaped (backslash, quote, newline).
void AppendSample(std::string& out, std::string_view name, const Labels& labels, double value);
// A sample value as Prometheus reads it: integers without a decimal point, +Inf, NaN.
std::string FormatValue(double value);
// A label value escaped for the exposition format.
std::string EscapeLabelValue(std::string_view value);

// Names of the product's process metrics (declared by Registry::Default()).
inline constexpr const char* kReceivedTotal = "webhook_received_total";          // {endpoint,provider}
inline constexpr const char* kDuplicateTotal = "webhook_duplicate_total";        // {endpoint,provider}
inline constexpr const char* kConflictTotal = "webhook_claim_conflict_total";    // {endpoint,provider}
inline constexpr const char* kRejectedTotal = "webhook_rejected_total";          // {endpoint,provider,reason}
inline constexpr const char* kProcessingSeconds = "webhook_processing_seconds";  // {endpoint,provider}
inline constexpr const char* kRetriesTotal = "webhook_retries_total";            // {endpoint,provider,reason}
inline constexpr const char* kAttemptsTotal = "webhook_attempts_total";          // {endpoint,provider,outcome}
// Attempts an async action answered 202 "started": handed to the handler, which ends them through /v1/events/….
inline constexpr const char* kAttemptsStartedTotal = "webhook_attempts_started_total";  // {endpoint,provider}
inline constexpr const char* kConnectionsCutTotal = "webhook_connections_cut_total";  // {listener,reason}
inline constexpr const char* kConnectionsRefusedTotal = "webhook_connections_refused_total";  // {listener,reason}
// The handler API's effect claims answered "done": a repeat refused (SPEC §9 /v1/effects/claim).
inline constexpr const char* kEffectsAlreadyDoneTotal = "webhook_effects_already_done_total";  // {}
// The last reconciliation through the admin API: ids in each gap, per endpoint (gauge).
inline constexpr const char* kReconcileGaps = "webhook_reconcile_gaps";  // {endpoint,kind}
// When the certificate a TLS listener serves expires, Unix seconds (gauge).
inline constexpr const char* kTlsCertificateExpiry = "webhook_tls_certificate_expiry_timestamp_seconds";  // {listener}

}  // namespace hookinbox::metrics
