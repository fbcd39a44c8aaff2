/* kn_mm — the shared multi-core matmul kernel behind every matmul operator (matmul,
 * matmul_quant, matmul_requant, linear, the ONNX/DirectML quantized matmuls), and its host
 * reference.
 *
 * A job is a batch of C[b] = A[b] x B[b] (+ bias) with the output conversion of the fixpipe
 * (quant mode from the types and the quant words) and, optionally, a vector epilogue on the AI
 * core's AIVs (a MIX launch) that dequantizes int32 results with an fp32 scale per column (ATB
 * Linear's bf16 output) or applies GELU (matmul_gelu). The kernel
 * gives each core its blocks of C (or, core_split round_robin, its share of the base tiles) as the
 * tiling says (runtime/rt_tiling.h), and each core runs the Matmul object over them. A tiling not
 * given in full is completed by the automatic search (docs/KERNELS.md, "The automatic tiling").
 *
 * Host data is in device form: int4 packed two per byte, fp16 and bf16 as their 16-bit patterns,
 * int32/fp32/uint64 as themselves.
 */
#ifndef KN_MM_H
#define KN_MM_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/kn_op.h"
#include "runtime/rt_matmul.h"

typedef enum kn_epilogue {
  KN_EPI_NONE,     /* the fixpipe writes C */
  KN_EPI_DEQ_BF16, /* a MIX launch: the fixpipe writes int32 tiles (NoQuant) to a GM workspace,
                    * each handed to the AI core's AIVs by a cross-core flag; they compute
                    * bf16_rne(fp32(acc) * scale[j]) with vdeq, half the tile's rows each */
  KN_EPI_GELU_AIV, /* a MIX 1:2 launch: the fixpipe writes fp32 C tile by tile, each tile handed
                    * to the AI core's two AIVs by a cross-core flag; they apply GELU in place,
                    * half the tile's rows each (docs/KERNELS.md, "matmul_gelu") */
  KN_EPI_QCORR     /* a MIX launch: the zero-point corrections of the quantized matmuls on the AIVs
                    * (kn_mm_qcorr below; kernels/kn_qmatmul.c) */
} kn_epilogue;

/* How the MIX epilogues (KN_EPI_GELU_AIV, KN_EPI_DEQ_BF16, KN_EPI_QCORR) synchronise (the last two are the
 * seeded bugs of the tests and of docs/KERNELS.md: a race, a deadlock). */
typedef enum kn_gelu_sync { KN_GELU_FLAGS, KN_GELU_NO_WAIT, KN_GELU_NO_SET } kn_gelu_sync;
#define KN_GELU_SYNC_NAMES "flags,no_wait,no_set"
#define KN_QCORR_SYNC_NAMES "flags,no_wait"
#define KN_GELU_FLAG 0 /* the cross-core flag id of "tile t is in GM" */

/* The zero-point corrections of a quantized matmul (KN_EPI_QCORR) with int8 operands a' (M x K)
 * and b' (K x N) re-centred from their stored types (docs/QUANT_OPS.md): the exact int32 result
 * is, modulo 2^32,
 *   Σ_t a'b'  +  za'[r]·(K·zb'[c] − Σ_t b'[t][c])  −  zb'[c]·Σ_t a'[r][t]
 *   (cube)       (column part)                      (row part)
 * The AIVs compute the sums from A and B in GM with vector instructions, int32 wrapping, in an
 * AIV-only launch before the MIX launch (kernels/kn_mm.c explains why two):
 *   col     the column sums and v[c] = K·zb'[c] − Σ_t b'[t][c], times za' when a's zero point is
 *           one value per batch;
 *   row     the row sums Σ_t a'[r][t], as one 32-byte block a row (the value 8 times);
 *   row_za  a's zero point varies by row: v itself, and za' as blocks like the row sums;
 *   bias    the cube starts from the column part (za' uniform; precision=fixpipe, whose fixpipe
 *           requantizes): every core passes SyncAll before the cube reads it.
 * Otherwise the cube hands each int32 tile of C over by a cross-core flag and the AIVs add the
 * terms in place (after a SyncAll of the AIVs: any AIV may need any row's or column's sums), while
 * the cube goes on with the next tiles. */
