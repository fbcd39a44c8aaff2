/* kn_qmatmul — the quantized matrix products of ONNX and DirectML on the simulated cube.
 *
 * The cube multiplies int8 by int8 into int32 (docs/DESIGN.md §5.3). uint8 operands are
 * re-centred to int8 (a' = a - 128), and the zero points are removed with integer corrections:
 *
 *   Σ_t (a - za)(b - zb) = Σ a'b'  -  zb'·Σ_t a'  -  za'·Σ_t b'  +  K·za'·zb'
 *                          (cube)    (row part)    (column part)
 *
 * with za' = za - 128 for uint8 a (za otherwise), likewise zb'. The cube computes Σ a'b' alone;
 * the corrections are exact modulo 2^32, as the operators' int32 accumulation is. Where the
 * fixpipe requantizes (precision=fixpipe), the column part — everything that depends on the
 * column only, when a's zero point is per tensor — must already be in the accumulator: it enters
 * through the bias table (the first mmad starts from it).
 *
 * precision=exact (default): the fixpipe writes the int32 accumulators (NoQuant) and the
 *   requantization is the operator's own, bit for bit (kn_qmm_requantize).
 * precision=fixpipe: the fixpipe requantizes (REQ8 / VREQ8) with one packed word per column:
 *   the multiplier a_scale·b_scale/y_scale as its fp19 scale (truncated, the documented packing),
 *   y_zero_point as its offset, S from the output type. That needs a vanishing row part and
 *   row-independent scales; the run then reports how the result differs from the exact one.
 *
 * The row and column sums and the corrections run on the AI cores' vector cores (kn_mm's
 * kn_mm_qcorr, timed): an AIV-only launch sums b's columns and a's rows into GM; in the MIX launch
 * that follows, each int32 tile reaches the AIVs from the fixpipe by a cross-core flag and they add
 * the row and column parts in place while the cube goes on (precision=exact), or the cube starts
 * from the AIVs' bias after a SyncAll of every core (precision=fixpipe). The exact requantization
 * (a double-precision product) stays on the host.
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
  int32_t *za, *zb;    /* re-centred zero points: B x M (a's, per row) and B x N (b's, per column) */
  kn_qmm_row_params *rows; /* B x M */
  kn_qmm_col_params *cols; /* B x N */
  kn_mm_qcorr qc;      /* which corrections there are (kn_mm.h), from the zero points alone */
} dense;

static void dense_free(dense *d) {
  free(d->a);
  free(d->b);
  free(d->za);
  free(d->zb);
  free(d->rows);
  free(d->cols);
}

static uint32_t wrap32(int64_t v) { return (uint32_t)((uint64_t)v & 0xFFFFFFFFu); }

/* Re-centres the operands and the zero points, and says which corrections the zero points call
 * for (the file's comment): a's non-zero anywhere, the column part; b's non-zero anywhere, the
 * row part; a's varying from row to row within a batch, both on the tiles. */
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
  d->za = calloc(B * M + 1, sizeof *d->za);
  d->zb = calloc(B * N + 1, sizeof *d->zb);
  d->rows = calloc(B * M + 1, sizeof *d->rows);
  d->cols = calloc(B * N + 1, sizeof *d->cols);
  int32_t *a = malloc((M * K + 1) * sizeof *a), *b = malloc((K * N + 1) * sizeof *b);
  if (!d->a || !d->b || !d->za || !d->zb || !d->rows || !d->cols || !a || !b) {
    free(a), free(b);
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
      int32_t z = d->za[bi * M + r] = rows[r].zero_point - ca;
      d->qc.col = d->qc.col || z != 0;
      d->qc.row_za = d->qc.row_za || z != d->za[bi * M];
    }
    for (uint64_t c = 0; c < N; c++) {
      int32_t z = d->zb[bi * N + c] = cols[c].zero_point - cb;
      d->qc.row = d->qc.row || z != 0;
    }
  }
  free(a), free(b);
  d->qc.za = d->za;
  d->qc.zb = d->zb;
  return CS_OK;
}

/* The host's column part of batch bi (the bias the cube starts from when a's zero point is one
 * value in the batch, else 0) into bias[N], and whether the batch's remaining corrections (the
 * row part) vanish everywhere: for precision=fixpipe, whose cube writes no int32 to correct, and
 * its reference. ra and cbs: M and N of scratch. */
