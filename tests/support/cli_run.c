/* cli_run — running the command line in tests (see cli_run.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "support/cli_run.h"

#define CR_MAX_ARGS 64

cr_result cr_runv(int argc, char **argv) {
  cr_result r = {0, NULL, NULL};
  size_t out_len, err_len;
  cli_io io = {open_memstream(&r.out, &out_len), open_memstream(&r.err, &err_len)};
  assert_non_null(io.out);
  assert_non_null(io.err);
  r.status = cli_main(&io, argc, argv);
  assert_int_equal(fclose(io.out), 0);
  assert_int_equal(fclose(io.err), 0);
  return r;
}

cr_result cr_run(const char *first, ...) {
  char *argv[CR_MAX_ARGS + 1];
  int argc = 0;
  argv[argc++] = "cubesim";
  va_list ap;
  va_start(ap, first);
  for (const char *a = first; a; a = va_arg(ap, const char *)) {
    if (argc == CR_MAX_ARGS) fail_msg("more than %d arguments", CR_MAX_ARGS - 1);
    argv[argc++] = (char *)a;
  }
  va_end(ap);
  argv[argc] = NULL;
  return cr_runv(argc, argv);
}

void cr_free(cr_result *r) {
  free(r->out);
  free(r->err);
}

char *cr_shell(const char *cmd, int *status) {
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  assert_non_null(m);
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, p)) > 0) fwrite(chunk, 1, got, m);
  assert_int_equal(fclose(m), 0);
  int st = pclose(p);
  if (!WIFEXITED(st)) fail_msg("%s: did not exit normally (status %d)", cmd, st);
  *status = WEXITSTATUS(st);
  return buf;
}

void cr_assert_ok(const cr_result *r) {
  if (r->status != 0) fail_msg("exit status %d, stderr: %s", r->status, r->err);
  assert_string_equal(r->err, "");
}

void cr_assert_contains(const char *text, const char *needle) {
  if (!strstr(text, needle)) fail_msg("missing <%s> in:\n%s", needle, text);
}

void cr_assert_prefix(const char *text, const char *prefix) {
  if (strncmp(text, prefix, strlen(prefix)) != 0) fail_msg("[%s] does not start with [%s]", text, prefix);
}

char *cr_shellf(int *status, const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof cmd) fail_msg("command line longer than %zu bytes", sizeof cmd);
  return cr_shell(cmd, status);
}
