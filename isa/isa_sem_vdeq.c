/* isa_sem_vdeq — vector dequant on UB: dst[r][c] = cvt(fp32(src[r][c]) * scale[c]) (docs/ISA.md
 * §vector): the bf16 epilogue of ATB Linear (docs/DESIGN.md §5.3), int32 -> fp32 / fp16 / bf16,
 * the fp16 / bf16 results under CTRL[48] like every vector conversion.
 *
 * Elements are computed row by row, columns in increasing order, each reading its inputs just
 * before writing its output, so an in-place dequant (dst = src, fp32 out, same strides) works. */
#include <stdint.h>

#include "isa/isa_fparith.h"
#include "isa/isa_insn.h"
#include "isa/isa_num.h"
#include "isa/isa_vec.h"

#define SRC_ELEM_BYTES 4u   /* int32 */
#define SCALE_ELEM_BYTES 4u /* fp32 */

static bool is_vdeq_out(uint32_t dt) { return dt == ISA_FP32 || dt == ISA_FP16 || dt == ISA_BF16; }

static uint64_t out_bytes(const isa_fmt_vdeq *p) { return isa_dtype_bits((isa_dtype)p->out_dtype) / 8; }

bool isa_sem_vdeq_check(const isa_insn *in, isa_fault *f) {
  const isa_fmt_vdeq *p = &in->u.vdeq;
  if (!is_vdeq_out(p->out_dtype))
    return isa_fault_set(f, ISA_FAULT_DTYPE, "out_dtype", p->out_dtype, 0,
                         "vdeq: out_dtype %s is not a vdeq output (fp32, fp16 or bf16)",
                         isa_dtype_name((isa_dtype)p->out_dtype));
  if (p->scale.mem != ISA_MEM_UB)
    return isa_fault_set(f, ISA_FAULT_BAD_MEM, "scale", p->scale.mem, ISA_MEMBIT(UB),
                         "vdeq: operand scale names %s; the scales must be in UB",
                         isa_mem_name((isa_mem)p->scale.mem));
  if (p->rows > 1 && p->dst_row_stride < p->cols)
    return isa_fault_set(f, ISA_FAULT_FIELD_RANGE, "dst_row_stride", p->dst_row_stride, p->cols,
                         "vdeq: dst_row_stride = %u is below cols = %u: output rows would overlap",
                         p->dst_row_stride, p->cols);
  return true;
}

size_t isa_sem_vdeq_ranges(const isa_insn *in, isa_range *out) {
  const isa_fmt_vdeq *p = &in->u.vdeq;
  uint64_t es = out_bytes(p), scale_bytes = (uint64_t)p->cols * SCALE_ELEM_BYTES;
  out[0] = (isa_range){ISA_MEM_UB, 0, p->src.off, (uint64_t)p->cols * SRC_ELEM_BYTES,
                       (uint64_t)p->src_row_stride * SRC_ELEM_BYTES, p->rows};
  out[1] = (isa_range){ISA_MEM_UB, 0, p->scale.off, scale_bytes, scale_bytes, 1};
  out[2] = (isa_range){ISA_MEM_UB, 1, p->dst.off, p->cols * es, p->dst_row_stride * es, p->rows};
  return 3;
}

void isa_sem_vdeq_work(const isa_insn *in, isa_work *w) {
  const isa_fmt_vdeq *p = &in->u.vdeq;
  w->path = ISA_PATH_VECTOR;
  w->elements = (uint64_t)p->rows * p->cols;
  /* the wider of the int32 input and the output (isa_work): 4 bytes an element, whatever out */
  uint64_t ob = out_bytes(p);
  w->bytes = w->elements * (ob > SRC_ELEM_BYTES ? ob : SRC_ELEM_BYTES);
  w->dtype = p->out_dtype;
}

void isa_sem_vdeq_exec(const isa_insn *in, const isa_mach *m) {
  const isa_fmt_vdeq *p = &in->u.vdeq;
  uint64_t es = out_bytes(p);
  const uint8_t *scale = m->ptr(m->ctx, ISA_MEM_UB, p->scale.off, (uint64_t)p->cols * SCALE_ELEM_BYTES);
  for (uint32_t r = 0; r < p->rows; r++) {
    const uint8_t *src = m->ptr(m->ctx, ISA_MEM_UB,
                                p->src.off + (uint64_t)r * p->src_row_stride * SRC_ELEM_BYTES,
                                (uint64_t)p->cols * SRC_ELEM_BYTES);
    uint8_t *dst = m->ptr(m->ctx, ISA_MEM_UB, p->dst.off + (uint64_t)r * p->dst_row_stride * es,
                          p->cols * es);
    for (uint32_t c = 0; c < p->cols; c++) {
      float x = isa_i32_to_f32((int32_t)isa_le_load32(src + (uint64_t)c * SRC_ELEM_BYTES));
      float y = isa_f32_mul(x, isa_f32_from_bits(isa_le_load32(scale + (uint64_t)c * SCALE_ELEM_BYTES)));
      isa_le_store(dst + (uint64_t)c * es, isa_vec_from_f32(p->out_dtype, y, m->env.fixpipe_saturation), es);
    }
  }
}
