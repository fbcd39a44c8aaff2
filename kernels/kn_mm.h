/* kn_mm — the shared multi-core matmul kernel behind every matmul operator (matmul,
 * matmul_quant, matmul_requant, linear, the ONNX/DirectML quantized matmuls), and its host
 * reference.
 *
 * A job is a batch of C[b] = A[b] x B[b] (+ bias) with the output conversion of the fixpipe
 * (quant mode from the types and the quant words) and, optionally, a vector epilogue that
 * dequantizes int32 results with an fp32 scale per column (ATB Linear's bf16 output). The kernel
 * splits the batch's base tiles evenly over the cores in contiguous ranges (tiles row by row),
 * and each core runs the Matmul object over its range: L1 and L0 double-buffered, the copies of
 * the next K chunk issued before the current chunk's compute.
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
  KN_EPI_DEQ_BF16  /* fixpipe NoQuant int32 to a workspace; vector: bf16_rne(fp32(acc) * scale[j]) */
} kn_epilogue;

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
  bool tiling_given;
  rt_tiling tiling;          /* used when tiling_given; else rt_tiling_auto */
  void *c;                   /* output, batch x m x n of ty.c (bf16 bits under the epilogue) */
} kn_mm_job;

/* Runs the job on a simulator built from the context's options (cores, timing-only, trace) and
 * stores the simulator and its result in the context. */
cs_status kn_mm_simulate(kn_ctx *ctx, kn_mm_job *job, cs_err *err);

/* The same outputs on the host, from the definitions of docs/ISA.md (exact products, int32
 * wrap, the documented fp32 block order, the fixpipe's element rule, the epilogue's RNE). */
cs_status kn_mm_reference(const kn_mm_job *job, const sim_config *cfg, void *c, cs_err *err);

/* Bytes of one element of the job's output in device form. */
size_t kn_mm_out_elem_bytes(const kn_mm_job *job);

/* Applies the attributes base_m, base_n, base_k and step_k, when given, over the automatic
 * tiling of the job (which must have its types and shape set); a value outside [1, 4095] or a
 * tiling that does not fit is an error naming it. The operator must declare the four. */
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
