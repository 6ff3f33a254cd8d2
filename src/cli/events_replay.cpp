// `hookinbox events replay --status S --endpoint E [--since T] [--until T]
// [--error TEXT] [--dry-run] [--yes]`: replays every event a filter matches
// (store::AdminQueries::ReplayMatching), in batches, each event with its own
// audit row naming "cli:" + the OS user.
//
// A bulk replay may send thousands of events to a downstream again, so it is
// never done by accident: without --yes it asks on a terminal (showing the
// count of a dry run first) and refuses, as a usage error, when stdin is not
// one (a script must say --yes). --dry-run only counts.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "cli/replay_time.h"
#include "common/clock.h"
#include "store/sql_store.h"

namespace hookinbox::cli {
namespace {

using nlohmann::json;

int Usage(const std::string& why, std::ostream& err) {
  err << "hookinbox events replay: " << why << "\n";
  return kExitUsage;
}

// The filter from the flags; a usage error for anything malformed.
Result<store::ReplayFilter> FilterOf(const EventsOptions& o, int64_t now_ms) {
  store::ReplayFilter f;
  if (o.status.empty() || o.endpoint.empty()) {
    return InvalidArgument("a bulk replay needs --status and --endpoint");
  }
  f.status = o.status;
  f.endpoint = o.endpoint;
  f.error_contains = o.error;
  for (auto [text, out] : {std::pair{&o.since, &f.since_ms}, std::pair{&o.until, &f.until_ms}}) {
    if (text->empty()) continue;
    auto t = ParseReplayTime(*text, now_ms);
    if (!t.ok()) return InvalidArgument((out == &f.since_ms ? "--since: " : "--until: ") + t.status().message());
    *out = *t;
  }
  return f;
}

std::string Describe(const store::ReplayFilter& f) {
  return "status " + f.status + ", endpoint " + f.endpoint;
}

json ReportJson(const store::ReplayReport& r, bool dry_run) {
  return {{"matched", r.matched},
          {"replayed", r.replayed},
          {"skipped", r.skipped_payload_purged + r.skipped_changed},
          {"skipped_payload_purged", r.skipped_payload_purged},
          {"skipped_changed", r.skipped_changed},
          {"dry_run", dry_run}};
}

void PrintReport(const store::ReplayReport& r, const store::ReplayFilter& f, bool dry_run, std::ostream& out) {
  if (dry_run) {
    out << "dry run: " << r.matched << " events match (" << Describe(f) << "); " << r.skipped_payload_purged
        << " of them have no payload left (retention) and would be skipped; nothing changed\n";
    return;
  }
  out << "matched " << r.matched << ", replayed " << r.replayed << ", skipped "
      << r.skipped_payload_purged + r.skipped_changed << " (payload purged " << r.skipped_payload_purged
      << ", no longer " << f.status << " " << r.skipped_changed << ")\n";
}

// Asks on the terminal; true only for "y" or "yes".
bool Confirmed(int64_t matched, const store::ReplayFilter& f, std::ostream& err) {
  err << "Replay " << matched << " events (" << Describe(f) << ")? [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes";
}

}  // namespace

bool HasReplayFilter(const EventsOptions& o) {
  return !o.status.empty() || !o.endpoint.empty() || !o.since.empty() || !o.until.empty() || !o.error.empty() ||
         o.dry_run || o.yes;
}

int RunEventsReplayMatching(const EventsOptions& options, const CommonOptions& common, std::ostream& out,
                            std::ostream& err) {
  const int64_t now_ms = SystemClock().NowMs();
  auto filter = FilterOf(options, now_ms);
  if (!filter.ok()) return Usage(filter.status().message(), err);
  const bool ask = !options.yes && !options.dry_run;
  if (ask && ::isatty(STDIN_FILENO) == 0) {
    return Usage("refusing to replay without --yes (stdin is not a terminal); --dry-run counts first", err);
  }
  auto opened = OpenForCommand(common, {.verb = "events"}, err);
  if (!opened) return kExitFailure;
  // A mistyped endpoint would match nothing and look like "all clear".
  if (opened->config.FindEndpoint(filter->endpoint) == nullptr) {
    return Usage("no endpoint named " + filter->endpoint + " in the config", err);
  }
  if (!opened->OpenStore(err)) return kExitFailure;
  store::SqlStore& store = *opened->store;
  const std::string actor = CliActor();
  if (ask) {
    auto count = store.ReplayMatching(*filter, actor, options.note, now_ms, true);
    if (!count.ok()) {
      err << "hookinbox events: " << count.status().message() << "\n";
      return ExitFor(count.status());
    }
    if (count->matched == 0 || !Confirmed(count->matched, *filter, err)) {
      err << "nothing replayed\n";
      return count->matched == 0 ? kExitOk : kExitFailure;
    }
  }
  auto report = store.ReplayMatching(*filter, actor, options.note, SystemClock().NowMs(), options.dry_run);
  if (!report.ok()) {
    err << "hookinbox events: " << report.status().message() << "\n";
    return ExitFor(report.status());
  }
  if (common.json) {
    out << ReportJson(*report, options.dry_run).dump(2) << "\n";
  } else {
    PrintReport(*report, *filter, options.dry_run, out);
  }
  return kExitOk;
}

}  // namespace hookinbox::cli
