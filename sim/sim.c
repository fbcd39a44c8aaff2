/* sim — the simulator handle, GM, per-core buffers and the record phase (check, apply, append). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

/* Size and alignment of each on-chip buffer, from the configuration. */
static void onchip_geometry(const sim_config *c, isa_mem mem, uint64_t *bytes, uint64_t *align) {
  switch (mem) {
    case ISA_MEM_L1: *bytes = c->buffers_l1_bytes; *align = c->buffers_l1_align_bytes; break;
    case ISA_MEM_L0A: *bytes = c->buffers_l0a_bytes; *align = c->buffers_l0a_align_bytes; break;
    case ISA_MEM_L0B: *bytes = c->buffers_l0b_bytes; *align = c->buffers_l0b_align_bytes; break;
    case ISA_MEM_L0C: *bytes = c->buffers_l0c_bytes; *align = c->buffers_l0c_align_bytes; break;
    case ISA_MEM_UB: *bytes = c->buffers_ub_bytes; *align = c->buffers_ub_align_bytes; break;
    case ISA_MEM_BT: *bytes = c->buffers_bt_bytes; *align = c->buffers_bt_align_bytes; break;
    case ISA_MEM_FB: *bytes = c->buffers_fb_bytes; *align = c->buffers_fb_align_bytes; break;
    default: *bytes = 0; *align = 1; break;
  }
}

cs_status sim_create(const sim_config *cfg, const sim_options *opt, sim **out, cs_err *err) {
  *out = NULL;
  cs_status st = sim_config_validate(cfg, err);
  if (st != CS_OK) return st;
  sim *s = calloc(1, sizeof *s);
  if (!s) return cs_err_set(err, CS_ENOMEM, "no host memory for a simulator");
  s->cfg = *cfg;
  sim_config_derive(cfg, &s->d);
  s->timing_only = opt && opt->timing_only;
  s->progress = opt ? opt->progress : NULL;
  sim_buf_init_gm(&s->gm, cfg->buffers_gm_capacity_bytes, cfg->buffers_gm_align_bytes, !s->timing_only);
  s->ncores = (unsigned)cfg->chip_cores;
  s->cores = calloc(s->ncores, sizeof *s->cores);
  if (!s->cores) {
    sim_destroy(s);
    return cs_err_set(err, CS_ENOMEM, "no host memory for %u cores", (unsigned)cfg->chip_cores);
  }
  for (unsigned i = 0; i < s->ncores; i++) {
    sim_core *c = &s->cores[i];
    c->owner = s;
    c->index = i;
    for (int m = 0; m < ISA_MEM_COUNT; m++) {
      if (m == ISA_MEM_GM) continue;
      uint64_t bytes, align;
      onchip_geometry(cfg, (isa_mem)m, &bytes, &align);
      st = sim_buf_init_onchip(&c->bufs[m], (isa_mem)m, bytes, align, !s->timing_only, err);
      if (st != CS_OK) {
        sim_destroy(s);
        return st;
      }
    }
    if (!s->timing_only && (st = isa_host_create(opt ? opt->kernel : ISA_KERNEL_AUTO, &c->host, err)) != CS_OK) {
      sim_destroy(s);
      return st;
    }
  }
  *out = s;
  return CS_OK;
}

void sim_destroy(sim *s) {
  if (!s) return;
  for (unsigned i = 0; s->cores && i < s->ncores; i++) {
    for (int m = 0; m < ISA_MEM_COUNT; m++) sim_buf_free(&s->cores[i].bufs[m]);
    isa_host_destroy(s->cores[i].host);
    free(s->cores[i].stream);
  }
  free(s->cores);
  sim_buf_free(&s->gm);
  free(s);
}

const sim_config *sim_get_config(const sim *s) { return &s->cfg; }
const sim_config_derived *sim_get_derived(const sim *s) { return &s->d; }
bool sim_is_timing_only(const sim *s) { return s->timing_only; }
unsigned sim_core_count(const sim *s) { return s->ncores; }
sim_core *sim_get_core(sim *s, unsigned index) { return index < s->ncores ? &s->cores[index] : NULL; }
unsigned sim_core_index(const sim_core *c) { return c->index; }

cs_status sim_gm_alloc(sim *s, const char *name, uint64_t bytes, uint64_t *addr, cs_err *err) {
  return sim_buf_alloc(&s->gm, name, bytes, 512, addr, err);
}

uint8_t *sim_gm_ptr(sim *s, uint64_t addr, uint64_t bytes) { return sim_buf_ptr(&s->gm, addr, bytes); }

const char *sim_gm_tensor_name(const sim *s, uint64_t addr) {
  const sim_seg *seg = sim_buf_find(&s->gm, addr, 1);
  return seg ? seg->name : NULL;
}

size_t sim_gm_tensor_count(const sim *s) { return s->gm.seg_count; }

void sim_gm_tensor_at(const sim *s, size_t i, const char **name, uint64_t *addr, uint64_t *bytes) {
  const sim_seg *seg = &s->gm.segs[i];
  *name = seg->name;
  *addr = seg->base;
  *bytes = seg->bytes;
}

const sim_fault *sim_core_fault(const sim_core *c) { return c->faulted ? &c->fault : NULL; }
size_t sim_core_stream_len(const sim_core *c) { return c->len; }
const isa_insn *sim_core_stream(const sim_core *c) { return c->stream; }

