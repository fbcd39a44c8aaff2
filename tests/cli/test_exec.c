/* Tests of `cubesim exec`: programs written into a temporary directory and run through cli_main
 * (and once through the real binary): copies and flags on two cores, .npy conversions, faults,
 * deadlocks, hazards, stream dumps that run again, and every kind of error with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_npy.h"
#include "support/cli_run.h"
#include "support/ref_num.h"
#include "support/tmp_files.h"

/* ---- helpers ------------------------------------------------------------------------------- */

/* NAME=PATH into out. */
static void bind_arg(char *out, size_t n, const char *name, const char *path) {
  int k = snprintf(out, n, "%s=%s", name, path);
  assert_true(k > 0 && (size_t)k < n);
}

static void assert_ends_with(const char *s, const char *suffix) {
  size_t ls = strlen(s), lx = strlen(suffix);
  if (ls < lx || strcmp(s + ls - lx, suffix) != 0) fail_msg("[%s] does not end with [%s]", s, suffix);
}

/* ---- a two-core program with copies and flags --------------------------------------------- */

/* Core 1 (written first: issue order is by core, not by line) gathers every other 16-byte block
 * of C into D; core 0 copies A to B in two bursts. */
static const char two_core_program[] =
    "# two cores, copies through UB, one flag each\n"
    ".gm A int8 [4,64] in\n"
    ".gm B int8 [4, 64] out   # blanks inside the shape\n"
    ".gm C int32 [32] in\n"
    ".gm D int32 [16] out\n"
    "\n"
    ".core 1\n"
    "copy_gm_ub dst=UB:0x40 src=GM:C block_count=4 block_len_bytes=16 src_gap_bytes=16\n"
    "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=2\n"
    "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=2\n"
    "copy_ub_gm dst=GM:D src=UB:0x40 block_count=1 block_len_bytes=64\n"
    ".core 0\n"
    "copy_gm_ub dst=UB:0x0 src=GM:A block_count=2 block_len_bytes=128\n"
    "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
    "wait_flag  dst_pipe=MTE3 src_pipe=MTE2 event_id=0\n"
    "copy_ub_gm src=UB:0x0 dst=GM:B block_count=1 block_len_bytes=256\n";

typedef struct two_core_files {
  char dir[64], prog[128], a[128], c[128], b[128], d[128];
  int8_t a_data[256];
  int32_t c_data[32];
} two_core_files;

static void make_two_core(two_core_files *t) {
  tf_mkdtemp(t->dir, sizeof t->dir);
  tf_join(t->prog, sizeof t->prog, t->dir, "two.s");
  tf_join(t->a, sizeof t->a, t->dir, "a.npy");
  tf_join(t->c, sizeof t->c, t->dir, "c.npy");
  tf_join(t->b, sizeof t->b, t->dir, "b.npy");
  tf_join(t->d, sizeof t->d, t->dir, "d.npy");
  tf_write_text(t->prog, two_core_program);
  for (int i = 0; i < 256; i++) t->a_data[i] = (int8_t)(i * 37 - 128);
  for (int i = 0; i < 32; i++) t->c_data[i] = -1000 * i - 7;
  size_t sa[2] = {4, 64}, sc[1] = {32};
  tf_write_npy(t->a, CS_NPY_I8, 2, sa, t->a_data);
  tf_write_npy(t->c, CS_NPY_I32, 1, sc, t->c_data);
}

static void check_two_core_outputs(const two_core_files *t, const char *b, const char *d) {
  cs_npy nb, nd;
  tf_read_npy(b, &nb);
  assert_int_equal(nb.dtype, CS_NPY_I8);
  assert_int_equal(nb.ndim, 2);
  assert_int_equal(nb.shape[0], 4);
  assert_int_equal(nb.shape[1], 64);
  assert_memory_equal(nb.data, t->a_data, 256);
  tf_read_npy(d, &nd);
  assert_int_equal(nd.dtype, CS_NPY_I32);
  assert_int_equal(nd.ndim, 1);
  assert_int_equal(nd.shape[0], 16);
  const int32_t *dv = nd.data;
  for (int i = 0; i < 16; i++) assert_int_equal(dv[i], t->c_data[(i / 4) * 8 + i % 4]);
  cs_npy_free(&nb);
  cs_npy_free(&nd);
}

