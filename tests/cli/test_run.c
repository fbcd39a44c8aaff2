/* Tests of `cubesim run` and `cubesim kernels` through cli_main (and the real binary): the
 * seed's worked example from .npy files to --out and back, --json (totals, pipes), --check,
 * --trace, generated inputs, determinism, and every bad input giving one error line, exit status
 * 2 and no output file; the kernel list in text and JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_npy.h"
#include "sim/sim_config.h"
#include "support/cli_run.h"
#include "base/cs_jsonr.h"
#include "support/json_expect.h"
#include "support/tmp_files.h"

/* ---- helpers ------------------------------------------------------------------------------- */

typedef struct tmp {
  char dir[64];
  char path[8][160];
} tmp;

static void tmp_init(tmp *t) {
  memset(t, 0, sizeof *t);
  tf_mkdtemp(t->dir, sizeof t->dir);
}

static const char *tmp_path(tmp *t, int slot, const char *name) {
  return tf_join(t->path[slot], sizeof t->path[slot], t->dir, name);
}

static void tmp_free(tmp *t) { tf_remove_tree(t->dir); }

/* ---- the seed's worked example (seed 002) --------------------------------------------------- */

/* x = [[1, 2], [3, 4]], weight = [[1, 2, 3], [4, 5, 6]], bias = [1, 2, 3], deq_scale = [1, 2, 3]
 * -> [[10, 28, 54], [20, 56, 108]]; fp16 bits derived by hand (1.25*2^3 = 0x4900, ...). */
static const uint16_t seed_fp16[6] = {0x4900, 0x4F00, 0x52C0, 0x4D00, 0x5300, 0x56C0};
static const float seed_values[6] = {10, 28, 54, 20, 56, 108};

typedef struct seed_files {
  tmp t;
  char in[4][200]; /* "--in" arguments: x=..., weight=..., bias=..., deq_scale=... */
} seed_files;

static void seed_init(seed_files *s) {
  tmp_init(&s->t);
  const int8_t x[4] = {1, 2, 3, 4}, w[6] = {1, 2, 3, 4, 5, 6};
  const int32_t bias[3] = {1, 2, 3};
  const float scale[3] = {1, 2, 3};
  const size_t s22[2] = {2, 2}, s23[2] = {2, 3}, s3[1] = {3};
  tf_write_npy(tmp_path(&s->t, 0, "x.npy"), CS_NPY_I8, 2, s22, x);
  tf_write_npy(tmp_path(&s->t, 1, "weight.npy"), CS_NPY_I8, 2, s23, w);
  tf_write_npy(tmp_path(&s->t, 2, "bias.npy"), CS_NPY_I32, 1, s3, bias);
  tf_write_npy(tmp_path(&s->t, 3, "deq_scale.npy"), CS_NPY_F32, 1, s3, scale);
  const char *names[4] = {"x", "weight", "bias", "deq_scale"};
  for (int i = 0; i < 4; i++) snprintf(s->in[i], sizeof s->in[i], "%s=%s", names[i], s->t.path[i]);
}

#define SEED_INS(s) "--in", (s).in[0], "--in", (s).in[1], "--in", (s).in[2], "--in", (s).in[3]
/* The seed's inputs but one, for a case that gives that one from another file. */
#define SEED_INS_BUT_X(s) "--in", (s).in[1], "--in", (s).in[2], "--in", (s).in[3]
#define SEED_INS_BUT_WEIGHT(s) "--in", (s).in[0], "--in", (s).in[2], "--in", (s).in[3]
#define SEED_INS_BUT_DEQ_SCALE(s) "--in", (s).in[0], "--in", (s).in[1], "--in", (s).in[2]

static void test_cli_run_seed_example_to_out(void **state) {
  (void)state;
  seed_files s;
  seed_init(&s);
  char out[220];
  snprintf(out, sizeof out, "output=%s", tmp_path(&s.t, 4, "out.npy"));
  cr_result r = cr_run("run", "linear", SEED_INS(s), "--out", out, NULL);
  cr_assert_ok(&r);
  assert_non_null(strstr(r.out, "linear: ATB Linear: int8 matmul + int32 bias, dequantized per channel or per tensor to fp16/bf16\n"));
  assert_non_null(strstr(r.out, "  in   x            int8    [2, 2]\n"));
  assert_non_null(strstr(r.out, "  in   deq_scale    fp32    [3]\n"));
  assert_non_null(strstr(r.out, "  out  output       fp16    [2, 3]\n"));
  assert_non_null(strstr(r.out, "\ncubesim summary: ascend910b, 24 cores at 1850 MHz\n"));
  cr_free(&r);
  cs_npy a;
  tf_read_npy(s.t.path[4], &a);
  assert_int_equal(a.dtype, CS_NPY_F16);
  assert_int_equal(a.ndim, 2);
  assert_int_equal(a.shape[0], 2);
  assert_int_equal(a.shape[1], 3);
  for (int i = 0; i < 6; i++) assert_int_equal(((const uint16_t *)a.data)[i], seed_fp16[i]);
  cs_npy_free(&a);
  /* bf16 is written as float32 */
  snprintf(out, sizeof out, "output=%s", tmp_path(&s.t, 5, "out_bf16.npy"));
  r = cr_run("run", "linear", SEED_INS(s), "--attr", "out_dtype=bf16", "--out", out, NULL);
  cr_assert_ok(&r);
  cr_free(&r);
  tf_read_npy(s.t.path[5], &a);
  assert_int_equal(a.dtype, CS_NPY_F32);
  for (int i = 0; i < 6; i++) assert_true(((const float *)a.data)[i] == seed_values[i]);
  cs_npy_free(&a);
  tmp_free(&s.t);
}

