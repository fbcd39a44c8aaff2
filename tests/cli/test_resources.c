/* Tests of the command line's resource checks: the host memory preflight of `run` and `exec`
 * (refused with the estimate and the limit, exit 3, before anything large is allocated: the
 * binary runs under a 2 GiB address-space limit while it refuses an 87 GiB run), capped reads of
 * configurations, programs and --in files that are not regular files, and deeply nested YAML. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/cli_run.h"
#include "support/tmp_files.h"

/* AddressSanitizer reserves terabytes of address space: its builds run without the cap. */
#if defined(__SANITIZE_ADDRESS__)
#define ADDRESS_CAP ""
#else
#define ADDRESS_CAP "ulimit -v 2097152; "
#endif

/* m = n = k = 60000 fp16 -> fp32, by hand: the inputs a and b are 2 x 60000^2 x 2 B = 14.4e9 B
 * = 13.4 GiB, their device copies as much again plus c's 60000^2 x 4 B = 13.4 GiB (26.8 GiB),
 * the output tensor 13.4 GiB, GM holds a, b and c (26.8 GiB). The binary runs with its address
 * space capped at 2 GiB: had it allocated the inputs, it would fail otherwise. */
static void test_resources_60000_cubed_is_refused_with_the_estimate(void **state) {
  (void)state;
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           ADDRESS_CAP "'%s' run matmul --attr m=60000 --attr n=60000 --attr k=60000 --max-memory 8G 2>&1",
           CUBESIM_BINARY);
  int status;
  char *out = cr_shell(cmd, &status);
  assert_int_equal(status, 3);
  cr_assert_prefix(out, "cubesim run: error: host memory: this run needs about ");
  cr_assert_contains(out, " (inputs 13.4 GiB, device copies 26.8 GiB, outputs 13.4 GiB, on-chip buffers ");
  cr_assert_contains(out, "GM data 26.8 GiB, recorded streams ");
  cr_assert_contains(out, "over the limit of 8.0 GiB (--max-memory)\n");
  free(out);
  /* timing-only m = n = k = 10^6: before the tiling the streams are priced as kept (the launch
   * may need them), at least 1.7e11 instructions: hundreds of GiB */
  snprintf(cmd, sizeof cmd,
           ADDRESS_CAP "'%s' run matmul --attr m=1000000 --attr n=1000000 --attr k=1000000 --timing-only "
           "--max-memory 8G 2>&1",
           CUBESIM_BINARY);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 3);
  cr_assert_contains(out, "recorded streams ");
  cr_assert_contains(out, " GiB, replay state ");
  cr_assert_contains(out, "over the limit of 8.0 GiB (--max-memory)\n");
  free(out);
}

/* A timing-only matmul records its streams as the replay reads them (two host threads or more):
 * the preflight prices them as each core's two pipes, 2 x 2 x (4 chunks of 16 KiB + their
 * bookkeeping) = 257.0 KiB on 2 cores, not as the ~108800 instructions kept, 1.5 x (108800 x
 * 1.375 + 1088 literals x 56) + 2 streams x 7532 = 330856 B = 323.1 KiB (sim_stream.h), which
 * one thread keeps. The replay's window (208.0 KiB) is the same in both. */
static cr_result streaming_run(const char *limit, const char *threads) {
  char *argv[] = {"cubesim", "run", "matmul", "--attr", "m=2048", "--attr", "n=2048", "--attr", "k=4096",
                  "--timing-only", "--cores", "2", "--set", "l2.bytes=1048576", "--max-memory", (char *)limit,
                  "--quiet", "--threads", (char *)threads};
  return cr_runv((int)(sizeof argv / sizeof argv[0]), argv);
}

static void test_resources_streaming_run_is_priced_by_its_pipes(void **state) {
  (void)state;
#ifdef CUBESIM_NO_THREADS
  skip(); /* no streaming without threads */
#endif
  cr_result r = streaming_run("500K", "2");
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "  total          4,358,932 cycles");
  cr_free(&r);
  r = streaming_run("500K", "1");
  assert_int_equal(r.status, 3);
  assert_string_equal(r.err, "cubesim run: error: host memory: this run needs about 531.1 KiB (inputs 0 B, device "
                             "copies 0 B, outputs 0 B, recorded streams 323.1 KiB, replay state 208.0 KiB; ~108800 "
                             "instructions), over the limit of 500.0 KiB (--max-memory)\n");
  cr_free(&r);
  r = streaming_run("400K", "2");
  assert_int_equal(r.status, 3);
  cr_assert_contains(r.err, "(inputs 0 B, device copies 0 B, outputs 0 B, recorded streams 257.0 KiB, replay state "
                            "208.0 KiB; ~108800 instructions), over the limit of 400.0 KiB (--max-memory)\n");
  cr_free(&r);
}