static void test_cli_exec_two_cores_copy_inputs_to_outputs(void **state) {
  (void)state;
  two_core_files t;
  make_two_core(&t);
  char ina[160], inc[160], outb[160], outd[160];
  bind_arg(ina, sizeof ina, "A", t.a);
  bind_arg(inc, sizeof inc, "C", t.c);
  bind_arg(outb, sizeof outb, "B", t.b);
  int k = snprintf(outd, sizeof outd, "--out=D=%s", t.d);
  assert_true(k > 0 && (size_t)k < sizeof outd);
  cr_result r = cr_run("exec", t.prog, "--in", ina, "--in", inc, "--out", outb, outd, NULL);
  assert_string_equal(r.err, "");
  assert_int_equal(r.status, 0);
  check_two_core_outputs(&t, t.b, t.d);
  /* the summary (traces/trc_summary): 8 instructions, 256 + 64 bytes each way; the chip has the
   * program's 2 cores, not the configuration's 24 */
  cr_assert_prefix(r.out, "cubesim summary: ascend910b, 2 cores at 1850 MHz\n");
  assert_non_null(strstr(r.out, "\n  instructions   8\n"));
  assert_non_null(strstr(r.out, "\n  read           320 B\n"));
  assert_non_null(strstr(r.out, "\n  written        320 B\n"));
  assert_non_null(strstr(r.out, "\n  hazards        none\n"));
  cr_free(&r);

  /* a trace after a good run */
  char trace[200];
  tf_join(trace, sizeof trace, t.dir, "t.json");
  r = cr_run("exec", t.prog, "--in", ina, "--trace", trace, NULL);
  assert_int_equal(r.status, 0);
  cr_free(&r);
  char *tr = tf_read(trace, NULL);
  cr_assert_prefix(tr, "{\"displayTimeUnit\"");
  free(tr);

  r = cr_run("exec", t.prog, "--in", ina, "--json", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_prefix(r.out, "{\n");
  assert_non_null(strstr(r.out, "\n  \"cores\": 2,\n"));
  assert_non_null(strstr(r.out, "\n  \"instructions\": 8,\n"));
  assert_non_null(strstr(r.out, "\n    \"read_bytes\": 320,\n"));
  assert_ends_with(r.out, "}\n");
  cr_free(&r);

  /* the chip options of cubesim run: --cores, --set chip.aic_cores, a file's chip.aic_cores */
  r = cr_run("exec", t.prog, "--in", ina, "--cores", "5", NULL);
  cr_assert_ok(&r);
  cr_assert_prefix(r.out, "cubesim summary: ascend910b, 5 cores at 1850 MHz\n");
  cr_free(&r);
  r = cr_run("exec", t.prog, "--in", ina, "--set", "chip.aic_cores=3", "--set", "chip.clock_mhz=1000", NULL);
  cr_assert_ok(&r);
  cr_assert_prefix(r.out, "cubesim summary: ascend910b, 3 cores at 1000 MHz\n");
  cr_free(&r);
  char yaml[200];
  tf_join(yaml, sizeof yaml, t.dir, "six.yaml");
  tf_write_text(yaml, "chip:\n  cores: 6\n");
  r = cr_run("exec", t.prog, "--in", ina, "--config", yaml, NULL);
  cr_assert_ok(&r);
  cr_assert_prefix(r.out, "cubesim summary: ascend910b, 6 cores at 1850 MHz\n");
  cr_free(&r);
  tf_write_text(yaml, "cube:\n  latency_cycles: 20\n"); /* no chip.aic_cores: the program's 2 */
  r = cr_run("exec", t.prog, "--in", ina, "--config", yaml, NULL);
  cr_assert_ok(&r);
  cr_assert_prefix(r.out, "cubesim summary: ascend910b, 2 cores at 1850 MHz\n");
  cr_free(&r);
  /* one core is too few for a program using two; both ways of giving the count is ambiguous */
  r = cr_run("exec", t.prog, "--cores", "1", NULL);
  assert_int_equal(r.status, 2);
  cr_assert_contains(r.err, ".core 1");
  cr_free(&r);
  r = cr_run("exec", t.prog, "--cores", "4", "--set", "chip.aic_cores=4", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim exec: error: --cores 4 and --set chip.aic_cores both give the core count: give one\n");
  cr_free(&r);
  r = cr_run("exec", t.prog, "--cores", "0", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim exec: error: --cores: chip.aic_cores = 0 is below the minimum 1\n");
  cr_free(&r);
  r = cr_run("exec", t.prog, "--confg", yaml, NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim exec: error: unknown option '--confg' (did you mean '--config'?)\n");
  cr_free(&r);
  tf_remove_tree(t.dir);
}

/* A program's stream dump is the canonical text, and runs again to the same outputs. */
static void test_cli_exec_dump_stream_runs_again(void **state) {
  (void)state;
  two_core_files t;
  make_two_core(&t);
  char ina[160], inc[160], outb[160], outd[160], dump[160], dump2[160], b2[160], d2[160];
  tf_join(dump, sizeof dump, t.dir, "dump.s");
  tf_join(dump2, sizeof dump2, t.dir, "dump2.s");
  bind_arg(ina, sizeof ina, "A", t.a);
  bind_arg(inc, sizeof inc, "C", t.c);
  cr_result r = cr_run("exec", t.prog, "--in", ina, "--in", inc, "--dump-stream", dump, NULL);
  assert_int_equal(r.status, 0);
  cr_free(&r);
  char *text = tf_read(dump, NULL);
  char want[4096];
  snprintf(want, sizeof want,
           "# cubesim program: the instruction streams recorded from %s, one line per instruction\n"
           "# (cubesim exec reads it back; docs/PROGRAM.md describes the format)\n"
           ".gm A int8 [4,64] in\n"
           ".gm B int8 [4,64] out\n"
           ".gm C int32 [32] in\n"
           ".gm D int32 [16] out\n"
           ".core 0\n"
           "copy_gm_ub dst=UB:0x0 src=GM:A block_count=2 block_len_bytes=128 src_gap_bytes=0 dst_gap_bytes=0 l2_bypass=0\n"
           "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
           "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
           "copy_ub_gm dst=GM:B src=UB:0x0 block_count=1 block_len_bytes=256 src_gap_bytes=0 dst_gap_bytes=0 l2_bypass=0\n"
           ".core 1\n"
           "copy_gm_ub dst=UB:0x40 src=GM:C block_count=4 block_len_bytes=16 src_gap_bytes=16 dst_gap_bytes=0 l2_bypass=0\n"
           "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=2\n"
           "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=2\n"
           "copy_ub_gm dst=GM:D src=UB:0x40 block_count=1 block_len_bytes=64 src_gap_bytes=0 dst_gap_bytes=0 l2_bypass=0\n",
           t.prog);
  assert_string_equal(text, want);

  /* the dump runs to the same outputs, and dumps to the same text */
  tf_join(b2, sizeof b2, t.dir, "b2.npy");
  tf_join(d2, sizeof d2, t.dir, "d2.npy");
  bind_arg(outb, sizeof outb, "B", b2);
  bind_arg(outd, sizeof outd, "D", d2);
  r = cr_run("exec", dump, "--in", ina, "--in", inc, "--out", outb, "--out", outd, "--dump-stream", dump2, NULL);
  assert_string_equal(r.err, "");
  assert_int_equal(r.status, 0);
  cr_free(&r);
  check_two_core_outputs(&t, b2, d2);
  char *text2 = tf_read(dump2, NULL);
  const char *body1 = strchr(text, '\n'), *body2 = strchr(text2, '\n');
  assert_string_equal(body2, body1);
  free(text);
  free(text2);
  tf_remove_tree(t.dir);
}

/* The example of docs/PROGRAM.md runs and does what the page says. */
static void test_cli_exec_doc_example(void **state) {
  (void)state;
  char *doc = tf_read(CUBESIM_SOURCE_DIR "/docs/PROGRAM.md", NULL);
  const char *start = strstr(doc, "```\n# copy.s");
  assert_non_null(start);
  start += 4;
  const char *end = strstr(start, "```");
  assert_non_null(end);
  char dir[64], prog[128], a[128], c[128], b[128], c2[128];
  tf_mkdtemp(dir, sizeof dir);
  tf_join(prog, sizeof prog, dir, "copy.s");
  FILE *f = fopen(prog, "w");
  assert_non_null(f);
  fwrite(start, 1, (size_t)(end - start), f);
  fclose(f);
  free(doc);
  int8_t av[256];
  float cv[16];
  for (int i = 0; i < 256; i++) av[i] = (int8_t)(i ^ 0x5a);
  for (int i = 0; i < 16; i++) cv[i] = 0.25f * (float)i - 1.0f;
  size_t sa[2] = {4, 64}, sc[1] = {16};
  tf_write_npy(tf_join(a, sizeof a, dir, "a.npy"), CS_NPY_I8, 2, sa, av);
  tf_write_npy(tf_join(c, sizeof c, dir, "c.npy"), CS_NPY_F32, 1, sc, cv);
  tf_join(b, sizeof b, dir, "b.npy");
  tf_join(c2, sizeof c2, dir, "c2.npy");
  char ia[160], ic[160], ob[160], oc[160];
  bind_arg(ia, sizeof ia, "A", a);
  bind_arg(ic, sizeof ic, "C", c);
  bind_arg(ob, sizeof ob, "B", b);
  bind_arg(oc, sizeof oc, "C", c2);
  cr_result r = cr_run("exec", prog, "--in", ia, "--in", ic, "--out", ob, "--out", oc, NULL);
  assert_string_equal(r.err, "");
  assert_int_equal(r.status, 0);
  cr_free(&r);
  cs_npy nb, nc;
  tf_read_npy(b, &nb);
  assert_memory_equal(nb.data, av, 256);
  tf_read_npy(c2, &nc);
  const float *cw = nc.data;
  for (int i = 0; i < 16; i++) assert_true(cw[i] == cv[i % 8]); /* C[8:16] = C[0:8] */
  cs_npy_free(&nb);
  cs_npy_free(&nc);
  tf_remove_tree(dir);
}

/* ---- conversions: bf16 as fp32, int4 as int8 ------------------------------------------------ */

static const char convert_program[] =
    ".gm H bf16 [6] in\n"
    ".gm H2 bf16 [6] out\n"
    ".gm Q int4 [5] in     # 3 bytes, the last high nibble zero\n"
    ".gm Q2 int4 [5] out\n"
    ".gm QB uint8 [3] out  # Q's packed bytes\n"
    "copy_gm_ub dst=UB:0x0 src=GM:H block_count=1 block_len_bytes=12\n"
    "copy_gm_ub dst=UB:0x20 src=GM:Q block_count=1 block_len_bytes=3\n"
    "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
    "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
    "copy_ub_gm dst=GM:H2 src=UB:0x0 block_count=1 block_len_bytes=12\n"
    "copy_ub_gm dst=GM:Q2 src=UB:0x20 block_count=1 block_len_bytes=3\n"
    "copy_ub_gm dst=GM:QB src=UB:0x20 block_count=1 block_len_bytes=3\n";

static void test_cli_exec_bf16_and_int4_conversions(void **state) {
  (void)state;
  char dir[64], prog[128], h[128], q[128], h2[128], q2[128], qb[128];
  tf_mkdtemp(dir, sizeof dir);
  tf_write_text(tf_join(prog, sizeof prog, dir, "conv.s"), convert_program);
  /* bf16 inputs: three exact, three rounded to nearest even (bits derived by hand: the low 16
   * bits 0x8000 are a tie, kept even; 0x8001 is above the tie) */
  uint32_t hin[6] = {0x3FC00000 /* 1.5 */, 0xC0100000 /* -2.25 */, 0x7F7F0000 /* bf16 max */,
                     0x3F808000 /* 1 + 2^-8: tie -> 0x3F80 */,
                     0x3F818000 /* tie -> 0x3F82 (even) */, 0x3F808001 /* -> 0x3F81 */};
  uint32_t hout[6] = {0x3FC00000, 0xC0100000, 0x7F7F0000, 0x3F800000, 0x3F820000, 0x3F810000};
  float hf[6];
  for (int i = 0; i < 6; i++) hf[i] = ref_f32_of_bits(hin[i]);
  int8_t qv[5] = {1, -2, 7, -8, 3};
  size_t s6[1] = {6}, s5[1] = {5};
  tf_write_npy(tf_join(h, sizeof h, dir, "h.npy"), CS_NPY_F32, 1, s6, hf);
  tf_write_npy(tf_join(q, sizeof q, dir, "q.npy"), CS_NPY_I8, 1, s5, qv);
  tf_join(h2, sizeof h2, dir, "h2.npy");
  tf_join(q2, sizeof q2, dir, "q2.npy");
  tf_join(qb, sizeof qb, dir, "qb.npy");
  char ih[160], iq[160], oh[160], oq[160], ob[160];
  bind_arg(ih, sizeof ih, "H", h);
  bind_arg(iq, sizeof iq, "Q", q);
  bind_arg(oh, sizeof oh, "H2", h2);
  bind_arg(oq, sizeof oq, "Q2", q2);
  bind_arg(ob, sizeof ob, "QB", qb);
  cr_result r = cr_run("exec", prog, "--in", ih, "--in", iq, "--out", oh, "--out", oq, "--out", ob, NULL);
  assert_string_equal(r.err, "");
  assert_int_equal(r.status, 0);
  cr_free(&r);
  cs_npy a;
  tf_read_npy(h2, &a);
  assert_int_equal(a.dtype, CS_NPY_F32);
  for (int i = 0; i < 6; i++) {
    uint32_t bits;
    memcpy(&bits, (const uint8_t *)a.data + 4 * i, 4);
    assert_int_equal(bits, hout[i]);
  }
  cs_npy_free(&a);
  tf_read_npy(q2, &a);
  assert_int_equal(a.dtype, CS_NPY_I8);
  assert_int_equal(a.shape[0], 5);
  assert_memory_equal(a.data, qv, 5);
  cs_npy_free(&a);
  tf_read_npy(qb, &a);
  /* low nibble first: (1, -2) -> 0xE1, (7, -8) -> 0x87, (3, pad 0) -> 0x03 */
  const uint8_t packed[3] = {0xE1, 0x87, 0x03};
  assert_memory_equal(a.data, packed, 3);
  cs_npy_free(&a);

  /* an int4 input outside [-8, 7] */
  int8_t bad[5] = {1, 2, 3, 9, 0};
  tf_write_npy(q, CS_NPY_I8, 1, s5, bad);
  r = cr_run("exec", prog, "--in", iq, "--out", oq, NULL);
  assert_int_equal(r.status, 2);
  char want[512];
  snprintf(want, sizeof want,
           "cubesim exec: error: --in Q=%s: int4 pack: value 9 at index 3 is outside [-8, 7]\n", q);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_remove_tree(dir);
}

/* ---- faults, deadlocks, hazards ----------------------------------------------------------- */

static void test_cli_exec_fault_fails_without_outputs(void **state) {
  (void)state;
  char dir[64], prog[128], b[128], dump[128], ob[160];
  tf_mkdtemp(dir, sizeof dir);
  /* core 1's second copy writes 32 bytes past the end of B (tensors are 512-byte aligned from
   * GM address 0: A at 0x0, B at 0x200) */
  tf_write_text(tf_join(prog, sizeof prog, dir, "fault.s"),
                ".gm A int8 [64] in\n"
                ".gm B int8 [64] out\n"
                ".core 1\n"
                "copy_gm_ub dst=UB:0x0 src=GM:A block_count=1 block_len_bytes=64\n"
                "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
                "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
                "copy_ub_gm dst=GM:B+0x20 src=UB:0x0 block_count=1 block_len_bytes=64\n");
  tf_join(b, sizeof b, dir, "b.npy");
  tf_join(dump, sizeof dump, dir, "dump.s");
  bind_arg(ob, sizeof ob, "B", b);
  cr_result r = cr_run("exec", prog, "--out", ob, "--dump-stream", dump, NULL);
  assert_int_equal(r.status, 4);
  char want[1024];
  snprintf(want, sizeof want,
           "cubesim exec: error: %s:7: core 1, instruction 3 (copy_ub_gm): GM write [0x220, 0x260) "
           "runs past the end of tensor 'B' [0x200, 0x240) [gm-unmapped]\n",
           prog);
  assert_string_equal(r.err, want);
  assert_string_equal(r.out, "");
  assert_false(tf_exists(b));
  assert_false(tf_exists(dump));
  cr_free(&r);

  /* a misaligned UB address on core 0 */
  tf_write_text(prog, ".gm A int8 [64] in\ncopy_gm_ub dst=UB:0x10 src=GM:A block_count=1 block_len_bytes=64\n");
  r = cr_run("exec", prog, NULL);
  assert_int_equal(r.status, 4);
  snprintf(want, sizeof want,
           "cubesim exec: error: %s:2: core 0, instruction 0 (copy_gm_ub): copy_gm_ub: operand dst "
           "= UB:0x10 is not 32-byte aligned [misaligned]\n",
           prog);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_remove_tree(dir);
}

static void test_cli_exec_wait_without_set_deadlocks(void **state) {
  (void)state;
  char dir[64], prog[128], b[128], ob[160];
  tf_mkdtemp(dir, sizeof dir);
  /* the set_flag that should precede the wait is missing */
  tf_write_text(tf_join(prog, sizeof prog, dir, "dead.s"),
                ".gm A int8 [64] in\n"
                ".gm B int8 [64] out\n"
                "copy_gm_ub dst=UB:0x0 src=GM:A block_count=1 block_len_bytes=64\n"
                "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=1\n"
                "copy_ub_gm dst=GM:B src=UB:0x0 block_count=1 block_len_bytes=64\n");
  bind_arg(ob, sizeof ob, "B", tf_join(b, sizeof b, dir, "b.npy"));
  char trace[200];
  tf_join(trace, sizeof trace, dir, "t.json");
  cr_result r = cr_run("exec", prog, "--out", ob, "--trace", trace, NULL);
  assert_int_equal(r.status, 4);
  assert_false(tf_exists(trace));
  char want[512];
  snprintf(want, sizeof want, "cubesim exec: error: %s:4: deadlock at cycle ", prog);
  cr_assert_prefix(r.err, want);
  assert_ends_with(r.err, ": core 0: the root cause: MTE3 waits at instruction 1 (wait_flag MTE2->MTE3 "
                          "#1) and no set_flag MTE2->MTE3 #1 is left to fire it.\n");
  assert_string_equal(r.out, "");
  assert_false(tf_exists(b));
  cr_free(&r);
  tf_remove_tree(dir);
}

static void test_cli_exec_missing_wait_is_a_hazard(void **state) {
  (void)state;
  char dir[64], prog[128], a[128], b[128], ia[160], ob[160];
  tf_mkdtemp(dir, sizeof dir);
  /* no flag between the MTE2 copy into UB and the MTE3 copy out of it */
  tf_write_text(tf_join(prog, sizeof prog, dir, "race.s"),
                ".gm A int8 [64] in\n"
                ".gm B int8 [64] out\n"
                "copy_gm_ub dst=UB:0x0 src=GM:A block_count=1 block_len_bytes=64\n"
                "copy_ub_gm dst=GM:B src=UB:0x0 block_count=1 block_len_bytes=64\n");
  int8_t av[64];
  for (int i = 0; i < 64; i++) av[i] = (int8_t)(3 * i);
  size_t s[1] = {64};
  tf_write_npy(tf_join(a, sizeof a, dir, "a.npy"), CS_NPY_I8, 1, s, av);
  bind_arg(ia, sizeof ia, "A", a);
  bind_arg(ob, sizeof ob, "B", tf_join(b, sizeof b, dir, "b.npy"));
  cr_result r = cr_run("exec", prog, "--in", ia, "--out", ob, NULL);
  assert_int_equal(r.status, 5);
  char want[512];
  snprintf(want, sizeof want,
           "cubesim exec: error: %s:4: 1 data hazard; first: RAW hazard on core 0: instruction 1 "
           "(copy_ub_gm, MTE3, line 4) reads bytes that instruction 0 (copy_gm_ub, MTE2, line 3) "
           "writes, and no flag or barrier orders them: UB [0x0, 0x40) (missing set_flag/wait_flag "
           "or pipe_barrier); in this run the later started at cycle ",
           prog);
  cr_assert_prefix(r.err, want);
  assert_false(tf_exists(b));
  cr_free(&r);

  /* allowed: a warning, and the outputs (the data is applied at issue, in program order) */
  r = cr_run("exec", prog, "--in", ia, "--out", ob, "--allow-hazards", NULL);
  assert_int_equal(r.status, 0);
  snprintf(want, sizeof want,
           "cubesim exec: warning: %s:4: 1 data hazard (allowed); first: RAW hazard on core 0", prog);
  cr_assert_prefix(r.err, want);
  assert_non_null(strstr(r.out, "\n  hazards        1 (missing set_flag/wait_flag or pipe_barrier):\n"));
  cs_npy nb;
  tf_read_npy(b, &nb);
  assert_memory_equal(nb.data, av, 64);
  cs_npy_free(&nb);
  cr_free(&r);
  tf_remove_tree(dir);
}

/* ---- .npy errors ----------------------------------------------------------------------------- */

static void test_cli_exec_npy_dtype_and_shape_errors(void **state) {
  (void)state;
  two_core_files t;
  make_two_core(&t);
  char arg[200], want[1024], path[160];
  size_t s2[2] = {4, 64}, s1[1] = {256}, s3[2] = {64, 4};
  float f[256] = {0};
  int8_t i8[256] = {0};

  /* dtype */
  tf_write_npy(tf_join(path, sizeof path, t.dir, "f.npy"), CS_NPY_F32, 2, s2, f);
  bind_arg(arg, sizeof arg, "A", path);
  cr_result r = cr_run("exec", t.prog, "--in", arg, "--out", "B=never.npy", NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want,
           "cubesim exec: error: --in A=%s: tensor A is int8 [4,64], so the file must hold int8 "
           "[4,64]; it holds float32 [4,64]\n",
           path);
  assert_string_equal(r.err, want);
  assert_false(tf_exists("never.npy"));
  cr_free(&r);

  /* rank, then a transposed shape */
  tf_write_npy(path, CS_NPY_I8, 1, s1, i8);
  r = cr_run("exec", t.prog, "--in", arg, NULL);
  snprintf(want, sizeof want,
           "cubesim exec: error: --in A=%s: tensor A is int8 [4,64], so the file must hold int8 "
           "[4,64]; it holds int8 [256]\n",
           path);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_write_npy(path, CS_NPY_I8, 2, s3, i8);
  r = cr_run("exec", t.prog, "--in", arg, NULL);
  snprintf(want, sizeof want,
           "cubesim exec: error: --in A=%s: tensor A is int8 [4,64], so the file must hold int8 "
           "[4,64]; it holds int8 [64,4]\n",
           path);
  assert_string_equal(r.err, want);
  cr_free(&r);

  /* bf16 travels as float32 */
  char prog[160];
  tf_write_text(tf_join(prog, sizeof prog, t.dir, "bf.s"), ".gm H bf16 [2,3] inout\n");
  tf_write_npy(path, CS_NPY_I8, 2, s2, i8);
  bind_arg(arg, sizeof arg, "H", path);
  r = cr_run("exec", prog, "--in", arg, NULL);
  snprintf(want, sizeof want,
           "cubesim exec: error: --in H=%s: tensor H is bf16 [2,3], so the file must hold float32 "
           "[2,3]; it holds int8 [4,64]\n",
           path);
  assert_string_equal(r.err, want);
  cr_free(&r);

  /* a file that is not there */
  snprintf(arg, sizeof arg, "A=%s/missing.npy", t.dir);
  r = cr_run("exec", t.prog, "--in", arg, NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want,
           "cubesim exec: error: --in A=%s/missing.npy: %s/missing.npy: cannot open: No such file or "
           "directory\n",
           t.dir, t.dir);
  assert_string_equal(r.err, want);
  cr_free(&r);
  tf_remove_tree(t.dir);
}

/* ---- argument and program errors --------------------------------------------------------- */

static void test_cli_exec_argument_errors(void **state) {
  (void)state;
  two_core_files t;
  make_two_core(&t);
  char want[1024], cfg[160];
  struct {
    const char *args[4];
    const char *msg; /* %s: the program */
    int with_prog;
  } cases[] = {
      {{"--in", "B=x.npy"}, "--in B=x.npy: tensor B is declared out (line 3); only in and inout tensors are read from files", 0},
      {{"--out", "A=x.npy"}, "--out A=x.npy: tensor A is declared in (line 2); only out and inout tensors are written to files", 0},
      {{"--in", "AA=x.npy"}, "--in AA=x.npy: %s declares no tensor 'AA' (did you mean 'A'?)", 1},
      {{"--in", "Zebra=x.npy"}, "--in Zebra=x.npy: %s declares no tensor 'Zebra'", 1},
      {{"--in", "A=x.npy", "--in", "A=y.npy"}, "--in A=y.npy: tensor A is already given (--in A=x.npy)", 0},
      {{"--in", "A"}, "--in expects NAME=FILE.npy, got 'A'", 0},
      {{"--out", "D=x.npy", "--timing-only"}, "--out D=x.npy: --timing-only keeps no data to write", 0},
      {{"--frobnicate"}, "unknown option '--frobnicate' (cubesim exec --help lists them)", 0},
      {{"--config"}, "option --config needs a value", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cr_result r = cr_run("exec", t.prog, cases[i].args[0], cases[i].args[1], cases[i].args[2],
                         cases[i].args[3], NULL);
    assert_int_equal(r.status, 2);
    char msg[512];
    const char *mark = cases[i].with_prog ? strstr(cases[i].msg, "%s") : NULL;
    if (mark)
      snprintf(msg, sizeof msg, "%.*s%s%s", (int)(mark - cases[i].msg), cases[i].msg, t.prog, mark + 2);
    else
      snprintf(msg, sizeof msg, "%s", cases[i].msg);
    snprintf(want, sizeof want, "cubesim exec: error: %s\n", msg);
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    cr_free(&r);
  }
  cr_result r = cr_run("exec", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim exec: error: no program given (cubesim exec --help)\n");
  cr_free(&r);
  r = cr_run("exec", t.prog, "other.s", NULL);
  snprintf(want, sizeof want, "cubesim exec: error: one program only: '%s' and 'other.s'\n", t.prog);
  assert_string_equal(r.err, want);
  cr_free(&r);
  r = cr_run("exec", "--help", NULL);
  assert_int_equal(r.status, 0);
  cr_assert_prefix(r.out, "usage: cubesim exec PROGRAM.s [--in NAME=FILE.npy]...");
  cr_free(&r);

  /* a .core beyond the configured cores */
  tf_write_text(tf_join(cfg, sizeof cfg, t.dir, "two.yaml"), "chip:\n  cores: 1\n");
  r = cr_run("exec", t.prog, "--config", cfg, NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want,
           "cubesim exec: error: %s:7:7: .core 1: the configuration has 1 core (chip.aic_cores), "
           "numbered from 0\n",
           t.prog);
  assert_string_equal(r.err, want);
  cr_free(&r);
  /* timing only: runs, loads nothing */
  r = cr_run("exec", t.prog, "--timing-only", NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "\n  instructions   8\n"));
  cr_free(&r);
  tf_remove_tree(t.dir);
}

static void test_cli_exec_program_errors_are_located(void **state) {
  (void)state;
  char dir[64], prog[128], want[1024];
  tf_mkdtemp(dir, sizeof dir);
  tf_join(prog, sizeof prog, dir, "bad.s");
  static const struct {
    const char *text;
    const char *msg; /* after "file:" */
  } cases[] = {
      {".gm A int8 [64] in\ncopy_gm_ub src=GM:B dst=UB:0x0\n", "2:19: src: unknown tensor 'B' (declare it with .gm first)"},
      {".gm Ab int8 [64] in\ncopy_gm_ub src=GM:AB+0x40\n", "2:19: src: unknown tensor 'AB' (did you mean 'Ab'?)"},
      {"copy_gm_ub src=GM:0x0\n.gm A int8 [64] in\ncopy_ub_gm  dst=GM:A src=UB:0x0  blok_count=1\n",
       "3:34: copy_ub_gm has no field 'blok_count' (did you mean 'block_count'?)"},
      {"\n# comment\n  copy_gm_l2 dst=L1:0x0\n", "3:3: unknown instruction 'copy_gm_l2' (did you mean 'copy_gm_l1'?)"},
      {".gm A int8 [64] in\n.gm A fp16 [2] out\n", "2:5: .gm: tensor 'A' is already declared at line 1"},
      {".gm 9A int8 [64] in\n", "1:5: .gm: tensor name '9A' must start with a letter or '_' and hold only letters, digits and '_'"},
      {".gm A int9 [64] in\n", "1:7: .gm A: unknown data type 'int9' (did you mean 'int4'?)"},
      {".gm A int8 64 in\n", "1:12: .gm A: expected a shape such as [16,32], got '64'"},
      {".gm A int8 [4,0] in\n", "1:15: .gm A: dimension 1 is 0; every dimension must be at least 1"},
      {".gm A int8 [4;4] in\n", "1:14: .gm A: expected ',' or ']' in the shape, got ';'"},
      {".gm A int8 [4,4 in\n", "1:17: .gm A: expected ',' or ']' in the shape, got 'i'"},
      {".gm A int8 [4,\n", "1:12: .gm A: the shape has no closing ']'"},
      {".gm A int8 [1,2,3,4,5,6,7,8,9] in\n", "1:29: .gm A: more than 8 dimensions"},
      {".gm A int8 [65536,65536,65536,65536] in\n", "1:31: .gm A: more than 2^48 elements"},
      {".gm A int8 [64] inn\n", "1:17: .gm A: unknown tensor kind 'inn' (did you mean 'in'?)"},
      {".gm A int8 [64] scratch\n", "1:17: .gm A: unknown tensor kind 'scratch' (one of in, out, inout, temp)"},
      {".gm A int8 [64]\n", "1:16: .gm A: expected in, out, inout or temp"},
      {".gm A int8 [64] in out\n", "1:20: .gm A: unexpected 'out' after the declaration"},
      {".gm\n", "1:4: .gm: expected NAME DTYPE [d0,d1,...] in|out|inout|temp"},
      {".core\n", "1:6: .core: expected a core number"},
      {".core x\n", "1:7: .core: 'x' is not an unsigned integer"},
      {".core 70000\n", "1:7: .core 70000: no chip has that many cores (at most 65536)"},
      {".core 1 2\n", "1:9: .core: unexpected '2' after the core number"},
      {".cores 1\n", "1:1: unknown directive '.cores' (did you mean '.core'?)"},
      {".text\n", "1:1: unknown directive '.text' (the directives are .gm and .core)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tf_write_text(prog, cases[i].text);
    cr_result r = cr_run("exec", prog, NULL);
    assert_int_equal(r.status, 2);
    snprintf(want, sizeof want, "cubesim exec: error: %s:%s\n", prog, cases[i].msg);
    assert_string_equal(r.err, want);
    cr_free(&r);
  }
  cr_result r = cr_run("exec", "/nonexistent/x.s", NULL);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim exec: error: /nonexistent/x.s: cannot open: No such file or directory\n");
  cr_free(&r);
  tf_remove_tree(dir);
}

/* ---- the real binary ---------------------------------------------------------------------- */

static void test_cli_exec_real_binary(void **state) {
  (void)state;
  two_core_files t;
  make_two_core(&t);
  char cmd[1024];
  int status;
  snprintf(cmd, sizeof cmd, "'%s' exec '%s' --in 'A=%s' --in 'C=%s' --out 'B=%s' --out 'D=%s' 2>&1",
           CUBESIM_BINARY, t.prog, t.a, t.c, t.b, t.d);
  char *out = cr_shell(cmd, &status);
  assert_int_equal(status, 0);
  cr_assert_prefix(out, "cubesim summary: ");
  assert_non_null(strstr(out, "\n  instructions   8\n"));
  free(out);
  check_two_core_outputs(&t, t.b, t.d);

  /* a fault: exit status 4, one line on stderr, nothing on stdout */
  char prog[160], want[512];
  tf_write_text(tf_join(prog, sizeof prog, t.dir, "f.s"), "copy_gm_ub dst=UB:0x0 src=GM:0x0 block_count=1 block_len_bytes=64\n");
  snprintf(cmd, sizeof cmd, "'%s' exec '%s' 2>/dev/null", CUBESIM_BINARY, prog);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 4);
  assert_string_equal(out, "");
  free(out);
  snprintf(cmd, sizeof cmd, "'%s' exec '%s' 2>&1 >/dev/null", CUBESIM_BINARY, prog);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 4);
  snprintf(want, sizeof want,
           "cubesim exec: error: %s:1: core 0, instruction 0 (copy_gm_ub): GM read at 0x0 is outside "
           "every allocated tensor [gm-unmapped]\n", prog);
  assert_string_equal(out, want);
  free(out);
  tf_remove_tree(t.dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_exec_two_cores_copy_inputs_to_outputs),
      cmocka_unit_test(test_cli_exec_dump_stream_runs_again),
      cmocka_unit_test(test_cli_exec_doc_example),
      cmocka_unit_test(test_cli_exec_bf16_and_int4_conversions),
      cmocka_unit_test(test_cli_exec_fault_fails_without_outputs),
      cmocka_unit_test(test_cli_exec_wait_without_set_deadlocks),
      cmocka_unit_test(test_cli_exec_missing_wait_is_a_hazard),
      cmocka_unit_test(test_cli_exec_npy_dtype_and_shape_errors),
      cmocka_unit_test(test_cli_exec_argument_errors),
      cmocka_unit_test(test_cli_exec_program_errors_are_located),
      cmocka_unit_test(test_cli_exec_real_binary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
