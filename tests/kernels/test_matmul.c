/* Tests of the matmul operators (kernels/kn_matmul.c) through kn_ctx: matmul (fp16, bf16 via fp32
 * .npy, int8, int4), matmul_quant (QF322B8_PRE / VQF322B8_PRE) and matmul_requant (REQ8 / VREQ8)
 * with transposes, bias, batch, tails, ReLU, scalar and vector words, offsets, int8 and uint8
 * outputs and hand-built words with MCB / N. Every output is compared bit for bit with a
 * reference computed here from docs/ISA.md and docs/DESIGN.md §5.2 (exact k-block sums for floats,
 * int64 dot products for integers), and with the operator's own reference. */
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

#include "kernels/kn_op.h"
#include "runtime/rt_tiling.h"
#include "support/kn_test.h"
#include "support/ref_num.h"
#include "support/rng.h"

/* ---- cases ----------------------------------------------------------------------------------- */

enum { BIAS_NONE, BIAS_N, BIAS_BN };
enum { Q_NONE, Q_WORD1, Q_WORDN, Q_SCALE1, Q_SCALEN };
enum { OFF_NONE, OFF_1, OFF_N };
enum { W_PLAIN, W_MCB }; /* hand-built words: no shift, or MCB with a random N */

typedef struct mm_case {
  const char *op;       /* "matmul", "matmul_quant", "matmul_requant" */
  isa_dtype in;         /* FP16, BF16, INT8, INT4 */
  isa_dtype out;        /* the output dtype (given as out_dtype) */
  uint32_t batch;       /* > 1: a is 3-D */
  bool b_batched;
  int bias;             /* BIAS_* */
  uint32_t m, n, k;
  bool ta, tb, relu;
  int quant;            /* Q_* */
  int offset;           /* OFF_*, with Q_SCALE* */
  int words;            /* W_*, with Q_WORD*: S follows out (int8: 1) unless s_flip */
  bool s_flip;          /* words with the other S bit than out calls for */
  bool inexact;         /* bf16 given as fp32 values that are not all bf16 */
  const char *base_m, *base_n, *base_k, *step_k;
  uint64_t seed;
} mm_case;

typedef struct mm_data {
  double *A, *B;        /* logical values (exact): A[b][i][kk], B[b][kk][j] */
  float *fbias;         /* [bb][n] */
  int32_t *ibias;
  uint64_t *word;       /* the words the fixpipe uses, [nw] */
  uint32_t nw;
  uint32_t *acc;        /* L0C bits of every output: [batch][m][n] */
  uint64_t inexact;     /* fp32 inputs that were not bf16 */
} mm_data;

static void mm_data_free(mm_data *d) {
  free(d->A);
  free(d->B);
  free(d->fbias);
  free(d->ibias);
  free(d->word);
  free(d->acc);
}

static bool is_int(isa_dtype t) { return t == ISA_INT8 || t == ISA_INT4; }

/* A random value of the input type, as stored (fp16 bits, fp32, or int8) and as a double. fp16:
 * exponents 2^-7 .. 2^1 and one value in 16 subnormal; bf16: 2^-17 .. 2^1. */
static double rand_value(uint64_t *st, isa_dtype t, void *stored, size_t idx, bool inexact) {
  switch (t) {
    case ISA_INT8: {
      int v = rng_lcg_int(st, -128, 127);
      ((int8_t *)stored)[idx] = (int8_t)v;
      return v;
    }
    case ISA_INT4: {
      int v = rng_lcg_int(st, -8, 7);
      ((int8_t *)stored)[idx] = (int8_t)v;
      return v;
    }
    case ISA_FP16: {
      uint16_t sign = (rng_lcg(st) & 1) ? 0x8000 : 0;
      uint16_t exp = (rng_lcg(st) % 16 == 0) ? 0 : (uint16_t)rng_lcg_int(st, 8, 16);
      uint16_t h = (uint16_t)(sign | exp << 10 | (uint16_t)rng_lcg_int(st, 0, 1023));
      ((uint16_t *)stored)[idx] = h;
      return ref_f16_value(h);
    }
    default: { /* bf16 held as fp32 */
      uint32_t sign = (rng_lcg(st) & 1) ? 0x80000000u : 0;
      uint32_t bits = sign | (uint32_t)rng_lcg_int(st, 110, 128) << 23 | (uint32_t)rng_lcg_int(st, 0, 127) << 16;
      if (inexact && rng_lcg(st) % 4 == 0) bits |= (uint32_t)rng_lcg_int(st, 1, 0xFFFF); /* not a bf16 */
      float f = ref_f32_of_bits(bits);
      ((float *)stored)[idx] = f;
      return ref_bf16_value(ref_bf16_rne(f, false)); /* what the kernel computes with */
    }
  }
}

static isa_dtype npy_type(isa_dtype in) { return in == ISA_FP16 ? ISA_FP16 : in == ISA_BF16 ? ISA_FP32 : ISA_INT8; }