uint8_t *sim_core_buf(sim_core *c, isa_mem mem) {
  if (mem == ISA_MEM_GM || mem >= ISA_MEM_COUNT || !c->bufs[mem].backed) return NULL;
  return c->bufs[mem].segs[0].data;
}

/* isa_mach.ptr: ranges were checked before exec, so the lookup always succeeds. */
static uint8_t *mach_ptr(void *ctx, isa_mem mem, uint64_t off, uint64_t bytes) {
  return sim_buf_ptr(sim_core_mem(ctx, mem), off, bytes);
}

/* Every address operand must be aligned as its memory requires (docs/DESIGN.md §4). Unused address
 * operands are left zero by the runtime and the assembler, which is aligned everywhere. */
static bool check_alignment(sim_core *c, const isa_insn *in, isa_fault *f) {
  const isa_op_desc *d = isa_op_info((isa_op)in->op);
  for (size_t i = 0; i < d->field_count; i++) {
    const isa_field_desc *fd = &d->fields[i];
    if (fd->kind != ISA_FK_ADDR) continue;
    const isa_addr *a = isa_field_cptr(in, fd);
    if (a->mem >= ISA_MEM_COUNT)
      return isa_fault_set(f, ISA_FAULT_BAD_MEM, fd->name, a->mem, ISA_MEM_COUNT - 1,
                           "%s: operand %s names memory %u, which does not exist", d->mnemonic,
                           fd->name, a->mem);
    uint64_t align = sim_core_mem(c, (isa_mem)a->mem)->align_bytes;
    if (align > 1 && a->off % align != 0)
      return isa_fault_set(f, ISA_FAULT_MISALIGNED, fd->name, a->off, align,
                           "%s: operand %s = %s:0x%" PRIx64 " is not %" PRIu64 "-byte aligned",
                           d->mnemonic, fd->name, isa_mem_name((isa_mem)a->mem), a->off, align);
  }
  return true;
}

static cs_status append(sim_core *c, const isa_insn *in) {
  if (c->len == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 256;
    isa_insn *s = realloc(c->stream, cap * sizeof *s);
    if (!s) return CS_ENOMEM;
    c->stream = s;
    c->cap = cap;
  }
  c->stream[c->len++] = *in;
  return CS_OK;
}

cs_status sim_core_issue(sim_core *c, const isa_insn *in) {
  if (c->faulted) return CS_EFAULT;
  isa_fault f;
  memset(&f, 0, sizeof f);
  bool ok = isa_insn_check(in, &f) && check_alignment(c, in, &f);
  if (ok) {
    isa_range r[ISA_MAX_RANGES];
    size_t n = isa_insn_ranges(in, r);
    for (size_t i = 0; ok && i < n; i++) ok = sim_buf_check_range(sim_core_mem(c, (isa_mem)r[i].mem), &r[i], &f);
  }
  if (!ok) {
    c->faulted = true;
    c->fault.f = f;
    c->fault.core = c->index;
    c->fault.index = c->len;
    c->fault.insn = *in;
    return CS_EFAULT;
  }
  if (!c->owner->timing_only) {
    isa_mach m = {c, mach_ptr, {c->owner->cfg.chip_fixpipe_saturation}, c->host};
    isa_insn_exec(in, &m);
  }
  sim *s = c->owner;
  if (s->progress && ++s->recorded % SIM_PROGRESS_STEP == 0) {
    sim_progress p = {.recorded = s->recorded};
    s->progress->fn(s->progress->ctx, &p);
  }
  if (append(c, in) != CS_OK) {
    c->faulted = true;
    memset(&c->fault, 0, sizeof c->fault);
    c->fault.core = c->index;
    c->fault.index = c->len;
    c->fault.insn = *in;
    snprintf(c->fault.f.msg, sizeof c->fault.f.msg, "no host memory to record the stream");
    return CS_ENOMEM;
  }
  return CS_OK;
}

void sim_core_raise(sim_core *c, isa_fault_cause cause, const char *fmt, ...) {
  if (c->faulted) return;
  c->faulted = true;
  memset(&c->fault, 0, sizeof c->fault);
  c->fault.f.cause = cause;
  c->fault.core = c->index;
  c->fault.index = c->len;
  c->fault.insn.op = ISA_OP_COUNT;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->fault.f.msg, sizeof c->fault.f.msg, fmt, ap);
  va_end(ap);
}

void sim_fault_describe(const sim_fault *f, char *out, size_t out_bytes) {
  const isa_op_desc *d = isa_op_info((isa_op)f->insn.op);
  if (!d && f->index == 0) /* raised by the runtime before the core issued anything */
    snprintf(out, out_bytes, "core %u, before its first instruction: %s [%s]", f->core, f->f.msg,
             isa_fault_name((isa_fault_cause)f->f.cause));
  else if (!d) /* raised between instructions: index is the stream position, one past the last */
    snprintf(out, out_bytes, "core %u, after instruction %" PRIu64 ": %s [%s]", f->core,
             f->index - 1, f->f.msg, isa_fault_name((isa_fault_cause)f->f.cause));
  else
    snprintf(out, out_bytes, "core %u, instruction %" PRIu64 " (%s): %s [%s]", f->core, f->index,
             d->mnemonic, f->f.msg, isa_fault_name((isa_fault_cause)f->f.cause));
}
