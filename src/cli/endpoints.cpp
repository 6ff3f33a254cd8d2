// `hookinbox endpoints list|pause NAME [--reason TEXT]|resume NAME`: each
// configured endpoint's dispatch state, and the operator's hold on it
// (store/endpoint_states.h).
//
// The database is the one the config names, opened as `events` opens it, so
// these verbs work while `serve` runs: the server's worker reads the pause
// at its next poll, and in PostgreSQL mode every replica's worker does (the
// row is shared). The actor in endpoint_actions is "cli:" + the OS user.
// Pausing a paused endpoint (resuming a running one) says so, writes
// nothing and exits 0: the endpoint is in the state asked for. --json prints
// what the admin API answers (admin/endpoint_json.h).

#include <nlohmann/json.hpp>

#include "admin/endpoint_json.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "common/clock.h"
#include "store/sql_store.h"

namespace hookinbox::cli {
namespace {

using nlohmann::ordered_json;

std::string Dump(const ordered_json& j) { return j.dump(2, ' ', false, ordered_json::error_handler_t::replace); }

std::string Text(const ordered_json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string PauseText(const ordered_json& e) {
  if (!e["paused"].get<bool>()) return "running";
  std::string out = "paused since " + Text(e["paused_at"]) + " by " + Text(e["paused_by"]);
  if (!e["paused_reason"].is_null()) out += " (" + Text(e["paused_reason"]) + ")";
  return out;
}

std::string BreakerText(const ordered_json& b) {
  std::string out = "breaker " + Text(b["state"]);
  if (b["state"] == "closed") return out;
  out += " after " + Text(b["failures"]) + " failures";
  if (!b["next_probe_at"].is_null()) out += ", next trial " + Text(b["next_probe_at"]);
  if (!b["last_error"].is_null()) out += ", last error: " + Text(b["last_error"]);
  return out;
}

void PrintEndpoint(const ordered_json& e, std::ostream& out) {
  out << Text(e["name"]) << "  " << Text(e["provider"]) << "  action=" << (e["has_action"].get<bool>() ? "yes" : "no")
      << "  " << PauseText(e) << "  " << BreakerText(e["breaker"]) << "\n";
}

// The endpoint's row, or nullptr when it has none (running, breaker closed).
Result<std::optional<store::EndpointState>> StateOf(store::EndpointStates& states, const std::string& name) {
  auto rows = states.ListEndpointStates();
  if (!rows.ok()) return rows.status();
  for (auto& s : *rows) {
    if (s.endpoint == name) return std::optional<store::EndpointState>(std::move(s));
  }
  return std::optional<store::EndpointState>();
}

std::string Configured(const config::Config& config) {
  std::string out;
  for (const auto& e : config.endpoints) out += (out.empty() ? "" : ", ") + e.name;
  return out.empty() ? "none" : out;
}

int SetPaused(const std::string& name, bool pause, const std::string& reason, const CommonOptions& common,
              std::ostream& out, std::ostream& err) {
  auto opened = OpenForCommand(common, {.verb = "endpoints"}, err);
  if (!opened) return kExitFailure;
  const config::EndpointConfig* endpoint = opened->config.FindEndpoint(name);
  if (endpoint == nullptr) {
    err << "hookinbox endpoints: no endpoint named \"" << name << "\" in " << opened->config_path
        << " (configured: " << Configured(opened->config) << ")\n";
    return kExitUsage;
  }
  if (!opened->OpenStore(err)) return kExitFailure;
  store::SqlStore& store = *opened->store;
  auto changed = store.SetPaused(endpoint->name, pause, CliActor(), reason, SystemClock().NowMs());
  if (!changed.ok()) {
    err << "hookinbox endpoints: " << changed.status().message() << "\n";
    return ExitFor(changed.status());  // an over-long reason is the command line's fault
  }
  auto state = StateOf(store, endpoint->name);
  if (!state.ok()) {
    err << "hookinbox endpoints: " << state.status().message() << "\n";
    return kExitFailure;
  }
  ordered_json e = admin::EndpointJson(*endpoint, state->has_value() ? &**state : nullptr);
  if (common.json) {
    out << Dump({{"endpoint", e}, {"changed", *changed}}) << "\n";
  } else if (*changed) {
    out << name << ": " << (pause ? "paused" : "resumed")
        << (pause ? "; deliveries are still received and wait until `hookinbox endpoints resume " + name + "`\n"
                  : "; the worker sends its waiting events again\n");
  } else {
    out << name << ": already " << PauseText(e) << "; nothing changed\n";
  }
  return kExitOk;
}

}  // namespace

int RunEndpointsList(const CommonOptions& common, std::ostream& out, std::ostream& err) {
  auto opened = OpenForCommand(common, {.verb = "endpoints", .open_store = true}, err);
  if (!opened) return kExitFailure;
  auto states = opened->store->ListEndpointStates();
  if (!states.ok()) {
    err << "hookinbox endpoints: " << states.status().message() << "\n";
    return kExitFailure;
  }
  ordered_json j = admin::EndpointsJson(opened->config, *states);
  if (common.json) {
    out << Dump(j) << "\n";
    return kExitOk;
  }
  if (j["endpoints"].empty()) out << "no endpoints in " << opened->config_path << "\n";
  for (const auto& e : j["endpoints"]) PrintEndpoint(e, out);
  return kExitOk;
}

int RunEndpointsPause(const std::string& name, const std::string& reason, const CommonOptions& common,
                      std::ostream& out, std::ostream& err) {
  return SetPaused(name, true, reason, common, out, err);
}

int RunEndpointsResume(const std::string& name, const CommonOptions& common, std::ostream& out, std::ostream& err) {
  return SetPaused(name, false, "", common, out, err);
}

}  // namespace hookinbox::cli
