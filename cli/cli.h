/* cli — the `cubesim` command line: subcommand table, argument helpers, error reporting.
 *
 * Every subcommand is a function `int cli_cmd_<name>(cli_io *io, int argc, char **argv)` that
 * returns the process exit status. It writes results to io->out and a single located error line
 * to io->err; it never calls exit(). argv[0] is the subcommand name.
 */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

#include "base/cs_out.h"
#include "base/cs_status.h"

typedef struct cli_io {
  FILE *out; /* results (tables, JSON) */
  FILE *err; /* the one-line error, warnings */
} cli_io;

/* Subcommand table: name, one-line summary. Each row needs cli_cmd_<name>. */
#define CLI_COMMAND_TABLE(X) \
  X(config, "show the resolved chip configuration (defaults, or a YAML file over them)") \
  X(exec, "run a text program of instructions on the simulated chip") \
  X(kernels, "list the kernels and operators of cubesim run, with their inputs and attributes") \
  X(quant, "pack, explain, check and compare fixpipe quant words (one, or .npy tensors)") \
  X(run, "run a kernel or operator (ATB Linear, ONNX, TensorFlow, DirectML) on the simulated chip") \
  X(version, "print the version of cubesim") \
  /* one row per command, in alphabetical order; each row ends with a backslash */

#define CLI_COMMAND_DECL(name, summary) int cli_cmd_##name(cli_io *io, int argc, char **argv);
CLI_COMMAND_TABLE(CLI_COMMAND_DECL)
#undef CLI_COMMAND_DECL

/* Entry point of the command line (main() only forwards to it). A command whose results could
 * not all be written to io->out (a full disk, a closed pipe) fails with exit status 2. */
int cli_main(cli_io *io, int argc, char **argv);

/* The hooks every command passes to cs_out_set_create, so that the signal handlers of
 * cli_temps_install remove the temporary files of the outputs (cli/cli_temps.c). */
const cs_out_hooks *cli_temps_hooks(void);
/* Installs the handlers of SIGHUP, SIGINT and SIGTERM (remove the temporary files, exit
 * 128 + signal) and ignores SIGPIPE. Called by main(), not by tests running cli_main. */
void cli_temps_install(void);

/* If argv[*i] is `--name VALUE` or `--name=VALUE`: sets *value, advances *i past what it used and
 * returns 1. Returns 0 if argv[*i] is another argument, -1 (with a message in err) if the option
 * is given without its value. */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **value, cs_err *err);
/* 1 if argv[i] is exactly `--name`. */
int cli_flag(char **argv, int i, const char *name);

/* Prints "cubesim <cmd>: error: <msg>" on io->err and returns the exit status for err->code. */
int cli_fail(cli_io *io, const char *cmd, const cs_err *err);
/* Convenience: formats a CS_EINVAL message and fails with it. */
int cli_usage_error(cli_io *io, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