/* Sets the inputs and attributes of case c on r and computes the accumulators. */
static void mm_build(kt_runner *r, const mm_case *c, mm_data *d) {
  memset(d, 0, sizeof *d);
  uint64_t st = c->seed ? c->seed : 11;
  uint32_t B = c->batch, m = c->m, n = c->n, k = c->k, nb = c->b_batched ? B : 1;
  isa_dtype nt = npy_type(c->in);
  size_t eb = kn_host_elem_bytes(nt);
  d->A = malloc(sizeof(double) * B * m * k);
  d->B = malloc(sizeof(double) * nb * k * n);
  void *as = malloc(eb * B * m * k), *bs = malloc(eb * nb * k * n);
  for (uint32_t b = 0; b < B; b++)
    for (uint32_t i = 0; i < m; i++)
      for (uint32_t kk = 0; kk < k; kk++) {
        size_t li = ((size_t)b * m + i) * k + kk, si = c->ta ? ((size_t)b * k + kk) * m + i : li;
        double v = rand_value(&st, c->in, as, si, c->inexact);
        d->A[li] = v;
        if (c->in == ISA_BF16 && ref_f32_bits(((float *)as)[si]) & 0xFFFF) d->inexact++;
      }
  for (uint32_t b = 0; b < nb; b++)
    for (uint32_t kk = 0; kk < k; kk++)
      for (uint32_t j = 0; j < n; j++) {
        size_t li = ((size_t)b * k + kk) * n + j, si = c->tb ? ((size_t)b * n + j) * k + kk : li;
        d->B[li] = rand_value(&st, c->in, bs, si, c->inexact);
        if (c->in == ISA_BF16 && ref_f32_bits(((float *)bs)[si]) & 0xFFFF) d->inexact++;
      }
  uint64_t shape[3];
  uint32_t nd = 0;
  if (B > 1) shape[nd++] = B;
  shape[nd++] = c->ta ? k : m;
  shape[nd++] = c->ta ? m : k;
  kt_put_ok(r, "a", nt, nd, shape, as);
  nd = 0;
  if (c->b_batched) shape[nd++] = B;
  shape[nd++] = c->tb ? n : k;
  shape[nd++] = c->tb ? k : n;
  kt_put_ok(r, "b", nt, nd, shape, bs);
  free(as);
  free(bs);
  uint32_t bb = c->bias == BIAS_BN ? B : 1;
  if (c->bias != BIAS_NONE) {
    nd = 0;
    if (c->bias == BIAS_BN) shape[nd++] = B;
    shape[nd++] = n;
    if (is_int(c->in)) {
      d->ibias = malloc(4 * (size_t)bb * n);
      for (size_t i = 0; i < (size_t)bb * n; i++) d->ibias[i] = rng_lcg_int(&st, -5000, 5000);
      kt_put_ok(r, "bias", ISA_INT32, nd, shape, d->ibias);
    } else {
      d->fbias = malloc(4 * (size_t)bb * n);
      for (size_t i = 0; i < (size_t)bb * n; i++) /* arbitrary fp32 bits in [-4, 4) */
        d->fbias[i] = ref_f32_of_bits((rng_lcg(&st) & 1 ? 0x80000000u : 0) | (uint32_t)rng_lcg_int(&st, 0x3C000000, 0x407FFFFF));
      kt_put_ok(r, "bias", ISA_FP32, nd, shape, d->fbias);
    }
  }
  /* the accumulators (L0C), from the definitions of docs/ISA.md's mmad */
  d->acc = malloc(4 * (size_t)B * m * n);
  double terms[16];
  for (uint32_t b = 0; b < B; b++)
    for (uint32_t i = 0; i < m; i++)
      for (uint32_t j = 0; j < n; j++) {
        const double *arow = d->A + ((size_t)b * m + i) * k;
        const double *bcol = d->B + (size_t)(c->b_batched ? b : 0) * k * n + j;
        size_t bi = (size_t)(c->bias == BIAS_BN ? b : 0) * n + j;
        uint32_t bits;
        if (is_int(c->in)) { /* exact int64, wrapped to int32 */
          int64_t s = c->bias != BIAS_NONE ? d->ibias[bi] : 0;
          for (uint32_t kk = 0; kk < k; kk++) s += (int64_t)arow[kk] * (int64_t)bcol[(size_t)kk * n];
          bits = (uint32_t)(uint64_t)s;
        } else { /* per k-block of 16: exact sum rounded once to fp32, added in fp32 */
          float acc = c->bias != BIAS_NONE ? d->fbias[bi] : 0.0f;
          for (uint32_t k0 = 0; k0 < k; k0 += 16) {
            uint32_t cnt = k - k0 < 16 ? k - k0 : 16;
            for (uint32_t q = 0; q < cnt; q++) terms[q] = arow[k0 + q] * bcol[(size_t)(k0 + q) * n];
            acc = acc + ref_exact_sum_f32(terms, cnt);
          }
          bits = ref_f32_bits(acc);
        }
        d->acc[((size_t)b * m + i) * n + j] = bits;
      }
  /* out_dtype and in_dtype: given, or (some cases) left to their defaults: fp32 / int32 out, and
   * the input type from the .npy (float16: fp16, float32: bf16, int8: int8) */
  bool out_default = strcmp(c->op, "matmul") == 0 && (c->out == ISA_FP32 || c->out == ISA_INT32);
  if (!out_default || c->seed % 2) kt_set_attr(r, "out_dtype", isa_dtype_name(c->out));
  if (strcmp(c->op, "matmul_requant") != 0 && (c->in == ISA_INT4 || c->seed % 3 == 0))
    kt_set_attr(r, "in_dtype", isa_dtype_name(c->in));
  if (c->ta) kt_set_attr(r, "transpose_a", "true");
  if (c->tb) kt_set_attr(r, "transpose_b", "true");
  if (c->relu) kt_set_attr(r, "relu", "true");
  if (c->base_m) kt_set_attr(r, "base_m", c->base_m);
  if (c->base_n) kt_set_attr(r, "base_n", c->base_n);
  if (c->base_k) kt_set_attr(r, "base_k", c->base_k);
  if (c->step_k) kt_set_attr(r, "step_k", c->step_k);
  if (c->quant == Q_NONE) return;
  /* quant parameters: scales bring the largest |x| (after MCB's shift) to about 300, so the
   * clamps at -256 / 255 and at the int8 / uint8 range are all reached */
  d->nw = (c->quant == Q_WORD1 || c->quant == Q_SCALE1) ? 1 : n;
  d->word = calloc(d->nw, 8);
  unsigned shift[1024];
  double maxabs = 1;
  for (uint32_t w = 0; w < d->nw; w++) shift[w] = c->words == W_MCB ? (unsigned)rng_lcg_int(&st, 0, 6) : 0;
  for (size_t e = 0; e < (size_t)B * m * n; e++) {
    double x = is_int(c->in) ? (double)(int32_t)d->acc[e] : (double)ref_f32_of_bits(d->acc[e]);
    x = ldexp(x, -(int)shift[d->nw == 1 ? 0 : e % n]);
    if (fabs(x) > 32767 && c->words == W_MCB) x = 32767;
    if (fabs(x) > maxabs) maxabs = fabs(x);
  }
  float *scales = malloc(4 * d->nw), *offs = malloc(4 * n);
  uint32_t noff = c->offset == OFF_1 ? 1 : c->offset == OFF_N ? d->nw : 0;
  for (uint32_t w = 0; w < d->nw; w++) scales[w] = (float)(300.0 / maxabs * (0.4 + (double)rng_lcg(&st) / 9007199254740992.0));
  for (uint32_t w = 0; w < noff; w++) offs[w] = (float)rng_lcg_int(&st, -600, 600) / 2.0f + (rng_lcg(&st) & 1 ? 0.25f : 0.0f);
  if (noff) offs[0] = -300.5f; /* clamped to -256 */
  if (c->quant == Q_SCALE1 || c->quant == Q_SCALEN) {
    for (uint32_t w = 0; w < d->nw; w++)
      d->word[w] = ref_pack_word(scales[w], noff != 0, noff ? offs[noff == 1 ? 0 : w] : 0.0f);
    shape[0] = d->nw;
    kt_put_ok(r, "scale", ISA_FP32, 1, shape, scales);
    if (noff) {
      shape[0] = noff;
      kt_put_ok(r, "offset", ISA_FP32, 1, shape, offs);
    }
  } else { /* hand-built words: the scale's low bits and bits 47..63 set (both ignored) */
    bool s = (c->out == ISA_INT8) != c->s_flip;
    for (uint32_t w = 0; w < d->nw; w++) {
      int off = rng_lcg_int(&st, -256, 255);
      d->word[w] = (uint64_t)ref_f32_bits(scales[w]) | (uint64_t)(rng_lcg(&st) & 0x1FFFF) << 47 |
                   (uint64_t)shift[w] << 32 | (uint64_t)(c->words == W_MCB) << 36 | (uint64_t)(off & 0x1FF) << 37 |
                   (uint64_t)s << 46;
    }
    shape[0] = d->nw;
    kt_put_ok(r, "quant", ISA_UINT64, 1, shape, d->word);
  }
  free(scales);
  free(offs);
}