/* The preflight of a program: its GM tensors, one line of output, exit 3. */
static void test_resources_exec_preflight(void **state) {
  (void)state;
  char dir[64], prog[128], want[512];
  tf_mkdtemp(dir, sizeof dir);
  tf_join(prog, sizeof prog, dir, "big.s");
  tf_write_text(prog, ".gm A int8 [1073741824] in\n.gm B int8 [16] out\n");
  cr_result r = cr_run("exec", prog, "--max-memory", "512M", NULL);
  assert_int_equal(r.status, 3);
  snprintf(want, sizeof want, "cubesim exec: error: host memory: %s needs about 1.", prog);
  cr_assert_prefix(r.err, want);
  cr_assert_contains(r.err, "GM data 1.0 GiB");
  cr_assert_contains(r.err, "), over the limit of 512.0 MiB (--max-memory)\n");
  cr_free(&r);
  r = cr_run("exec", prog, "--max-memory", "lots", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim exec: error: --max-memory: 'lots' is not a memory size (bytes, 512M, 8G, "
                             "1.5GiB, 8GB or a share like 50%)\n");
  cr_free(&r);
  tf_remove_tree(dir);
}

/* /dev/zero as a configuration, a program and an --in: refused after a capped read (or at its
 * first bytes), exit 2, not a host out of memory. */
static void test_resources_endless_inputs_are_refused(void **state) {
  (void)state;
  cr_result r = cr_run("config", "show", "/dev/zero", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim config show: error: /dev/zero: not a regular file, and it gave more than the "
                             "16.0 MiB cubesim reads of a configuration\n");
  cr_free(&r);
  r = cr_run("run", "matmul", "--config", "/dev/zero", NULL);
  assert_int_equal(r.status, 2);
  cr_free(&r);
  r = cr_run("run", "linear", "--in", "x=/dev/zero", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim run: error: /dev/zero: not a .npy file: it starts with 00 00 00 00 00 00, not "
                             "the magic 93 4e 55 4d 50 59 (\"\\x93NUMPY\")\n");
  cr_free(&r);
  r = cr_run("exec", "/dev/zero", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim exec: error: /dev/zero: not a regular file, and it gave more than the 256.0 MiB "
                             "cubesim reads of a program\n");
  cr_free(&r);
}

/* 100 KB of '[' (libyaml alone takes minutes over it) and block mappings nested past 64. */
static void test_resources_deep_yaml_is_refused(void **state) {
  (void)state;
  char dir[64], path[128];
  tf_mkdtemp(dir, sizeof dir);
  tf_join(path, sizeof path, dir, "deep.yaml");
  char *brackets = malloc(100001);
  memset(brackets, '[', 100000);
  brackets[100000] = '\0';
  tf_write_text(path, brackets);
  free(brackets);
  cr_result r = cr_run("config", "show", path, NULL);
  assert_int_equal(r.status, 2);
  char want[256];
  snprintf(want, sizeof want, "cubesim config show: error: %s:1:65: YAML flow collections nested more than 64 deep\n",
           path);
  assert_string_equal(r.err, want);
  cr_free(&r);
  /* "a:\n b:\n  c: ..." 70 levels of block mappings */
  char text[8192] = "";
  size_t used = 0;
  for (int i = 0; i < 70; i++) used += (size_t)snprintf(text + used, sizeof text - used, "%*sk%d:\n", i, "", i);
  tf_write_text(path, text);
  r = cr_run("config", "show", path, NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want, "cubesim config show: error: %s:65:65: collections nested more than 64 deep\n", path);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resources_60000_cubed_is_refused_with_the_estimate),
      cmocka_unit_test(test_resources_exec_preflight),
      cmocka_unit_test(test_resources_streaming_run_is_priced_by_its_pipes),
      cmocka_unit_test(test_resources_endless_inputs_are_refused),
      cmocka_unit_test(test_resources_deep_yaml_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
