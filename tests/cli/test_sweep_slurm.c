/* cubesim sweep --emit slurm for real: a single-node Slurm cluster on localhost (slurmctld,
 * slurmd and a munged of its own, tests/support/slurm_local.sh), the sweep's job array submitted
 * with sbatch --wait (three array tasks over 7 points: chunks of 3, 3 and 1), collected with
 * --collect, and its results.csv equal to the one of the same sweep run by Ninja. Skipped, saying
 * so, where Slurm or munge is not installed or the test does not run as root (.ci/run installs
 * them and runs as root). The daemons are stopped by the pid files they wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/cli_run.h"
#include "support/tmp_files.h"

#define BIN "'" CUBESIM_BINARY "'"
#define CLUSTER "sh '" CUBESIM_SOURCE_DIR "/tests/support/slurm_local.sh'"

static const char sweep_yaml[] = "kernel: matmul\n"
                                 "attrs: {n: 128, k: 64}\n"
                                 "set: {chip.aic_cores: 2}\n"
                                 "options: [--timing-only]\n"
                                 "grid:\n"
                                 "  m: [64, 96]\n"
                                 "  base_m: [16, 32, 48]\n"
                                 "points:\n"
                                 "  - {base_n: 16}\n"
                                 "  - {base_n: 32}\n";


typedef struct cluster {
  tf_dir d;
  char conf[256];
  bool up;
} cluster;

static int teardown(void **state) {
  cluster *c = *state;
  if (c && c->up) {
    int st;
    free(cr_shellf(&st, CLUSTER " stop '%s/slurm'", c->d.path));
  }
  if (c) tf_dir_remove(&c->d);
  free(c);
  return 0;
}

static void test_sweep_as_a_slurm_array(void **state) {
  int st;
  char *have = cr_shellf(&st, "command -v sbatch && command -v slurmctld && command -v slurmd && command -v munged "
                       "&& command -v runuser");
  free(have);
  if (st != 0 || geteuid() != 0) {
    print_message("Slurm (slurm-wlm, munge) is not installed or this is not root: the Slurm test is skipped\n");
    skip();
  }
  cluster *c = calloc(1, sizeof *c);
  *state = c;
  tf_dir_make(&c->d);
  assert_int_equal(chmod(c->d.path, 0755), 0); /* the munge user's daemon reaches its socket below */
  char yaml[128], csv[2][160];
  tf_join(yaml, sizeof yaml, c->d.path, "s.yaml");
  tf_write_text(yaml, sweep_yaml);
  snprintf(csv[0], sizeof csv[0], "%s/ninja/results.csv", c->d.path);
  snprintf(csv[1], sizeof csv[1], "%s/slurm/results.csv", c->d.path);
  /* the same sweep under Ninja */
  free(cr_shellf(&st, BIN " sweep '%s' --dir '%s/ninja' >/dev/null 2>&1", yaml, c->d.path));
  assert_int_equal(st, 0);
  /* as a job array: 12 points, 5 per task */
  char *o = cr_shellf(&st, BIN " sweep '%s' --dir '%s/slurm' --emit slurm --chunk 5", yaml, c->d.path);
  assert_int_equal(st, 0);
  cr_assert_contains(o, "(12 points, 5 per array task)");
  char collect[400];
  snprintf(collect, sizeof collect, "then cubesim sweep %s --collect --dir %s/slurm\n", yaml, c->d.path);
  cr_assert_contains(o, collect);
  free(o);
  char script[160];
  snprintf(script, sizeof script, "%s/slurm/sweep.sbatch", c->d.path);
  char *text = tf_read(script, NULL);
  cr_assert_contains(text, "#SBATCH --array=0-2\n");
  free(text);
  o = cr_shellf(&st, CLUSTER " start '%s/slurm'", c->d.path);
  if (st != 0) fail_msg("the cluster did not start: %s", o);
  c->up = true;
  snprintf(c->conf, sizeof c->conf, "%.*s", (int)strcspn(o, "\n"), o);
  free(o);
  o = cr_shellf(&st, "SLURM_CONF='%s' timeout 600 sbatch --wait '%s' 2>&1", c->conf, script);
  if (st != 0) fail_msg("sbatch --wait failed (%d): %s", st, o);
  cr_assert_contains(o, "Submitted batch job ");
  free(o);
  o = cr_shellf(&st, "ls '%s/slurm' | grep -c '^slurm-.*_[0-9]*\\.out$'", c->d.path);
  assert_string_equal(o, "3\n"); /* one output per array task */
  free(o);
  o = cr_shellf(&st, BIN " sweep '%s' --dir '%s/slurm' --collect", yaml, c->d.path);
  assert_int_equal(st, 0);
  cr_assert_contains(o, "12 points: ");
  assert_null(strstr(o, " 0 ran"));
  cr_assert_contains(o, ", 0 without a result\n");
  free(o);
  char *a = tf_read(csv[0], NULL), *b = tf_read(csv[1], NULL);
  assert_string_equal(b, a);
  free(a);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_sweep_as_a_slurm_array, teardown),
  };
  return cmocka_run_group_tests_name("sweep on slurm", tests, NULL, NULL);
}
