/* cli_trace — the trace options every simulating command takes (cli/cli.h): --trace FILE,
 * --trace-format, --trace-cores, --trace-window, --trace-flags; and the warning the trace gives
 * before a large file. */
#include <string.h>

#include "cli/cli.h"

int cli_trace_opt(int argc, char **argv, int *i, cli_trace_args *a, cs_err *err) {
  static const char *const names[] = {"--trace", "--trace-format", "--trace-cores", "--trace-window", "--trace-flags"};
  const char **slots[] = {&a->path, &a->format, &a->cores, &a->window, &a->flags};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    int r = cli_opt(argc, argv, i, names[k], slots[k], err);
    if (r != 0) return r;
  }
  return 0;
}

/* The trace's notice: a warning line of the command. */
static void warn(void *ctx, const char *msg) {
  const cli_trace_args *a = ctx;
  fprintf(a->io->err, "cubesim %s: warning: %s\n", a->cmd, msg);
}

cs_status cli_trace_options(cli_trace_args *a, cli_io *io, const char *cmd, const sim_config *cfg,
                            sim_trace_options *o, cs_err *err) {
  sim_trace_options_init(o);
  const char *given = a->format ? "--trace-format" : a->cores ? "--trace-cores" : a->window ? "--trace-window"
                      : a->flags                   ? "--trace-flags"
                                                   : NULL;
  if (!a->path) return given ? cs_err_set(err, CS_EINVAL, "%s needs --trace FILE", given) : CS_OK;
  if (a->format && (o->format = sim_trace_format_from_name(a->format)) == SIM_TRACE_FORMAT_COUNT)
    return cs_err_set(err, CS_EINVAL, "--trace-format: '%s' is not auto, json or perfetto", a->format);
  cs_status st;
  if (a->cores && (st = sim_trace_parse_cores(o, a->cores, (unsigned)cfg->chip_aic_cores, err)) != CS_OK) return st;
  if (a->window && (st = sim_trace_parse_window(o, a->window, cfg->chip_clock_mhz, err)) != CS_OK) return st;
  if (a->flags && strcmp(a->flags, "on") != 0 && strcmp(a->flags, "off") != 0)
    return cs_err_set(err, CS_EINVAL, "--trace-flags: '%s' is not on or off", a->flags);
  o->flags = !a->flags || strcmp(a->flags, "on") == 0;
  a->io = io;
  a->cmd = cmd;
  o->notice = warn;
  o->notice_ctx = a;
  return CS_OK;
}
