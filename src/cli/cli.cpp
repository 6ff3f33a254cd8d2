#include "cli/cli.h"

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "common/process_secrets.h"
#include "store/event_status.h"

namespace hookinbox::cli {

int Main(int argc, char** argv) {
  // Every command may hold secrets (it loads the config), serve for as long as it runs.
  KeepSecretsInProcess();
  // The name is fixed so that --help (and the man page made from it) says
  // "hookinbox", not the path the binary was started by.
  CLI::App app{"hookinbox: receive webhooks over HTTPS, store each exactly once, process each once.", "hookinbox"};
  app.require_subcommand(1);
  CommonOptions common;
  app.set_version_flag("--version", VersionLine());
  app.add_option("-c,--config", common.config_path, "config file (default ./hookinbox.toml)")
      ->configurable(false);
  app.add_flag("--json", common.json, "machine-readable output");

  InitOptions init_opts;
  auto* init = app.add_subcommand(
      "init", "write a working default config, certificate and secret into DIR (with --provider NAME, an endpoint "
              "for that provider instead of the demo); with -c FILE instead, create only the files FILE names that "
              "are missing (self-signed pair, secret and token files 0600, directories 0700, the database), never "
              "writing FILE or opening an existing database; exit 0 done or nothing to do, 1 failure (invalid "
              "config, a cert without its key), 2 usage (an unknown provider: nothing is written)");
  init->add_option("DIR", init_opts.dir, "directory to initialise (default: current; not with -c)");
  init->add_option("--provider", init_opts.provider,
                   "write an endpoint for this provider preset (see `hookinbox presets`), its secret file empty "
                   "to fill in")
      ->check([](const std::string& name) {
        return name.empty() ? std::string("must name a preset: `hookinbox presets` lists them") : std::string();
      });
  auto* presets = app.add_subcommand(
      "presets", "list every provider preset with its aliases and the keys an endpoint using it must add");
  auto* check = app.add_subcommand("check-config", "validate the config; name every offending key and line");
  auto* serve = app.add_subcommand("serve", "receive webhooks until SIGTERM");
  ServeOptions serve_opts;
  serve->add_option("--accept-key-change", serve_opts.accept_key_change,
                    "start although ENDPOINT's idempotency-key settings differ from those its stored keys were made "
                    "with (repeatable)")
      ->type_name("ENDPOINT")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // one name per flag, every flag kept
  ReloadOptions reload_opts;
  auto* reload = app.add_subcommand(
      "reload", "ask the running service to load its config again (as SIGHUP does) and print what changed and what "
                "needs a restart; exit 0 applied, 1 refused or the service unreachable, 2 usage");
  reload->add_option("--accept-key-change", reload_opts.accept_key_change,
                     "confirm that ENDPOINT's idempotency-key settings change although it holds keys within "
                     "retention (repeatable)")
      ->type_name("ENDPOINT")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  SendTestOptions send;
  auto* send_test = app.add_subcommand(
      "send-test", "sign a sample delivery as ENDPOINT's provider would and send it to the running server");
  send_test->add_option("ENDPOINT", send.endpoint, "endpoint name")->required();
  send_test->add_option("--tenant", send.tenant, "tenant id (endpoints with tenants)");
  send_test->add_option("--url", send.url, "server URL (default: from server.listen)");
  send_test->add_option("--event-type", send.event_type,
                        "event type of the sample (default hookinbox.test; for vnpay, momo, zalopay and payos "
                        "the provider's success code)");
  send_test->add_option("--body", send.body_file,
                        "send this file's bytes as the body, as-is (vnpay, momo, zalopay, payos: with the "
                        "signature added)");
  send_test->add_option("--times", send.times, "send the same delivery N times")->check(CLI::Range(1, 10000));
  send_test->add_flag("--concurrent", send.concurrent, "send the N copies at once, one thread each");
  send_test->add_flag("--insecure-tls", send.insecure_tls, "do not verify the server certificate");
  send_test->add_option("--private-key", send.private_key,
                        "PEM private key to sign with (ed25519, ecdsa-p256-sha256, rsa-sha256-cert and rsa-sha256 endpoints)");
  EventsOptions ev;
  auto* events = app.add_subcommand("events", "list, show, replay or resolve stored events");
  events->require_subcommand(1);
  auto* ev_list = events->add_subcommand("list", "events newest first");
  ev_list->add_option("--status", ev.status, "only events in this state (received, processing, completed, …)");
  ev_list->add_option("--endpoint", ev.endpoint, "only events of this endpoint");
  ev_list->add_option("--limit", ev.limit, "at most N events (default 50)")->check(CLI::Range(1, 1000));
  auto* ev_show = events->add_subcommand("show", "one event with its deliveries, attempts and actions");
  ev_show->add_option("ID", ev.ids, "event id")->required()->expected(1);
  ev_show->add_flag("--payload", ev.payload, "also print the stored payload");
  auto* ev_replay = events->add_subcommand(
      "replay", "put dead_lettered, unknown or completed events back to received: by ID, or every event "
                "--status and --endpoint match (exit 0 done, 1 failure, 2 usage)");
  ev_replay->add_option("ID", ev.ids, "event ids (not with the filter flags)");
  ev_replay->add_option("--note", ev.note, "why (kept in the audit row)");
  ev_replay->add_option("--status", ev.status, "replay every event in this state: dead_lettered, unknown or completed")
      ->check(CLI::IsMember({std::string(store::ToSql(store::EventStatus::kDeadLettered)),
                             std::string(store::ToSql(store::EventStatus::kUnknown)),
                             std::string(store::ToSql(store::EventStatus::kCompleted))}));
  ev_replay->add_option("--endpoint", ev.endpoint, "… of this endpoint");
  ev_replay->add_option("--since", ev.since, "… received at or after T (RFC 3339, ms, or ago: 90s, 30m, 2h, 3d)");
  ev_replay->add_option("--until", ev.until, "… received before T");
  ev_replay->add_option("--error", ev.error, "… whose last error contains TEXT");
  ev_replay->add_flag("--dry-run", ev.dry_run, "only count what would be replayed");
  ev_replay->add_flag("--yes", ev.yes, "do not ask (needed when stdin is not a terminal)");
  auto* ev_resolve = events->add_subcommand("resolve", "close an unknown event as completed or dead_lettered");
  ev_resolve->add_option("ID", ev.ids, "event id")->required()->expected(1);
  ev_resolve->add_option("--as", ev.as, "completed or dead_lettered")
      ->required()
      ->check(CLI::IsMember({std::string(store::ToSql(store::EventStatus::kCompleted)),
                             std::string(store::ToSql(store::EventStatus::kDeadLettered))}));
  ev_resolve->add_option("--result-ref", ev.result_ref, "the downstream's reference (for completed)");
  ev_resolve->add_option("--note", ev.note, "why (kept in the audit row)");
  std::string check_endpoint;
  auto* check_down = app.add_subcommand(
      "check-downstream", "send a marked probe twice with one Idempotency-Key to ENDPOINT's http target and "
                          "report whether it deduplicated it (exit 0 yes, 1 no or cannot tell)");
  check_down->add_option("ENDPOINT", check_endpoint, "endpoint name")->required();
  BackupOptions backup_opts;
  auto* backup = app.add_subcommand("backup", "write a consistent copy of the database to OUT (also while serve "
                                              "runs); exit 0 written, 1 failure (OUT exists, …), 2 usage");
  backup->add_option("OUT", backup_opts.out_path, "file to create (must not exist; mode 0600)")->required();
  backup->add_flag("--without-payloads", backup_opts.without_payloads, "leave payload bodies out of the copy");
  backup->fallthrough();
  ReconcileOptions reconcile_opts;
  auto* reconcile = app.add_subcommand(
      "reconcile", "compare event ids exported from the provider with the inbox; exit 0 all received and "
                   "completed, 1 any never received, not completed or unknown, 2 usage or bad FILE");
  reconcile->add_option("--endpoint", reconcile_opts.endpoint, "endpoint name")->required();
  reconcile->add_option("--tenant", reconcile_opts.tenant, "tenant id (default: the endpoint's, \"default\")");
  reconcile->add_option("--ids", reconcile_opts.ids_file, "FILE with one event id per line; - for stdin")->required();
  reconcile->fallthrough();
  auto* stats = app.add_subcommand("stats", "per-endpoint figures from the database (what the dashboard shows)");
  stats->fallthrough();
  std::string audit_file;
  auto* verify_audit = app.add_subcommand(
      "verify-audit", "check PRAGMA integrity_check and the audit hash chains of FILE (any copy, read-only); "
                      "exit 0 ok, 1 broken (names the first broken row), 2 usage");
  verify_audit->add_option("FILE", audit_file, "database file")->required();
  verify_audit->fallthrough();
  MigrateToPostgresOptions migrate;
  auto* migrate_pg = app.add_subcommand(
      "migrate-to-postgres", "copy an SQLite installation into PostgreSQL with its ids and audit history (run it again "
                             "to catch up; stop the servers first); exit 0 copied and verified, 1 failed, 2 usage");
  migrate_pg->add_option("--from", migrate.from, "the SQLite database file")->required();
  migrate_pg->add_option("--to", migrate.to, "PostgreSQL URL, postgresql://user:password@host/db");
  migrate_pg->add_option("--to-env", migrate.to_env, "environment variable holding the URL instead");
  migrate_pg->fallthrough();
  bool purge_dry_run = false;
  auto* purge = app.add_subcommand("purge", "apply [endpoint.retention] now: remove expired bodies and terminal "
                                            "events, per endpoint");
  purge->add_flag("--dry-run", purge_dry_run, "only show what would be removed");
  purge->fallthrough();
  std::string endpoint_name, pause_reason;
  auto* endpoints = app.add_subcommand("endpoints", "list endpoints with their pause and circuit breaker; pause or "
                                                    "resume one endpoint's deliveries (also while serve runs)");
  endpoints->require_subcommand(1);
  auto* ep_list = endpoints->add_subcommand("list", "every configured endpoint: provider, action, paused (since, by, "
                                                    "reason), circuit breaker");
  auto* ep_pause = endpoints->add_subcommand("pause", "hold NAME's deliveries: still received and stored, not sent "
                                                      "until resumed (exit 0 also when already paused)");
  ep_pause->add_option("NAME", endpoint_name, "endpoint name")->required();
  ep_pause->add_option("--reason", pause_reason, "why (kept with the pause and in its audit row)");
  auto* ep_resume = endpoints->add_subcommand("resume", "send NAME's waiting deliveries again (exit 0 also when not "
                                                        "paused)");
  ep_resume->add_option("NAME", endpoint_name, "endpoint name")->required();
  SecretsOptions secrets_options;
  auto* secrets = app.add_subcommand("secrets", "rotate an endpoint's secret_file while serving: the new secret in "
                                                "force, the previous one accepted until a time; or retire it now");
  secrets->require_subcommand(1);
  auto* sec_rotate = secrets->add_subcommand(
      "rotate", "put FILE's secret into ENDPOINT's secret_file, keep the previous one accepted until "
                "--keep-old-until, record it in the audit log, reload the running service");
  sec_rotate->add_option("ENDPOINT", secrets_options.endpoint, "endpoint name")->required();
  sec_rotate->add_option("--new-file", secrets_options.new_file, "file holding the new secret, as the provider "
                                                                 "gave it")->required();
  sec_rotate->add_option("--keep-old-until", secrets_options.keep_old_until,
                         "until when the previous secret is accepted: RFC 3339 time, a date, or how long from now "
                         "(90s, 30m, 48h, 7d); default 24h");
  auto* sec_retire = secrets->add_subcommand("retire", "stop accepting ENDPOINT's previous secret now (exit 0 also "
                                                       "when there is none), record it, reload the running service");
  sec_retire->add_option("ENDPOINT", secrets_options.endpoint, "endpoint name")->required();
  std::string alert_channel;
  auto* alert = app.add_subcommand("alert", "alert channels: send a test message");
  alert->require_subcommand(1);
  auto* alert_test = alert->add_subcommand(
      "test", "send a test notification to CHANNEL (an [[alert.channel]] name) or to every channel; one line per "
              "channel; exit 0 all sent, 1 any failed, 2 no such channel or none configured");
  alert_test->add_option("CHANNEL", alert_channel, "channel name (default: every channel)");
  for (auto* sub : {alert, alert_test, init, presets, check, serve, reload, send_test, events, ev_list, ev_show, ev_replay, ev_resolve, check_down,
                    endpoints, ep_list, ep_pause, ep_resume, secrets, sec_rotate, sec_retire}) {
    sub->fallthrough();  // -c and --json also work after the verb
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  } catch (const CLI::CallForVersion& e) {
    app.exit(e);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (init->parsed()) return RunInit(init_opts, common, std::cout, std::cerr);
  if (presets->parsed()) return RunPresets(common, std::cout, std::cerr);
  if (check->parsed()) return RunCheckConfig(common, std::cout, std::cerr);
  if (serve->parsed()) return RunServe(serve_opts, common, std::cout);
  if (reload->parsed()) return RunReload(reload_opts, common, std::cout, std::cerr);
  if (send_test->parsed()) return RunSendTest(send, common, std::cout, std::cerr);
  if (check_down->parsed()) return RunCheckDownstream(check_endpoint, common, std::cout, std::cerr);
  if (backup->parsed()) return RunBackup(backup_opts, common, std::cout, std::cerr);
  if (reconcile->parsed()) return RunReconcile(reconcile_opts, common, std::cout, std::cerr);
  if (stats->parsed()) return RunStats(common, std::cout, std::cerr);
  if (verify_audit->parsed()) return RunVerifyAudit(audit_file, common, std::cout, std::cerr);
  if (migrate_pg->parsed()) return RunMigrateToPostgres(migrate, common, std::cout, std::cerr);
  if (purge->parsed()) return RunPurge(purge_dry_run, common, std::cout, std::cerr);
  if (ep_list->parsed()) return RunEndpointsList(common, std::cout, std::cerr);
  if (ep_pause->parsed()) return RunEndpointsPause(endpoint_name, pause_reason, common, std::cout, std::cerr);
  if (ep_resume->parsed()) return RunEndpointsResume(endpoint_name, common, std::cout, std::cerr);
  if (sec_rotate->parsed()) return RunSecretsRotate(secrets_options, common, std::cout, std::cerr);
  if (sec_retire->parsed()) return RunSecretsRetire(secrets_options, common, std::cout, std::cerr);
  if (alert_test->parsed()) return RunAlertTest(alert_channel, common, std::cout, std::cerr);
  if (ev_list->parsed()) return RunEventsList(ev, common, std::cout, std::cerr);
  if (ev_show->parsed()) return RunEventsShow(ev, common, std::cout, std::cerr);
  if (ev_replay->parsed()) return RunEventsReplay(ev, common, std::cout, std::cerr);
  if (ev_resolve->parsed()) return RunEventsResolve(ev, common, std::cout, std::cerr);
  return kExitUsage;
}

}  // namespace hookinbox::cli