static void assert_close(double got, double want) {
  if (!(fabs(got - want) <= 1e-12 * fabs(want) + 1e-300)) fail_msg("%.17g != %.17g", got, want);
}

/* --json: the run's totals and pipes. The one mmad is 2 x 3 x 2 int8: ceil(2/16) ceil(3/16)
 * ceil(2/32) = 1 cycle plus the 910B's head and, on an idle cube, its restart cycles (both from
 * the built-in configuration, docs/TIMING.md) busy CUBE cycles; its 12 MACs are 12/8192 ideal
 * cycles. The one tile is one block, started after the launch (chip.launch_us) and finishing last:
 * its span, the aicore time, is the total less the launch, and msprof's ratios are busy / aicore. */
static void check_seed_json(const char *text, unsigned cores) {
  sim_config c;
  sim_config_defaults(&c);
  double launch = (double)llround(c.chip_launch_us * (double)c.chip_clock_mhz);
  uint64_t cube_busy = 1 + c.cube_head_cycles + c.cube_restart_cycles;
  cs_jdoc *doc = je_parse(text, strlen(text));
  const cs_jvalue *root = cs_jroot(doc);
  assert_string_equal(cs_jget_string(root, "kernel"), "linear");
  assert_string_equal(cs_jget_string(root, "outputs.output.dtype"), "fp16");
  assert_int_equal(je_u64(root, "outputs.output.shape[0]"), 2);
  assert_int_equal(je_u64(root, "outputs.output.shape[1]"), 3);
  assert_int_equal(cs_jcount(cs_jget(root, "outputs.output.shape")), 2);
  assert_string_equal(cs_jget_string(root, "inputs.weight.dtype"), "int8");
  assert_int_equal(je_u64(root, "inputs.deq_scale.shape[0]"), 3);
  assert_int_equal(cs_jcount(cs_jget(root, "notes")), 0);
  assert_int_equal(je_u64(root, "cores"), cores);
  assert_int_equal(je_u64(root, "clock_mhz"), 1850);
  uint64_t total = je_u64(root, "total_cycles");
  assert_true(total > launch + (double)cube_busy);
  assert_close(je_number(root, "time_us"), (double)total / 1850.0);
  double capacity = (double)cores * (double)total;
  assert_close(je_number(root, "cube_utilization"), 12.0 / 8192.0 / capacity);
  assert_int_equal(je_u64(root, "blocks"), 1);
  double aicore = (double)total - launch;
  assert_close(je_number(root, "aicore_cycles"), aicore);
  assert_int_equal(je_u64(root, "pipes.CUBE.busy_cycles"), cube_busy);
  assert_close(je_number(root, "pipes.CUBE.ratio"), (double)cube_busy / aicore);
  const char *pipes[3] = {"MTE1", "MTE2", "FIXP"};
  for (int p = 0; p < 3; p++) {
    char path[64];
    snprintf(path, sizeof path, "pipes.%s.busy_cycles", pipes[p]);
    uint64_t busy = je_u64(root, path);
    assert_true(busy > 0);
    snprintf(path, sizeof path, "pipes.%s.ratio", pipes[p]);
    assert_close(je_number(root, path), (double)busy / aicore);
  }
  assert_int_equal(je_u64(root, "pipes.MTE3.busy_cycles"), 0);
  cs_jfree(doc);
}

static void test_cli_run_json(void **state) {
  (void)state;
  seed_files s;
  seed_init(&s);
  cr_result r = cr_run("run", "linear", SEED_INS(s), "--json", NULL);
  cr_assert_ok(&r);
  check_seed_json(r.out, 24);
  cr_free(&r);
  r = cr_run("run", "linear", SEED_INS(s), "--json", "--set", "chip.aic_cores=4", NULL);
  cr_assert_ok(&r);
  check_seed_json(r.out, 4);
  cr_free(&r);
  tmp_free(&s.t);
}

