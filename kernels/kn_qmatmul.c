/* kn_qmatmul — the quantized matrix products of ONNX and DirectML on the simulated cube.
 *
 * The cube multiplies int8 by int8 into int32 (docs/DESIGN.md §5.3). uint8 operands are
 * re-centred to int8 (a' = a - 128), and the zero points are removed with integer corrections:
 *
 *   Σ_t (a - za)(b - zb) = Σ a'b'  -  zb'·Σ_t a'  -  za'·Σ_t b'  +  K·za'·zb'
 *                          (cube)    (row part)    (column part)
 *
 * with za' = za - 128 for uint8 a (za otherwise), likewise zb'. The column part — everything
 * that depends on the column only, when a's zero point is per tensor — enters the accumulator
 * through the bias table (the first mmad starts from it), so the cube's int32 is exact. What
 * depends on the row (b's zero point times a's row sums, or a per-row zero point) cannot enter a
 * per-column bias; it is added to the int32 result afterwards. All of it is exact modulo 2^32,
 * as the operators' int32 accumulation is.
 *
 * precision=exact (default): the fixpipe writes the int32 accumulators (NoQuant) and the
 *   requantization is the operator's own, bit for bit (kn_qmm_requantize).
 * precision=fixpipe: the fixpipe requantizes (REQ8 / VREQ8) with one packed word per column:
 *   the multiplier a_scale·b_scale/y_scale as its fp19 scale (truncated, the documented packing),
 *   y_zero_point as its offset, S from the output type. That needs a vanishing row part and
 *   row-independent scales; the run then reports how the result differs from the exact one.
 *
 * The row and column sums, the corrections and the exact requantization run on the host; a
 * device kernel would do them on the vector cores (not timed here).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_fixpipe.h"
#include "isa/isa_quant.h"
#include "kernels/kn_mm.h"
#include "kernels/kn_qmatmul.h"

typedef struct dense {
  uint64_t B, M, K, N;
  int8_t *a, *b;       /* re-centred operands, per output batch */
  int32_t *bias;       /* B x N column part */
  int32_t *row;        /* B x M x N row part (NULL when it vanishes everywhere) */
  kn_qmm_row_params *rows; /* B x M */
  kn_qmm_col_params *cols; /* B x N */
} dense;

static void dense_free(dense *d) {
  free(d->a);
  free(d->b);
  free(d->bias);
  free(d->row);
  free(d->rows);
  free(d->cols);
}

static uint32_t wrap32(int64_t v) { return (uint32_t)((uint64_t)v & 0xFFFFFFFFu); }