typedef struct kn_mm_qcorr {
  bool col, row, row_za, bias;
  const int32_t *za; /* batch x m: a's re-centred zero points (za - 128 for uint8 a) */
  const int32_t *zb; /* batch x n: b's */
} kn_mm_qcorr;

typedef struct kn_mm_job {
  rt_matmul_types ty;        /* ty.c: what the fixpipe writes (int32 under KN_EPI_DEQ_BF16) */
  uint32_t batch, m, n, k;
  bool b_batched;            /* B has one matrix per batch (else shared) */
  bool bias_batched, q_batched; /* bias / quant words / epilogue scales per batch */
  const void *a, *b;         /* device form; NULL in timing-only runs */
  const void *bias;          /* n (x batch) int32 or fp32, or NULL */
  bool has_qscalar;
  uint64_t qscalar;
  const uint64_t *qvec;      /* n (x batch) words, or NULL */
  bool relu;
  kn_epilogue epilogue;
  const float *epi_scale;    /* n (x batch) fp32 scales for KN_EPI_DEQ_BF16 */
  kn_gelu_sync gelu_sync;    /* KN_EPI_GELU_AIV, KN_EPI_DEQ_BF16 (linear always uses flags), KN_EPI_QCORR */
  kn_mm_qcorr qc;            /* KN_EPI_QCORR (with qc.bias the AIVs write the bias: give none) */
  rt_tiling tiling;          /* the fields of tiling_given (attributes or a --tiling file) */
  rt_tiling_mask tiling_given;
  bool tiling_analytic;      /* attribute tiling=analytic: the estimate alone completes it */
  unsigned host_threads;     /* the search's model runs run at once on these (0: the default) */
  void *c;                   /* output, batch x m x n of ty.c (bf16 bits under the epilogue) */
} kn_mm_job;

/* Runs the job on a simulator built from the context's options (cores, timing-only, trace) and
 * stores the simulator and its result in the context. The host memory it will take, with the
 * tiling's estimate of instructions, is checked first (kn_check_footprint). */
cs_status kn_mm_simulate(kn_ctx *ctx, kn_mm_job *job, cs_err *err);

/* ---- host memory ------------------------------------------------------------------------- */

/* What an m x n x k job of `batch` matrices takes on the host, its inputs of types a and b and
 * its output of type c: the host tensors, their device copies, GM, and a simulator recording
 * `instructions` (0: the least any tiling needs, from the L0 sizes); cube_only: a launch of the
 * cube cores alone (no epilogue on the AIVs), which a timing-only device streams. */
void kn_mm_footprint(const kn_ctx *ctx, uint64_t batch, uint64_t m, uint64_t n, uint64_t k, isa_dtype a, isa_dtype b,
                     isa_dtype c, uint64_t instructions, bool cube_only, kn_footprint *out);
/* The preflight of a simulated operator about to generate its inputs: the shape from its
 * attributes m, n, k (and batch), the types from in_dtype / out_dtype when it has them (given,
 * or their defaults), else from the first type its first input and output declare. */
cs_status kn_mm_preflight_attrs(kn_ctx *ctx, cs_err *err);

/* ---- the automatic tiling ---------------------------------------------------------------- */

#define KN_MM_TIMED_MAX 4 /* candidates timed by the model at most */
/* Instructions the model may replay (summed over the candidates, by their estimates) to rank
 * them: beyond it the estimate alone decides (large problems take seconds per replay). */
#define KN_MM_MODEL_BUDGET_INSNS 1500000u
/* What creating a simulator costs, counted as instructions (its L2 tags and buffers). */
#define KN_MM_MODEL_SETUP_INSNS 100000u

/* The search for the job's tiling (the fields of job->tiling_given kept): up to max candidates,
 * best first by the estimate, of which the first `timed` (-1: as many as kn_mm_model_budget
 * allows; their number in *timed_out, which may be NULL) are timed by the model, a timing-only
 * simulator each, and then come first, by the model's cycles. */