static void test_cli_run_check(void **state) {
  (void)state;
  seed_files s;
  seed_init(&s);
  cr_result r = cr_run("run", "linear", SEED_INS(s), "--check", NULL);
  cr_assert_ok(&r);
  assert_non_null(strstr(r.out, "\ncheck against the host reference: every output bit-exact\n"));
  cr_free(&r);
  r = cr_run("run", "linear", SEED_INS(s), "--check", "--json", NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  assert_int_equal(je_u64(root, "check.mismatches"), 0);
  assert_int_equal(je_u64(root, "check.output.compared"), 6);
  assert_int_equal(je_u64(root, "check.output.mismatches"), 0);
  assert_true(cs_jis(cs_jget(root, "check.output.first"), CS_JNULL));
  cs_jfree(doc);
  cr_free(&r);
  tmp_free(&s.t);
}

/* --trace: a Chrome trace with one complete event per instruction; the one mmad is there. */
static void test_cli_run_trace(void **state) {
  (void)state;
  seed_files s;
  seed_init(&s);
  const char *trace = tmp_path(&s.t, 4, "t.json");
  cr_result r = cr_run("run", "linear", SEED_INS(s), "--trace", trace, "--set", "chip.aic_cores=2", NULL);
  cr_assert_ok(&r);
  char want[256];
  snprintf(want, sizeof want, "\ntrace written to %s (open it in https://ui.perfetto.dev)\n", trace);
  assert_non_null(strstr(r.out, want));
  cr_free(&r);
  cs_jdoc *doc = je_parse_file(trace);
  const cs_jvalue *ev = cs_jget(cs_jroot(doc), "traceEvents");
  assert_true(cs_jis(ev, CS_JARRAY));
  unsigned mmads = 0, complete = 0;
  for (size_t i = 0; i < cs_jcount(ev); i++) {
    const char *ph = cs_jget_string(cs_jat(ev, i), "ph"), *name = cs_jget_string(cs_jat(ev, i), "name");
    if (ph && strcmp(ph, "X") == 0) complete++;
    if (ph && name && strcmp(ph, "X") == 0 && strcmp(name, "mmad") == 0) mmads++;
  }
  assert_int_equal(mmads, 1);
  assert_true(complete > 5);
  assert_true(cs_jis(cs_jget(cs_jroot(doc), "otherData"), CS_JOBJECT));
  cs_jfree(doc);
  /* a failed run leaves no trace behind */
  const char *trace2 = tmp_path(&s.t, 5, "t2.json");
  r = cr_run("run", "linear", SEED_INS(s), "--attr", "base_k=4064", "--trace", trace2, NULL);
  assert_int_equal(r.status, 2);
  assert_false(tf_exists(trace2));
  assert_int_equal(tf_count_entries(s.t.dir), 4 + 1); /* the inputs and t.json: no temporary file */
  cr_free(&r);
  tmp_free(&s.t);
}

/* Generated inputs follow the shape attributes; the same seed gives the same data, another seed
 * other data; a timing-only run takes exactly as many cycles. */
static void test_cli_run_generated_inputs(void **state) {
  (void)state;
  tmp t;
  tmp_init(&t);
  char o1[200], o2[200], o3[200];
  snprintf(o1, sizeof o1, "output=%s", tmp_path(&t, 0, "a.npy"));
  snprintf(o2, sizeof o2, "output=%s", tmp_path(&t, 1, "b.npy"));
  snprintf(o3, sizeof o3, "output=%s", tmp_path(&t, 2, "c.npy"));
  cr_result r = cr_run("run", "linear", "--attr", "m=24", "--attr", "n=40", "--attr", "k=64", "--set", "chip.aic_cores=4",
                       "--json", "--check", "--out", o1, NULL);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  assert_int_equal(je_u64(root, "inputs.x.shape[0]"), 24);
  assert_int_equal(je_u64(root, "inputs.x.shape[1]"), 64);
  assert_int_equal(je_u64(root, "inputs.weight.shape[0]"), 64);
  assert_int_equal(je_u64(root, "inputs.weight.shape[1]"), 40);
  assert_int_equal(je_u64(root, "inputs.bias.shape[0]"), 40);
  assert_int_equal(je_u64(root, "inputs.deq_scale.shape[0]"), 40);
  assert_int_equal(je_u64(root, "outputs.output.shape[0]"), 24);
  assert_int_equal(je_u64(root, "outputs.output.shape[1]"), 40);
  assert_int_equal(je_u64(root, "check.mismatches"), 0);
  uint64_t cycles = je_u64(root, "total_cycles");
  cs_jfree(doc);
  cr_free(&r);
  r = cr_run("run", "linear", "--attr", "m=24", "--attr", "n=40", "--attr", "k=64", "--set", "chip.aic_cores=4",
             "--seed", "1", "--out", o2, NULL);
  cr_assert_ok(&r);
  cr_free(&r);
  r = cr_run("run", "linear", "--attr", "m=24", "--attr", "n=40", "--attr", "k=64", "--set", "chip.aic_cores=4",
             "--seed", "2", "--out", o3, NULL);
  cr_assert_ok(&r);
  cr_free(&r);
  /* the same run with --opt=VALUE words */
  char o4[220];
  snprintf(o4, sizeof o4, "--out=output=%s", tmp_path(&t, 3, "d.npy"));
  r = cr_run("run", "linear", "--attr=m=24", "--attr=n=40", "--attr=k=64", "--set=chip.aic_cores=4", "--seed=1", o4, NULL);
  cr_assert_ok(&r);
  cr_free(&r);
  cs_npy a, b, c;
  tf_read_npy(t.path[3], &a);
  tf_read_npy(t.path[1], &b);
  assert_int_equal(a.data_bytes, b.data_bytes);
  assert_memory_equal(a.data, b.data, a.data_bytes);
  cs_npy_free(&a);
  cs_npy_free(&b);
  tf_read_npy(t.path[0], &a);
  tf_read_npy(t.path[1], &b);
  tf_read_npy(t.path[2], &c);
  assert_int_equal(a.data_bytes, 24 * 40 * 2);
  assert_memory_equal(a.data, b.data, a.data_bytes);
  assert_true(memcmp(a.data, c.data, a.data_bytes) != 0);
  cs_npy_free(&a);
  cs_npy_free(&b);
  cs_npy_free(&c);
  r = cr_run("run", "linear", "--attr", "m=24", "--attr", "n=40", "--attr", "k=64", "--set", "chip.aic_cores=4",
             "--timing-only", "--json", NULL);
  cr_assert_ok(&r);
  doc = je_parse(r.out, strlen(r.out));
  assert_int_equal(je_u64(cs_jroot(doc), "total_cycles"), cycles);
  cs_jfree(doc);
  cr_free(&r);
  /* the other kernels generate their inputs too, and agree with their references */
  const char *kernels[4][3] = {{"matmul", "in_dtype=int4", "relu=true"},
                               {"matmul", "in_dtype=bf16", "out_dtype=bf16"},
                               {"matmul_quant", "out_dtype=uint8", "has_bias=true"},
                               {"matmul_requant", "relu=true", "has_bias=true"}};
  for (int i = 0; i < 4; i++) {
    r = cr_run("run", kernels[i][0], "--attr", "m=20", "--attr", "n=36", "--attr", "k=70", "--attr", kernels[i][1],
               "--attr", kernels[i][2], "--set", "chip.aic_cores=4", "--check", NULL);
    cr_assert_ok(&r);
    assert_non_null(strstr(r.out, "every output bit-exact"));
    cr_free(&r);
  }
  tmp_free(&t);
}

/* ---- bad input: one line, status 2, no output file ------------------------------------------- */

typedef struct bad_case {
  const char *args[16];
  const char *want; /* the whole stderr; %s: the temporary directory */
} bad_case;

/* --tiling FILE.json: a TCubeTiling in Ascend's camelCase names sets the tiling attributes (M, N
 * and Ka the shape of the generated inputs, isBias has_bias); --attr overrides its fields; --json
 * echoes the tiling the run used, which --tiling reads back into the same run. */
static void test_cli_run_tiling_file(void **state) {
  (void)state;
  tmp t;
  tmp_init(&t);
  const char *path = tmp_path(&t, 0, "tiling.json");
  tf_write_text(path, "{\"usedCoreNum\": 4, \"M\": 96, \"N\": 128, \"Ka\": 64, \"Kb\": 64, \"singleCoreM\": 48,\n"
                      " \"singleCoreN\": 64, \"singleCoreK\": 64, \"baseM\": 32, \"baseN\": 64, \"baseK\": 32,\n"
                      " \"depthA1\": 4, \"depthB1\": 2, \"stepM\": 1, \"stepN\": 1, \"stepKa\": 2, \"stepKb\": 1,\n"
                      " \"iterateOrder\": 0, \"isBias\": 1, \"dbL0A\": 2, \"dbL0B\": 1, \"dbL0C\": 2,\n"
                      " \"unitFlag\": 0, \"coreSplit\": \"block\", \"shareMode\": 0, \"transLength\": 4096, \"BatchNum\": 0}\n");
  cr_result r = cr_run("run", "matmul", "--tiling", path, "--attr", "l2_split=2", "--attr", "single_core_m=24", "--check",
                       "--json", "--set", "chip.aic_cores=8", NULL);
  if (r.status) fail_msg("%s", r.err);
  char note[512];
  snprintf(note, sizeof note, "cubesim run: note: --tiling %s: fields cubesim does not model, ignored: transLength\n", path);
  assert_string_equal(r.err, note);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  assert_int_equal(je_u64(root, "inputs.a.shape[0]"), 96);
  assert_int_equal(je_u64(root, "inputs.a.shape[1]"), 64);
  assert_int_equal(je_u64(root, "inputs.bias.shape[0]"), 128);
  assert_int_equal(je_u64(root, "check.mismatches"), 0);
  const struct {
    const char *key;
    uint64_t v;
  } want[] = {{"usedCoreNum", 4}, {"M", 96},       {"N", 128},    {"Ka", 64},     {"singleCoreM", 24}, {"singleCoreN", 64},
              {"baseM", 32},     {"depthA1", 4},   {"stepKa", 2}, {"stepKb", 1},  {"iterateOrder", 0}, {"isBias", 1},
              {"dbL0A", 2},      {"dbL0B", 1},     {"dbL0C", 2},  {"l2Split", 2}, {"unitFlag", 0}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char key[64];
    snprintf(key, sizeof key, "tiling.%s", want[i].key);
    assert_int_equal(je_u64(root, key), want[i].v);
  }
  assert_string_equal(cs_jget_string(root, "tiling.coreSplit"), "block");
  uint64_t cycles = je_u64(root, "total_cycles");
  /* the echo, written back as a file, runs the same */
  const cs_jvalue *tl = cs_jget(root, "tiling");
  char text[2048] = "{";
  size_t used = 1;
  for (size_t i = 0; i < cs_jcount(tl); i++) {
    const cs_jvalue *v = cs_jat(tl, i);
    if (cs_jis(v, CS_JSTRING))
      used += (size_t)snprintf(text + used, sizeof text - used, "%s\"%s\": \"%s\"", i ? ", " : "", cs_jkey_at(tl, i),
                               cs_jstring(v));
    else
      used += (size_t)snprintf(text + used, sizeof text - used, "%s\"%s\": %s", i ? ", " : "", cs_jkey_at(tl, i),
                               cs_jnumber_text(v));
  }
  snprintf(text + used, sizeof text - used, "}");
  const char *echo = tmp_path(&t, 1, "echo.json");
  tf_write_text(echo, text);
  cs_jfree(doc);
  cr_free(&r);
  r = cr_run("run", "matmul", "--tiling", echo, "--json", "--set", "chip.aic_cores=8", NULL);
  cr_assert_ok(&r);
  doc = je_parse(r.out, strlen(r.out));
  assert_int_equal(je_u64(cs_jroot(doc), "total_cycles"), cycles);
  assert_int_equal(je_u64(cs_jroot(doc), "tiling.singleCoreM"), 24);
  cs_jfree(doc);
  cr_free(&r);
  /* the text summary prints it on one line */
  r = cr_run("run", "matmul", "--tiling", echo, "--set", "chip.aic_cores=8", NULL);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "\ntiling: base 32 x 64 x 32; L1 A 4 blocks (step_m 1 x step_ka 2), B 2 (step_n 1 x step_kb 1); "
                            "L0 buffers A 2, B 1, C 2; blocks 24 x 64 on 4 cores; iterate_order 0, l2_split 2, "
                            "unit_flag 0; run-time tiling, Matmul API\n");
  cr_free(&r);
  /* errors: one line each */
  const char *bad = tmp_path(&t, 2, "bad.json");
  tf_write_text(bad, "{\"baseM\": 128, \"stepK\": 2}");
  char want_bad[1024], missing[256];
  snprintf(want_bad, sizeof want_bad,
           "cubesim run: error: %s: unknown TCubeTiling field \"stepK\" (cubesim reads usedCoreNum, M, N, Ka, Kb, "
           "singleCoreM, singleCoreN, singleCoreK, baseM, baseN, baseK, depthA1, depthB1, stepM, stepN, stepKa, stepKb, "
           "iterateOrder, isBias, dbL0A, dbL0B, dbL0C, l2Split, unitFlag, coreSplit, constTiling, api)\n",
           bad);
  r = cr_run("run", "matmul", "--tiling", bad, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, want_bad);
  assert_string_equal(r.out, "");
  cr_free(&r);
  snprintf(missing, sizeof missing, "cubesim run: error: --tiling %s/none.json: cannot open it: No such file or directory\n", t.dir);
  char none[200];
  snprintf(none, sizeof none, "%s/none.json", t.dir);
  r = cr_run("run", "matmul", "--tiling", none, NULL);
  assert_int_equal(r.status, cs_status_exit_code(CS_EIO));
  assert_string_equal(r.err, missing);
  cr_free(&r);
  /* a tiling for another shape than the inputs given */
  seed_files sf;
  seed_init(&sf);
  r = cr_run("run", "linear", SEED_INS(sf), "--tiling", path, NULL);
  assert_int_equal(r.status, 2);
  char both[1024];
  snprintf(both, sizeof both, "%scubesim run: error: attribute m = 96 but the inputs have m = 2\n", note);
  assert_string_equal(r.err, both);
  cr_free(&r);
  tmp_free(&sf.t);
  tmp_free(&t);
}

