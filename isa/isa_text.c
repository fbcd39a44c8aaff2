/* isa_text — assembler and disassembler of single instructions, driven by the field descriptors
 * of the instruction table (no opcode appears here). */
#include "isa/isa_text.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/cs_parse.h"
#include "base/cs_suggest.h"

/* Longest line the assembler reads (the canonical text of any instruction is far shorter). */
#define MAX_LINE_CHARS 4096
/* Most fields any format has (fixpipe has 16). */
#define MAX_FIELDS 32

/* ---- disassembler ------------------------------------------------------------------------ */

/* An output buffer that counts what it could not hold, as snprintf does. */
typedef struct outbuf {
  char *s;
  size_t cap, len;
} outbuf;

static void out_add(outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_add(outbuf *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  int k = vsnprintf(room ? o->s + o->len : NULL, room, fmt, ap);
  va_end(ap);
  if (k > 0) o->len += (size_t)k;
}

static void write_addr(outbuf *o, const isa_addr *a, const isa_text_syms *syms) {
  if (a->mem < ISA_MEM_COUNT) out_add(o, "%s:", isa_mem_name((isa_mem)a->mem));
  else out_add(o, "%" PRIu32 ":", a->mem);
  if (a->mem == ISA_MEM_GM && syms && syms->name_of) {
    uint64_t base = 0;
    const char *name = syms->name_of(syms->ctx, a->off, &base);
    if (name && a->off >= base) {
      if (a->off == base) out_add(o, "%s", name);
      else out_add(o, "%s+0x%" PRIx64, name, a->off - base);
      return;
    }
  }
  out_add(o, "0x%" PRIx64, a->off);
}

static void write_field(outbuf *o, const isa_insn *in, const isa_field_desc *f,
                        const isa_text_syms *syms) {
  const void *p = isa_field_cptr(in, f);
  uint32_t v = 0;
  if (f->kind != ISA_FK_ADDR && f->kind != ISA_FK_U64) memcpy(&v, p, sizeof v);
  out_add(o, " %s=", f->name);
  switch (f->kind) {
    case ISA_FK_ADDR: write_addr(o, p, syms); break;
    case ISA_FK_U64: {
      uint64_t w;
      memcpy(&w, p, sizeof w);
      out_add(o, "0x%" PRIx64, w);
      break;
    }
    case ISA_FK_DTYPE:
      if (v < ISA_DTYPE_COUNT) out_add(o, "%s", isa_dtype_name((isa_dtype)v));
      else out_add(o, "%" PRIu32, v);
      break;
    case ISA_FK_QUANT:
      if (v < ISA_QUANT_COUNT) out_add(o, "%s", isa_quant_mode_name((isa_quant_mode)v));
      else out_add(o, "%" PRIu32, v);
      break;
    case ISA_FK_PIPE:
      if (v <= ISA_PIPE_ALL) out_add(o, "%s", isa_pipe_name((isa_pipe)v));
      else out_add(o, "%" PRIu32, v);
      break;
    case ISA_FK_U32:
    case ISA_FK_BOOL: out_add(o, "%" PRIu32, v); break;
    default: { /* an enumerated kind of the operand tables */
      size_t n;
      const char *const *names = isa_field_enum_names(f->kind, &n);
      if (names && v < n) out_add(o, "%s", names[v]);
      else out_add(o, "%" PRIu32, v);
      break;
    }
  }
}

size_t isa_disasm_syms(const isa_insn *in, const isa_text_syms *syms, char *out, size_t n) {
  outbuf o = {out, n, 0};
  if (n) out[0] = '\0';
  const isa_op_desc *d = isa_op_info((isa_op)in->op);
  if (!d) {
    out_add(&o, "<unknown opcode %" PRIu32 ">", in->op);
    return o.len;
  }
  out_add(&o, "%s", d->mnemonic);
  for (size_t i = 0; i < d->field_count; i++) write_field(&o, in, &d->fields[i], syms);
  return o.len;
}

size_t isa_disasm(const isa_insn *in, char *out, size_t n) { return isa_disasm_syms(in, NULL, out, n); }

/* ---- assembler --------------------------------------------------------------------------- */

/* A number that must fit `bits` (32 or 64) of storage. what names the field. */
static cs_status parse_uint(const char *s, const char *what, unsigned bits, uint64_t *out,
                            cs_err *err) {
  cs_status st = cs_parse_u64(s, what, out, err);
  if (st != CS_OK) return st;
  if (bits < 64 && *out > (UINT64_C(1) << bits) - 1)
    return cs_err_set(err, CS_EINVAL, "%s: '%s' does not fit in %u bits", what, s, bits);
  return CS_OK;
}

static bool starts_number(const char *s) { return isdigit((unsigned char)s[0]) != 0; }

/* The names an enumerated field accepts, for suggestions and lists. */
typedef struct name_set {
  const char *what; /* "data type", "quant mode", "pipe", "memory", "value" */
  unsigned count;
  const char *(*name)(unsigned i); /* NULL: names[i] */
  const char *const *names;
} name_set;

static const char *set_name(const name_set *ns, unsigned i) { return ns->name ? ns->name(i) : ns->names[i]; }

static const char *dtype_name_at(unsigned i) { return isa_dtype_name((isa_dtype)i); }
static const char *quant_name_at(unsigned i) { return isa_quant_mode_name((isa_quant_mode)i); }
static const char *pipe_name_at(unsigned i) { return isa_pipe_name((isa_pipe)i); }
static const char *mem_name_at(unsigned i) { return isa_mem_name((isa_mem)i); }

static const name_set dtype_names = {"data type", ISA_DTYPE_COUNT, dtype_name_at, NULL};
static const name_set quant_names = {"quant mode", ISA_QUANT_COUNT, quant_name_at, NULL};
static const name_set pipe_names = {"pipe", ISA_PIPE_ALL + 1, pipe_name_at, NULL};
static const name_set mem_names = {"memory", ISA_MEM_COUNT, mem_name_at, NULL};

/* "(did you mean 'x'?)" or "(one of a, b, c)" for a name that is not in the set. */
static void unknown_hint(const name_set *ns, const char *typed, char *out, size_t n) {
  cs_suggest sg;
  cs_suggest_init(&sg, typed);
  for (unsigned i = 0; i < ns->count; i++) cs_suggest_offer(&sg, set_name(ns, i));
  if (cs_suggest_best(&sg)) {
    snprintf(out, n, "did you mean '%s'?", cs_suggest_best(&sg));
    return;
  }
  outbuf o = {out, n, 0};
  out_add(&o, "one of");
  for (unsigned i = 0; i < ns->count; i++) out_add(&o, "%s %s", i ? "," : "", set_name(ns, i));
}

/* An enumerated value: a name of the set (resolved by from_name, which returns a value >= limit
 * when unknown; NULL: the set's names, any case) or a 32-bit number. */
static cs_status parse_enum(const char *s, const char *field, const name_set *ns,
                            unsigned (*from_name)(const char *), unsigned limit, uint32_t *out,
                            cs_err *err) {
  uint64_t v;
  if (starts_number(s)) {
    cs_status st = parse_uint(s, field, 32, &v, err);
    if (st == CS_OK) *out = (uint32_t)v;
    return st;
  }
  unsigned u = limit;
  if (from_name) u = from_name(s);
  else
    for (unsigned i = 0; i < ns->count && u == limit; i++)
      if (strcasecmp(s, ns->names[i]) == 0) u = i;
  if (u < limit) {
    *out = u;
    return CS_OK;
  }
  char hint[256];
  unknown_hint(ns, s, hint, sizeof hint);
  return cs_err_set(err, CS_EINVAL, "%s: unknown %s '%s' (%s)", field, ns->what, s, hint);
}

static unsigned dtype_from(const char *s) { return (unsigned)isa_dtype_from_name(s); }
static unsigned quant_from(const char *s) { return (unsigned)isa_quant_mode_from_name(s); }
static unsigned pipe_from(const char *s) { return (unsigned)isa_pipe_from_name(s); }
static unsigned mem_from(const char *s) { return (unsigned)isa_mem_from_name(s); }

static bool is_name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }

