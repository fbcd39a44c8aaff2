/* isa_insn — the instruction table expanded: names, field descriptors, generic checks, dispatch
 * to the semantic families, and strided-range arithmetic. No other file switches over opcodes. */
#include "isa/isa_insn.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- names ----------------------------------------------------------------------------- */

static const char *const mem_names[ISA_MEM_COUNT] = {
#define ISA_MEM_NAME(sfx, name, desc) name,
    ISA_MEM_TABLE(ISA_MEM_NAME)
#undef ISA_MEM_NAME
};

const char *isa_mem_name(isa_mem m) { return (unsigned)m < ISA_MEM_COUNT ? mem_names[m] : "?"; }

isa_mem isa_mem_from_name(const char *name) {
  for (int m = 0; m < ISA_MEM_COUNT; m++)
    if (strcasecmp(name, mem_names[m]) == 0) return (isa_mem)m;
  return ISA_MEM_COUNT;
}

static const struct {
  const char *name;
  const char *track;
} pipe_names[ISA_PIPE_COUNT] = {
#define ISA_PIPE_NAME(sfx, name, track, desc) {name, track},
    ISA_PIPE_TABLE(ISA_PIPE_NAME)
#undef ISA_PIPE_NAME
};

const char *isa_pipe_name(isa_pipe p) {
  if (p == ISA_PIPE_ALL) return "ALL";
  return (unsigned)p < ISA_PIPE_COUNT ? pipe_names[p].name : "?";
}

const char *isa_pipe_track_name(isa_pipe p) {
  return (unsigned)p < ISA_PIPE_COUNT ? pipe_names[p].track : "?";
}

isa_pipe isa_pipe_from_name(const char *name) {
  if (strcasecmp(name, "ALL") == 0) return ISA_PIPE_ALL;
  for (int p = 0; p < ISA_PIPE_COUNT; p++)
    if (strcasecmp(name, pipe_names[p].name) == 0 || strcasecmp(name, pipe_names[p].track) == 0)
      return (isa_pipe)p;
  return (isa_pipe)(ISA_PIPE_COUNT + 1);
}

static const char *const quant_names[ISA_QUANT_COUNT] = {
#define ISA_QUANT_NAME(sfx, name, l0c, desc) name,
    ISA_QUANT_TABLE(ISA_QUANT_NAME)
#undef ISA_QUANT_NAME
};

const char *isa_quant_mode_name(isa_quant_mode q) {
  return (unsigned)q < ISA_QUANT_COUNT ? quant_names[q] : "?";
}

isa_quant_mode isa_quant_mode_from_name(const char *name) {
  for (int q = 0; q < ISA_QUANT_COUNT; q++)
    if (strcasecmp(name, quant_names[q]) == 0) return (isa_quant_mode)q;
  return ISA_QUANT_COUNT;
}

bool isa_quant_mode_is_vector(isa_quant_mode q) {
  return q == ISA_QUANT_VDEQF16 || q == ISA_QUANT_VQF322B8_PRE || q == ISA_QUANT_VREQ8;
}

/* The enumerated operand kinds: one name table each, indexed by value. */
#define ISA_ENUM_NAME(sfx, name, desc) name,
static const char *const vmask_names[] = {ISA_VMASK_TABLE(ISA_ENUM_NAME)};
static const char *const round_names[] = {ISA_ROUND_TABLE(ISA_ENUM_NAME)};
static const char *const cmp_names[] = {ISA_CMP_TABLE(ISA_ENUM_NAME)};
static const char *const sel_names[] = {ISA_SEL_TABLE(ISA_ENUM_NAME)};
static const char *const order_names[] = {ISA_ORDER_TABLE(ISA_ENUM_NAME)};
static const char *const vclass_names[] = {ISA_VCLASS_TABLE(ISA_ENUM_NAME)};
#undef ISA_ENUM_NAME

#define ISA_ENUM_KIND(k, tbl) [ISA_FK_##k] = {tbl, sizeof tbl / sizeof tbl[0]}
static const struct {
  const char *const *names;
  size_t n;
} enum_kinds[] = {
    ISA_ENUM_KIND(VMASK, vmask_names), ISA_ENUM_KIND(ROUND, round_names),
    ISA_ENUM_KIND(CMP, cmp_names),     ISA_ENUM_KIND(SEL, sel_names),
    ISA_ENUM_KIND(ORDER, order_names),
};
#undef ISA_ENUM_KIND