/* The fixpipe's output for element e (docs/DESIGN.md §5.2), from the L0C bits. */
static uint32_t mm_expected(const mm_case *c, const mm_data *d, size_t e) {
  uint32_t x = d->acc[e];
  bool fl = !is_int(c->in);
  if (c->quant == Q_NONE) {
    if (c->relu) { /* max(x, 0) in the L0C type: -0.0 and NaN give +0 */
      if (fl) x = ref_f32_of_bits(x) > 0 ? x : 0;
      else x = (int32_t)x > 0 ? x : 0;
    }
    switch (c->out) {
      case ISA_FP16: return ref_f16_rne(ref_f32_of_bits(x), true);
      case ISA_BF16: return (uint32_t)ref_bf16_rne(ref_f32_of_bits(x), true) << 16; /* held as fp32 */
      default: return x;                                                             /* fp32, int32 */
    }
  }
  uint64_t w = d->word[d->nw == 1 ? 0 : e % c->n];
  float m1 = ref_word_fp19(w);
  int offset = (int)((w >> 37) & 0x1FF);
  if (offset >= 256) offset -= 512;
  bool s = (w >> 46) & 1;
  float xf;
  if (fl) {
    xf = ref_f32_of_bits(x);
  } else {
    int64_t xi = (int32_t)x;
    if (strcmp(c->op, "matmul_requant") == 0 && ((w >> 36) & 1)) { /* MCB: shift by N, saturate to int16 */
      xi = (int64_t)floor(ldexp((double)xi, -(int)((w >> 32) & 0xF)));
      if (xi > 32767) xi = 32767;
      if (xi < -32768) xi = -32768;
    }
    xf = (float)xi;
  }
  float mm = (xf >= 0 || !c->relu) ? m1 : 0.0f;
  return ref_b8(xf * mm, offset, s);
}

/* Runs case c: every element against mm_expected, the operator's reference, and the notes (the
 * S-bit warning, then the bf16 rounding note; `literal`, when given, is the exact text).
 * `attrs`, when given, are more attributes as NAME=VALUE strings, NULL-terminated. */
/* Replaces input `name`, ND [rows, cols] or [batch, rows, cols], with its FRACTAL_NZ form
 * [batch, cols/C0, rows, C0] (element (r, c) at ((c / C0) * rows + r) * C0 + c % C0 of each
 * matrix), and says so with the attribute NAME_format = nz. */
static void to_nz(kt_runner *r, const char *name, uint32_t c0) {
  const kn_tensor *t = kn_input(r->ctx, name);
  assert_non_null(t);
  uint64_t batch = t->ndim == 3 ? t->shape[0] : 1, rows = t->shape[t->ndim - 2], cols = t->shape[t->ndim - 1];
  assert_int_equal(rows % 16, 0);
  assert_int_equal(cols % c0, 0);
  size_t eb = kn_host_elem_bytes(t->dtype);
  uint8_t *nz = malloc(t->count * eb);
  for (uint64_t b = 0; b < batch; b++)
    for (uint64_t i = 0; i < rows; i++)
      for (uint64_t j = 0; j < cols; j++) {
        uint64_t from = (b * rows + i) * cols + j, to = b * rows * cols + ((j / c0) * rows + i) * c0 + j % c0;
        memcpy(nz + to * eb, (const uint8_t *)t->data + from * eb, eb);
      }
  uint64_t shape[4] = {batch, cols / c0, rows, c0};
  isa_dtype dt = t->dtype;
  kt_put_ok(r, name, dt, 4, shape, nz);
  free(nz);
  char attr[16];
  snprintf(attr, sizeof attr, "%s_format", name);
  kt_set_attr(r, attr, "nz");
}