/* MEM:OFFSET, or GM:NAME[+OFFSET] with symbols. value is modifiable (it is the line's copy);
 * *col_shift is where the offending part starts, relative to value. */
static cs_status parse_addr(char *value, const isa_field_desc *f, const isa_text_syms *syms,
                            isa_addr *a, size_t *col_shift, cs_err *err) {
  char *colon = strchr(value, ':');
  if (!colon || colon == value || colon[1] == '\0')
    return cs_err_set(err, CS_EINVAL, "%s: '%s' is not MEM:OFFSET (for instance L1:0x200)",
                      f->name, value);
  *colon = '\0';
  char *off = colon + 1;
  uint32_t mem = 0;
  cs_status st = parse_enum(value, f->name, &mem_names, mem_from, ISA_MEM_COUNT, &mem, err);
  *colon = ':';
  if (st != CS_OK) return st;
  a->mem = mem;
  if (!is_name_start(off[0])) {
    *col_shift = (size_t)(off - value);
    return cs_parse_u64(off, f->name, &a->off, err);
  }
  /* a symbolic operand */
  *col_shift = (size_t)(off - value);
  if (mem != ISA_MEM_GM)
    return cs_err_set(err, CS_EINVAL, "%s: '%s' names a tensor, but only GM operands can",
                      f->name, value);
  if (!syms || !syms->resolve)
    return cs_err_set(err, CS_EINVAL,
                      "%s: '%s' names a tensor, which needs a program with .gm declarations",
                      f->name, value);
  char *plus = strchr(off, '+');
  uint64_t extra = 0;
  if (plus) {
    *plus = '\0';
    st = cs_parse_u64(plus + 1, f->name, &extra, err);
    if (st != CS_OK) {
      *plus = '+';
      *col_shift = (size_t)(plus + 1 - value);
      return st;
    }
  }
  for (const char *c = off; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_') {
      if (plus) *plus = '+';
      return cs_err_set(err, CS_EINVAL, "%s: '%s' is not GM:NAME or GM:NAME+OFFSET", f->name,
                        value);
    }
  st = syms->resolve(syms->ctx, f, off, extra, &a->off, err);
  if (plus) *plus = '+';
  return st;
}