const char *const *isa_field_enum_names(isa_field_kind k, size_t *n) {
  if ((unsigned)k >= sizeof enum_kinds / sizeof enum_kinds[0] || !enum_kinds[k].names) {
    *n = 0;
    return NULL;
  }
  *n = enum_kinds[k].n;
  return enum_kinds[k].names;
}

const char *isa_field_enum_name(isa_field_kind k, uint32_t v) {
  size_t n;
  const char *const *names = isa_field_enum_names(k, &n);
  return names && v < n ? names[v] : "?";
}

const char *isa_vclass_name(isa_vclass c) {
  return (unsigned)c < ISA_VCLASS_COUNT ? vclass_names[c] : "?";
}

static const char *const path_names[ISA_PATH_COUNT] = {
#define ISA_PATH_NAME(sfx, name) name,
    ISA_PATH_TABLE(ISA_PATH_NAME)
#undef ISA_PATH_NAME
};

const char *isa_path_name(isa_path p) { return (unsigned)p < ISA_PATH_COUNT ? path_names[p] : "?"; }

static const char *const fault_names[ISA_FAULT_COUNT] = {
#define ISA_FAULT_NAME(sfx, name, desc) name,
    ISA_FAULT_TABLE(ISA_FAULT_NAME)
#undef ISA_FAULT_NAME
};

const char *isa_fault_name(isa_fault_cause c) {
  return (unsigned)c < ISA_FAULT_COUNT ? fault_names[c] : "?";
}

