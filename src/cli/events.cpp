// `hookinbox events list|show|replay|resolve`: the operator's view of stored
// events and the two things a person may do to one (SPEC §4, §7); replay by
// filter is in events_replay.cpp.
//
// The database is the one the config names; it is opened like the server
// opens it (busy_timeout, WAL), so these verbs work while `serve` runs — the
// server's writes and ours take turns on SQLite's write lock. The actor in
// audit rows is "cli:" + the OS user. The payload is printed only with
// `show --payload`.
#include <pwd.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <memory>

#include "admin/api_json.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "common/clock.h"
#include "store/sql_store.h"

namespace hookinbox::cli {
namespace {

using nlohmann::json;

}  // namespace

std::string CliActor() {
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) {
    return std::string("cli:") + pw->pw_name;
  }
  return "cli:uid" + std::to_string(::geteuid());
}

namespace {

// Opens the config's database; nullptr (with the reason on err) on failure.
std::unique_ptr<store::SqlStore> OpenStore(const CommonOptions& common, std::ostream& err) {
  auto opened = OpenForCommand(common, {.verb = "events", .open_store = true}, err);
  return opened ? std::move(opened->store) : nullptr;
}

// The admin API's shapes (admin/api_json.h), so one reader understands both;
// `show` adds the payload but not the admin API's effects and steps.
json Time(int64_t ms) { return admin::IsoTime(ms); }
json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json ToJson(const store::EventRow& e) { return admin::EventJson(e); }

json ToJson(const store::EventDetail& d) {
  json out = {{"event", ToJson(d.event)}, {"deliveries", json::array()}, {"attempts", json::array()},
              {"actions", json::array()}};
  for (const auto& x : d.deliveries) out["deliveries"].push_back(admin::DeliveryJson(x));
  for (const auto& a : d.attempts) out["attempts"].push_back(admin::AttemptJson(a));
  for (const auto& a : d.actions) out["actions"].push_back(admin::ActionJson(a));
  if (d.has_payload) out["payload"] = {{"content_type", OrNull(d.content_type)}, {"body", d.payload}};
  return out;
}

// Bodies need not be UTF-8: replace invalid bytes instead of throwing.
std::string Dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

std::string Str(const json& v) { return v.is_null() ? "-" : v.is_string() ? v.get<std::string>() : v.dump(); }

void PrintEventLine(const store::EventRow& e, std::ostream& out) {
  out << e.id << "  " << e.status << "  " << e.endpoint << "  " << e.event_id << "  "
      << (e.event_type.empty() ? "-" : e.event_type) << "  attempts=" << e.attempt_count << "  "
      << Str(Time(e.received_at_ms)) << "\n";
}

void PrintDetail(const store::EventDetail& d, std::ostream& out) {
  json j = ToJson(d);
  for (const auto& [key, value] : j["event"].items()) out << key << ": " << Str(value) << "\n";
  for (const char* section : {"deliveries", "attempts", "actions"}) {
    out << section << ": " << j[section].size() << "\n";
    for (const auto& row : j[section]) {
      out << " ";
      for (const auto& [key, value] : row.items()) {
        if (!value.is_null()) out << " " << key << "=" << Str(value);
      }
      out << "\n";
    }
  }
  if (d.has_payload) {
    out << "payload (" << (d.content_type.empty() ? "no content type" : d.content_type) << "):\n"
        << d.payload << "\n";
  }
}

// The store judges the ids and filters given on the command line, so its
// kInvalidArgument is a usage error here.
int Fail(const Status& st, std::ostream& err) {
  err << "hookinbox events: " << st.message() << "\n";
  return ExitFor(st);
}

}  // namespace

int RunEventsList(const EventsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  auto store = OpenStore(common, err);
  if (!store) return kExitFailure;
  store::EventFilter filter;
  filter.status = options.status;
  filter.endpoint = options.endpoint;
  filter.limit = options.limit;
  auto page = store->ListEvents(filter);
  if (!page.ok()) return Fail(page.status(), err);
  if (common.json) {
    json list = json::array();
    for (const auto& e : page->events) list.push_back(ToJson(e));
    json next = page->next_before_id ? json(page->next_before_id) : json(nullptr);
    out << Dump({{"events", list}, {"next_before_id", next}}) << "\n";
    return kExitOk;
  }
  if (page->events.empty()) out << "no events\n";
  for (const auto& e : page->events) PrintEventLine(e, out);
  if (page->next_before_id) out << "(more: older events have ids below " << page->next_before_id << ")\n";
  return kExitOk;
}

int RunEventsShow(const EventsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  auto store = OpenStore(common, err);
  if (!store) return kExitFailure;
  auto detail = store->GetEvent(options.ids.at(0), options.payload);
  if (!detail.ok()) return Fail(detail.status(), err);
  if (common.json) {
    out << Dump(ToJson(*detail)) << "\n";
  } else {
    PrintDetail(*detail, out);
  }
  return kExitOk;
}

int RunEventsReplay(const EventsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  if (!options.ids.empty() && HasReplayFilter(options)) {
    err << "hookinbox events replay: give event IDs or a filter (--status, --endpoint, …), not both\n";
    return kExitUsage;
  }
  if (options.ids.empty()) {
    if (HasReplayFilter(options)) return RunEventsReplayMatching(options, common, out, err);
    err << "hookinbox events replay: give event IDs, or --status and --endpoint to replay by filter\n";
    return kExitUsage;
  }
  auto store = OpenStore(common, err);
  if (!store) return kExitFailure;
  const std::string actor = CliActor();
  int code = kExitOk;
  json results = json::array();
  for (int64_t id : options.ids) {
    Status st = store->Replay(id, actor, options.note, SystemClock().NowMs());
    results.push_back({{"id", id}, {"ok", st.ok()}, {"error", st.ok() ? json(nullptr) : json(st.message())}});
    if (st.ok()) {
      if (!common.json) out << id << ": replayed (now received)\n";
    } else {
      code = kExitFailure;
      err << "hookinbox events: " << st.message() << "\n";
    }
  }
  if (common.json) out << Dump({{"results", results}}) << "\n";
  return code;
}

int RunEventsResolve(const EventsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  auto store = OpenStore(common, err);
  if (!store) return kExitFailure;
  int64_t id = options.ids.at(0);
  Status st = store->Resolve(id, options.as, options.result_ref, options.note, CliActor(), SystemClock().NowMs());
  if (!st.ok()) return Fail(st, err);
  if (common.json) {
    out << Dump({{"id", id}, {"ok", true}, {"status", options.as}}) << "\n";
  } else {
    out << id << ": resolved as " << options.as << "\n";
  }
  return kExitOk;
}

}  // namespace hookinbox::cli
