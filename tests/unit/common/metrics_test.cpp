#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "common/metrics.h"

using namespace hookinbox;
using metrics::Registry;
using metrics::Type;

namespace {

// A small reader for the exposition format, written from the 0.0.4 text
// spec, so the test checks what a scraper would read, not our own strings.
struct Parsed {
  std::map<std::string, std::string> help, type;   // family → text
  std::map<std::string, double> samples;           // "name{labels as written}" → value
  std::vector<std::string> errors;
};

// Unescapes a label value in place while checking quoting; returns the end of the "…".
size_t ReadLabelValue(const std::string& line, size_t at, std::string* value, bool* ok) {
  value->clear();
  for (size_t i = at; i < line.size(); ++i) {
    char c = line[i];
    if (c == '"') return i;
    if (c == '\n') break;
    if (c == '\\') {
      if (i + 1 >= line.size()) break;
      char e = line[++i];
      if (e == 'n') value->push_back('\n');
      else if (e == '\\' || e == '"') value->push_back(e);
      else break;
      continue;
    }
    value->push_back(c);
  }
  *ok = false;
  return line.size();
}

Parsed Parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      size_t sp = line.find(' ', 7);
      p.help[line.substr(7, sp - 7)] = line.substr(sp + 1);
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      size_t sp = line.find(' ', 7);
      p.type[line.substr(7, sp - 7)] = line.substr(sp + 1);
      continue;
    }
    size_t brace = line.find('{');
    size_t space = line.rfind(' ');
    if (space == std::string::npos) {
      p.errors.push_back(line);
      continue;
    }
    std::string key;
    bool ok = true;
    if (brace != std::string::npos && brace < space) {
      key = line.substr(0, brace) + "{";
      size_t i = brace + 1;
      while (ok && i < line.size() && line[i] != '}') {
        size_t eq = line.find("=\"", i);
        if (eq == std::string::npos) { ok = false; break; }
        std::string value;
        size_t end = ReadLabelValue(line, eq + 2, &value, &ok);
        if (key.back() != '{') key += ",";
        key += line.substr(i, eq - i) + "=" + value;
        i = end + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      key += "}";
      space = i + 1;  // just past the closing brace the loop stopped at
      if (space >= line.size() || line[space] != ' ') ok = false;
    } else {
      key = line.substr(0, space);
    }
    if (!ok) {
      p.errors.push_back(line);
      continue;
    }
    std::string v = line.substr(space + 1);
    p.samples[key] = v == "+Inf" ? INFINITY : std::stod(v);
  }
  return p;
}

}  // namespace

TEST_CASE("metrics: counters add per label tuple and render with HELP and TYPE", "[common][metrics]") {
  Registry r;
  r.Declare("x_total", Type::kCounter, "Things.", {"endpoint", "provider"});
  r.Add("x_total", {"a", "github"});
  r.Add("x_total", {"a", "github"}, 2);
  r.Add("x_total", {"b", "stripe"});
  r.Add("x_total", {"only-one-label"});  // wrong arity: ignored
  r.Add("undeclared_total", {"a", "b"});  // unknown family: ignored
  CHECK(r.CounterValue("x_total", {"a", "github"}) == 3);
  CHECK(r.CounterValue("x_total", {"b", "stripe"}) == 1);
  CHECK(r.CounterValue("x_total", {"c", "stripe"}) == 0);

  Parsed p = Parse(r.Render());
  CHECK(p.errors.empty());
  CHECK(p.help["x_total"] == "Things.");
  CHECK(p.type["x_total"] == "counter");
  CHECK(p.samples["x_total{endpoint=a,provider=github}"] == 3);
  CHECK(p.samples["x_total{endpoint=b,provider=stripe}"] == 1);
  CHECK(p.samples.size() == 2);
}

TEST_CASE("metrics: a gauge holds the last value set, per label tuple", "[common][metrics]") {
  Registry r;
  r.Declare("g", Type::kGauge, "A level.", {"endpoint"});
  r.Set("g", {"a"}, 5);
  r.Set("g", {"a"}, 2.5);
  r.Set("g", {"b"}, 0);
  r.Set("g", {}, 1);           // wrong arity: ignored
  r.Add("g", {"a"});           // not a counter: ignored
  CHECK(r.GaugeValue("g", {"a"}) == 2.5);
  CHECK(r.GaugeValue("g", {"c"}) == 0);
  Parsed p = Parse(r.Render());
  CHECK(p.errors.empty());
  CHECK(p.type["g"] == "gauge");
  CHECK(p.samples["g{endpoint=a}"] == 2.5);
  CHECK(p.samples["g{endpoint=b}"] == 0);
  CHECK(p.samples.size() == 2);
}