bool isa_fault_set(isa_fault *f, isa_fault_cause cause, const char *operand, uint64_t value,
                   uint64_t limit, const char *fmt, ...) {
  if (!f) return false;
  va_list ap;
  f->cause = cause;
  snprintf(f->operand, sizeof f->operand, "%s", operand ? operand : "");
  f->value = value;
  f->limit = limit;
  va_start(ap, fmt);
  vsnprintf(f->msg, sizeof f->msg, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- field descriptors, one array per format ------------------------------------------- */

#define ISA_FIELD_DESC(fmt, kind, fname, fmin, fmax, funit, fdesc) \
  {#fname, ISA_FK_##kind, offsetof(isa_fmt_##fmt, fname), (uint64_t)(fmin), (uint64_t)(fmax), funit, fdesc},

#define ISA_FMT_FIELDS(fmt)                                                                   \
  static const isa_field_desc fields_##fmt[] = {ISA_FMT_##fmt(ISA_FIELD_DESC_##fmt)};
/* Each format needs its own binding of `fmt` inside the field X-macro. */
#define ISA_FIELD_DESC_copy(...) ISA_FIELD_DESC(copy, __VA_ARGS__)
#define ISA_FIELD_DESC_nd2nz(...) ISA_FIELD_DESC(nd2nz, __VA_ARGS__)
#define ISA_FIELD_DESC_load2d(...) ISA_FIELD_DESC(load2d, __VA_ARGS__)
#define ISA_FIELD_DESC_load3d(...) ISA_FIELD_DESC(load3d, __VA_ARGS__)
#define ISA_FIELD_DESC_mmad(...) ISA_FIELD_DESC(mmad, __VA_ARGS__)
#define ISA_FIELD_DESC_fixpipe(...) ISA_FIELD_DESC(fixpipe, __VA_ARGS__)
#define ISA_FIELD_DESC_flag(...) ISA_FIELD_DESC(flag, __VA_ARGS__)
#define ISA_FIELD_DESC_barrier(...) ISA_FIELD_DESC(barrier, __VA_ARGS__)
#define ISA_FIELD_DESC_scalar(...) ISA_FIELD_DESC(scalar, __VA_ARGS__)
#define ISA_FIELD_DESC_xflag(...) ISA_FIELD_DESC(xflag, __VA_ARGS__)
#define ISA_FIELD_DESC_syncall(...) ISA_FIELD_DESC(syncall, __VA_ARGS__)
#define ISA_FIELD_DESC_vdeq(...) ISA_FIELD_DESC(vdeq, __VA_ARGS__)
#define ISA_FIELD_DESC_vbinary(...) ISA_FIELD_DESC(vbinary, __VA_ARGS__)
#define ISA_FIELD_DESC_vunary(...) ISA_FIELD_DESC(vunary, __VA_ARGS__)
#define ISA_FIELD_DESC_vscalar(...) ISA_FIELD_DESC(vscalar, __VA_ARGS__)
#define ISA_FIELD_DESC_vdup(...) ISA_FIELD_DESC(vdup, __VA_ARGS__)
#define ISA_FIELD_DESC_vcopy(...) ISA_FIELD_DESC(vcopy, __VA_ARGS__)
#define ISA_FIELD_DESC_vbrcb(...) ISA_FIELD_DESC(vbrcb, __VA_ARGS__)
#define ISA_FIELD_DESC_vcmp(...) ISA_FIELD_DESC(vcmp, __VA_ARGS__)
#define ISA_FIELD_DESC_vsel(...) ISA_FIELD_DESC(vsel, __VA_ARGS__)
#define ISA_FIELD_DESC_vcast(...) ISA_FIELD_DESC(vcast, __VA_ARGS__)
#define ISA_FIELD_DESC_vreduce(...) ISA_FIELD_DESC(vreduce, __VA_ARGS__)
ISA_FORMAT_LIST(ISA_FMT_FIELDS)

static const isa_op_desc op_rows[ISA_OP_COUNT] = {
#define ISA_OP_ROW(op, mn, pipe, fmt, dstm, srcm, desc)                                     \
  {#mn, ISA_PIPE_##pipe, #fmt, fields_##fmt, sizeof fields_##fmt / sizeof fields_##fmt[0], \
   dstm, srcm, desc},
    ISA_INSN_TABLE(ISA_OP_ROW)
#undef ISA_OP_ROW
};

const isa_op_desc *isa_op_info(isa_op op) {
  return (unsigned)op < ISA_OP_COUNT ? &op_rows[op] : NULL;
}

isa_op isa_op_from_mnemonic(const char *mnemonic) {
  for (int op = 0; op < ISA_OP_COUNT; op++)
    if (strcmp(mnemonic, op_rows[op].mnemonic) == 0) return (isa_op)op;
  return ISA_OP_COUNT;
}

void *isa_field_ptr(isa_insn *in, const isa_field_desc *f) {
  return (unsigned char *)&in->u + f->offset;
}

const void *isa_field_cptr(const isa_insn *in, const isa_field_desc *f) {
  return (const unsigned char *)&in->u + f->offset;
}

isa_pipe isa_insn_pipe(const isa_insn *in) {
  if (in->op >= ISA_OP_COUNT) return ISA_PIPE_S;
  isa_pipe p = op_rows[in->op].pipe; /* the table itself: asked for every instruction, often twice */
  if (p != ISA_PIPE_DYN) return p;
  switch ((isa_op)in->op) {
    case ISA_OP_SET_FLAG: return (isa_pipe)in->u.flag.src_pipe;
    case ISA_OP_WAIT_FLAG: return (isa_pipe)in->u.flag.dst_pipe;
    case ISA_OP_CROSS_SET_FLAG: case ISA_OP_CROSS_WAIT_FLAG: return (isa_pipe)in->u.xflag.pipe;
    case ISA_OP_SYNC_ALL: return ISA_PIPE_ALL;
    default: return (isa_pipe)in->u.barrier.pipe;
  }
}

/* ---- generic checks -------------------------------------------------------------------- */

/* One field of kind `kind` at p, described by f; `role` 1 for the destination, 2 for the source
 * (the addresses whose memories the opcode table allows; the families check the others). */
static inline bool check_field(isa_field_kind kind, const void *p, int role, const isa_op_desc *d,
                               const isa_field_desc *f, isa_fault *fault) {
  uint64_t v;
  switch (kind) {
    case ISA_FK_ADDR: {
      const isa_addr *a = p;
      uint32_t allowed = 0;
      if (role == 1) allowed = d->dst_mems;
      else if (role == 2) allowed = d->src_mems;
      else return true; /* other ADDR fields: the family checks them */
      if (a->mem >= ISA_MEM_COUNT || !(allowed & (1u << a->mem)))
        return isa_fault_set(fault, ISA_FAULT_BAD_MEM, f->name, a->mem, allowed,
                             "%s: operand %s names %s, which %s cannot access", d->mnemonic,
                             f->name, isa_mem_name((isa_mem)a->mem), d->mnemonic);
      return true;
    }
    case ISA_FK_U64: return true;
    case ISA_FK_DTYPE:
      v = *(const uint32_t *)p;
      if (v >= ISA_DTYPE_COUNT)
        return isa_fault_set(fault, ISA_FAULT_DTYPE, f->name, v, ISA_DTYPE_COUNT - 1,
                             "%s: %s = %llu is not a data type", d->mnemonic, f->name,
                             (unsigned long long)v);
      return true;
    case ISA_FK_QUANT:
      v = *(const uint32_t *)p;
      if (v >= ISA_QUANT_COUNT)
        return isa_fault_set(fault, ISA_FAULT_QUANT_MODE, f->name, v, ISA_QUANT_COUNT - 1,
                             "%s: %s = %llu is not a quant mode", d->mnemonic, f->name,
                             (unsigned long long)v);
      return true;
    default:
      v = *(const uint32_t *)p;
      if (v < f->min || v > f->max)
        return isa_fault_set(fault, ISA_FAULT_FIELD_RANGE, f->name, v, v < f->min ? f->min : f->max,
                             "%s: %s = %llu is out of range [%llu, %llu]", d->mnemonic, f->name,
                             (unsigned long long)v, (unsigned long long)f->min,
                             (unsigned long long)f->max);
      return true;
  }
}

/* Every format's fields checked in the order of its field table, each with its kind and role
 * known where it is compiled (a loop over the descriptors compared names at run time: a tenth
 * of a timing-only record); the descriptors give the names and limits. */
#define ISA_ROLE(name) (strcmp(name, "dst") == 0 ? 1 : strcmp(name, "src") == 0 ? 2 : 0)
#define ISA_CHECK_FIELD(kind, name, fmin, fmax, funit, fdesc) \
  if (!check_field(ISA_FK_##kind, &f->name, ISA_ROLE(#name), d, fd++, fault)) return false;
#define ISA_CHECK_FIELDS(fmt)                                                                    \
  static bool check_fields_##fmt(const isa_insn *in, const isa_op_desc *d, isa_fault *fault) { \
    const isa_fmt_##fmt *f = &in->u.fmt;                                                         \
    const isa_field_desc *fd = fields_##fmt;                                                     \
    ISA_FMT_##fmt(ISA_CHECK_FIELD) return true;                                                  \
  }
ISA_FORMAT_LIST(ISA_CHECK_FIELDS)
#undef ISA_CHECK_FIELDS
#undef ISA_CHECK_FIELD
#undef ISA_ROLE

/* Each format's address operands, picked where compiled (the kind is a constant in each test). */
#define ISA_ADDR_FIELD(kind, name, fmin, fmax, funit, fdesc) \
  if (ISA_FK_##kind == ISA_FK_ADDR) a[n] = (const void *)&f->name, fd[n++] = d;    \
  d++;
#define ISA_ADDR_COUNT(kind, name, fmin, fmax, funit, fdesc) +(ISA_FK_##kind == ISA_FK_ADDR)
#define ISA_ADDR_FIELDS(fmt)                                                                         \
  _Static_assert(0 ISA_FMT_##fmt(ISA_ADDR_COUNT) <= ISA_MAX_ADDRS, "ISA_MAX_ADDRS: format " #fmt); \
  static size_t addrs_##fmt(const isa_insn *in, const isa_addr **a, const isa_field_desc **fd) {    \
    const isa_fmt_##fmt *f = &in->u.fmt;                                                            \
    const isa_field_desc *d = fields_##fmt;                                                         \
    size_t n = 0;                                                                                   \
    ISA_FMT_##fmt(ISA_ADDR_FIELD) return n;                                                         \
  }
ISA_FORMAT_LIST(ISA_ADDR_FIELDS)
#undef ISA_ADDR_FIELDS
#undef ISA_ADDR_COUNT
#undef ISA_ADDR_FIELD

typedef bool (*fields_check_fn)(const isa_insn *, const isa_op_desc *, isa_fault *);
typedef size_t (*addrs_fn)(const isa_insn *, const isa_addr **, const isa_field_desc **);
typedef bool (*sem_check_fn)(const isa_insn *, isa_fault *);
typedef size_t (*sem_ranges_fn)(const isa_insn *, isa_range *);
typedef void (*sem_work_fn)(const isa_insn *, isa_work *);
typedef void (*sem_exec_fn)(const isa_insn *, const isa_mach *);

static const struct {
  fields_check_fn fields;
  addrs_fn addrs;
  sem_check_fn check;
  sem_ranges_fn ranges;
  sem_work_fn work;
  sem_exec_fn exec;
} sem_rows[ISA_OP_COUNT] = {
#define ISA_SEM_ROW(op, mn, pipe, fmt, dstm, srcm, desc) \
  {check_fields_##fmt, addrs_##fmt, isa_sem_##fmt##_check, isa_sem_##fmt##_ranges, isa_sem_##fmt##_work, isa_sem_##fmt##_exec},
    ISA_INSN_TABLE(ISA_SEM_ROW)
#undef ISA_SEM_ROW
};

bool isa_insn_check(const isa_insn *in, isa_fault *f) {
  const isa_op_desc *d = isa_op_info((isa_op)in->op);
  if (!d)
    return isa_fault_set(f, ISA_FAULT_BAD_OPCODE, "op", in->op, ISA_OP_COUNT - 1,
                         "unknown opcode %u", in->op);
  return sem_rows[in->op].fields(in, d, f) && sem_rows[in->op].check(in, f);
}

size_t isa_insn_ranges(const isa_insn *in, isa_range *out) { return sem_rows[in->op].ranges(in, out); }

size_t isa_insn_addrs(const isa_insn *in, const isa_addr *a[ISA_MAX_ADDRS], const isa_field_desc *fd[ISA_MAX_ADDRS]) {
  return sem_rows[in->op].addrs(in, a, fd);
}

void isa_insn_work(const isa_insn *in, isa_work *w) {
  static const isa_work blank; /* copied: a memset of it compiles to `rep stos`, slow to start */
  memcpy(w, &blank, sizeof *w);
  sem_rows[in->op].work(in, w);
}

void isa_insn_exec(const isa_insn *in, const isa_mach *m) { sem_rows[in->op].exec(in, m); }

/* ---- strided ranges -------------------------------------------------------------------- */

uint64_t isa_range_bytes(const isa_range *r) { return r->rows * r->row_bytes; }

/* Does the segment [lo, hi) meet any run of r? The runs of r that can meet it are those whose
 * start lies in (lo - row_bytes, hi); find the first by division and test it. */
static bool segment_meets(uint64_t lo, uint64_t hi, const isa_range *r) {
  if (r->rows == 0 || hi <= r->base || lo >= isa_range_end(r)) return false;
  if (r->rows == 1 || r->stride_bytes <= r->row_bytes) return true; /* runs touch: contiguous */
  /* first run index j with base + j*stride + row_bytes > lo */
  uint64_t j = 0;
  if (lo + 1 > r->base + r->row_bytes) j = (lo + 1 - r->base - r->row_bytes + r->stride_bytes - 1) / r->stride_bytes;
  if (j >= r->rows) return false;
  return r->base + j * r->stride_bytes < hi;
}

bool isa_range_overlap(const isa_range *a, const isa_range *b) {
  if (a->mem != b->mem || a->rows == 0 || b->rows == 0 || a->row_bytes == 0 || b->row_bytes == 0)
    return false; /* an empty range meets nothing */
  if (isa_range_end(a) <= b->base || isa_range_end(b) <= a->base) return false;
  /* walk the runs of the range with fewer runs against the other */
  const isa_range *few = a->rows <= b->rows ? a : b;
  const isa_range *many = few == a ? b : a;
  if (few->rows > 1 && few->stride_bytes <= few->row_bytes)
    return segment_meets(few->base, isa_range_end(few), many);
  for (uint64_t i = 0; i < few->rows; i++) {
    uint64_t lo = few->base + i * few->stride_bytes;
    if (segment_meets(lo, lo + few->row_bytes, many)) return true;
  }
  return false;
}

uint32_t isa_insn_unit_flag(const isa_insn *in) {
  if (in->op == ISA_OP_MMAD) return in->u.mmad.unit_flag;
  if (in->op == ISA_OP_FIXPIPE) return in->u.fixpipe.unit_flag;
  return 0;
}

bool isa_insn_l2_bypass(const isa_insn *in) {
  switch ((isa_op)in->op) {
    case ISA_OP_COPY_GM_L1:
    case ISA_OP_COPY_GM_UB:
    case ISA_OP_COPY_UB_GM: return in->u.copy.l2_bypass != 0;
    case ISA_OP_COPY_GM_L1_ND2NZ: return in->u.nd2nz.l2_bypass != 0;
    default: return false;
  }
}