static void run_case_attrs(const mm_case *c, const char *literal, const char *const *attrs) {
  kt_runner r;
  kt_init(&r, c->op, 0);
  mm_data d;
  mm_build(&r, c, &d);
  for (size_t i = 0; attrs && attrs[i]; i++) /* NZ operands first: "a_format=nz" converts a */
    if (strcmp(attrs[i], "a_format=nz") == 0 || strcmp(attrs[i], "b_format=nz") == 0)
      to_nz(&r, attrs[i][0] == 'a' ? "a" : "b", isa_dtype_c0(c->in));
  for (size_t i = 0; attrs && attrs[i]; i++) {
    char name[64];
    const char *eq = strchr(attrs[i], '=');
    snprintf(name, sizeof name, "%.*s", (int)(eq - attrs[i]), attrs[i]);
    kt_set_attr(&r, name, eq + 1);
  }
  if (kn_ctx_run(r.ctx, &r.err) != CS_OK) fail_msg("run: %s", r.err.msg);
  const kn_tensor *out = kn_ctx_output(r.ctx, "c");
  assert_non_null(out);
  assert_int_equal(out->dtype, c->out);
  assert_int_equal(out->ndim, c->batch > 1 ? 3 : 2);
  assert_int_equal(out->shape[out->ndim - 2], c->m);
  assert_int_equal(out->shape[out->ndim - 1], c->n);
  size_t total = (size_t)c->batch * c->m * c->n, eb = kn_host_elem_bytes(c->out);
  for (size_t e = 0; e < total; e++) {
    uint32_t got = 0;
    memcpy(&got, (const uint8_t *)out->data + e * eb, eb);
    uint32_t want = mm_expected(c, &d, e);
    if (got != want)
      fail_msg("%s c[%zu, %zu, %zu]: got 0x%x, expected 0x%x (L0C 0x%08x)", c->op, e / (c->m * c->n),
               e / c->n % c->m, e % c->n, got, want, d.acc[e]);
  }
  kt_own_reference_agrees(&r, "c");
  /* notes: bf16 rounding of the inputs, and the S bit against out_dtype */
  char notes[512] = "";
  if (d.inexact)
    snprintf(notes, sizeof notes, "note: %llu input values were not bf16 and were rounded to nearest even\n",
             (unsigned long long)d.inexact);
  uint64_t bad = 0;
  for (uint32_t w = 0; w < d.nw; w++) bad += (((d.word[w] >> 46) & 1) != 0) != (c->out == ISA_INT8);
  if (bad) {
    char line[256];
    bool i8 = c->out == ISA_INT8;
    snprintf(line, sizeof line, "warning: %llu quant word%s S bit %s, but out_dtype is %s: the fixpipe clamps to %s\n",
             (unsigned long long)bad, bad == 1 ? "'s" : "s'", i8 ? "clear (uint8)" : "set (int8)", i8 ? "int8" : "uint8",
             i8 ? "[0, 255] and the bytes read back as int8" : "[-128, 127] and the bytes read back as uint8");
    char both[sizeof notes];
    snprintf(both, sizeof both, "%s", notes);
    snprintf(notes, sizeof notes, "%.255s%.255s", line, both); /* the S-bit warning is noted first */
  }
  assert_string_equal(kn_ctx_notes(r.ctx), notes);
  if (literal) assert_string_equal(kn_ctx_notes(r.ctx), literal);
  mm_data_free(&d);
  kt_free(&r);
}

static void run_case_notes(const mm_case *c, const char *literal) { run_case_attrs(c, literal, NULL); }
static void run_case(const mm_case *c) { run_case_notes(c, NULL); }

/* ---- matmul ---------------------------------------------------------------------------------- */

#define NO_TILING NULL, NULL, NULL, NULL

static void test_matmul_fp16_outputs_layouts_bias_relu(void **state) {
  (void)state;
  const isa_dtype outs[3] = {ISA_FP32, ISA_FP16, ISA_BF16};
  for (unsigned v = 0; v < 48; v++) {
    mm_case c = {"matmul", ISA_FP16, outs[v % 3], 1, false, (v / 3) & 1 ? BIAS_N : BIAS_NONE, 37, 50, 45,
                 ((v / 6) & 1) != 0, ((v / 12) & 1) != 0, ((v / 24) & 1) != 0, Q_NONE, OFF_NONE, W_PLAIN, false, false,
                 NO_TILING, 1000 + v};
    run_case(&c);
  }
}

static void test_matmul_bf16_from_fp32_npy(void **state) {
  (void)state;
  const isa_dtype outs[3] = {ISA_FP32, ISA_FP16, ISA_BF16};
  for (unsigned v = 0; v < 24; v++) {
    mm_case c = {"matmul", ISA_BF16, outs[v % 3], 1, false, (v / 3) & 1 ? BIAS_N : BIAS_NONE, 33, 40, 70,
                 ((v / 6) & 1) != 0, ((v / 12) & 1) != 0, (v % 5) == 0, Q_NONE, OFF_NONE, W_PLAIN, false, false,
                 NO_TILING, 2000 + v};
    run_case(&c);
  }
  /* fp32 values that are not bf16 are rounded to nearest even, with a note */
  mm_case c = {"matmul", ISA_BF16, ISA_FP32, 1, false, BIAS_N, 20, 24, 40, false, false, false, Q_NONE, OFF_NONE,
               W_PLAIN, false, true, NO_TILING, 2100};
  run_case(&c);
}

static void test_matmul_int8_and_int4(void **state) {
  (void)state;
  for (unsigned v = 0; v < 32; v++) {
    bool int4 = v & 1;
    mm_case c = {"matmul", int4 ? ISA_INT4 : ISA_INT8, ISA_INT32, 1, false, (v / 2) & 1 ? BIAS_N : BIAS_NONE, 38, 50,
                 int4 ? 130 : 45, ((v / 4) & 1) != 0, ((v / 8) & 1) != 0, ((v / 16) & 1) != 0, Q_NONE, OFF_NONE, W_PLAIN,
                 false, false, NO_TILING, 3000 + v};
    run_case(&c);
  }
}

/* Batches: a [3, m, k] with b batched or shared and the bias per batch or shared; M = 1; K over
 * several chunks with small tiles. */