static void test_cli_run_bad_inputs(void **state) {
  (void)state;
  seed_files s;
  seed_init(&s);
  tmp *t = &s.t;
  /* extra files: a float x, a weight with k = 4, a zero scale, a scale for matmul_quant */
  const float xf[4] = {1, 2, 3, 4}, zero_scale[3] = {1, 0, 3}, q_scale[3] = {1, 0, 1};
  const int8_t w43[12] = {0};
  const uint16_t h6[6] = {0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00};
  const size_t s22[2] = {2, 2}, s43[2] = {4, 3}, s3[1] = {3}, s23[2] = {2, 3}, s33[2] = {3, 3};
  tf_write_npy(tmp_path(t, 4, "xf.npy"), CS_NPY_F32, 2, s22, xf);
  tf_write_npy(tmp_path(t, 5, "w43.npy"), CS_NPY_I8, 2, s43, w43);
  tf_write_npy(tmp_path(t, 6, "zero.npy"), CS_NPY_F32, 1, s3, zero_scale);
  tf_write_npy(tmp_path(t, 7, "qs.npy"), CS_NPY_F32, 1, s3, q_scale);
  char xf_in[256], w_in[256], z_in[256], y_in[256], out[256], ha[256], hb[256], qs_in[256], missing[256];
  snprintf(xf_in, sizeof xf_in, "x=%s", t->path[4]);
  snprintf(w_in, sizeof w_in, "weight=%s", t->path[5]);
  snprintf(z_in, sizeof z_in, "deq_scale=%s", t->path[6]);
  snprintf(y_in, sizeof y_in, "y=%s", t->path[0]);
  snprintf(qs_in, sizeof qs_in, "scale=%s", t->path[7]);
  snprintf(missing, sizeof missing, "x=%s/missing.npy", t->dir);
  char outpath[200];
  snprintf(outpath, sizeof outpath, "%s/out.npy", t->dir);
  snprintf(out, sizeof out, "output=%s", outpath);
  /* fp16 a [2, 3] and b [3, 3] for matmul_quant, reusing one file per shape */
  char hapath[200], hbpath[200];
  snprintf(hapath, sizeof hapath, "%s/ha.npy", t->dir);
  snprintf(hbpath, sizeof hbpath, "%s/hb.npy", t->dir);
  tf_write_npy(hapath, CS_NPY_F16, 2, s23, h6);
  uint16_t h9[9];
  for (int i = 0; i < 9; i++) h9[i] = 0x3C00;
  tf_write_npy(hbpath, CS_NPY_F16, 2, s33, h9);
  snprintf(ha, sizeof ha, "a=%s", hapath);
  snprintf(hb, sizeof hb, "b=%s", hbpath);
  char cout[256];
  snprintf(cout, sizeof cout, "c=%s", outpath);

  /* a float64 x: the message names float64 (it once read the freed array's zeroed dtype) */
  char x64path[200], x64_in[256];
  const double xd[4] = {1, 2, 3, 4};
  snprintf(x64path, sizeof x64path, "%s/x64.npy", t->dir);
  tf_write_npy(x64path, CS_NPY_F64, 2, s22, xd);
  snprintf(x64_in, sizeof x64_in, "x=%s", x64path);
  char want_missing[400], want_y[400], want_xf[400], want_x64[400], want_twice[800];
  snprintf(want_x64, sizeof want_x64, "cubesim run: error: x: %s has dtype float64, which no operator takes\n",
           x64path);
  snprintf(want_twice, sizeof want_twice, "cubesim run: error: --in x is given twice ('%s' and '%s')\n", s.in[0],
           xf_in);
  snprintf(want_y, sizeof want_y, "cubesim run: error: %s: linear has no input 'y'\n", t->path[0]);
  snprintf(want_xf, sizeof want_xf, "cubesim run: error: %s: linear: input 'x' is fp32, expected one of int8\n", t->path[4]);
  snprintf(want_missing, sizeof want_missing, "cubesim run: error: %s/missing.npy", t->dir);

  const bad_case cases[] = {
      {{"run", "linearr", SEED_INS(s), "--out", out}, "cubesim run: error: unknown kernel 'linearr' (did you mean 'linear'?)\n"},
      {{"run", "linear", SEED_INS(s), "--attr", "transpose_c=true", "--out", out},
       "cubesim run: error: linear has no attribute 'transpose_c' (it has: transpose_a, transpose_b, weight_format, "
       "out_dtype, m, n, k, batch, has_bias, quant_mode, deq_scale_dtype, used_core_num, single_core_m, single_core_n, "
       "single_core_k, base_m, base_n, base_k, depth_a1, depth_b1, step_m, step_n, step_ka, step_kb, iterate_order, "
       "db_l0a, db_l0b, db_l0c, l2_split, unit_flag, core_split, const_tiling, api, step_k, tiling)\n"},
      {{"run", "linear", SEED_INS(s), "--attr", "transpose_a=maybe", "--out", out},
       "cubesim run: error: attribute transpose_a: 'maybe' is not a boolean (true or false)\n"},
      {{"run", "linear", SEED_INS(s), "--attr", "m", "--out", out}, "cubesim run: error: --attr 'm': expected NAME=VALUE\n"},
      {{"run", "linear", SEED_INS(s), "--in", y_in, "--out", out}, want_y},
      {{"run", "linear", SEED_INS_BUT_X(s), "--in", xf_in, "--out", out}, want_xf},
      {{"run", "linear", SEED_INS_BUT_X(s), "--in", x64_in, "--out", out}, want_x64},
      {{"run", "linear", SEED_INS(s), "--in", xf_in, "--out", out}, want_twice},
      {{"run", "linear", SEED_INS_BUT_WEIGHT(s), "--in", w_in, "--out", out},
       "cubesim run: error: weight: shape [4, 3] has k = 4 but x has k = 2\n"},
      {{"run", "linear", SEED_INS_BUT_DEQ_SCALE(s), "--in", z_in, "--out", out},
       "cubesim run: error: deq_scale[1] = 0: a dequant scale must be finite and non-zero\n"},
      {{"run", "linear", SEED_INS(s), "--timing-only", "--out", out},
       "cubesim run: error: --out output: a --timing-only run computes no data\n"},
      {{"run", "linear", SEED_INS(s), "--timing-only", "--check"}, "cubesim run: error: --check needs data: drop --timing-only\n"},
      {{"run", "linear", SEED_INS(s), "--out", "result=x.npy"},
       "cubesim run: error: --out result: linear has no output of that name\n"},
      {{"run", "linear", SEED_INS(s), "--attr", "base_k=4064", "--out", out},
       "cubesim run: error: tiling: L0B needs 130048 bytes but has 65536: 1 x 130048 B (db_l0b 1; base_n 16 (padded to 32, "
       "whole C0 x C0 squares) x base_k 4064 of int8); lower base_n or base_k\n"},
      {{"run", "linear", SEED_INS(s), "--attr", "base_m=8", "--out", out},
       "cubesim run: error: attribute base_m = 8 is out of range [16, 4080]\n"},
      {{"run", "matmul_quant", "--in", ha, "--in", hb, "--in", qs_in, "--out", cout},
       "cubesim run: error: scale: channel 1: scale 0 (fp32 0x00000000) is zero: the quant scale must be a finite, "
       "non-zero, normal fp32\n"},
      {{"run", "linear", "--in", missing, "--out", out}, want_missing},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *const *a = cases[i].args;
    cr_result r = cr_run(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
                         a[14], a[15], NULL);
    if (r.status != 2) fail_msg("case %zu: status %d, stderr %s", i, r.status, r.err);
    assert_string_equal(r.out, "");
    if (i + 1 == sizeof cases / sizeof cases[0]) { /* the system's reason follows the path */
      assert_true(strncmp(r.err, cases[i].want, strlen(cases[i].want)) == 0);
    } else {
      assert_string_equal(r.err, cases[i].want);
    }
    char *nl = strchr(r.err, '\n');
    assert_non_null(nl);
    assert_string_equal(nl, "\n"); /* exactly one line */
    assert_false(tf_exists(outpath));
    cr_free(&r);
  }
  tmp_free(t);
}

