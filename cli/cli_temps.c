/* cli_temps — the temporary files of the running command, for the signal handlers.
 *
 * This is the one piece of process-wide mutable state in cubesim, and it belongs to the
 * command-line process, not to the library: a signal handler has no argument through which it
 * could find a run's output set, so the command line keeps the names of the temporary files
 * that exist right now in a fixed table that the handler can read without locks or allocation.
 * base/cs_out calls the hooks with the termination signals blocked, so the table never changes
 * under the handler. The handler unlinks every name in the table (unlink is async-signal-safe)
 * and exits 128 + the signal number, as a shell reports a command killed by it: 129 (SIGHUP),
 * 130 (SIGINT), 143 (SIGTERM). SIGPIPE is ignored, so a reader that goes away makes the write
 * fail with EPIPE, which is reported as an error of that output (exit 2) like any other.
 */
#include "cli/cli.h"

#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/* A run has at most a trace, a CSV, a stream dump, a report and its --out files. */
#define CLI_TEMPS_MAX 64

static struct {
  volatile sig_atomic_t used;
  char path[PATH_MAX];
} temps[CLI_TEMPS_MAX];

static bool temp_created(void *ctx, const char *path) {
  (void)ctx;
  size_t n = strlen(path);
  if (n >= PATH_MAX) return false;
  for (int i = 0; i < CLI_TEMPS_MAX; i++) {
    if (temps[i].used) continue;
    memcpy(temps[i].path, path, n + 1);
    temps[i].used = 1;
    return true;
  }
  return false;
}

static void temp_removed(void *ctx, const char *path) {
  (void)ctx;
  for (int i = 0; i < CLI_TEMPS_MAX; i++)
    if (temps[i].used && strcmp(temps[i].path, path) == 0) {
      temps[i].used = 0;
      return;
    }
}

static const cs_out_hooks hooks = {temp_created, temp_removed, NULL};

const cs_out_hooks *cli_temps_hooks(void) { return &hooks; }

static void on_signal(int sig) {
  for (int i = 0; i < CLI_TEMPS_MAX; i++)
    if (temps[i].used) unlink(temps[i].path);
  _exit(128 + sig);
}

void cli_temps_install(void) {
  static const int sigs[] = {SIGHUP, SIGINT, SIGTERM};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&sa.sa_mask, sigs[i]);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old;
    /* a signal the caller ignores (nohup, a background job of a non-interactive shell) stays
     * ignored */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sigs[i], &sa, NULL);
  }
  signal(SIGPIPE, SIG_IGN);
}
