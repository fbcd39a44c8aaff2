/* cli — the `cubesim` command line: subcommand table, argument helpers, error reporting.
 *
 * Every subcommand is a function `int cli_cmd_<name>(cli_io *io, int argc, char **argv)` that
 * returns the process exit status. It writes results to io->out and a single located error line
 * to io->err; it never calls exit(). argv[0] is the subcommand name.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/cs_jsonr.h"
#include "base/cs_out.h"
#include "base/cs_status.h"
#include "sim/sim.h"
#include "sim/sim_config.h"
#include "sim/sim_trace.h"

typedef struct cli_io {
  FILE *out; /* results (tables, JSON) */
  FILE *err; /* the one-line error, warnings */
} cli_io;

/* Subcommand table: name, one-line summary. Each row needs cli_cmd_<name>. */
#define CLI_COMMAND_TABLE(X) \
  X(compare, "two runs' JSON side by side: times, pipes, bytes, with differences in percent") \
  X(config, "show the resolved chip configuration (defaults, or a YAML file over them)") \
  X(exec, "run a text program of instructions on the simulated chip") \
  X(kernels, "list the kernels and operators of cubesim run, with their inputs and attributes") \
  X(quant, "pack, explain, check and compare fixpipe quant words (one, or .npy tensors)") \
  X(report, "an HTML report (timeline, pipes, roofline, memory) of a run's JSON") \
  X(run, "run a kernel or operator (ATB Linear, ONNX, TensorFlow, DirectML) on the simulated chip") \
  X(sweep, "run a grid of attributes, config keys and configs under Ninja, Slurm or GNU parallel") \
  X(tile, "search the tilings of a matmul operator and list the best, with their predicted times") \
  X(validate, "run the measured Ascend cases (configs/anchors) and print the model's errors") \
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

/* The trace options of the simulating commands (cli_trace.c), as given: --trace FILE,
 * --trace-format auto|json|perfetto, --trace-cores LIST, --trace-window START:END,
 * --trace-flags on|off. Zero-initialise, fill with cli_trace_opt, check with
 * cli_trace_options. */
typedef struct cli_trace_args {
  const char *path, *format, *cores, *window, *flags;
  cli_io *io;      /* where cli_trace_open's trace sends its warnings */
  const char *cmd;
} cli_trace_args;

#define CLI_TRACE_USAGE                                                                            \
  "  --trace FILE           write a trace of the replay: FILE.json (Chrome Trace Event JSON, every\n" \
  "                         instruction's operands) or FILE.perfetto-trace (Perfetto protobuf, about\n" \
  "                         a tenth of the size), for https://ui.perfetto.dev (traces/FORMAT.md)\n"   \
  "  --trace-format F       auto (by FILE's extension), json or perfetto\n"                           \
  "  --trace-cores LIST     only these cores, e.g. 0-3 or 0,2,8-11\n"                                   \
  "  --trace-window S:E     only events in cycles [S, E), or microseconds with us (2us:5.5us)\n"      \
  "  --trace-flags off      without set_flag / wait_flag and their arrows\n"

/* If argv[*i] is one of the trace options: stores its value in a, advances *i, returns 1; 0 for
 * another argument; -1 (message in err) for an option without its value. */
int cli_trace_opt(int argc, char **argv, int *i, cli_trace_args *a, cs_err *err);
/* The trace options as sim_trace_options, checked against cfg (without --trace, any other trace
 * option is an error). The trace's warnings (a projected size over 256 MiB) go to io->err as
 * "cubesim CMD: warning: ...": a must live until the trace is closed. */
cs_status cli_trace_options(cli_trace_args *a, cli_io *io, const char *cmd, const sim_config *cfg,
                            sim_trace_options *o, cs_err *err);

/* The progress line of a long run (cli_progress.c): on io->err when it is a terminal and the
 * command was not given --quiet, from about a second into the run, rewritten in place at most
 * four times a second (recording: instructions; replaying: instructions of all, simulated time,
 * ETA) and erased by cli_progress_done. Silent otherwise. */
typedef struct cli_progress {
  FILE *f;
  const char *cmd;
  bool on;
  uint64_t clock_mhz;
  double t0, replay_t0, last; /* monotonic seconds: start, first replay report, last line */
  bool shown;                 /* a line is on the terminal */
  sim_progress_hook hook;
} cli_progress;

void cli_progress_init(cli_progress *p, cli_io *io, const char *cmd, bool quiet, uint64_t clock_mhz);
/* The hook for sim_options / kn_run_options (NULL when silent). p must outlive the run. */
const sim_progress_hook *cli_progress_hook(cli_progress *p);
void cli_progress_done(cli_progress *p);
/* The text of one progress line (replay_s: seconds since the replay began, for the ETA). */
void cli_progress_line(const sim_progress *p, uint64_t clock_mhz, double replay_s, char *out, size_t n);

/* Reads the JSON of a run (cubesim run --json-file) into *doc (free with cs_jfree): CS_EIO when
 * it cannot be read, CS_EFORMAT with the line and column when it is not JSON. */
cs_status cli_read_run_json(const char *path, cs_jdoc **doc, cs_err *err);

/* The chip options of every command that simulates (run, exec): --config FILE.yaml, --set
 * SECTION.KEY=VALUE (repeatable, applied in order) and --cores N (--set chip.aic_cores=N). */
#define CLI_MAX_SETS 32
typedef struct cli_chip_args {
  const char *config;
  const char *sets[CLI_MAX_SETS]; /* "section.key=value" as given */
  int nset;
  const char *cores;
} cli_chip_args;

#define CLI_CHIP_USAGE                                                                          \
  "  --config FILE.yaml     the chip: the built-in Ascend 910B with FILE over it (cubesim config\n" \
  "                         show explains every key)\n"                                             \
  "  --set KEY=VALUE        override one configuration value, e.g. --set cube.latency_cycles=20\n" \
  "  --cores N              the number of cores (the same as --set chip.aic_cores=N)\n"

/* If argv[*i] is one of the chip options: stores it in a, advances *i, returns 1; 0 for another
 * argument; -1 (message in err) for a malformed one. */
int cli_chip_opt(int argc, char **argv, int *i, cli_chip_args *a, cs_err *err);
/* The configuration the chip options give: the defaults, the file, the --set values in order,
 * then --cores; validated. default_cores (0: none) replaces the defaults' core count unless the
 * file, --set or --cores gives one. */
cs_status cli_chip_config(const cli_chip_args *a, unsigned default_cores, sim_config *cfg, cs_err *err);

/* The error for an unknown option `arg` of command `cmd`, with the closest option named in
 * `usage` (the command's --help text) when one is close: "unknown option '--attrs' (did you mean
 * '--attr'?)". Returns the exit status. */
int cli_unknown_option(cli_io *io, const char *cmd, const char *arg, const char *usage);

/* The error for a word of a closed set that is none of them (a subcommand, an action): "unknown
 * <what> 'shwo' (did you mean 'show'?)", or "(cubesim <cmd> --help lists them)" when none is close.
 * known ends with NULL. Returns the exit status. */
int cli_unknown_name(cli_io *io, const char *cmd, const char *what, const char *typed, const char *const *known);

/* Prints "cubesim <cmd>: error: <msg>" on io->err and returns the exit status for err->code. */
int cli_fail(cli_io *io, const char *cmd, const cs_err *err);
/* Convenience: formats a CS_EINVAL message and fails with it. */
int cli_usage_error(cli_io *io, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