/* ---- cubesim kernels ------------------------------------------------------------------------- */

typedef struct kernel_desc {
  const char *name;
  const char *inputs;  /* comma-separated, in order */
  const char *attrs;
  const char *outputs;
} kernel_desc;

/* the tiling attributes every matmul operator takes (docs/KERNELS.md, "Tiling") */
#define TILING_ATTRS                                                                                              \
  "used_core_num,single_core_m,single_core_n,single_core_k,base_m,base_n,base_k,depth_a1,depth_b1,step_m,step_n," \
  "step_ka,step_kb,iterate_order,db_l0a,db_l0b,db_l0c,l2_split,unit_flag,core_split,const_tiling,api,step_k,tiling"
#define COMMON_ATTRS "transpose_a,transpose_b,a_format,b_format,relu,m,n,k,batch,has_bias," TILING_ATTRS
static const kernel_desc kernels[4] = {
    {"linear", "x,weight,bias,deq_scale",
     "transpose_a,transpose_b,weight_format,out_dtype,m,n,k,batch,has_bias,quant_mode,deq_scale_dtype," TILING_ATTRS,
     "output"},
    {"matmul", "a,b,bias", "in_dtype,out_dtype," COMMON_ATTRS, "c"},
    {"matmul_quant", "a,b,bias,quant,scale,offset", "in_dtype,out_dtype," COMMON_ATTRS, "c"},
    {"matmul_requant", "a,b,bias,quant,scale,offset", "out_dtype," COMMON_ATTRS, "c"},
};