/* Re-centres the operands and splits the zero-point corrections (the file's comment). */
static cs_status densify(const kn_qmm *q, isa_dtype a_t, isa_dtype b_t, dense *d, cs_err *err) {
  const kn_matmul_geom *g = kn_qmm_geom(q);
  memset(d, 0, sizeof *d);
  d->B = g->batch_count;
  d->M = g->m;
  d->K = g->k;
  d->N = g->n;
  uint64_t B = d->B, M = d->M, K = d->K, N = d->N;
  int32_t ca = a_t == ISA_UINT8 ? 128 : 0, cb = b_t == ISA_UINT8 ? 128 : 0;
  d->a = malloc(B * M * K + 1);
  d->b = malloc(B * K * N + 1);
  d->bias = calloc(B * N + 1, sizeof *d->bias);
  d->rows = calloc(B * M + 1, sizeof *d->rows);
  d->cols = calloc(B * N + 1, sizeof *d->cols);
  int32_t *a = malloc((M * K + 1) * sizeof *a), *b = malloc((K * N + 1) * sizeof *b);
  int64_t *ra = malloc((M + 1) * sizeof *ra), *cbs = malloc((N + 1) * sizeof *cbs);
  if (!d->a || !d->b || !d->bias || !d->rows || !d->cols || !a || !b || !ra || !cbs) {
    free(a), free(b), free(ra), free(cbs);
    dense_free(d);
    return cs_err_set(err, CS_ENOMEM, "no host memory for the operands");
  }
  for (uint64_t bi = 0; bi < B; bi++) {
    kn_qmm_operands(q, bi, a, b);
    kn_qmm_row_params *rows = d->rows + bi * M;
    kn_qmm_col_params *cols = d->cols + bi * N;
    kn_qmm_params(q, bi, rows, cols);
    int8_t *a8 = d->a + bi * M * K, *b8 = d->b + bi * K * N;
    for (uint64_t i = 0; i < M * K; i++) a8[i] = (int8_t)(a[i] - ca);
    for (uint64_t i = 0; i < K * N; i++) b8[i] = (int8_t)(b[i] - cb);
    for (uint64_t r = 0; r < M; r++) {
      ra[r] = 0;
      for (uint64_t t = 0; t < K; t++) ra[r] += a8[r * K + t];
    }
    for (uint64_t c = 0; c < N; c++) {
      cbs[c] = 0;
      for (uint64_t t = 0; t < K; t++) cbs[c] += b8[t * N + c];
    }
    bool za_uniform = true;
    for (uint64_t r = 1; r < M; r++) za_uniform = za_uniform && rows[r].zero_point == rows[0].zero_point;
    int64_t za0 = (int64_t)rows[0].zero_point - ca;
    for (uint64_t c = 0; c < N; c++) {
      int64_t zb = (int64_t)cols[c].zero_point - cb;
      if (za_uniform) d->bias[bi * N + c] = (int32_t)wrap32(-za0 * cbs[c] + (int64_t)K * za0 * zb);
    }
    for (uint64_t r = 0; r < M; r++)
      for (uint64_t c = 0; c < N; c++) {
        int64_t za = (int64_t)rows[r].zero_point - ca, zb = (int64_t)cols[c].zero_point - cb;
        int64_t part = -zb * ra[r];
        if (!za_uniform) part += -za * cbs[c] + (int64_t)K * za * zb;
        if (part && !d->row) {
          d->row = calloc(B * M * N + 1, sizeof *d->row);
          if (!d->row) {
            free(a), free(b), free(ra), free(cbs);
            dense_free(d);
            return cs_err_set(err, CS_ENOMEM, "no host memory for the corrections");
          }
        }
        if (d->row) d->row[(bi * M + r) * N + c] = (int32_t)wrap32(part);
      }
  }
  free(a), free(b), free(ra), free(cbs);
  return CS_OK;
}

/* The cube's job: int8 x int8 (+ the column part as bias), batch by batch. */
static void base_job(const dense *d, kn_mm_job *j) {
  memset(j, 0, sizeof *j);
  j->ty.a = j->ty.b = ISA_INT8;
  j->ty.has_bias = true;
  j->batch = (uint32_t)d->B;
  j->m = (uint32_t)d->M;
  j->n = (uint32_t)d->N;
  j->k = (uint32_t)d->K;
  j->b_batched = j->bias_batched = true;
  j->a = d->a;
  j->b = d->b;
  j->bias = d->bias;
}

/* Why the fixpipe cannot requantize this product on its own (written to why), or false. */
static bool fixpipe_obstacle(const dense *d, isa_dtype b_t, char *why, size_t why_bytes) {
  if (d->row) {
    int32_t cb = b_t == ISA_UINT8 ? 128 : 0;
    for (uint64_t bi = 0; bi < d->B; bi++)
      for (uint64_t c = 0; c < d->N; c++) {
        int32_t zb = d->cols[bi * d->N + c].zero_point;
        if (zb != cb) {
          snprintf(why, why_bytes,
                   "b's zero point %d (column %" PRIu64 ") is %d after re-centring %s b to int8, so %d x (each "
                   "row's sum of a) must be added row by row; the accumulator takes per-column terms only",
                   zb, c, zb - cb, isa_dtype_name(b_t), -(zb - cb));
          return true;
        }
      }
    snprintf(why, why_bytes, "a's zero point changes from row to row, which makes a correction per row and "
                             "column; the accumulator takes per-column terms only");
    return true;
  }
  for (uint64_t bi = 0; bi < d->B; bi++)
    for (uint64_t r = 1; r < d->M; r++) {
      const kn_qmm_row_params *r0 = d->rows + bi * d->M, *rr = r0 + r;
      if (rr->scale != r0->scale || rr->y_scale != r0->y_scale || rr->y_zero_point != r0->y_zero_point) {
        snprintf(why, why_bytes, "the scales or the output zero point of row %" PRIu64 " differ from row 0's; the "
                                 "fixpipe applies one word per column", r);
        return true;
      }
    }
  return false;
}

