/* kn_qmatmul — the ONNX / DirectML quantized matrix products run on the simulated cube. */
#ifndef KN_QMATMUL_H
#define KN_QMATMUL_H

#include "kernels/kn_op.h"
#include "kernels/kn_qmatmul_ref.h"

typedef enum kn_precision {
  KN_PRECISION_EXACT,  /* the operator's own requantization, bit for bit */
  KN_PRECISION_FIXPIPE /* REQ8 / VREQ8 with packed fp19 words, as an Ascend kernel would */
} kn_precision;

/* Runs the prepared product q (a and b of types a_t, b_t: int8 or uint8) on ctx's simulator and
 * writes the operator's output into out (allocated by the caller: q's output type and shape).
 * With KN_PRECISION_FIXPIPE and `exact` (the reference output), notes how many elements differ. */
cs_status kn_qmatmul_simulate(kn_ctx *ctx, const kn_qmm *q, isa_dtype a_t, isa_dtype b_t, kn_precision prec,
                              const kn_tensor *exact, kn_tensor *out, cs_err *err);

/* The host reference of the fixpipe precision: the exact int32 accumulators through the
 * fixpipe's REQ8 element rule with the same words (what --check compares the simulation with). */
cs_status kn_qmatmul_fixpipe_reference(const kn_qmm *q, isa_dtype a_t, isa_dtype b_t, const sim_config *cfg,
                                       kn_tensor *out, cs_err *err);

#endif