cs_status kn_mm_search(const sim_config *cfg, const kn_mm_job *job, rt_tiling_choice *out, unsigned max, unsigned *count,
                       int timed, unsigned *timed_out, cs_err *err);
/* How many of the first candidates the model budget allows timing (0 if fewer than two). */
unsigned kn_mm_model_budget(const rt_tiling_choice *c, unsigned n);

/* The same outputs on the host, from the definitions of docs/ISA.md (exact products, int32
 * wrap, the documented fp32 block order, the fixpipe's element rule, the epilogue's RNE). */
cs_status kn_mm_reference(const kn_mm_job *job, const sim_config *cfg, void *c, cs_err *err);

/* One fp32 GELU as rt_gelu computes it: the host reference of the gelu and matmul_gelu
 * operators. */
float kn_gelu_f32(float x);

/* Bytes of one element of the job's output in device form. */
size_t kn_mm_out_elem_bytes(const kn_mm_job *job);

/* The tiling attributes every matmul operator declares: one per field of RT_TILING_TABLE that is
 * not the shape (m, n, ka, kb) or is_bias, plus step_k (sets step_ka and step_kb) and tiling
 * (auto: the search, with the timing model on its best candidates; analytic: the estimate
 * alone). */
#define KN_MM_TILING_ATTR_ATTR(f, camel, lo, hi, kind, desc) {#f, KN_MM_ATTR_KIND_##kind, NULL, KN_MM_ATTR_NAMES_##kind, "tiling: " desc},
#define KN_MM_TILING_ATTR_SHAPE(f, camel, lo, hi, kind, desc)
#define KN_MM_ATTR_KIND_INT KN_ATTR_INT
#define KN_MM_ATTR_KIND_SPLIT KN_ATTR_ENUM
#define KN_MM_ATTR_KIND_API KN_ATTR_ENUM
#define KN_MM_ATTR_NAMES_INT NULL
#define KN_MM_ATTR_NAMES_SPLIT RT_CORE_SPLIT_NAMES
#define KN_MM_ATTR_NAMES_API RT_API_NAMES
#define KN_MM_TILING_ATTR_ROW(f, camel, lo, hi, kind, use, desc) KN_MM_TILING_ATTR_##use(f, camel, lo, hi, kind, desc)
#define KN_MM_TILING_ATTRS                                                                              \
  RT_TILING_TABLE(KN_MM_TILING_ATTR_ROW)                                                                 \
  {"step_k", KN_ATTR_INT, NULL, NULL, "tiling: sets step_ka and step_kb (base_k blocks per L1 load)"},   \
  {"tiling", KN_ATTR_ENUM, "auto", "auto,analytic",                                                      \
   "fields not given: searched (auto: estimate, then the timing model on the best; analytic: estimate)"}

/* Reads the tiling attributes into the job's tiling and tiling_given (the job's types and shape
 * must be set); a value out of a field's range is an error naming it. The search runs later, in
 * kn_mm_simulate. Also checks that attributes m, n and k, when given for inputs that were not
 * generated from them, agree with the inputs. */
cs_status kn_mm_tiling_attrs(const kn_ctx *ctx, kn_mm_job *job, cs_err *err);

/* A job dimension (batch, m, n or k) read from an input's shape: in [1, 2^24]
 * ("m = 0 is out of range [1, 16777216]"). */
cs_status kn_mm_dim(const char *what, uint64_t v, uint32_t *out, cs_err *err);

/* ---- host <-> device conversions used by the operators ---------------------------------- */

/* count values of a host tensor (int4 as int8 in [-8, 7], bf16 as fp32) into device form.
 * bf16 values that are not exact are rounded to nearest even and counted in *inexact. */
cs_status kn_to_device(const kn_tensor *t, isa_dtype as, void **out, uint64_t *inexact, cs_err *err);
/* Device form back into a host tensor of dtype `as` (bf16 -> fp32, int4 -> int8). */
void kn_from_device(const void *dev, isa_dtype as, kn_tensor *t);

#endif
