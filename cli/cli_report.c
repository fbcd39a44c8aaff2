/* cli_report — `cubesim report RUN.json -o REPORT.html` (the HTML report of a run from its JSON,
 * traces/trc_report.h) and `cubesim compare A.json B.json` (two runs side by side,
 * traces/trc_compare.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/cs_jsonr.h"
#include "base/cs_out.h"
#include "cli/cli.h"
#include "traces/trc_compare.h"
#include "traces/trc_report.h"

static const char report_usage[] =
    "usage: cubesim report RUN.json -o REPORT.html\n"
    "\n"
    "Writes one self-contained HTML file (no network: inline SVG, CSS and a little JavaScript) from\n"
    "the JSON of a run (cubesim run ... --json-file RUN.json, with --timeline for the timeline):\n"
    "the timeline of every core and pipe (critical core first; zoom with the wheel, drag to pan),\n"
    "per-pipe busy time (mean over the cores and the critical core's), a roofline of the chip with\n"
    "the run's point, bytes per memory level, the L2 hit rate, the tiling and the configuration,\n"
    "hazards and faults. cubesim run ... --report REPORT.html does the same in one step.\n";

/* Reads a run's JSON; a file that is not JSON is CS_EFORMAT naming the file and the place. */
cs_status cli_read_run_json(const char *path, cs_jdoc **doc, cs_err *err) {
  *doc = NULL;
  FILE *probe = fopen(path, "rb");
  if (!probe) return cs_err_set(err, cs_errno_status(errno, CS_EIO), "%s: cannot open it: %s", path, strerror(errno));
  fclose(probe);
  cs_jerror je;
  *doc = cs_jparse_file(path, &je);
  if (*doc) return CS_OK;
  if (je.status != CS_EFORMAT) { /* host memory, or the file (whose message names it) */
    bool named = strncmp(je.msg, path, strlen(path)) == 0;
    return cs_err_set(err, je.status, "%s%s%s", named ? "" : path, named ? "" : ": ", je.msg);
  }
  return cs_err_set(err, CS_EFORMAT, "%s:%u:%u: %s", path, je.line, je.column, je.msg);
}

typedef struct report_ctx {
  const cs_jvalue *run;
} report_ctx;

static cs_status fill_report(FILE *f, void *ctx, cs_err *err) {
  const report_ctx *r = ctx;
  return trc_report_html(r->run, f, err);
}

int cli_cmd_report(cli_io *io, int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  cs_err err = {CS_OK, ""};
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(report_usage, io->out);
      return 0;
    }
    if ((r = cli_opt(argc, argv, &i, "-o", &out, &err)) != 0 || (r = cli_opt(argc, argv, &i, "--output", &out, &err)) != 0) {
      if (r < 0) return cli_fail(io, "report", &err);
      continue;
    }
    if (argv[i][0] == '-') return cli_unknown_option(io, "report", argv[i], report_usage);
    if (in) return cli_usage_error(io, "report", "unexpected argument '%s' (one RUN.json)", argv[i]);
    in = argv[i];
  }
  if (!in) return cli_usage_error(io, "report", "no RUN.json given (cubesim run ... --json-file RUN.json writes one)");
  if (!out) return cli_usage_error(io, "report", "no -o REPORT.html given");
  cs_jdoc *doc;
  if (cli_read_run_json(in, &doc, &err) != CS_OK) return cli_fail(io, "report", &err);
  report_ctx r = {cs_jroot(doc)};
  cs_status st = cs_out_write_file("-o", out, fill_report, &r, &err);
  cs_jfree(doc);
  if (st != CS_OK) {
    cs_err_prefix(&err, "%s", in);
    return cli_fail(io, "report", &err);
  }
  return 0;
}

/* ---- cubesim compare ------------------------------------------------------------------------ */

static const char compare_usage[] =
    "usage: cubesim compare A.json B.json [--json] [-o COMPARE.html]\n"
    "\n"
    "Compares two runs from their JSON (cubesim run ... --json-file): task and aicore time, every\n"
    "pipe's mean and critical busy time and ratio, the bytes of every memory level and path, with\n"
    "B - A and its percentage of A. A table (default), JSON (--json), or an HTML page (-o).\n";

typedef struct compare_ctx {
  const trc_cmp_row *rows;
  size_t n;
  const char *a, *b;
} compare_ctx;

static cs_status fill_compare(FILE *f, void *ctx, cs_err *err) {
  (void)err;
  const compare_ctx *c = ctx;
  trc_compare_html(c->rows, c->n, c->a, c->b, f);
  return CS_OK;
}

int cli_cmd_compare(cli_io *io, int argc, char **argv) {
  const char *files[2] = {NULL, NULL}, *html = NULL;
  bool json = false;
  int nfiles = 0;
  cs_err err = {CS_OK, ""};
  for (int i = 1; i < argc; i++) {
    int r;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(compare_usage, io->out);
      return 0;
    }
    if ((r = cli_opt(argc, argv, &i, "-o", &html, &err)) != 0) {
      if (r < 0) return cli_fail(io, "compare", &err);
      continue;
    }
    if (cli_flag(argv, i, "--json")) json = true;
    else if (argv[i][0] == '-') return cli_unknown_option(io, "compare", argv[i], compare_usage);
    else if (nfiles < 2) files[nfiles++] = argv[i];
    else return cli_usage_error(io, "compare", "unexpected argument '%s' (two runs: A.json B.json)", argv[i]);
  }
  if (nfiles < 2) return cli_usage_error(io, "compare", "two runs needed: cubesim compare A.json B.json");
  cs_jdoc *docs[2] = {NULL, NULL};
  trc_cmp_row rows[TRC_CMP_MAX_ROWS];
  size_t n = 0;
  cs_status st = cli_read_run_json(files[0], &docs[0], &err);
  if (st == CS_OK) st = cli_read_run_json(files[1], &docs[1], &err);
  if (st == CS_OK) st = trc_compare_rows(cs_jroot(docs[0]), cs_jroot(docs[1]), rows, &n, &err);
  compare_ctx c = {rows, n, files[0], files[1]};
  if (st == CS_OK && html) st = cs_out_write_file("-o", html, fill_compare, &c, &err);
  cs_jfree(docs[0]);
  cs_jfree(docs[1]);
  if (st != CS_OK) return cli_fail(io, "compare", &err);
  if (json) {
    cs_json j;
    cs_json_init(&j, io->out, true);
    trc_compare_json(rows, n, files[0], files[1], &j);
  } else {
    trc_compare_text(rows, n, files[0], files[1], io->out);
  }
  return 0;
}