TEST_CASE("metrics: label values with quotes, backslashes and newlines are escaped", "[common][metrics]") {
  Registry r;
  r.Declare("y_total", Type::kCounter, "Help with \\ and\nnewline.", {"endpoint"});
  const std::string hostile = "a\"b\\c\nd} 99";
  r.Add("y_total", {hostile}, 7);
  std::string text = r.Render();
  CHECK(text.find("# HELP y_total Help with \\\\ and\\nnewline.\n") != std::string::npos);
  CHECK(text.find("y_total{endpoint=\"a\\\"b\\\\c\\nd} 99\"} 7\n") != std::string::npos);
  Parsed p = Parse(text);
  CHECK(p.errors.empty());
  CHECK(p.samples["y_total{endpoint=" + hostile + "}"] == 7);
  // Every sample is one line: HELP, TYPE, the sample.
  CHECK(std::count(text.begin(), text.end(), '\n') == 3);
}

TEST_CASE("metrics: a histogram renders cumulative buckets, +Inf, sum and count", "[common][metrics]") {
  Registry r;
  r.Declare("d_seconds", Type::kHistogram, "Durations.", {"endpoint"}, {0.1, 1, 10});
  for (double v : {0.05, 0.1, 0.5, 2.0, 20.0}) r.Observe("d_seconds", {"e"}, v);
  CHECK(r.HistogramCount("d_seconds", {"e"}) == 5);
  Parsed p = Parse(r.Render());
  CHECK(p.errors.empty());
  CHECK(p.type["d_seconds"] == "histogram");
  CHECK(p.samples["d_seconds_bucket{endpoint=e,le=0.1}"] == 2);  // 0.05 and 0.1 (le is inclusive)
  CHECK(p.samples["d_seconds_bucket{endpoint=e,le=1}"] == 3);
  CHECK(p.samples["d_seconds_bucket{endpoint=e,le=10}"] == 4);
  CHECK(p.samples["d_seconds_bucket{endpoint=e,le=+Inf}"] == 5);
  CHECK(p.samples["d_seconds_count{endpoint=e}"] == 5);
  CHECK(p.samples["d_seconds_sum{endpoint=e}"] == Approx(22.65));
}

TEST_CASE("metrics: concurrent counting loses nothing", "[common][metrics]") {
  Registry r;
  r.Declare("c_total", Type::kCounter, "C.", {"endpoint"});
  r.Declare("h_seconds", Type::kHistogram, "H.", {"endpoint"}, metrics::ProcessingBuckets());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&r, t] {
      for (int i = 0; i < 5000; ++i) {
        r.Add("c_total", {"e" + std::to_string(i % 3)});
        r.Observe("h_seconds", {"e" + std::to_string(t % 2)}, 0.001 * i);
        if (i % 1000 == 0) (void)r.Render();  // a scrape in the middle
      }
    });
  }
  for (auto& t : threads) t.join();
  uint64_t total = 0;
  for (int i = 0; i < 3; ++i) total += r.CounterValue("c_total", {"e" + std::to_string(i)});
  CHECK(total == 40000);
  CHECK(r.HistogramCount("h_seconds", {"e0"}) + r.HistogramCount("h_seconds", {"e1"}) == 40000);
}

TEST_CASE("metrics: values render as Prometheus reads them", "[common][metrics]") {
  CHECK(metrics::FormatValue(3) == "3");
  CHECK(metrics::FormatValue(0) == "0");
  CHECK(metrics::FormatValue(1.5) == "1.5");
  CHECK(metrics::FormatValue(INFINITY) == "+Inf");
  CHECK(metrics::FormatValue(NAN) == "NaN");
}

TEST_CASE("metrics: the default registry declares the product's families", "[common][metrics]") {
  Parsed p = Parse(Registry::Default().Render());
  for (const char* name : {metrics::kReceivedTotal, metrics::kDuplicateTotal, metrics::kConflictTotal,
                           metrics::kRejectedTotal, metrics::kRetriesTotal, metrics::kAttemptsTotal}) {
    INFO(name);
    CHECK(p.type[name] == "counter");
  }
  CHECK(p.type[metrics::kProcessingSeconds] == "histogram");
  CHECK(p.type[metrics::kEffectsAlreadyDoneTotal] == "counter");
  CHECK(p.type[metrics::kReconcileGaps] == "gauge");
  CHECK(p.type[metrics::kTlsCertificateExpiry] == "gauge");
}