static bool host_corrections(const dense *d, uint64_t bi, int32_t *bias, int64_t *ra, int64_t *cbs) {
  uint64_t M = d->M, K = d->K, N = d->N;
  const int8_t *a8 = d->a + bi * M * K, *b8 = d->b + bi * K * N;
  const int32_t *za = d->za + bi * M, *zb = d->zb + bi * N;
  bool uniform = true, row_vanishes = true;
  for (uint64_t r = 1; r < M; r++) uniform = uniform && za[r] == za[0];
  for (uint64_t r = 0; r < M; r++) {
    ra[r] = 0;
    for (uint64_t t = 0; t < K; t++) ra[r] += a8[r * K + t];
  }
  for (uint64_t c = 0; c < N; c++) {
    cbs[c] = 0;
    for (uint64_t t = 0; t < K; t++) cbs[c] += b8[t * N + c];
    bias[c] = uniform ? (int32_t)wrap32(-(int64_t)za[0] * cbs[c] + (int64_t)K * za[0] * zb[c]) : 0;
  }
  for (uint64_t r = 0; r < M && row_vanishes; r++)
    for (uint64_t c = 0; c < N && row_vanishes; c++) {
      int64_t part = -(int64_t)zb[c] * ra[r];
      if (!uniform) part += -(int64_t)za[r] * cbs[c] + (int64_t)K * za[r] * zb[c];
      row_vanishes = part == 0;
    }
  return row_vanishes;
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
}

/* The host's bias of every batch (see host_corrections); *row_vanishes: the row part is zero in
 * every batch. */
static cs_status host_bias(const dense *d, int32_t **bias, bool *row_vanishes, cs_err *err) {
  int32_t *bs = calloc(d->B * d->N + 1, sizeof *bs);
  int64_t *ra = malloc((d->M + 1) * sizeof *ra), *cbs = malloc((d->N + 1) * sizeof *cbs);
  if (!bs || !ra || !cbs) {
    free(bs), free(ra), free(cbs);
    return cs_err_set(err, CS_ENOMEM, "no host memory for the corrections");
  }
  *row_vanishes = true;
  for (uint64_t bi = 0; bi < d->B; bi++)
    if (!host_corrections(d, bi, bs + bi * d->N, ra, cbs)) *row_vanishes = false;
  free(ra), free(cbs);
  *bias = bs;
  return CS_OK;
}

