/* cli — subcommand dispatch and argument helpers. */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_suggest.h"
#include "sim/sim.h"

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
          "usage: cubesim <command> [options]   (cubesim <command> --help for its options)\n"
          "       cubesim --version\n\n"
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
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
    return results_written(io, "version", cli_cmd_version(io, argc - 1, argv + 1));
  const char *threads = getenv("CUBESIM_THREADS");
  unsigned t;
  if (threads && *threads && !sim_threads_parse(threads, &t)) {
    fprintf(io->err, "cubesim: error: CUBESIM_THREADS=%s: give 1 to 1024 host threads (or leave it unset)\n", threads);
    return 2;
  }
  cs_suggest sg;
  cs_suggest_init(&sg, argv[1]);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(argv[1], commands[i].name) == 0)
      return results_written(io, argv[1], commands[i].fn(io, argc - 1, argv + 1));
    cs_suggest_offer(&sg, commands[i].name);
  }
  cs_suggest_offer(&sg, "--version");
  cs_suggest_offer(&sg, "--help");
  if (cs_suggest_best(&sg))
    fprintf(io->err, "cubesim: error: unknown command '%s' (did you mean '%s'?)\n", argv[1], cs_suggest_best(&sg));
  else
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

int cli_chip_opt(int argc, char **argv, int *i, cli_chip_args *a, cs_err *err) {
  const char *v;
  int r;
  if ((r = cli_opt(argc, argv, i, "--config", &a->config, err)) != 0) return r;
  if ((r = cli_opt(argc, argv, i, "--cores", &a->cores, err)) != 0) return r;
  if ((r = cli_opt(argc, argv, i, "--set", &v, err)) <= 0) return r;
  const char *eq = strchr(v, '=');
  if (!eq || eq == v) {
    cs_err_set(err, CS_EINVAL, "--set '%s': expected SECTION.KEY=VALUE (e.g. chip.aic_cores=8)", v);
    return -1;
  }
  if (a->nset == CLI_MAX_SETS) {
    cs_err_set(err, CS_EINVAL, "too many --set options (at most %d)", CLI_MAX_SETS);
    return -1;
  }
  a->sets[a->nset++] = v;
  return 1;
}

cs_status cli_chip_config(const cli_chip_args *a, unsigned default_cores, sim_config *cfg, cs_err *err) {
  sim_config_defaults(cfg);
  /* 0 cores is out of range, so no file leaves it there: still 0 after loading, the file did not
   * choose, and the command's own default applies */
  if (default_cores) cfg->chip_aic_cores = 0;
  cs_status st = a->config ? sim_config_load_file(cfg, a->config, err) : CS_OK;
  if (st != CS_OK) return st;
  if (cfg->chip_aic_cores == 0) cfg->chip_aic_cores = default_cores;
  if ((st = sim_config_validate(cfg, err)) != CS_OK) {
    if (a->config) cs_err_prefix(err, "%s", a->config);
    return st;
  }
  bool cores_set = false;
  for (int i = 0; i < a->nset; i++) {
    char path[128];
    const char *eq = strchr(a->sets[i], '=');
    snprintf(path, sizeof path, "%.*s", (int)(eq - a->sets[i]), a->sets[i]);
    cores_set = cores_set || sim_config_param_find(path) == SIM_PARAM_chip_aic_cores;
    if ((st = sim_config_set(cfg, path, eq + 1, err)) != CS_OK || (st = sim_config_validate(cfg, err)) != CS_OK)
      return st;
  }
  if (a->cores && cores_set)
    return cs_err_set(err, CS_EINVAL, "--cores %s and --set chip.aic_cores both give the core count: give one", a->cores);
  if (a->cores && ((st = sim_config_set(cfg, "chip.aic_cores", a->cores, err)) != CS_OK ||
                   (st = sim_config_validate(cfg, err)) != CS_OK)) {
    cs_err_prefix(err, "--cores");
    return st;
  }
  return CS_OK;
}

int cli_unknown_option(cli_io *io, const char *cmd, const char *arg, const char *usage) {
  char typed[64];
  snprintf(typed, sizeof typed, "%.*s", (int)strcspn(arg, "="), arg); /* --name=value: the name */
  enum { MAX_OPTS = 96 };
  char opts[MAX_OPTS][32]; /* every --option the help text names */
  size_t n = 0;
  cs_suggest sg;
  cs_suggest_init(&sg, typed);
  for (const char *p = strstr(usage, "--"); p && n < MAX_OPTS; p = strstr(p + 2, "--")) {
    size_t len = 2;
    while (islower((unsigned char)p[len]) || isdigit((unsigned char)p[len]) || p[len] == '-') len++;
    if (len < 3 || len >= sizeof opts[0] || p[len - 1] == '-' || (p > usage && p[-1] != ' ' && p[-1] != '[')) continue;
    snprintf(opts[n], sizeof opts[0], "%.*s", (int)len, p);
    cs_suggest_offer(&sg, opts[n++]);
  }
  if (cs_suggest_best(&sg))
    return cli_usage_error(io, cmd, "unknown option '%s' (did you mean '%s'?)", arg, cs_suggest_best(&sg));
  return cli_usage_error(io, cmd, "unknown option '%s' (cubesim %s --help lists them)", arg, cmd);
}

int cli_unknown_name(cli_io *io, const char *cmd, const char *what, const char *typed, const char *const *known) {
  cs_suggest sg;
  cs_suggest_init(&sg, typed);
  for (size_t i = 0; known[i]; i++) cs_suggest_offer(&sg, known[i]);
  if (cs_suggest_best(&sg))
    return cli_usage_error(io, cmd, "unknown %s '%s' (did you mean '%s'?)", what, typed, cs_suggest_best(&sg));
  return cli_usage_error(io, cmd, "unknown %s '%s' (cubesim %s --help lists them)", what, typed, cmd);
}

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
