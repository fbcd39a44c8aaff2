/* main — the `cubesim` executable: everything lives in libcubesim; this installs the signal
 * handlers of the process (cli/cli_temps.c) and forwards. */
#include "cli/cli.h"

int main(int argc, char **argv) {
  cli_io io = {stdout, stderr};
  cli_temps_install();
  return cli_main(&io, argc, argv);
}