static void test_matmul_batch_tails_tiling(void **state) {
  (void)state;
  const mm_case cases[] = {
      {"matmul", ISA_FP16, ISA_FP32, 3, true, BIAS_BN, 17, 40, 33, false, false, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, NO_TILING, 4001},
      {"matmul", ISA_FP16, ISA_FP16, 3, false, BIAS_N, 17, 40, 33, true, true, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, NO_TILING, 4002},
      {"matmul", ISA_BF16, ISA_BF16, 3, true, BIAS_N, 17, 40, 33, false, true, true, Q_NONE, OFF_NONE, W_PLAIN, false, false, NO_TILING, 4003},
      {"matmul", ISA_INT8, ISA_INT32, 3, false, BIAS_BN, 17, 40, 33, true, false, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, NO_TILING, 4004},
      {"matmul", ISA_INT4, ISA_INT32, 3, true, BIAS_BN, 18, 40, 66, false, false, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, NO_TILING, 4005},
      {"matmul", ISA_FP16, ISA_FP32, 1, false, BIAS_N, 1, 300, 200, false, false, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, NO_TILING, 4006},
      {"matmul", ISA_INT8, ISA_INT32, 1, false, BIAS_N, 1, 1, 1, false, false, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, NO_TILING, 4007},
      {"matmul", ISA_FP16, ISA_FP32, 1, false, BIAS_N, 37, 50, 150, false, false, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, "16", "32", "32", "2", 4008},
      {"matmul", ISA_INT8, ISA_INT32, 2, true, BIAS_BN, 37, 50, 150, true, true, true, Q_NONE, OFF_NONE, W_PLAIN, false, false, "32", "16", "64", "3", 4009},
      {"matmul", ISA_INT4, ISA_INT32, 1, false, BIAS_N, 38, 50, 300, false, true, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, "16", "16", "64", "2", 4010},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
}

/* NZ operands (a_format / b_format nz), every combination with the transposes, each input type:
 * the test converts its ND inputs to NZ itself; the outputs are the reference's, bit for bit. */
static void test_matmul_nz_operands(void **state) {
  (void)state;
  const isa_dtype ins[4] = {ISA_FP16, ISA_BF16, ISA_INT8, ISA_INT4};
  for (unsigned v = 0; v < 64; v++) {
    isa_dtype in = ins[v % 4];
    bool integer = in == ISA_INT8 || in == ISA_INT4;
    bool anz = (v / 4) & 1, bnz = (v / 8) & 1, ta = (v / 16) & 1, tb = (v / 32) & 1;
    if (!anz && !bnz) continue;
    /* shapes whose stored matrices are whole fractals whichever way they are stored */
    mm_case c = {"matmul", in, integer ? ISA_INT32 : ISA_FP32, 1, false, v % 3 ? BIAS_N : BIAS_NONE, 64, 128, 128,
                 ta, tb, false, Q_NONE, OFF_NONE, W_PLAIN, false, false, NO_TILING, 9500 + v};
    const char *attrs[4] = {anz ? "a_format=nz" : "tiling=analytic", bnz ? "b_format=nz" : "tiling=analytic",
                            "tiling=analytic", NULL};
    run_case_attrs(&c, NULL, attrs);
  }
  /* batched: a [2, ...] NZ, b shared */
  mm_case c = {"matmul", ISA_FP16, ISA_FP16, 2, false, BIAS_N, 32, 64, 48, false, true, false, Q_NONE, OFF_NONE, W_PLAIN,
               false, false, NO_TILING, 9600};
  const char *attrs[3] = {"a_format=nz", "b_format=nz", NULL};
  run_case_attrs(&c, NULL, attrs);
  /* shapes that are not NZ */
  kt_runner r;
  kt_init(&r, "matmul", 0);
  kt_set_attr(&r, "a_format", "nz");
  uint64_t s2[2] = {4, 32}, s4[4] = {1, 2, 20, 16}, sb[2] = {32, 8};
  kt_put_ok(&r, "a", ISA_FP16, 2, s2, NULL);
  kt_put_ok(&r, "b", ISA_FP16, 2, sb, NULL);
  kt_run_fails(&r, CS_EINVAL, "a: NZ shape [4, 32]; fp16 NZ is [batch, cols/16, rows, 16] (C0 = 16)");
  kt_put_ok(&r, "a", ISA_FP16, 4, s4, NULL);
  kt_run_fails(&r, CS_EINVAL, "a: NZ shape [1, 2, 20, 16] has 20 rows; NZ holds whole fractals of 16 rows");
  kt_free(&r);
  kt_init(&r, "matmul", 0);
  kt_set_attr(&r, "b_format", "nz");
  kt_set_attr(&r, "in_dtype", "int8");
  kt_set_attr(&r, "m", "20");
  kt_set_attr(&r, "n", "48");
  kt_set_attr(&r, "k", "64");
  kt_run_fails(&r, CS_EINVAL, "b_format nz: the stored b is 64 x 48; NZ needs rows a multiple of 16 and columns of C0 = 32 "
                              "(int8)");
  kt_free(&r);
}

/* Random tilings x shapes x types x layouts, every field drawn (docs/KERNELS.md, "Tiling"), on the
 * 4-core chip of these tests: the outputs are the independent reference's, bit for bit. A draw
 * the chip cannot take (rt_tiling_check says why) is drawn again. */
static void test_matmul_random_tilings_are_bit_exact(void **state) {
  (void)state;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 4;
  uint64_t st = 77;
  const isa_dtype ins[4] = {ISA_FP16, ISA_BF16, ISA_INT8, ISA_INT4};
  unsigned runs = 0;
  for (unsigned v = 0; runs < 48 && v < 4000; v++) {
    isa_dtype in = ins[v % 4];
    bool integer = in == ISA_INT8 || in == ISA_INT4;
    uint32_t c0 = isa_dtype_c0(in);
    mm_case c = {"matmul", in, integer ? ISA_INT32 : ISA_FP16, 1, false, rng_lcg(&st) & 1 ? BIAS_N : BIAS_NONE,
                 (uint32_t)rng_lcg_int(&st, 1, 70), (uint32_t)rng_lcg_int(&st, 1, 70), (uint32_t)rng_lcg_int(&st, 1, 200),
                 (rng_lcg(&st) & 1) != 0, (rng_lcg(&st) & 1) != 0, false, Q_NONE, OFF_NONE, W_PLAIN, false, false,
                 NO_TILING, 9000 + v};
    if (in == ISA_INT4) { /* int4 rows must be whole bytes */
      c.m += c.m % 2;
      c.n += c.n % 2;
      c.k += c.k % 2;
    }
    rt_matmul_types ty = {in, in, c.out, c.bias != BIAS_NONE, c.ta, c.tb, false, false};
    rt_tiling t;
    memset(&t, 0, sizeof t);
    t.m = c.m;
    t.n = c.n;
    t.ka = t.kb = t.single_core_k = c.k;
    t.is_bias = ty.has_bias;
    t.core_split = (uint32_t)(rng_lcg(&st) & 1);
    t.l2_split = (uint32_t)rng_lcg_int(&st, 1, 3);
    uint32_t rows = (c.m + t.l2_split - 1) / t.l2_split;
    t.single_core_m = (uint32_t)rng_lcg_int(&st, 1, (int)rows);
    t.single_core_n = (uint32_t)rng_lcg_int(&st, 1, (int)c.n);
    t.used_core_num = (uint32_t)rng_lcg_int(&st, 1, 4);
    t.base_m = 16 * (uint32_t)rng_lcg_int(&st, 1, 4);
    t.base_n = 16 * (uint32_t)rng_lcg_int(&st, 1, 4);
    t.base_k = c0 * (uint32_t)rng_lcg_int(&st, 1, 3);
    uint32_t kiter = (c.k + t.base_k - 1) / t.base_k;
    t.step_ka = rng_lcg(&st) % 3 == 0 ? kiter : (uint32_t)rng_lcg_int(&st, 1, 4);
    t.step_kb = rng_lcg(&st) % 3 == 0 ? kiter : (uint32_t)rng_lcg_int(&st, 1, 4);
    t.step_m = t.step_ka >= kiter ? (uint32_t)rng_lcg_int(&st, 1, 3) : 1;
    t.step_n = t.step_kb >= kiter ? (uint32_t)rng_lcg_int(&st, 1, 3) : 1;
    t.depth_a1 = t.step_m * t.step_ka * (uint32_t)rng_lcg_int(&st, 1, 2);
    t.depth_b1 = t.step_n * t.step_kb * (uint32_t)rng_lcg_int(&st, 1, 2);
    t.iterate_order = (uint32_t)(rng_lcg(&st) & 1);
    t.db_l0a = (uint32_t)rng_lcg_int(&st, 1, 2);
    t.db_l0b = (uint32_t)rng_lcg_int(&st, 1, 2);
    t.db_l0c = (uint32_t)rng_lcg_int(&st, 1, 2);
    if (rt_tiling_check(&cfg, &ty, &t, NULL) != CS_OK) continue;
    if (t.core_split == RT_SPLIT_BLOCK && t.used_core_num > rt_tiling_block_count(&t)) continue;
    char text[RT_TF_COUNT][48];
    const char *attrs[RT_TF_COUNT + 1];
    int na = 0;
    for (int i = 0; i < RT_TF_COUNT; i++) {
      const rt_tiling_field *f = rt_tiling_field_at(i);
      if (!f->attr) continue;
      uint32_t x = rt_tiling_get(&t, i);
      if (f->names) snprintf(text[na], sizeof text[na], "%s=%s", f->name, rt_tiling_value_name(i, x));
      else snprintf(text[na], sizeof text[na], "%s=%u", f->name, x);
      attrs[na] = text[na];
      na++;
    }
    attrs[na] = NULL;
    run_case_attrs(&c, NULL, attrs);
    runs++;
  }
  assert_int_equal(runs, 48);
}

/* ---- matmul_quant: fp32 L0C -> int8 / uint8 ---------------------------------------------------- */

static void test_matmul_quant_words_scales_offsets(void **state) {
  (void)state;
  const int kinds[4] = {Q_WORD1, Q_WORDN, Q_SCALE1, Q_SCALEN};
  for (unsigned v = 0; v < 32; v++) {
    int q = kinds[v % 4];
    bool scale = q == Q_SCALE1 || q == Q_SCALEN;
    mm_case c = {"matmul_quant", (v / 4) & 1 ? ISA_BF16 : ISA_FP16, (v / 8) & 1 ? ISA_UINT8 : ISA_INT8, 1, false,
                 (v / 16) & 1 ? BIAS_N : BIAS_NONE, 29, 45, 51, (v % 3) == 0, (v % 5) == 0, (v % 7) < 3, q,
                 scale ? (v % 3 == 0 ? OFF_NONE : v % 3 == 1 ? OFF_1 : OFF_N) : OFF_NONE, W_PLAIN, false, false,
                 NO_TILING, 5000 + v};
    run_case(&c);
  }
}

/* Words whose S bit disagrees with out_dtype: the clamp follows S, and the run warns. */
static void test_matmul_quant_s_bit_warning(void **state) {
  (void)state;
  const mm_case cases[] = {
      {"matmul_quant", ISA_FP16, ISA_INT8, 1, false, BIAS_N, 20, 30, 40, false, false, false, Q_WORDN, OFF_NONE, W_PLAIN, true, false, NO_TILING, 5101},
      {"matmul_quant", ISA_FP16, ISA_UINT8, 1, false, BIAS_N, 20, 30, 40, false, false, false, Q_WORD1, OFF_NONE, W_PLAIN, true, false, NO_TILING, 5102},
      /* float scales are packed with S = 1: uint8 output warns */
      {"matmul_quant", ISA_BF16, ISA_UINT8, 1, false, BIAS_N, 20, 30, 40, false, false, true, Q_SCALEN, OFF_N, W_PLAIN, false, false, NO_TILING, 5103},
  };
  run_case_notes(&cases[0], "warning: 30 quant words' S bit clear (uint8), but out_dtype is int8: the fixpipe clamps to "
                            "[0, 255] and the bytes read back as int8\n");
  run_case_notes(&cases[1], "warning: 1 quant word's S bit set (int8), but out_dtype is uint8: the fixpipe clamps to "
                            "[-128, 127] and the bytes read back as uint8\n");
  run_case_notes(&cases[2], "warning: 30 quant words' S bit set (int8), but out_dtype is uint8: the fixpipe clamps to "
                            "[-128, 127] and the bytes read back as uint8\n");
  /* words that agree with out_dtype: no note */
  mm_case ok = cases[0];
  ok.s_flip = false;
  run_case_notes(&ok, "");
}

/* ---- matmul_requant: int32 L0C -> int8 / uint8 --------------------------------------------------- */

static void test_matmul_requant_words_scales_offsets(void **state) {
  (void)state;
  const int kinds[4] = {Q_WORD1, Q_WORDN, Q_SCALE1, Q_SCALEN};
  for (unsigned v = 0; v < 32; v++) {
    int q = kinds[v % 4];
    bool scale = q == Q_SCALE1 || q == Q_SCALEN;
    mm_case c = {"matmul_requant", ISA_INT8, (v / 4) & 1 ? ISA_UINT8 : ISA_INT8, 1, false,
                 (v / 8) & 1 ? BIAS_N : BIAS_NONE, 29, 45, 51, (v / 16) & 1, (v % 3) == 0, (v % 5) < 2, q,
                 scale ? ((v / 2) % 2 ? OFF_1 : OFF_NONE) : OFF_NONE, W_PLAIN, false, false, NO_TILING, 6000 + v};
    run_case(&c);
  }
}

/* REQ8 with MCB = 1: the int32 is shifted right by N (0..6 here) and saturated to int16 first. */
static void test_matmul_requant_mcb_shift(void **state) {
  (void)state;
  for (unsigned v = 0; v < 8; v++) {
    mm_case c = {"matmul_requant", ISA_INT8, v & 1 ? ISA_UINT8 : ISA_INT8, v < 4 ? 1 : 2, v >= 6, BIAS_N, 21, 37,
                 200, false, (v & 2) != 0, (v % 3) == 0, v & 4 ? Q_WORD1 : Q_WORDN, OFF_NONE, W_MCB, false, false,
                 NO_TILING, 7000 + v};
    run_case(&c);
  }
}

/* Hand-built REQ8 words, checked without the generator: x = 1000 (a 1 x 1 x 1 product 10 * 100).
 * Word 1: scale 0.25 (0x3E800000), offset 5, S = 1 -> rne(250) + 5 = 255 -> clamp 127 (int8).
 * Word 2: MCB, N = 3, scale 1.5 (0x3FC00000), offset -7, S = 0 -> 1000 >> 3 = 125, 187.5 -> 188
 * (ties to even), 188 - 7 = 181 (uint8). Word 3: N = 3 without MCB: no shift, 1500 -> 255 - 7 =
 * 248. Word 4: x = -1000 with MCB, N = 4, scale 0.5: -1000 >> 4 = -63 (floor), -31.5 -> -32,
 * offset 0, S = 1 -> 0xE0. */
static void test_matmul_requant_hand_built_words(void **state) {
  (void)state;
  const struct {
    int8_t a, b;
    uint64_t word;
    isa_dtype out;
    uint8_t want;
  } rows[] = {
      {10, 100, 0x3E800000u | (UINT64_C(5) << 37) | (UINT64_C(1) << 46), ISA_INT8, 127},
      {10, 100, 0x3FC00000u | (UINT64_C(3) << 32) | (UINT64_C(1) << 36) | ((uint64_t)(-7 & 0x1FF) << 37), ISA_UINT8, 181},
      {10, 100, 0x3FC00000u | (UINT64_C(3) << 32) | ((uint64_t)(-7 & 0x1FF) << 37), ISA_UINT8, 248},
      {-10, 100, 0x3F000000u | (UINT64_C(4) << 32) | (UINT64_C(1) << 36) | (UINT64_C(1) << 46), ISA_INT8, 0xE0},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    kt_runner r;
    kt_init(&r, "matmul_requant", 0);
    const uint64_t s11[2] = {1, 1}, s1[1] = {1};
    kt_put_ok(&r, "a", ISA_INT8, 2, s11, &rows[i].a);
    kt_put_ok(&r, "b", ISA_INT8, 2, s11, &rows[i].b);
    kt_put_ok(&r, "quant", ISA_UINT64, 1, s1, &rows[i].word);
    kt_set_attr(&r, "out_dtype", isa_dtype_name(rows[i].out));
    assert_int_equal(kn_ctx_run(r.ctx, &r.err), CS_OK);
    const kn_tensor *c = kn_ctx_output(r.ctx, "c");
    assert_int_equal(((const uint8_t *)c->data)[0], rows[i].want);
    kt_free(&r);
  }
}

/* ---- errors --------------------------------------------------------------------------------- */

static void test_matmul_errors(void **state) {
  (void)state;
  kt_runner r;
  const uint64_t s23[2] = {2, 3}, s33[2] = {3, 3}, s45[2] = {4, 5}, s3[1] = {3}, s2[1] = {2};
  static const int8_t bad4[6] = {9, 0, 0, 0, 0, 0};
  /* b's type against a's */
  kt_init(&r, "matmul", 0);
  kt_put_ok(&r, "a", ISA_FP16, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_FP32, 2, s33, NULL);
  kt_run_fails(&r, CS_EINVAL, "b: dtype fp32 but a is fp16; both operands have one type");
  kt_free(&r);
  /* k */
  kt_init(&r, "matmul", 0);
  kt_put_ok(&r, "a", ISA_INT8, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_INT8, 2, s45, NULL);
  kt_run_fails(&r, CS_EINVAL, "b: shape [4, 5] has k = 4 but a has k = 3");
  kt_free(&r);
  /* output types */
  kt_init(&r, "matmul", 0);
  kt_set_attr(&r, "out_dtype", "int32");
  kt_put_ok(&r, "a", ISA_FP16, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_FP16, 2, s33, NULL);
  kt_run_fails(&r, CS_EINVAL, "out_dtype int32: float inputs give fp32, fp16 or bf16 (matmul_quant gives int8)");
  kt_free(&r);
  kt_init(&r, "matmul", 0);
  kt_set_attr(&r, "out_dtype", "fp32");
  kt_put_ok(&r, "a", ISA_INT8, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_INT8, 2, s33, NULL);
  kt_run_fails(&r, CS_EINVAL, "out_dtype fp32: integer inputs give int32 (matmul_requant and linear dequantize)");
  kt_free(&r);
  /* in_dtype against the .npy */
  kt_init(&r, "matmul", 0);
  kt_set_attr(&r, "in_dtype", "int4");
  kt_put_ok(&r, "a", ISA_FP16, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_FP16, 2, s33, NULL);
  kt_run_fails(&r, CS_EINVAL, "a: a fp16 .npy cannot hold int4 inputs (fp16: float16; bf16: float32; int8 and int4: int8)");
  kt_free(&r);
  /* int4 values outside [-8, 7] */
  kt_init(&r, "matmul", 0);
  kt_set_attr(&r, "in_dtype", "int4");
  kt_put_ok(&r, "a", ISA_INT8, 2, s23, bad4);
  kt_put_ok(&r, "b", ISA_INT8, 2, s33, NULL);
  kt_run_fails(&r, CS_EINVAL, "a: int4 pack: value 9 at index 0 is outside [-8, 7]");
  kt_free(&r);
  /* bias type and length */
  kt_init(&r, "matmul", 0);
  kt_put_ok(&r, "a", ISA_FP16, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_FP16, 2, s33, NULL);
  kt_put_ok(&r, "bias", ISA_INT32, 1, s3, NULL);
  kt_run_fails(&r, CS_EINVAL, "bias: dtype int32; fp16 inputs take a fp32 bias");
  kt_free(&r);
  kt_init(&r, "matmul", 0);
  kt_put_ok(&r, "a", ISA_INT8, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_INT8, 2, s33, NULL);
  kt_put_ok(&r, "bias", ISA_INT32, 1, s2, NULL);
  kt_run_fails(&r, CS_EINVAL, "bias: shape [2]; expected [3] or [1, 3]");
  kt_free(&r);
  /* quant parameters */
  const float ones[3] = {1, 1, 1};
  const uint64_t w1[3] = {UINT64_C(0x00004000) << 32 | 0x3F800000u, 0, 0};
  kt_init(&r, "matmul_requant", 0);
  kt_put_ok(&r, "a", ISA_INT8, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_INT8, 2, s33, NULL);
  kt_run_fails(&r, CS_EINVAL, "give either quant (packed words) or scale (floats), one of them is required");
  kt_put_ok(&r, "quant", ISA_UINT64, 1, s3, w1);
  kt_put_ok(&r, "scale", ISA_FP32, 1, s3, ones);
  kt_run_fails(&r, CS_EINVAL, "give either quant (packed words) or scale (floats), not both");
  kt_free(&r);
  kt_init(&r, "matmul_requant", 0);
  kt_put_ok(&r, "a", ISA_INT8, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_INT8, 2, s33, NULL);
  kt_put_ok(&r, "quant", ISA_UINT64, 1, s3, w1);
  kt_put_ok(&r, "offset", ISA_FP32, 1, s3, ones);
  kt_run_fails(&r, CS_EINVAL, "offset goes with scale (a packed quant word carries its own offset)");
  kt_free(&r);
  kt_init(&r, "matmul_quant", 0);
  kt_put_ok(&r, "a", ISA_FP16, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_FP16, 2, s33, NULL);
  kt_put_ok(&r, "quant", ISA_UINT64, 1, s2, w1);
  kt_run_fails(&r, CS_EINVAL, "quant: shape [2]; expected [1] (one word for all of c) or [3] (one per column)");
  kt_free(&r);
  kt_init(&r, "matmul_quant", 0);
  kt_put_ok(&r, "a", ISA_FP16, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_FP16, 2, s33, NULL);
  const float zero_scale[3] = {1, 0, 1};
  kt_put_ok(&r, "scale", ISA_FP32, 1, s3, zero_scale);
  kt_run_fails(&r, CS_EINVAL,
               "scale: channel 1: scale 0 (fp32 0x00000000) is zero: the quant scale must be a finite, non-zero, normal fp32");
  kt_free(&r);
  kt_init(&r, "matmul_requant", 0);
  kt_put_ok(&r, "a", ISA_INT8, 2, s23, NULL);
  kt_put_ok(&r, "b", ISA_INT8, 2, s33, NULL);
  kt_put_ok(&r, "scale", ISA_FP32, 1, s3, ones);
  const float nan_off[1] = {NAN};
  const uint64_t s1[1] = {1};
  kt_put_ok(&r, "offset", ISA_FP32, 1, s1, nan_off);
  kt_run_fails(&r, CS_EINVAL,
               "scale, offset: channel 0: offset nan is not finite: the quant offset must be a finite number (it is "
               "rounded and clamped to [-256, 255])");
  kt_free(&r);
  /* a's input types */
  kt_init(&r, "matmul_requant", 0);
  assert_int_equal(kt_put(&r, "a", ISA_FP16, 2, s23, NULL), CS_EINVAL);
  assert_string_equal(r.err.msg, "matmul_requant: input 'a' is fp16, expected one of int8");
  kt_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_fp16_outputs_layouts_bias_relu),
      cmocka_unit_test(test_matmul_bf16_from_fp32_npy),
      cmocka_unit_test(test_matmul_int8_and_int4),
      cmocka_unit_test(test_matmul_batch_tails_tiling),
      cmocka_unit_test(test_matmul_random_tilings_are_bit_exact),
      cmocka_unit_test(test_matmul_nz_operands),
      cmocka_unit_test(test_matmul_quant_words_scales_offsets),
      cmocka_unit_test(test_matmul_quant_s_bit_warning),
      cmocka_unit_test(test_matmul_requant_words_scales_offsets),
      cmocka_unit_test(test_matmul_requant_mcb_shift),
      cmocka_unit_test(test_matmul_requant_hand_built_words),
      cmocka_unit_test(test_matmul_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
