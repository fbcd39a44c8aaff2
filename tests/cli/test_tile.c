/* Tests of `cubesim tile`: the candidates of the search, their estimates and model times (each
 * model time is what `cubesim run` measures for that tiling), the given fields kept, the run line
 * of the best (which reproduces that time), and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_jsonr.h"
#include "support/cli_run.h"
#include "support/json_expect.h"
#include "support/tmp_files.h"

/* A candidate's tiling written back as a TCubeTiling file. */
static void write_tiling(const char *path, const cs_jvalue *tl) {
  char text[2048] = "{";
  size_t used = 1;
  for (size_t i = 0; i < cs_jcount(tl); i++) {
    const cs_jvalue *v = cs_jat(tl, i);
    const char *sep = i ? ", " : "";
    if (cs_jis(v, CS_JSTRING))
      used += (size_t)snprintf(text + used, sizeof text - used, "%s\"%s\": \"%s\"", sep, cs_jkey_at(tl, i), cs_jstring(v));
    else
      used += (size_t)snprintf(text + used, sizeof text - used, "%s\"%s\": %s", sep, cs_jkey_at(tl, i), cs_jnumber_text(v));
  }
  snprintf(text + used, sizeof text - used, "}");
  tf_write_text(path, text);
}

/* The timing model's cycles for a run with that tiling file. */
static uint64_t run_cycles(const char *path, const char *transpose_b) {
  cr_result r = cr_run("run", "matmul", "--attr", transpose_b, "--tiling", path, "--timing-only", "--json", "--set",
                       "chip.aic_cores=4", NULL);
  cr_assert_ok(&r);
  cs_jdoc *d = je_parse(r.out, strlen(r.out));
  uint64_t cycles = je_u64(cs_jroot(d), "total_cycles");
  cs_jfree(d);
  cr_free(&r);
  return cycles;
}

static void test_cli_tile_json(void **state) {
  (void)state;
  cr_result r = cr_run("tile", "matmul", "--attr", "m=256", "--attr", "n=384", "--attr", "k=512", "--attr",
                       "transpose_b=true", "--set", "chip.aic_cores=4", "--top", "5", "--simulate", "3", "--json", NULL);
  cr_assert_ok(&r);
  cs_jdoc *d = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(d);
  assert_string_equal(cs_jget_string(root, "kernel"), "matmul");
  const cs_jvalue *c = cs_jget(root, "candidates");
  assert_int_equal(cs_jcount(c), 5);
  tf_dir dir;
  tf_dir_make(&dir);
  char path[128];
  tf_join(path, sizeof path, dir.path, "t.json");
  uint64_t last = 0;
  for (size_t i = 0; i < 5; i++) {
    const cs_jvalue *ci = cs_jat(c, i);
    assert_int_equal(je_u64(ci, "tiling.M"), 256);
    assert_int_equal(je_u64(ci, "tiling.N"), 384);
    assert_int_equal(je_u64(ci, "tiling.Ka"), 512);
    assert_true(je_number(ci, "estimate_cycles") > 0);
    assert_true(je_u64(ci, "estimate_instructions") > 0);
    /* the slowest core's pipes: the estimate is the busiest of them or more */
    const char *pipes[] = {"mte2", "mte1", "cube", "fixpipe", "scalar"};
    for (size_t p = 0; p < sizeof pipes / sizeof pipes[0]; p++) {
      char key[48];
      snprintf(key, sizeof key, "estimate_pipes.%s", pipes[p]);
      double v = je_number(ci, key);
      assert_true(v > 0 && v <= je_number(ci, "estimate_cycles"));
    }
    if (i >= 3) { /* not timed */
      assert_true(cs_jis(cs_jget(ci, "model_cycles"), CS_JNULL));
      continue;
    }
    /* timed ones first, fastest first; each what a run with that tiling measures */
    uint64_t model = je_u64(ci, "model_cycles");
    assert_true(model >= last);
    last = model;
    assert_true(je_number(ci, "model_us") == (double)model / 1850.0);
    write_tiling(path, cs_jget(ci, "tiling"));
    assert_int_equal(run_cycles(path, "transpose_b=true"), model);
  }
  cs_jfree(d);
  cr_free(&r);
  tf_dir_remove(&dir);
}

