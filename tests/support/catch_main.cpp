// Catch2 main shared by every test binary. SIGPIPE is ignored: a test client
// writing to a connection the server closed must see an error, not die.
#define CATCH_CONFIG_RUNNER
#include <signal.h>

#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  ::signal(SIGPIPE, SIG_IGN);
  return Catch::Session().run(argc, argv);
}