/* The names of an array of {"name": ...} objects, comma-separated. */
static void names_of(const cs_jvalue *arr, char *out, size_t n) {
  out[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i < cs_jcount(arr); i++)
    used += (size_t)snprintf(out + used, n - used, "%s%s", i ? "," : "", cs_jget_string(cs_jat(arr, i), "name"));
}

static void check_kernels_json(const char *text) {
  cs_jdoc *doc = je_parse(text, strlen(text));
  const cs_jvalue *root = cs_jroot(doc);
  assert_true(cs_jis(root, CS_JARRAY));
  assert_int_equal(cs_jcount(root), 16); /* these four, the seven quantization operators, data_copy, the four vector ones */
  for (int i = 0; i < 4; i++) {
    const cs_jvalue *k = NULL;
    for (size_t e = 0; e < cs_jcount(root) && !k; e++)
      if (strcmp(cs_jget_string(cs_jat(root, e), "name"), kernels[i].name) == 0) k = cs_jat(root, e);
    if (!k) fail_msg("kernels --json lists no %s", kernels[i].name);
    char got[512];
    bool sim = false;
    assert_true(cs_jbool(cs_jget(k, "simulated"), &sim) && sim);
    names_of(cs_jget(k, "inputs"), got, sizeof got);
    assert_string_equal(got, kernels[i].inputs);
    names_of(cs_jget(k, "attributes"), got, sizeof got);
    assert_string_equal(got, kernels[i].attrs);
    names_of(cs_jget(k, "outputs"), got, sizeof got);
    assert_string_equal(got, kernels[i].outputs);
  }
  /* a few descriptors in full (alphabetical: 0 add, 1 data_copy, 2 dml_quantized_linear_matmul,
   * 3 gelu, 4 linear, 5 matmul, 6 matmul_gelu, 7 matmul_quant, 8 matmul_requant) */
  bool opt = false;
  assert_string_equal(cs_jget_string(root, "[4].inputs[3].dtypes"), "fp32,int64,uint64");
  assert_true(cs_jbool(cs_jget(root, "[4].inputs[2].optional"), &opt) && opt);
  assert_true(cs_jbool(cs_jget(root, "[4].inputs[0].optional"), &opt) && !opt);
  assert_string_equal(cs_jget_string(root, "[4].attributes[3].kind"), "enum");
  assert_string_equal(cs_jget_string(root, "[4].attributes[3].default"), "fp16");
  assert_string_equal(cs_jget_string(root, "[4].attributes[3].choices"), "fp16,bf16,float16,bfloat16");
  assert_true(cs_jis(cs_jget(root, "[4].attributes[11].default"), CS_JNULL)); /* used_core_num: searched */
  assert_string_equal(cs_jget_string(root, "[5].attributes[7].kind"), "int"); /* m */
  assert_string_equal(cs_jget_string(root, "[7].outputs[0].dtypes"), "fp32,fp16,bf16,int32,int8,uint8");
  assert_string_equal(cs_jget_string(root, "[8].inputs[0].dtypes"), "int8");
  cs_jfree(doc);
}

