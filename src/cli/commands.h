// cli/commands.h — one Run function per subcommand, callable from tests
// without spawning a process. Each returns an exit code (cli/exit_code.h).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace hookinbox::cli {

struct CommonOptions {
  std::string config_path;  // -c/--config; empty = ./hookinbox.toml
  bool json = false;        // --json: machine-readable output
};

// `hookinbox init [--provider NAME] [DIR]`: writes DIR/hookinbox.toml, a
// self-signed certificate, the demo secret and the data directory; with
// --provider, an endpoint for that provider (cli/init_provider.h) instead of
// the demo. `hookinbox init -c FILE` (DIR empty): creates only what FILE
// names and lacks (init.h InitializeFromConfig). DIR or --provider with -c,
// and an unknown provider (nothing written), are usage errors.
struct InitOptions {
  std::string dir;       // DIR; empty = the current directory, or none with -c
  std::string provider;  // --provider NAME: a preset name or alias
};
int RunInit(const InitOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox presets [--json]` (presets.cpp): every preset with its aliases
// and required keys (cli/preset_info.h); --json adds scheme, secret hint,
// handshake and redelivery window. Always 0.
int RunPresets(const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox check-config`: every problem with file, line and key.
int RunCheckConfig(const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox serve`: serves until SIGTERM/SIGINT; creates the embedded
// default in the current directory when no config exists and none was named.
int RunServe(const CommonOptions& common, std::ostream& out);  // errors go to the log (stderr)
// `serve`'s own flags.
struct ServeOptions {
  // --accept-key-change ENDPOINT (repeatable): endpoints whose idempotency-key
  // spec may differ from the one their stored keys were made with, at start
  // (config::ReloadAsk::accept_key_change).
  std::vector<std::string> accept_key_change;
};
int RunServe(const ServeOptions& options, const CommonOptions& common, std::ostream& out);

// `hookinbox reload [--accept-key-change ENDPOINT]... [--json]` (reload.cpp):
// asks the running service (POST /admin/api/reload on admin.listen, with the
// admin token) to load its config file again. Prints what changed and what
// needs a restart, or why it was refused; --json prints the service's answer
// as is. 0 applied, 1 refused or the service unreachable or refusing the
// token, 2 usage (a flag, or an ENDPOINT the config does not have).
struct ReloadOptions {
  // --accept-key-change ENDPOINT (repeatable): confirms a change of the
  // endpoint's idempotency-key spec although it still holds keys in retention.
  std::vector<std::string> accept_key_change;
};
int RunReload(const ReloadOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox send-test ENDPOINT` (send_test_delivery.cpp): signs a sample
// delivery as the endpoint's provider would and sends it to the running
// server, printing each response.
struct SendTestOptions {
  std::string endpoint;    // ENDPOINT: the endpoint's name
  std::string tenant;      // --tenant: required for an endpoint with tenants
  std::string url;         // --url: base URL or full URL; default from server.listen
  std::string event_type;  // --event-type; default "hookinbox.test"
  std::string body_file;   // --body: send this file's bytes instead of a sample
  int times = 1;           // --times: the same delivery this many times
  bool concurrent = false;    // --concurrent: all at once, one thread each
  bool insecure_tls = false;  // --insecure-tls: skip server certificate verification
  // --private-key: PEM private key to sign with, for endpoints whose scheme is
  // asymmetric (hookinbox holds only the provider's public key there)
  std::string private_key;
};
int RunSendTest(const SendTestOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox events list|show|replay|resolve` (events.cpp): read and act on
// stored events in the config's database, also while the server runs.
struct EventsOptions {
  std::string status;        // list/replay --status
  std::string endpoint;      // list/replay --endpoint
  std::string since, until;  // replay --since/--until (cli/replay_time.h)
  std::string error;         // replay --error: a substring of last_error
  bool dry_run = false;      // replay --dry-run: count only
  bool yes = false;          // replay --yes: do not ask
  int limit = 50;            // list --limit
  std::vector<int64_t> ids;  // show ID (one), replay ID…, resolve ID (one)
  bool payload = false;      // show --payload: include the stored body
  std::string as;            // resolve --as completed|dead_lettered
  std::string result_ref;    // resolve --result-ref
  std::string note;          // replay/resolve --note
};
int RunEventsList(const EventsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err);
int RunEventsShow(const EventsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err);
int RunEventsReplay(const EventsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err);
int RunEventsResolve(const EventsOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err);
// `events replay` by filter (events_replay.cpp): 0 done (or nothing matched),
// 1 failure or not confirmed, 2 usage (a bad flag or time, no --yes without a terminal).
int RunEventsReplayMatching(const EventsOptions& options, const CommonOptions& common, std::ostream& out,
                            std::ostream& err);
// True when any of replay's filter flags was given.
bool HasReplayFilter(const EventsOptions& options);
// "cli:" + the OS user: the actor of the CLI's audit rows (events, endpoints).
std::string CliActor();

// `hookinbox check-downstream ENDPOINT` (check_downstream.cpp): sends a marked
// probe twice with one Idempotency-Key to the endpoint's http target and says
// whether it deduplicated it. 0 it does, 1 it does not or cannot tell, 2 usage.
int RunCheckDownstream(const std::string& endpoint, const CommonOptions& common, std::ostream& out,
                       std::ostream& err);

// `hookinbox backup OUT.db [--without-payloads]` (backup.cpp): a consistent
// copy of the database (store/snapshot.h), also while `serve` runs. 0 written,
// 1 failure (OUT exists, database unreadable), 2 usage.
struct BackupOptions {
  std::string out_path;           // OUT.db: must not exist; created 0600
  bool without_payloads = false;  // --without-payloads: leave payload bodies out
};
int RunBackup(const BackupOptions& options, const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox reconcile --endpoint E [--tenant T] --ids FILE` (reconcile.cpp):
// sorts provider-exported ids into never received, received but not
// completed, and unknown. 0 all completed, 1 any not, 2 usage or bad FILE.
struct ReconcileOptions {
  std::string endpoint;  // --endpoint: a configured endpoint
  std::string tenant;    // --tenant: default the endpoint's tenant ("default")
  std::string ids_file;  // --ids: one id per line; "-" = stdin
};
int RunReconcile(const ReconcileOptions& options, const CommonOptions& common, std::ostream& out,
                 std::ostream& err);

// `hookinbox stats [--json]` (stats.cpp): per-endpoint received, duplicates,
// conflicts, rejected, backlog, oldest pending, dead letters, unknown and
// completed, read from the config's database; --json is GET /admin/api/stats.
int RunStats(const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox verify-audit FILE [--json]` (verify_audit.cpp): PRAGMA
// integrity_check and the audit hash chains of any copy of the database,
// read-only. 0 sound, 1 broken (names "<table> rowid <n>"), 2 no such file or
// not a hookinbox database with audit chains.
int RunVerifyAudit(const std::string& file, const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox migrate-to-postgres --from FILE --to URL | --to-env NAME [--json]`
// (migrate_to_postgres.cpp): copies an SQLite installation into PostgreSQL,
// keeping ids and audit history, idempotently (store/copy.h). 0 copied and
// verified, 1 refused or failed, 2 usage.
struct MigrateToPostgresOptions {
  std::string from;    // the SQLite file
  std::string to;      // a libpq URL (may hold a password: never printed)
  std::string to_env;  // or the environment variable holding it
};
int RunMigrateToPostgres(const MigrateToPostgresOptions& options, const CommonOptions& common, std::ostream& out,
                         std::ostream& err);

// `hookinbox purge [--dry-run] [--json]` (purge.cpp): applies every
// endpoint's [endpoint.retention] now (store/purge.h); --dry-run only counts.
int RunPurge(bool dry_run, const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox endpoints list|pause NAME [--reason TEXT]|resume NAME`
// (endpoints.cpp): every configured endpoint with its pause and circuit
// breaker; an operator's hold on one endpoint's deliveries and its release,
// recorded with "cli:<os user>". Also while the server runs. 0 done (also
// when it already was in that state), 1 failure, 2 usage (unknown endpoint,
// a reason over 1024 bytes).
int RunEndpointsList(const CommonOptions& common, std::ostream& out, std::ostream& err);
int RunEndpointsPause(const std::string& name, const std::string& reason, const CommonOptions& common,
                      std::ostream& out, std::ostream& err);
int RunEndpointsResume(const std::string& name, const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox secrets rotate ENDPOINT --new-file FILE [--keep-old-until T]`
// and `hookinbox secrets retire ENDPOINT` (secrets.cpp): rotate the
// endpoint's secret_file — the new secret in force, the previous one still
// accepted until T (default 24h from now) — or drop the previous one now;
// each step is recorded in endpoint_actions, then the running service is
// asked to reload. 0 done and reloaded (or nothing to retire), 1 refused or
// the service not reloaded (the files stay changed), 2 usage (an unknown
// endpoint, an unreadable FILE, a bad T, a secret the config cannot decode).
struct SecretsOptions {
  std::string endpoint;                // ENDPOINT
  std::string new_file;                // rotate --new-file
  std::string keep_old_until = "24h";  // rotate --keep-old-until (cli/replay_time.h ParseFutureTime)
};
int RunSecretsRotate(const SecretsOptions& options, const CommonOptions& common, std::ostream& out,
                     std::ostream& err);
int RunSecretsRetire(const SecretsOptions& options, const CommonOptions& common, std::ostream& out,
                     std::ostream& err);

// `hookinbox alert test [CHANNEL]` (alert.cpp): a test notification to the
// [[alert.channel]] named CHANNEL, or to every channel; one line per channel,
// "NAME: sent" or "NAME: failed: REASON". 0 all sent, 1 any failed (or the
// config is unusable), 2 no such channel or no channel configured.
int RunAlertTest(const std::string& channel, const CommonOptions& common, std::ostream& out, std::ostream& err);

// "hookinbox 0.1.0 (SQLite 3.40.1, OpenSSL 3.0.19 …)"
std::string VersionLine();

}  // namespace hookinbox::cli
