/* cli_progress — the progress line of a long run on stderr (cli/cli.h): shown after about a
 * second, only on a terminal and without --quiet, erased when the run ends. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

#define SHOW_AFTER_S 1.0  /* runs shorter than this print nothing */
#define REFRESH_S 0.25

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_line(const sim_progress *p, uint64_t clock_mhz, double replay_s, char *out, size_t n) {
  if (!p->replaying) {
    snprintf(out, n, "recording: %" PRIu64 " instructions", p->recorded);
    return;
  }
  double frac = p->total ? (double)p->replayed / (double)p->total : 0;
  int len = snprintf(out, n, "replaying: %" PRIu64 " of %" PRIu64 " instructions (%.0f%%), %.1f us simulated",
                     p->replayed, p->total, 100 * frac, (double)p->cycles / (double)(clock_mhz ? clock_mhz : 1));
  if (len > 0 && (size_t)len < n && frac > 0 && replay_s > 0)
    snprintf(out + len, n - (size_t)len, ", ETA %.0f s", replay_s * (1 - frac) / frac);
}

static void report(void *ctx, const sim_progress *p) {
  cli_progress *pr = ctx;
  double t = now_s();
  if (p->replaying && pr->replay_t0 == 0) pr->replay_t0 = t - 1e-9;
  if (t - pr->t0 < SHOW_AFTER_S || t - pr->last < REFRESH_S) return;
  char line[200];
  cli_progress_line(p, pr->clock_mhz, p->replaying ? t - pr->replay_t0 : 0, line, sizeof line);
  fprintf(pr->f, "\r\033[Kcubesim %s: %s", pr->cmd, line); /* rewrites the line in place */
  fflush(pr->f);
  pr->last = t;
  pr->shown = true;
}

void cli_progress_init(cli_progress *p, cli_io *io, const char *cmd, bool quiet, uint64_t clock_mhz) {
  memset(p, 0, sizeof *p);
  p->f = io->err;
  p->cmd = cmd;
  p->clock_mhz = clock_mhz;
  p->on = !quiet && isatty(fileno(io->err));
  p->t0 = now_s();
  p->hook.fn = report;
  p->hook.ctx = p;
}

const sim_progress_hook *cli_progress_hook(cli_progress *p) { return p->on ? &p->hook : NULL; }

void cli_progress_done(cli_progress *p) {
  if (!p->shown) return;
  fputs("\r\033[K", p->f);
  fflush(p->f);
  p->shown = false;
}