/* One word per column and batch: fp19(multiplier), offset y_zero_point, S for int8 output. */
static cs_status fixpipe_words(const kn_qmm *q, const dense *d, uint64_t **out, cs_err *err) {
  uint64_t *w = calloc(d->B * d->N + 1, sizeof *w);
  if (!w) return cs_err_set(err, CS_ENOMEM, "no host memory");
  bool int8_out = kn_qmm_out_dtype(q) == ISA_INT8;
  for (uint64_t bi = 0; bi < d->B; bi++)
    for (uint64_t c = 0; c < d->N; c++) {
      const kn_qmm_row_params *row = d->rows + bi * d->M;
      const kn_qmm_col_params *col = d->cols + bi * d->N + c;
      float mult = kn_qmm_multiplier(q, row, col);
      float off = (float)row->y_zero_point;
      isa_qw_packed pk;
      cs_status st = isa_qw_pack(mult, &off, NULL, &pk, err);
      if (st != CS_OK) {
        free(w);
        cs_err_prefix(err, "precision=fixpipe: the multiplier of batch %" PRIu64 ", column %" PRIu64, bi, c);
        return st;
      }
      w[bi * d->N + c] = int8_out ? pk.fields.word : pk.fields.word & ~((uint64_t)1 << 46);
    }
  *out = w;
  return CS_OK;
}

