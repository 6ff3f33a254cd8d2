#include "cli/cli.h"

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"

namespace hookinbox::cli {

int Main(int argc, char** argv) {
  CLI::App app{"hookinbox: receive webhooks over HTTPS, store each exactly once, process each once."};
  app.require_subcommand(1);
  CommonOptions common;
  app.set_version_flag("--version", VersionLine());
  app.add_option("-c,--config", common.config_path, "config file (default ./hookinbox.toml)")
      ->configurable(false);
  app.add_flag("--json", common.json, "machine-readable output");

  std::string init_dir = ".";
  auto* init = app.add_subcommand("init", "write a working default config, certificate and secret into DIR");
  init->add_option("DIR", init_dir, "directory to initialise (default: current)");
  auto* check = app.add_subcommand("check-config", "validate the config; name every offending key and line");
  auto* serve = app.add_subcommand("serve", "receive webhooks until SIGTERM");
  SendTestOptions send;
  auto* send_test = app.add_subcommand(
      "send-test", "sign a sample delivery as ENDPOINT's provider would and send it to the running server");
  send_test->add_option("ENDPOINT", send.endpoint, "endpoint name")->required();
  send_test->add_option("--tenant", send.tenant, "tenant id (endpoints with tenants)");
  send_test->add_option("--url", send.url, "server URL (default: from server.listen)");
  send_test->add_option("--event-type", send.event_type, "event type of the sample (default hookinbox.test)");
  send_test->add_option("--body", send.body_file, "send this file's bytes as the body, as-is");
  send_test->add_option("--times", send.times, "send the same delivery N times")->check(CLI::Range(1, 10000));
  send_test->add_flag("--concurrent", send.concurrent, "send the N copies at once, one thread each");
  send_test->add_flag("--insecure-tls", send.insecure_tls, "do not verify the server certificate");
  send_test->add_option("--private-key", send.private_key,
                        "PEM private key to sign with (ed25519, ecdsa-p256-sha256 and rsa-sha256-cert endpoints)");
  for (auto* sub : {init, check, serve, send_test}) {
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
  if (init->parsed()) return RunInit(init_dir, common, std::cout, std::cerr);
  if (check->parsed()) return RunCheckConfig(common, std::cout, std::cerr);
  if (serve->parsed()) return RunServe(common, std::cout, std::cerr);
  if (send_test->parsed()) return RunSendTest(send, common, std::cout, std::cerr);
  return kExitUsage;
}

}  // namespace hookinbox::cli
