/* The report in a real browser: cubesim run --report's page opened in headless Chromium (Debian's
 * chromium). The DOM after the scripts ran has the timeline, pipe bars and roofline SVGs with
 * their shapes, the scripts finished (data-ready) and caught no error; a screenshot is not blank
 * (a blank page's PNG of the same size is a few kilobytes, the report's far more). A page with a
 * deliberate script error shows that the catcher does catch. Skipped, saying so, where chromium
 * is not installed (.ci/run installs it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/cli_run.h"
#include "support/tmp_files.h"

#define CHROMIUM_FLAGS                                                                                   \
  "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking " \
  "--disable-component-update --disable-sync --virtual-time-budget=3000"

static int have_chromium(void) {
  int st;
  char *out = cr_shell("command -v chromium >/dev/null 2>&1 && echo yes", &st);
  int yes = strncmp(out, "yes", 3) == 0;
  free(out);
  return yes;
}

/* chromium with a fresh profile in dir; `what` is --dump-dom or --screenshot=PATH. The DOM (or
 * nothing) comes back. */
static char *chromium(const char *dir, const char *what, const char *page) {
  static unsigned profile;
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "chromium " CHROMIUM_FLAGS " --user-data-dir='%s/profile%u' --window-size=1280,1600 %s "
           "'file://%s' 2>/dev/null", dir, profile++, what, page);
  int st;
  char *out = cr_shell(cmd, &st);
  if (st != 0) fail_msg("chromium exited with %d: %s", st, cmd);
  return out;
}

static long file_size(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static unsigned count(const char *text, const char *needle) {
  unsigned n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static void test_report_renders_in_chromium(void **state) {
  (void)state;
  if (!have_chromium()) {
    print_message("chromium is not installed (apt-get install chromium): the browser test is skipped\n");
    skip();
  }
  tf_dir d;
  tf_dir_make(&d);
  char html[128], shot[128], blank[128], broken[128], cmd[512];
  tf_join(html, sizeof html, d.path, "report.html");
  tf_join(shot, sizeof shot, d.path, "report.png");
  tf_join(blank, sizeof blank, d.path, "blank.png");
  tf_join(broken, sizeof broken, d.path, "broken.html");
  snprintf(cmd, sizeof cmd, "'%s' run matmul --attr m=512 --attr n=512 --attr k=512 --timing-only --quiet --report '%s'",
           CUBESIM_BINARY, html);
  int st;
  free(cr_shell(cmd, &st));
  assert_int_equal(st, 0);
  /* the DOM after the scripts ran */
  char *dom = chromium(d.path, "--dump-dom", html);
  cr_assert_contains(dom, "data-ready=\"1\"");
  cr_assert_contains(dom, "<div id=\"js-errors\"></div>");
  cr_assert_contains(dom, "<svg id=\"tl\"");
  cr_assert_contains(dom, "<svg class=\"bars\" id=\"pipe-bars\"");
  cr_assert_contains(dom, "<svg id=\"roofline\"");
  cr_assert_contains(dom, "class=\"run-point\"");
  assert_true(count(dom, "<rect") > 100);             /* the timeline's spans */
  assert_true(count(dom, "<text x=") > 20);           /* labels and the axis the script drew */
  cr_assert_contains(dom, "<svg id=\"tl-axis\" width=\"100%\" height=\"34\"><line"); /* ticks drawn */
  free(dom);
  /* a screenshot with something on it */
  snprintf(cmd, sizeof cmd, "--screenshot='%s'", shot);
  free(chromium(d.path, cmd, html));
  tf_write_text(broken, "<!DOCTYPE html><html><body></body></html>");
  snprintf(cmd, sizeof cmd, "--screenshot='%s'", blank);
  free(chromium(d.path, cmd, broken));
  long s_report = file_size(shot), s_blank = file_size(blank);
  print_message("screenshot %ld bytes, a blank page's %ld\n", s_report, s_blank);
  assert_true(s_blank > 0);
  assert_true(s_report > 10 * s_blank);
  /* the catcher catches: the report with a call of an undefined function */
  char *page = tf_read(html, NULL);
  char *end = strstr(page, "</body>");
  assert_non_null(end);
  FILE *f = fopen(broken, "w");
  assert_non_null(f);
  fprintf(f, "%.*s<script>no_such_function();</script>%s", (int)(end - page), page, end);
  assert_int_equal(fclose(f), 0);
  free(page);
  dom = chromium(d.path, "--dump-dom", broken);
  cr_assert_contains(dom, "no_such_function is not defined");
  assert_null(strstr(dom, "<div id=\"js-errors\"></div>"));
  free(dom);
  tf_dir_remove(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_report_renders_in_chromium),
  };
  return cmocka_run_group_tests_name("browser", tests, NULL, NULL);
}
