// `hookinbox reconcile --endpoint E [--tenant T] --ids FILE`: which of the
// event ids a provider says it sent (its export, one id per line) the inbox
// never received, received but did not complete, or left `unknown`.
//
// Exit 0 when every id was received and completed (or skipped on purpose),
// 1 when any id is missing, incomplete or unknown, 2 for usage errors
// (unknown endpoint or tenant, unreadable or malformed FILE, too many ids).
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <istream>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/open_command.h"
#include "store/sql_store.h"

namespace hookinbox::cli {
namespace {

using nlohmann::json;

constexpr size_t kMaxIds = 1'000'000;
constexpr size_t kMaxIdBytes = 1024;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// Why `id` (already trimmed) cannot be an event id, or "" when it can.
std::string Malformed(const std::string& id) {
  if (id.size() > kMaxIdBytes) return "longer than " + std::to_string(kMaxIdBytes) + " bytes";
  for (unsigned char c : id) {
    if (IsSpace(static_cast<char>(c))) return "contains whitespace (one id per line)";
    if (c < 0x20 || c == 0x7f) return "contains a control character";
  }
  return "";
}

// Reads one id per line; blank lines and surrounding whitespace are ignored.
// Returns false (with the reason on err) for a malformed line or too many ids.
bool ReadIds(std::istream& in, const std::string& name, std::vector<std::string>& ids, std::ostream& err) {
  std::string line;
  for (size_t line_no = 1; std::getline(in, line); ++line_no) {
    size_t begin = 0;
    size_t end = line.size();
    while (begin < end && IsSpace(line[begin])) ++begin;
    while (end > begin && IsSpace(line[end - 1])) --end;
    if (begin == end) continue;
    std::string id = line.substr(begin, end - begin);
    if (std::string why = Malformed(id); !why.empty()) {
      err << "hookinbox reconcile: " << name << ":" << line_no << ": malformed id: " << why << "\n";
      return false;
    }
    if (ids.size() == kMaxIds) {
      err << "hookinbox reconcile: " << name << ": more than " << kMaxIds
          << " ids; split the export and reconcile each part\n";
      return false;
    }
    ids.push_back(std::move(id));
  }
  if (in.bad()) {
    err << "hookinbox reconcile: cannot read " << name << "\n";
    return false;
  }
  return true;
}

// The tenant to reconcile: --tenant checked against the endpoint, or the endpoint's own.
bool PickTenant(const config::EndpointConfig& endpoint, const std::string& given, std::string& tenant,
                std::ostream& err) {
  if (!endpoint.tenants.empty()) {
    if (given.empty()) {
      err << "hookinbox reconcile: endpoint " << endpoint.name << " has tenants; name one with --tenant\n";
      return false;
    }
    if (endpoint.FindTenant(given) == nullptr) {
      err << "hookinbox reconcile: endpoint " << endpoint.name << " has no tenant " << given << "\n";
      return false;
    }
    tenant = given;
    return true;
  }
  if (!given.empty() && given != endpoint.tenant) {
    err << "hookinbox reconcile: endpoint " << endpoint.name << " stores tenant " << endpoint.tenant << ", not "
        << given << "\n";
    return false;
  }
  tenant = endpoint.tenant;
  return true;
}

json Entries(const std::vector<store::ReconcileEntry>& entries, bool with_row) {
  json out = json::array();
  for (const auto& e : entries) {
    json j = {{"event_id", e.event_id}};
    if (with_row) {
      j["id"] = e.id;
      j["status"] = e.status;
    }
    out.push_back(std::move(j));
  }
  return out;
}

void PrintGroup(const char* title, const std::vector<store::ReconcileEntry>& entries, std::ostream& out) {
  out << title << " (" << entries.size() << "):\n";
  for (const auto& e : entries) {
    out << "  " << e.event_id;
    if (e.id != 0) out << "  id=" << e.id << "  status=" << e.status;
    out << "\n";
  }
}

void Print(const ReconcileOptions& options, const std::string& tenant, size_t ids, const store::ReconcileReport& r,
           bool as_json, std::ostream& out) {
  const bool all_done = r.never_received.empty() && r.not_completed.empty() && r.unknown.empty();
  if (as_json) {
    json j = {{"endpoint", options.endpoint},
              {"tenant", tenant},
              {"ids", ids},
              {"completed", r.completed},
              {"never_received", Entries(r.never_received, false)},
              {"not_completed", Entries(r.not_completed, true)},
              {"unknown", Entries(r.unknown, true)},
              {"ok", all_done}};
    out << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return;
  }
  out << "endpoint " << options.endpoint << ", tenant " << tenant << ": " << ids << " distinct ids, " << r.completed
      << " completed, " << r.never_received.size() << " never received, " << r.not_completed.size()
      << " received but not completed, " << r.unknown.size() << " unknown\n";
  if (!r.never_received.empty()) PrintGroup("never received", r.never_received, out);
  if (!r.not_completed.empty()) PrintGroup("received but not completed", r.not_completed, out);
  if (!r.unknown.empty()) PrintGroup("unknown (outcome not known; see `hookinbox events show ID`)", r.unknown, out);
  if (all_done) out << "all received and completed\n";
}

}  // namespace

int RunReconcile(const ReconcileOptions& options, const CommonOptions& common, std::ostream& out,
                 std::ostream& err) {
  auto opened = OpenForCommand(common, {.verb = "reconcile"}, err);
  if (!opened) return kExitFailure;
  const auto* endpoint = opened->config.FindEndpoint(options.endpoint);
  if (endpoint == nullptr) {
    err << "hookinbox reconcile: no endpoint " << options.endpoint << " in " << opened->config_path << "\n";
    return kExitUsage;
  }
  std::string tenant;
  if (!PickTenant(*endpoint, options.tenant, tenant, err)) return kExitUsage;

  std::vector<std::string> ids;
  if (options.ids_file == "-") {
    if (!ReadIds(std::cin, "stdin", ids, err)) return kExitUsage;
  } else {
    std::ifstream file(options.ids_file, std::ios::binary);
    if (!file) {
      err << "hookinbox reconcile: cannot open " << options.ids_file << "\n";
      return kExitUsage;
    }
    if (!ReadIds(file, options.ids_file, ids, err)) return kExitUsage;
  }

  // Opened only now: a usage error must not create or migrate the database.
  if (!opened->OpenStore(err)) return kExitFailure;
  auto report = opened->store->Reconcile(endpoint->name, tenant, ids);
  if (!report.ok()) {
    err << "hookinbox reconcile: " << report.status().message() << "\n";
    return kExitFailure;
  }
  const size_t distinct = report->completed + report->never_received.size() + report->not_completed.size() +
                          report->unknown.size();
  Print(options, tenant, distinct, *report, common.json, out);
  const bool all_done = report->never_received.empty() && report->not_completed.empty() && report->unknown.empty();
  return all_done ? kExitOk : kExitFailure;
}

}  // namespace hookinbox::cli
