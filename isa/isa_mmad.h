/* isa_mmad — the cube's arithmetic (docs/ISA.md §mmad), exposed for host references and tests.
 *
 * The mmad instruction itself is the table row `mmad` (isa/isa_insn.h) and runs through
 * isa_insn_exec. This header gives what a kernel's host reference needs to reproduce the cube's
 * float results bit for bit, and the allocation-free path of the functional model.
 *
 * Float inputs (fp16/bf16) [cubesim]: the k0 = 16 products of one k-block are summed exactly
 * and rounded once to fp32 (RNE); the accumulator adds the rounded block sums in fp32 (RNE),
 * k-blocks in increasing order, starting from C (init_c = 0), the bias (bias_en) or +0.
 */
#ifndef ISA_MMAD_H
#define ISA_MMAD_H

#include <stddef.h>

#include "isa/isa_insn.h"

/* The exact sum of count terms, rounded once to fp32 (RNE, overflow to ±Inf, subnormals kept).
 * Each term is a product of two fp16 or bf16 values computed in double (exact: at most 22
 * significant bits, magnitude 0 or in [2^-266, 2^256]). An exact zero sum is +0. A NaN term,
 * or +Inf and -Inf terms together, give the quiet NaN 0x7FC00000; otherwise an infinite term
 * gives that infinity. This is one k-block of a float mmad when count = 16. */
float isa_mmad_exact_sum_f32(const double *terms, size_t count);

/* Executes an mmad (which must have passed isa_insn_check, its ranges in bounds) element by
 * element straight from the fractals, without allocating: the path isa_insn_exec takes when it
 * cannot get scratch memory. Same results as isa_insn_exec, much slower. */
void isa_sem_mmad_exec_direct(const isa_insn *in, const isa_mach *m);

#endif
