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
  for (auto* sub : {init, check, serve}) {
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
  return kExitUsage;
}

}  // namespace hookinbox::cli
