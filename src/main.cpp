#include "cli/cli.h"

int main(int argc, char** argv) { return hookinbox::cli::Main(argc, argv); }