/* The model runs of the candidates run at once on the host's threads (each on a device of its
 * own): the candidates, their order and their model times are the same on 1, 2 and 3 threads,
 * from CUBESIM_THREADS or --threads (which wins over it); --threads 0 is refused. */
static void test_cli_tile_same_on_any_thread_count(void **state) {
  (void)state;
  char *out[3];
  const char *counts[3] = {"1", "2", "3"};
  for (int i = 0; i < 3; i++) {
    setenv("CUBESIM_THREADS", counts[i], 1);
    cr_result r = cr_run("tile", "matmul", "--attr", "m=256", "--attr", "n=384", "--attr", "k=512", "--set",
                         "chip.aic_cores=4", "--top", "6", "--simulate", "4", "--json", NULL);
    cr_assert_ok(&r);
    out[i] = strdup(r.out);
    cr_free(&r);
  }
  unsetenv("CUBESIM_THREADS");
  /* --threads, over the environment */
  setenv("CUBESIM_THREADS", "3", 1);
  const char *flags[2] = {"1", "2"};
  for (int i = 0; i < 2; i++) {
    cr_result r = cr_run("tile", "matmul", "--attr", "m=256", "--attr", "n=384", "--attr", "k=512", "--set",
                         "chip.aic_cores=4", "--top", "6", "--simulate", "4", "--json", "--threads", flags[i], NULL);
    cr_assert_ok(&r);
    assert_string_equal(r.out, out[0]);
    cr_free(&r);
  }
  unsetenv("CUBESIM_THREADS");
  cr_result bad = cr_run("tile", "matmul", "--attr", "m=256", "--threads", "0", NULL);
  assert_int_equal(bad.status, 2);
  assert_string_equal(bad.out, "");
  assert_non_null(strstr(bad.err, "cubesim tile: error: --threads 0: give 1 to 1024 host threads"));
  cr_free(&bad);
  cs_jdoc *d = je_parse(out[0], strlen(out[0]));
  const cs_jvalue *c = cs_jget(cs_jroot(d), "candidates");
  assert_int_equal(cs_jcount(c), 6);
  for (size_t i = 0; i < 4; i++) assert_true(je_u64(cs_jat(c, i), "model_cycles") > 0); /* four timed */
  cs_jfree(d);
  assert_string_equal(out[1], out[0]);
  assert_string_equal(out[2], out[0]);
  for (int i = 0; i < 3; i++) free(out[i]);
}