/* Why the fixpipe cannot requantize this product on its own (written to why), or false. */
static bool fixpipe_obstacle(const dense *d, bool row_vanishes, isa_dtype b_t, char *why, size_t why_bytes) {
  if (!row_vanishes) {
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

/* What the AIVs do, for the run's note. */
static void qcorr_note(kn_ctx *ctx, const kn_mm_qcorr *qc, bool host_requant) {
  char what[400] = "";
  size_t used = 0;
  if (qc->bias)
    used += (size_t)snprintf(what + used, sizeof what - used, "the column sums of b' and the bias the cube starts from");
  else
    used += (size_t)snprintf(what + used, sizeof what - used, "the %s sums and the correction of each int32 tile",
                             qc->col && (qc->row || qc->row_za) ? "row and column" : qc->col ? "column" : "row");
  kn_note(ctx, "note: the zero-point corrections run on the AIVs (a MIX launch): %s%s", what,
          host_requant ? "; the requantization (a double-precision product) runs on the host" : "");
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
  const char *sync = "flags";
  if (kn_attr_given(ctx, "cross_sync") && (st = kn_attr_str(ctx, "cross_sync", &sync, err)) != CS_OK) {
    dense_free(&d);
    return st;
  }
  j.gelu_sync = strcmp(sync, "no_wait") == 0 ? KN_GELU_NO_WAIT : KN_GELU_FLAGS;
  bool timing_only = kn_options(ctx)->timing_only;
  uint64_t total = d.B * d.M * d.N;
  bool requant = kn_qmm_requantizes(q);
  uint64_t *words = NULL;
  int32_t *zero_bias = NULL;
  void *c = NULL;
  kn_mm_qcorr qc = d.qc;
  if (requant && prec == KN_PRECISION_FIXPIPE) {
    char why[320];
    int32_t *hb = NULL;
    bool row_vanishes = false;
    if ((st = host_bias(&d, &hb, &row_vanishes, err)) == CS_OK && fixpipe_obstacle(&d, row_vanishes, b_t, why, sizeof why))
      st = cs_err_set(err, CS_EINVAL, "precision=fixpipe: %s (use precision=exact)", why);
    free(hb);
    if (st == CS_OK) st = fixpipe_words(q, &d, &words, err);
    if (st != CS_OK) {
      dense_free(&d);
      return st;
    }
    /* the row part vanishes: the AIVs compute the bias (none when a's zero point varies by row:
     * the column part is then row part too, and vanishes with it), the fixpipe requantizes */
    if (qc.row_za) qc.col = false;
    qc.row = qc.row_za = false;
    qc.bias = qc.col;
    j.ty.c = kn_qmm_out_dtype(q);
    j.qvec = words;
    j.q_batched = true;
  } else {
    j.ty.c = ISA_INT32;
  }
  bool aiv = qc.col || qc.row || qc.row_za;
  if (aiv) {
    j.epilogue = KN_EPI_QCORR;
    j.qc = qc;
  }
  if (!aiv) { /* the cube alone, from a zero bias as before the AIVs took the corrections */
    zero_bias = calloc(d.B * d.N + 1, sizeof *zero_bias);
    if (!zero_bias) st = cs_err_set(err, CS_ENOMEM, "no host memory for the bias");
    j.bias = zero_bias;
  } else {
    j.ty.has_bias = qc.bias; /* the AIVs write it; else they add the column part to the tiles */
  }
  if (st == CS_OK && !timing_only) {
    c = calloc(total + 1, isa_dtype_bytes(j.ty.c, 1));
    if (!c) st = cs_err_set(err, CS_ENOMEM, "no host memory for the result");
    j.c = c;
  }
  if (st == CS_OK) st = kn_mm_simulate(ctx, &j, err);
  if (st == CS_OK && !timing_only) {
    if (j.ty.c != ISA_INT32 || !requant) { /* the fixpipe's bytes, or the AIVs' int32, are the output */
      memcpy(out->data, c, total * isa_dtype_bytes(j.ty.c, 1));
    } else { /* the operator's requantization, bit for bit: a double-precision product the AIVs'
              * fp32 cannot reproduce */
      const int32_t *acc = c;
      for (uint64_t bi = 0; bi < d.B; bi++)
        for (uint64_t r = 0; r < d.M; r++)
          for (uint64_t col = 0; col < d.N; col++) {
            uint64_t e = (bi * d.M + r) * d.N + col;
            int32_t y = kn_qmm_requantize(q, acc[e], d.rows + bi * d.M + r, d.cols + bi * d.N + col);
            if (out->dtype == ISA_INT8) ((int8_t *)out->data)[e] = (int8_t)y;
            else ((uint8_t *)out->data)[e] = (uint8_t)y;
          }
    }
  }
  if (st == CS_OK && !timing_only && aiv) qcorr_note(ctx, &qc, requant && prec == KN_PRECISION_EXACT);
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
  free(zero_bias);
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
  int32_t *bias = NULL;
  bool row_vanishes = false;
  st = host_bias(&d, &bias, &row_vanishes, err);
  if (st == CS_OK && fixpipe_obstacle(&d, row_vanishes, b_t, why, sizeof why))
    st = cs_err_set(err, CS_EINVAL, "precision=fixpipe: %s (use precision=exact)", why);
  if (st == CS_OK) st = fixpipe_words(q, &d, &words, err);
  for (uint64_t bi = 0; st == CS_OK && bi < d.B; bi++)
    for (uint64_t r = 0; r < d.M; r++)
      for (uint64_t c = 0; c < d.N; c++) {
        /* the exact int32 accumulator the cube holds: re-centred products plus the column part */
        int64_t acc = bias[bi * d.N + c];
        for (uint64_t t = 0; t < d.K; t++)
          acc += (int64_t)d.a[(bi * d.M + r) * d.K + t] * d.b[(bi * d.K + t) * d.N + c];
        uint32_t y = isa_fixpipe_convert_elem(ISA_QUANT_VREQ8,
                                              ISA_INT32, words[bi * d.N + c], false, wrap32(acc),
                                              cfg->chip_fixpipe_saturation);
        ((uint8_t *)out->data)[(bi * d.M + r) * d.N + c] = (uint8_t)y;
      }
  free(words);
  free(bias);
  dense_free(&d);
  return st;
}