cs_status kn_qmatmul_simulate(kn_ctx *ctx, const kn_qmm *q, isa_dtype a_t, isa_dtype b_t, kn_precision prec,
                              const kn_tensor *exact, kn_tensor *out, cs_err *err) {
  dense d;
  cs_status st = densify(q, a_t, b_t, &d, err);
  if (st != CS_OK) return st;
  kn_mm_job j;
  base_job(&d, &j);
  if ((st = kn_mm_tiling_attrs(ctx, &j, err)) != CS_OK) {
    dense_free(&d);
    return st;
  }
  bool timing_only = kn_options(ctx)->timing_only;
  uint64_t total = d.B * d.M * d.N;
  bool requant = kn_qmm_requantizes(q);
  uint64_t *words = NULL;
  void *c = NULL;
  if (requant && prec == KN_PRECISION_FIXPIPE) {
    char why[320];
    if (fixpipe_obstacle(&d, b_t, why, sizeof why)) {
      dense_free(&d);
      return cs_err_set(err, CS_EINVAL, "precision=fixpipe: %s (use precision=exact)", why);
    }
    if ((st = fixpipe_words(q, &d, &words, err)) != CS_OK) {
      dense_free(&d);
      return st;
    }
    j.ty.c = kn_qmm_out_dtype(q);
    j.qvec = words;
    j.q_batched = true;
  } else {
    j.ty.c = ISA_INT32;
  }
  if (!timing_only) {
    c = calloc(total + 1, isa_dtype_bytes(j.ty.c, 1));
    if (!c) st = cs_err_set(err, CS_ENOMEM, "no host memory for the result");
    j.c = c;
  }
  if (st == CS_OK) st = kn_mm_simulate(ctx, &j, err);
  if (st == CS_OK && !timing_only) {
    if (j.ty.c != ISA_INT32) { /* the fixpipe's bytes are the output */
      memcpy(out->data, c, total);
    } else {
      int32_t *acc = c;
      for (uint64_t bi = 0; bi < d.B; bi++)
        for (uint64_t r = 0; r < d.M; r++)
          for (uint64_t col = 0; col < d.N; col++) {
            uint64_t e = (bi * d.M + r) * d.N + col;
            uint32_t v = (uint32_t)acc[e] + (d.row ? (uint32_t)d.row[e] : 0u);
            if (!requant) {
              ((int32_t *)out->data)[e] = (int32_t)v;
              continue;
            }
            int32_t y = kn_qmm_requantize(q, (int32_t)v, d.rows + bi * d.M + r, d.cols + bi * d.N + col);
            if (out->dtype == ISA_INT8) ((int8_t *)out->data)[e] = (int8_t)y;
            else ((uint8_t *)out->data)[e] = (uint8_t)y;
          }
    }
  }
  if (st == CS_OK && !timing_only && d.row)
    kn_note(ctx, "note: the zero points leave a per-row correction, added to the int32 result on the host");
  if (st == CS_OK && !timing_only && requant && prec == KN_PRECISION_FIXPIPE && exact) {
    /* what the engineer came for: how the fixpipe's requantization differs from the exact one. The
     * clamp to [-256, 255] before the offset is no cause: with an offset in the output type's range
     * both orders saturate alike (docs/QUANT_OPS.md, "On the simulated cube"). */
    uint64_t diff = 0, hist[7] = {0}; /* -3 or less, -2, -1, 0, +1, +2, +3 or more */
    int64_t maxd = 0;
    for (uint64_t e = 0; e < total; e++) {
      int64_t got = (int64_t)kn_tensor_get(out, e), want = (int64_t)kn_tensor_get(exact, e), dd = got - want;
      if (!dd) continue;
      diff++;
      if (llabs(dd) > maxd) maxd = llabs(dd);
      hist[dd < -3 ? 0 : dd > 3 ? 6 : dd + 3]++;
    }
    if (!diff) {
      kn_note(ctx, "precision=fixpipe: all %" PRIu64 " elements equal the exact requantization", total);
    } else {
      char h[256] = "";
      size_t used = 0;
      static const char *const labels[7] = {"<=-3", "-2", "-1", "0", "+1", "+2", ">=+3"};
      for (int i = 0; i < 7; i++)
        if (i != 3 && hist[i])
          used += (size_t)snprintf(h + used, sizeof h - used, "%s%s: %" PRIu64, used ? ", " : "", labels[i], hist[i]);
      kn_note(ctx,
              "precision=fixpipe: %" PRIu64 " of %" PRIu64 " elements (%.3f%%) differ from the exact requantization, "
              "by at most %" PRId64 " (%s); causes: the fp19 multiplier (truncated) and the fp32 product (the int32 "
              "accumulator rounded to fp32 first)",
              diff, total, 100.0 * (double)diff / (double)total, maxd, h);
    }
  }
  free(words);
  free(c);
  dense_free(&d);
  return st;
}

cs_status kn_qmatmul_fixpipe_reference(const kn_qmm *q, isa_dtype a_t, isa_dtype b_t, const sim_config *cfg,
                                       kn_tensor *out, cs_err *err) {
  dense d;
  cs_status st = densify(q, a_t, b_t, &d, err);
  if (st != CS_OK) return st;
  char why[320];
  uint64_t *words = NULL;
  if (fixpipe_obstacle(&d, b_t, why, sizeof why))
    st = cs_err_set(err, CS_EINVAL, "precision=fixpipe: %s (use precision=exact)", why);
  if (st == CS_OK) st = fixpipe_words(q, &d, &words, err);
  for (uint64_t bi = 0; st == CS_OK && bi < d.B; bi++)
    for (uint64_t r = 0; r < d.M; r++)
      for (uint64_t c = 0; c < d.N; c++) {
        /* the exact int32 accumulator the cube holds: re-centred products plus the column part */
        int64_t acc = d.bias[bi * d.N + c];
        for (uint64_t t = 0; t < d.K; t++)
          acc += (int64_t)d.a[(bi * d.M + r) * d.K + t] * d.b[(bi * d.K + t) * d.N + c];
        uint32_t y = isa_fixpipe_convert_elem(ISA_QUANT_VREQ8,
                                              ISA_INT32, words[bi * d.N + c], false, wrap32(acc),
                                              cfg->chip_fixpipe_saturation);
        ((uint8_t *)out->data)[(bi * d.M + r) * d.N + c] = (uint8_t)y;
      }
  free(words);
  dense_free(&d);
  return st;
}