static void test_cli_kernels_lists_every_kernel(void **state) {
  (void)state;
  cr_result r = cr_run("kernels", NULL);
  cr_assert_ok(&r);
  /* alphabetical: the vector add comes first, then the copy benchmark, then the DirectML operator */
  assert_true(strncmp(r.out, "add  (simulated)\n", 17) == 0);
  assert_non_null(strstr(r.out, "\n\ndata_copy  (simulated)\n"));
  assert_non_null(strstr(r.out, "\n\ndml_quantized_linear_matmul  (simulated)\n"));
  assert_non_null(strstr(r.out, "\n\nlinear  (simulated)\n"));
  assert_non_null(strstr(r.out, "\n\nmatmul  (simulated)\n"));
  assert_non_null(strstr(r.out, "\n\nmatmul_quant  (simulated)\n"));
  assert_non_null(strstr(r.out, "\n\nmatmul_requant  (simulated)\n"));
  assert_non_null(strstr(r.out, "\n\nnd2nz  (simulated)\n"));
  assert_non_null(strstr(r.out, "\n    in     deq_scale              fp32,int64,uint64  [n], [1, n], [batch, n] (per channel) "
                                "or [1] (per tensor); float scales, or packed words\n"));
  assert_non_null(strstr(r.out, "\n    in     bias                   int32              (optional) [n], [1, n] or [batch, n]\n"));
  assert_non_null(strstr(r.out, "\n    attr   weight_format          nd,nz              layout of weight (default nd)\n"));
  assert_non_null(strstr(r.out, "\n    attr   base_k                 int                tiling: reduction length of one mmad (a "
                                "multiple of C0)\n"));
  assert_non_null(strstr(r.out, "\n    out    output                 fp16,bf16          [m, n] or [batch, m, n] (bf16 written as fp32 .npy)\n"));
  /* every input, attribute and output of every kernel has its line */
  for (int i = 0; i < 4; i++) {
    const char *lists[3] = {kernels[i].inputs, kernels[i].attrs, kernels[i].outputs};
    const char *what[3] = {"in", "attr", "out"};
    const char *from = strstr(r.out, kernels[i].name);
    for (int l = 0; l < 3; l++) {
      char buf[512];
      snprintf(buf, sizeof buf, "%s", lists[l]);
      for (char *name = strtok(buf, ","); name; name = strtok(NULL, ",")) {
        char line[96];
        snprintf(line, sizeof line, "\n    %-6s %-22s ", what[l], name);
        if (!strstr(from, line)) fail_msg("%s: no line '%s'", kernels[i].name, line + 1);
      }
    }
  }
  cr_free(&r);
  r = cr_run("kernels", "--json", NULL);
  cr_assert_ok(&r);
  check_kernels_json(r.out);
  cr_free(&r);
  r = cr_run("kernels", "--xml", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim kernels: error: unknown option '--xml' (cubesim kernels --help lists them)\n");
  cr_free(&r);
}

/* ---- the real binary --------------------------------------------------------------------------- */

static void test_cli_run_real_binary(void **state) {
  (void)state;
  seed_files s;
  seed_init(&s);
  const char *outpath = tmp_path(&s.t, 4, "out.npy");
  char cmd[2048];
  int status;
  snprintf(cmd, sizeof cmd, "'%s' run linear --in '%s' --in '%s' --in '%s' --in '%s' --out 'output=%s' --json 2>&1",
           CUBESIM_BINARY, s.in[0], s.in[1], s.in[2], s.in[3], outpath);
  char *out = cr_shell(cmd, &status);
  assert_int_equal(status, 0);
  check_seed_json(out, 24);
  free(out);
  cs_npy a;
  tf_read_npy(outpath, &a);
  for (int i = 0; i < 6; i++) assert_int_equal(((const uint16_t *)a.data)[i], seed_fp16[i]);
  cs_npy_free(&a);
  /* an error: status 2, one line on stderr, nothing on stdout, no file */
  const char *bad = tmp_path(&s.t, 5, "bad.npy");
  snprintf(cmd, sizeof cmd, "'%s' run linear --in '%s' --in '%s' --in '%s' --in '%s' --attr base_k=4064 --out 'output=%s' 2>/dev/null",
           CUBESIM_BINARY, s.in[0], s.in[1], s.in[2], s.in[3], bad);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 2);
  assert_string_equal(out, "");
  free(out);
  snprintf(cmd, sizeof cmd, "'%s' run linear --in '%s' --in '%s' --in '%s' --in '%s' --attr base_k=4064 --out 'output=%s' 2>&1 >/dev/null",
           CUBESIM_BINARY, s.in[0], s.in[1], s.in[2], s.in[3], bad);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 2);
  assert_string_equal(out, "cubesim run: error: tiling: L0B needs 130048 bytes but has 65536: 1 x 130048 B (db_l0b 1; base_n 16 "
                           "(padded to 32, whole C0 x C0 squares) x base_k 4064 of int8); lower base_n or base_k\n");
  free(out);
  assert_false(tf_exists(bad));
  snprintf(cmd, sizeof cmd, "'%s' kernels --json", CUBESIM_BINARY);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 0);
  check_kernels_json(out);
  free(out);
  tmp_free(&s.t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_run_seed_example_to_out),
      cmocka_unit_test(test_cli_run_json),
      cmocka_unit_test(test_cli_run_check),
      cmocka_unit_test(test_cli_run_trace),
      cmocka_unit_test(test_cli_run_generated_inputs),
      cmocka_unit_test(test_cli_run_tiling_file),
      cmocka_unit_test(test_cli_run_bad_inputs),
      cmocka_unit_test(test_cli_kernels_lists_every_kernel),
      cmocka_unit_test(test_cli_run_real_binary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
