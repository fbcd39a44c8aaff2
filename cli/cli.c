/* cli — subcommand dispatch and argument helpers. */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

typedef int (*cli_cmd_fn)(cli_io *io, int argc, char **argv);

static const struct {
  const char *name;
  const char *summary;
  cli_cmd_fn fn;
} commands[] = {
#define CLI_COMMAND_ROW(name, summary) {#name, summary, cli_cmd_##name},
    CLI_COMMAND_TABLE(CLI_COMMAND_ROW)
#undef CLI_COMMAND_ROW
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: cubesim <command> [options]   (cubesim <command> --help for its options)\n\n"
          "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

/* A command's exit status, or 2 when its results did not all reach io->out: what was printed
 * is flushed now, so a full disk or a closed pipe behind stdout is not mistaken for success. */
static int results_written(cli_io *io, const char *cmd, int rc) {
  errno = 0;
  if (fflush(io->out) == 0 && !ferror(io->out)) return rc;
  int e = errno ? errno : EIO;
  fprintf(io->err, "cubesim %s: error: cannot write the results to standard output: %s\n", cmd,
          strerror(e));
  return rc ? rc : cs_status_exit_code(CS_EIO);
}

int cli_main(cli_io *io, int argc, char **argv) {
  if (argc < 2) {
    usage(io->err);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(io->out);
    return results_written(io, "help", 0);
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0)
      return results_written(io, argv[1], commands[i].fn(io, argc - 1, argv + 1));
  fprintf(io->err, "cubesim: error: unknown command '%s' (cubesim --help lists them)\n", argv[1]);
  return 2;
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **value, cs_err *err) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return 0;
  if (a[n] == '=') {
    *value = a + n + 1;
    return 1;
  }
  if (a[n] != '\0') return 0;
  if (*i + 1 >= argc) {
    cs_err_set(err, CS_EINVAL, "option %s needs a value", name);
    return -1;
  }
  *i += 1;
  *value = argv[*i];
  return 1;
}

int cli_flag(char **argv, int i, const char *name) { return strcmp(argv[i], name) == 0; }

int cli_fail(cli_io *io, const char *cmd, const cs_err *err) {
  fprintf(io->err, "cubesim %s: error: %s\n", cmd, err->msg);
  return cs_status_exit_code(err->code);
}

int cli_usage_error(cli_io *io, const char *cmd, const char *fmt, ...) {
  cs_err e;
  va_list ap;
  va_start(ap, fmt);
  e.code = CS_EINVAL;
  vsnprintf(e.msg, sizeof e.msg, fmt, ap);
  va_end(ap);
  return cli_fail(io, cmd, &e);
}

int cli_cmd_version(cli_io *io, int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(io->out, "cubesim %s\n", cs_version());
  return 0;
}