/* Given fields are kept in every candidate; the text lists them and gives the run of the best. */
static void test_cli_tile_text_and_given_fields(void **state) {
  (void)state;
  cr_result r = cr_run("tile", "matmul", "--attr", "m=256", "--attr", "n=384", "--attr", "k=512", "--attr", "base_m=64",
                       "--attr", "core_split=block", "--set", "chip.aic_cores=4", "--top", "3", "--simulate", "2", NULL);
  cr_assert_ok(&r);
  cr_assert_prefix(r.out, "matmul: m 256, n 384, k 512 on 4 cores at 1850 MHz: the best 3 candidates by the estimate, 2 "
                          "timed by the model (those first)\n\n   #  estimate us    model us  tiling\n");
  const char *l1 = strstr(r.out, "\n   1  "), *l3 = strstr(r.out, "\n   3  ");
  assert_non_null(l1);
  assert_non_null(l3);
  assert_non_null(strstr(l1, "base 64 x "));
  assert_non_null(strstr(l3, "  -  base 64 x ")); /* the third is not timed */
  const char *run = strstr(r.out, "\nthe best, as a run:\n  cubesim run matmul --attr m=256 --attr n=384 --attr k=512 "
                                  "--set chip.aic_cores=4 --attr used_core_num=");
  assert_non_null(run);
  assert_non_null(strstr(run, " --attr base_m=64 "));
  assert_non_null(strstr(run, " --attr core_split=block --attr const_tiling=0 --attr api=matmul\n"));
  /* the run line reproduces the model time of the best */
  char line[2048];
  snprintf(line, sizeof line, "%s", strstr(run, "cubesim run ") + strlen("cubesim "));
  *strchr(line, '\n') = '\0';
  char *argv[80];
  int argc = 0;
  argv[argc++] = "cubesim";
  for (char *tok = strtok(line, " "); tok && argc < 76; tok = strtok(NULL, " ")) argv[argc++] = tok;
  argv[argc++] = "--timing-only";
  argv[argc++] = "--json";
  argv[argc] = NULL;
  cr_result rr = cr_runv(argc, argv);
  cr_assert_ok(&rr);
  cs_jdoc *d = je_parse(rr.out, strlen(rr.out));
  uint64_t cycles = je_u64(cs_jroot(d), "total_cycles");
  cs_jfree(d);
  cr_free(&rr);
  double us; /* the model column of the first line, printed with one decimal */
  assert_int_equal(sscanf(l1, "\n   1  %*f  %lf", &us), 1);
  char want[32];
  snprintf(want, sizeof want, "%.1f", (double)cycles / 1850.0);
  char got[32];
  snprintf(got, sizeof got, "%.1f", us);
  assert_string_equal(got, want);
  cr_free(&r);
}

static void test_cli_tile_errors(void **state) {
  (void)state;
  const struct {
    const char *a[6];
    int status;
    const char *err;
  } cases[] = {
      {{"tile", NULL}, 2, "cubesim tile: error: no KERNEL given (cubesim kernels lists them)\n"},
      {{"tile", "matmull", NULL}, 2, "cubesim tile: error: unknown kernel 'matmull' (did you mean 'matmul'?)\n"},
      {{"tile", "frobnicate", NULL}, 2, "cubesim tile: error: unknown kernel 'frobnicate' (cubesim kernels lists them)\n"},
      {{"tile", "matmul", "--top", "0", NULL}, 2, "cubesim tile: error: --top 0 is out of range [1, 16]\n"},
      {{"tile", "matmul", "--simulate", "17", NULL}, 2, "cubesim tile: error: --simulate 17 is out of range [0, 16]\n"},
      {{"tile", "matmul", "--trace", "x", NULL}, 2, "cubesim tile: error: unknown option '--trace' (cubesim tile --help lists them)\n"},
      {{"tile", "matmul", "--attr", "base_k=4064", "--attr", "in_dtype=int8"}, 2,
       "cubesim tile: error: tiling: L0B needs 130048 bytes but has 65536: 1 x 130048 B (db_l0b 1; base_n 16 (padded to 32, "
       "whole C0 x C0 squares) x base_k 4064 of int8); lower base_n or base_k\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cr_result r = cr_run(cases[i].a[0], cases[i].a[1], cases[i].a[2], cases[i].a[3], cases[i].a[4], cases[i].a[5], NULL);
    assert_int_equal(r.status, cases[i].status);
    assert_string_equal(r.err, cases[i].err);
    assert_string_equal(r.out, "");
    cr_free(&r);
  }
  cr_result r = cr_run("tile", "--help", NULL);
  cr_assert_ok(&r);
  cr_assert_prefix(r.out, "usage: cubesim tile KERNEL");
  cr_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_tile_json),
      cmocka_unit_test(test_cli_tile_same_on_any_thread_count),
      cmocka_unit_test(test_cli_tile_text_and_given_fields),
      cmocka_unit_test(test_cli_tile_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
