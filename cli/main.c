/* main — the `cubesim` executable: everything lives in libcubesim; this only forwards. */
#include "cli/cli.h"

int main(int argc, char **argv) {
  cli_io io = {stdout, stderr};
  return cli_main(&io, argc, argv);
}