static cs_status parse_field(char *value, const isa_field_desc *f, const isa_text_syms *syms,
                             isa_insn *in, size_t *col_shift, cs_err *err) {
  void *p = isa_field_ptr(in, f);
  uint64_t v;
  uint32_t u = 0;
  cs_status st;
  switch (f->kind) {
    case ISA_FK_ADDR: return parse_addr(value, f, syms, p, col_shift, err);
    case ISA_FK_U64:
      st = parse_uint(value, f->name, 64, &v, err);
      if (st == CS_OK) memcpy(p, &v, sizeof v);
      return st;
    case ISA_FK_U32:
    case ISA_FK_BOOL:
      st = parse_uint(value, f->name, 32, &v, err);
      u = (uint32_t)v;
      break;
    case ISA_FK_DTYPE:
      st = parse_enum(value, f->name, &dtype_names, dtype_from, ISA_DTYPE_COUNT, &u, err);
      break;
    case ISA_FK_QUANT:
      st = parse_enum(value, f->name, &quant_names, quant_from, ISA_QUANT_COUNT, &u, err);
      break;
    case ISA_FK_PIPE:
      st = parse_enum(value, f->name, &pipe_names, pipe_from, ISA_PIPE_ALL + 1, &u, err);
      break;
    default: {
      size_t n;
      const char *const *names = isa_field_enum_names(f->kind, &n);
      if (!names) return cs_err_set(err, CS_EINTERNAL, "%s: unknown field kind %d", f->name, f->kind);
      name_set ns = {"value", (unsigned)n, NULL, names};
      st = parse_enum(value, f->name, &ns, NULL, (unsigned)n, &u, err);
      break;
    }
  }
  if (st == CS_OK) memcpy(p, &u, sizeof u);
  return st;
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

/* Fails with the column recorded. */
static cs_status fail_at(size_t *column, size_t col, cs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static cs_status fail_at(size_t *column, size_t col, cs_err *err, const char *fmt, ...) {
  if (column) *column = col;
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->code = CS_EINVAL;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return CS_EINVAL;
}

static cs_status unknown_field(const isa_op_desc *d, const char *name, size_t *column, size_t col,
                               cs_err *err) {
  cs_suggest sg;
  cs_suggest_init(&sg, name);
  for (size_t i = 0; i < d->field_count; i++) cs_suggest_offer(&sg, d->fields[i].name);
  if (cs_suggest_best(&sg))
    return fail_at(column, col, err, "%s has no field '%s' (did you mean '%s'?)", d->mnemonic,
                   name, cs_suggest_best(&sg));
  char list[512];
  outbuf o = {list, sizeof list, 0};
  list[0] = '\0';
  for (size_t i = 0; i < d->field_count; i++) out_add(&o, "%s%s", i ? ", " : "", d->fields[i].name);
  return fail_at(column, col, err, "%s has no field '%s' (its fields: %s)", d->mnemonic, name,
                 list);
}

cs_status isa_asm_line_syms(const char *line, const isa_text_syms *syms, isa_insn *out,
                            size_t *column, cs_err *err) {
  memset(out, 0, sizeof *out);
  if (column) *column = 0;
  size_t len = strcspn(line, "#\r\n");
  if (len > MAX_LINE_CHARS)
    return fail_at(column, MAX_LINE_CHARS + 1, err, "line is longer than %d characters",
                   MAX_LINE_CHARS);
  char buf[MAX_LINE_CHARS + 1];
  memcpy(buf, line, len);
  buf[len] = '\0';

  size_t i = 0;
  while (i < len && is_blank(buf[i])) i++;
  if (i == len) return fail_at(column, 1, err, "no instruction on the line");
  size_t mn_at = i;
  while (i < len && !is_blank(buf[i])) i++;
  buf[i] = '\0';
  const char *mn = buf + mn_at;
  isa_op op = isa_op_from_mnemonic(mn);
  const isa_op_desc *d = isa_op_info(op);
  if (!d) {
    cs_suggest sg;
    cs_suggest_init(&sg, mn);
    for (int k = 0; k < ISA_OP_COUNT; k++) cs_suggest_offer(&sg, isa_op_info((isa_op)k)->mnemonic);
    if (cs_suggest_best(&sg))
      return fail_at(column, mn_at + 1, err, "unknown instruction '%s' (did you mean '%s'?)", mn,
                     cs_suggest_best(&sg));
    return fail_at(column, mn_at + 1, err, "unknown instruction '%s'", mn);
  }
  out->op = (uint32_t)op;
  if (d->field_count > MAX_FIELDS)
    return cs_err_set(err, CS_EINTERNAL, "%s has %zu fields; the assembler handles %d",
                      d->mnemonic, d->field_count, MAX_FIELDS);

  size_t seen_at[MAX_FIELDS] = {0}; /* column where each field was given, 0: not yet */
  for (i++; i < len;) {
    while (i < len && is_blank(buf[i])) i++;
    if (i >= len) break;
    size_t tok_at = i;
    while (i < len && !is_blank(buf[i])) i++;
    buf[i] = '\0';
    char *tok = buf + tok_at;
    char *eq = strchr(tok, '=');
    if (!eq || eq == tok)
      return fail_at(column, tok_at + 1, err, "expected field=value, got '%s'", tok);
    *eq = '\0';
    size_t fi = 0;
    while (fi < d->field_count && strcmp(d->fields[fi].name, tok) != 0) fi++;
    if (fi == d->field_count) return unknown_field(d, tok, column, tok_at + 1, err);
    if (seen_at[fi])
      return fail_at(column, tok_at + 1, err, "field '%s' given twice (first at column %zu)", tok,
                     seen_at[fi]);
    seen_at[fi] = tok_at + 1;
    char *value = eq + 1;
    size_t value_col = (size_t)(value - buf) + 1;
    if (*value == '\0') return fail_at(column, value_col, err, "%s: no value after '='", tok);
    size_t shift = 0;
    cs_status st = parse_field(value, &d->fields[fi], syms, out, &shift, err);
    if (st != CS_OK) {
      if (column) *column = value_col + shift;
      return st;
    }
    i++;
  }
  return CS_OK;
}

cs_status isa_asm_line(const char *line, isa_insn *out, cs_err *err) {
  size_t col = 0;
  cs_status st = isa_asm_line_syms(line, NULL, out, &col, err);
  if (st != CS_OK) cs_err_prefix(err, "column %zu", col);
  return st;
}
