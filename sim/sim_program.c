/* sim_program — the text program format (docs/PROGRAM.md): parser, linker, issue, and the writer
 * that turns recorded streams back into a program. */
#include "sim/sim_program.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_file.h"
#include "base/cs_parse.h"
#include "base/cs_suggest.h"
#include "isa/isa_text.h"

/* Longest line content (before any comment) the parser reads. */
#define MAX_LINE_CHARS 4096
/* A tensor may hold at most 2^48 elements (far beyond any GM). */
#define MAX_TENSOR_ELEMENTS (UINT64_C(1) << 48)
/* .core numbers above this are refused while parsing (chip.aic_cores is far smaller). */
#define MAX_CORE_NUMBER 65535u

static const char *const kind_names[SIM_TENSOR_KIND_COUNT] = {
#define SIM_TENSOR_KIND_NAME(sfx, name) name,
    SIM_TENSOR_KIND_TABLE(SIM_TENSOR_KIND_NAME)
#undef SIM_TENSOR_KIND_NAME
};

const char *sim_tensor_kind_name(sim_tensor_kind k) {
  return (unsigned)k < SIM_TENSOR_KIND_COUNT ? kind_names[k] : "?";
}

bool sim_tensor_kind_is_input(sim_tensor_kind k) { return k == SIM_TENSOR_IN || k == SIM_TENSOR_INOUT; }
bool sim_tensor_kind_is_output(sim_tensor_kind k) { return k == SIM_TENSOR_OUT || k == SIM_TENSOR_INOUT; }

void sim_program_free(sim_program *p) {
  if (!p) return;
  free(p->file);
  free(p->tensors);
  free(p->insns);
  free(p->core_dirs);
  free(p);
}

const sim_prog_tensor *sim_program_tensor(const sim_program *p, const char *name) {
  for (size_t i = 0; i < p->ntensors; i++)
    if (strcmp(p->tensors[i].name, name) == 0) return &p->tensors[i];
  return NULL;
}

const char *sim_program_suggest_tensor(const sim_program *p, const char *typed) {
  cs_suggest sg;
  cs_suggest_init(&sg, typed);
  for (size_t i = 0; i < p->ntensors; i++) cs_suggest_offer(&sg, p->tensors[i].name);
  return cs_suggest_best(&sg);
}

/* ---- parser ------------------------------------------------------------------------------ */

typedef struct parser {
  sim_program *p;
  size_t tensor_cap, insn_cap, core_dir_cap;
  unsigned line;
  unsigned core;        /* of the instructions that follow */
  sim_prog_insn *cur;   /* the instruction being assembled */
  cs_err *err;
} parser;

/* Fails with "file:line:column: message". */
static cs_status perr(parser *ps, size_t column, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static cs_status perr(parser *ps, size_t column, const char *fmt, ...) {
  if (ps->err) {
    char msg[CS_ERR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cs_err_set(ps->err, CS_EINVAL, "%s:%u:%zu: %s", ps->p->file, ps->line, column, msg);
  }
  return CS_EINVAL;
}

/* Makes room for one more element of an array that grows by doubling. */
static cs_status grow(void **arr, size_t *cap, size_t used, size_t elem_bytes, cs_err *err) {
  if (used < *cap) return CS_OK;
  size_t ncap = *cap ? *cap * 2 : 64;
  void *n = realloc(*arr, ncap * elem_bytes);
  if (!n) return cs_err_set(err, CS_ENOMEM, "no host memory for the program");
  *arr = n;
  *cap = ncap;
  return CS_OK;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

/* A cursor over one line's content (comment and line end removed). */
typedef struct cursor {
  const char *s;
  size_t len, i;
} cursor;

static void skip_blanks(cursor *c) {
  while (c->i < c->len && blank(c->s[c->i])) c->i++;
}

/* The next blank-separated token into tok (cut to tok_bytes - 1); returns its 1-based column,
 * 0 at the end of the line. */
static size_t next_token(cursor *c, char *tok, size_t tok_bytes) {
  skip_blanks(c);
  if (c->i >= c->len) return 0;
  size_t at = c->i, n = 0;
  while (c->i < c->len && !blank(c->s[c->i])) {
    if (n + 1 < tok_bytes) tok[n++] = c->s[c->i];
    c->i++;
  }
  tok[n] = '\0';
  return at + 1;
}

static bool valid_name(const char *s) {
  if (!isalpha((unsigned char)s[0]) && s[0] != '_') return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

/* [d0,d1,...] (blanks allowed inside), starting at the cursor. */
static cs_status parse_shape(parser *ps, cursor *c, sim_prog_tensor *t) {
  skip_blanks(c);
  size_t open_col = c->i + 1;
  if (c->i >= c->len || c->s[c->i] != '[') {
    char tok[64];
    size_t col = next_token(c, tok, sizeof tok);
    if (!col) return perr(ps, c->len + 1, ".gm %s: expected a shape such as [16,32]", t->name);
    return perr(ps, col, ".gm %s: expected a shape such as [16,32], got '%s'", t->name, tok);
  }
  c->i++;
  t->ndim = 0;
  t->elements = 1;
  skip_blanks(c);
  if (c->i < c->len && c->s[c->i] == ']') {
    c->i++;
    return CS_OK;
  }
  for (;;) {
    skip_blanks(c);
    size_t at = c->i;
    char num[32];
    size_t n = 0;
    while (c->i < c->len && isalnum((unsigned char)c->s[c->i])) {
      if (n + 1 < sizeof num) num[n++] = c->s[c->i];
      c->i++;
    }
    num[n] = '\0';
    if (n == 0) {
      if (c->i >= c->len) return perr(ps, open_col, ".gm %s: the shape has no closing ']'", t->name);
      return perr(ps, at + 1, ".gm %s: expected a dimension, got '%c'", t->name, c->s[c->i]);
    }
    if (t->ndim == SIM_PROG_MAX_DIMS)
      return perr(ps, at + 1, ".gm %s: more than %d dimensions", t->name, SIM_PROG_MAX_DIMS);
    uint64_t d;
    cs_err e;
    if (cs_parse_u64(num, "dimension", &d, &e) != CS_OK) return perr(ps, at + 1, ".gm %s: %s", t->name, e.msg);
    if (d == 0)
      return perr(ps, at + 1, ".gm %s: dimension %d is 0; every dimension must be at least 1",
                  t->name, t->ndim);
    if (d > MAX_TENSOR_ELEMENTS / t->elements)
      return perr(ps, at + 1, ".gm %s: more than 2^48 elements", t->name);
    t->shape[t->ndim++] = d;
    t->elements *= d;
    skip_blanks(c);
    if (c->i < c->len && c->s[c->i] == ',') {
      c->i++;
      continue;
    }
    if (c->i < c->len && c->s[c->i] == ']') {
      c->i++;
      return CS_OK;
    }
    if (c->i >= c->len) return perr(ps, open_col, ".gm %s: the shape has no closing ']'", t->name);
    return perr(ps, c->i + 1, ".gm %s: expected ',' or ']' in the shape, got '%c'", t->name,
                c->s[c->i]);
  }
}

static cs_status parse_gm(parser *ps, cursor *c) {
  sim_program *p = ps->p;
  cs_status st = grow((void **)&p->tensors, &ps->tensor_cap, p->ntensors, sizeof *p->tensors, ps->err);
  if (st != CS_OK) return st;
  sim_prog_tensor *t = &p->tensors[p->ntensors];
  memset(t, 0, sizeof *t);
  t->line = ps->line;
  char tok[256];
  size_t col = next_token(c, tok, sizeof tok);
  if (!col) return perr(ps, c->len + 1, ".gm: expected NAME DTYPE [d0,d1,...] in|out|inout|temp");
  if (!valid_name(tok))
    return perr(ps, col, ".gm: tensor name '%s' must start with a letter or '_' and hold only "
                "letters, digits and '_'", tok);
  if (strlen(tok) >= SIM_PROG_NAME_BYTES)
    return perr(ps, col, ".gm: tensor name '%s' is longer than %d characters", tok,
                SIM_PROG_NAME_BYTES - 1);
  const sim_prog_tensor *dup = sim_program_tensor(p, tok);
  if (dup) return perr(ps, col, ".gm: tensor '%s' is already declared at line %u", tok, dup->line);
  memcpy(t->name, tok, strlen(tok) + 1);

  col = next_token(c, tok, sizeof tok);
  if (!col) return perr(ps, c->len + 1, ".gm %s: expected a data type (int8, fp16, ...)", t->name);
  isa_dtype dt = isa_dtype_from_name(tok);
  if (dt == ISA_DTYPE_COUNT) {
    cs_suggest sg;
    cs_suggest_init(&sg, tok);
    for (int k = 0; k < ISA_DTYPE_COUNT; k++) cs_suggest_offer(&sg, isa_dtype_name((isa_dtype)k));
    if (cs_suggest_best(&sg))
      return perr(ps, col, ".gm %s: unknown data type '%s' (did you mean '%s'?)", t->name, tok,
                  cs_suggest_best(&sg));
    return perr(ps, col, ".gm %s: unknown data type '%s'", t->name, tok);
  }
  t->dtype = dt;

  st = parse_shape(ps, c, t);
  if (st != CS_OK) return st;
  t->bytes = isa_dtype_bytes(t->dtype, t->elements);

  col = next_token(c, tok, sizeof tok);
  if (!col) return perr(ps, c->len + 1, ".gm %s: expected in, out, inout or temp", t->name);
  int kind = -1;
  for (int k = 0; k < SIM_TENSOR_KIND_COUNT; k++)
    if (strcmp(tok, kind_names[k]) == 0) kind = k;
  if (kind < 0) {
    cs_suggest sg;
    cs_suggest_init(&sg, tok);
    for (int k = 0; k < SIM_TENSOR_KIND_COUNT; k++) cs_suggest_offer(&sg, kind_names[k]);
    if (cs_suggest_best(&sg))
      return perr(ps, col, ".gm %s: unknown tensor kind '%s' (did you mean '%s'?)", t->name, tok,
                  cs_suggest_best(&sg));
    return perr(ps, col, ".gm %s: unknown tensor kind '%s' (one of in, out, inout, temp)",
                t->name, tok);
  }
  t->kind = (sim_tensor_kind)kind;
  col = next_token(c, tok, sizeof tok);
  if (col) return perr(ps, col, ".gm %s: unexpected '%s' after the declaration", t->name, tok);
  p->ntensors++;
  return CS_OK;
}

static cs_status parse_core(parser *ps, cursor *c) {
  sim_program *p = ps->p;
  char tok[64];
  size_t col = next_token(c, tok, sizeof tok);
  if (!col) return perr(ps, c->len + 1, ".core: expected a core number");
  uint64_t v;
  cs_err e;
  if (cs_parse_u64(tok, ".core", &v, &e) != CS_OK) return perr(ps, col, "%s", e.msg);
  if (v > MAX_CORE_NUMBER)
    return perr(ps, col, ".core %s: no chip has that many cores (at most %u)", tok,
                MAX_CORE_NUMBER + 1);
  size_t col2 = next_token(c, tok, sizeof tok);
  if (col2) return perr(ps, col2, ".core: unexpected '%s' after the core number", tok);
  cs_status st = grow((void **)&p->core_dirs, &ps->core_dir_cap, p->ncore_dirs,
                      sizeof *p->core_dirs, ps->err);
  if (st != CS_OK) return st;
  p->core_dirs[p->ncore_dirs++] = (sim_prog_core_dir){(unsigned)v, ps->line, (unsigned)col};
  ps->core = (unsigned)v;
  return CS_OK;
}

/* isa_text_syms.resolve: GM:NAME+offset -> offset, remembered as a relocation. */
static cs_status resolve_name(void *ctx, const isa_field_desc *field, const char *name,
                              uint64_t offset, uint64_t *addr, cs_err *err) {
  parser *ps = ctx;
  const sim_prog_tensor *t = sim_program_tensor(ps->p, name);
  if (!t) {
    const char *near = sim_program_suggest_tensor(ps->p, name);
    if (near)
      return cs_err_set(err, CS_EINVAL, "%s: unknown tensor '%s' (did you mean '%s'?)",
                        field->name, name, near);
    return cs_err_set(err, CS_EINVAL, "%s: unknown tensor '%s' (declare it with .gm first)",
                      field->name, name);
  }
  sim_prog_insn *in = ps->cur;
  if (in->nrelocs == SIM_PROG_MAX_RELOCS)
    return cs_err_set(err, CS_EINVAL, "%s: more than %d tensor operands", field->name,
                      SIM_PROG_MAX_RELOCS);
  in->relocs[in->nrelocs++] =
      (sim_prog_reloc){(uint32_t)field->offset, (uint32_t)(t - ps->p->tensors)};
  *addr = offset;
  return CS_OK;
}

static cs_status parse_insn(parser *ps, const char *content) {
  sim_program *p = ps->p;
  cs_status st = grow((void **)&p->insns, &ps->insn_cap, p->ninsns, sizeof *p->insns, ps->err);
  if (st != CS_OK) return st;
  sim_prog_insn *in = &p->insns[p->ninsns];
  memset(in, 0, sizeof *in);
  in->core = ps->core;
  in->line = ps->line;
  ps->cur = in;
  isa_text_syms syms = {ps, NULL, resolve_name};
  size_t col = 0;
  cs_err e;
  st = isa_asm_line_syms(content, &syms, &in->insn, &col, &e);
  if (st != CS_OK) return perr(ps, col, "%s", e.msg);
  p->ninsns++;
  return CS_OK;
}

static cs_status parse_line(parser *ps, const char *line, size_t len) {
  size_t content = 0;
  while (content < len && line[content] != '#') content++;
  while (content > 0 && (blank(line[content - 1]) || line[content - 1] == '\r')) content--;
  for (size_t i = 0; i < content; i++)
    if (line[i] == '\0' || line[i] == '\r') return perr(ps, i + 1, "unexpected control character");
  if (content > MAX_LINE_CHARS)
    return perr(ps, MAX_LINE_CHARS + 1, "line is longer than %d characters", MAX_LINE_CHARS);
  char buf[MAX_LINE_CHARS + 1];
  memcpy(buf, line, content);
  buf[content] = '\0';
  cursor c = {buf, content, 0};
  skip_blanks(&c);
  if (c.i == content) return CS_OK; /* blank or comment */
  if (buf[c.i] != '.') return parse_insn(ps, buf);
  char dir[64];
  size_t col = next_token(&c, dir, sizeof dir);
  if (strcmp(dir, ".gm") == 0) return parse_gm(ps, &c);
  if (strcmp(dir, ".core") == 0) return parse_core(ps, &c);
  cs_suggest sg;
  cs_suggest_init(&sg, dir);
  cs_suggest_offer(&sg, ".gm");
  cs_suggest_offer(&sg, ".core");
  if (cs_suggest_best(&sg))
    return perr(ps, col, "unknown directive '%s' (did you mean '%s'?)", dir, cs_suggest_best(&sg));
  return perr(ps, col, "unknown directive '%s' (the directives are .gm and .core)", dir);
}

cs_status sim_program_parse(const char *text, size_t len, const char *file, sim_program **out,
                            cs_err *err) {
  *out = NULL;
  sim_program *p = calloc(1, sizeof *p);
  if (!p) return cs_err_set(err, CS_ENOMEM, "no host memory for the program");
  p->file = strdup(file ? file : "<program>");
  if (!p->file) {
    sim_program_free(p);
    return cs_err_set(err, CS_ENOMEM, "no host memory for the program");
  }
  parser ps = {.p = p, .err = err};
  size_t at = 0;
  cs_status st = CS_OK;
  while (at < len && st == CS_OK) {
    size_t end = at;
    while (end < len && text[end] != '\n') end++;
    ps.line++;
    st = parse_line(&ps, text + at, end - at);
    at = end + 1;
  }
  if (st != CS_OK) {
    sim_program_free(p);
    return st;
  }
  *out = p;
  return CS_OK;
}

cs_status sim_program_read(const char *path, sim_program **out, cs_err *err) {
  *out = NULL;
  char *text;
  size_t len;
  cs_status st = cs_file_read(path, "a program", CS_FILE_PROGRAM_MAX_BYTES, &text, &len, err);
  if (st != CS_OK) return st;
  st = sim_program_parse(text, len, path, out, err);
  free(text);
  return st;
}

/* ---- link and issue ---------------------------------------------------------------------- */

cs_status sim_program_link(sim_program *p, sim *s, cs_err *err) {
  if (p->linked) return cs_err_set(err, CS_EINVAL, "%s: the program is already linked", p->file);
  unsigned ncores = sim_core_count(s);
  for (size_t i = 0; i < p->ncore_dirs; i++) {
    const sim_prog_core_dir *cd = &p->core_dirs[i];
    if (cd->core >= ncores)
      return cs_err_set(err, CS_EINVAL,
                        "%s:%u:%u: .core %u: the configuration has %u core%s (chip.aic_cores), "
                        "numbered from 0",
                        p->file, cd->line, cd->column, cd->core, ncores, ncores == 1 ? "" : "s");
  }
  for (size_t i = 0; i < p->ntensors; i++) {
    sim_prog_tensor *t = &p->tensors[i];
    cs_status st = sim_gm_alloc(s, t->name, t->bytes, &t->addr, err);
    if (st != CS_OK) {
      cs_err_prefix(err, "%s:%u: .gm %s", p->file, t->line, t->name);
      return st;
    }
  }
  for (size_t i = 0; i < p->ninsns; i++) {
    sim_prog_insn *in = &p->insns[i];
    for (unsigned r = 0; r < in->nrelocs; r++) {
      isa_addr a;
      unsigned char *field = (unsigned char *)&in->insn.u + in->relocs[r].field_offset;
      memcpy(&a, field, sizeof a);
      uint64_t base = p->tensors[in->relocs[r].tensor].addr;
      if (a.off > UINT64_MAX - base)
        return cs_err_set(err, CS_EINVAL, "%s:%u: GM:%s+0x%" PRIx64 " is beyond 64 bits", p->file,
                          in->line, p->tensors[in->relocs[r].tensor].name, a.off);
      a.off += base;
      memcpy(field, &a, sizeof a);
    }
  }
  p->linked = true;
  return CS_OK;
}

cs_status sim_program_issue(const sim_program *p, sim *s, cs_err *err) {
  if (!p->linked) return cs_err_set(err, CS_EINVAL, "%s: the program is not linked", p->file);
  unsigned top = 0;
  for (size_t i = 0; i < p->ninsns; i++)
    if (p->insns[i].core > top) top = p->insns[i].core;
  for (unsigned c = 0; c <= top && p->ninsns; c++) {
    sim_core *core = sim_get_core(s, c);
    for (size_t i = 0; i < p->ninsns; i++) {
      const sim_prog_insn *in = &p->insns[i];
      if (in->core != c) continue;
      cs_status st = sim_core_issue(core, &in->insn);
      if (st == CS_OK) continue;
      if (st == CS_ENOMEM && sim_host_status(s, err) != CS_OK) return CS_ENOMEM; /* not the program's fault */
      char what[768];
      const sim_fault *f = sim_core_fault(core);
      if (f) sim_fault_describe(f, what, sizeof what);
      else snprintf(what, sizeof what, "core %u: %s", c, cs_status_desc(st));
      return cs_err_set(err, st, "%s:%u: %s", p->file, in->line, what);
    }
  }
  return CS_OK;
}

unsigned sim_program_line_of(const sim_program *p, unsigned core, uint64_t index) {
  uint64_t k = 0;
  for (size_t i = 0; i < p->ninsns; i++) {
    if (p->insns[i].core != core) continue;
    if (k == index) return p->insns[i].line;
    k++;
  }
  return 0;
}

/* ---- writer ------------------------------------------------------------------------------ */

typedef struct tensor_table {
  const sim_prog_tensor *t;
  size_t n;
} tensor_table;

/* isa_text_syms.name_of over the tensors' linked addresses. */
static const char *tensor_name_of(void *ctx, uint64_t addr, uint64_t *base) {
  const tensor_table *tt = ctx;
  for (size_t i = 0; i < tt->n; i++)
    if (addr >= tt->t[i].addr && addr - tt->t[i].addr < tt->t[i].bytes) {
      *base = tt->t[i].addr;
      return tt->t[i].name;
    }
  return NULL;
}

cs_status sim_program_write_streams(FILE *f, const char *source, const sim_prog_tensor *tensors,
                                    size_t ntensors, sim *s, cs_err *err) {
  fprintf(f, "# cubesim program: the instruction streams recorded%s%s, one line per instruction\n",
          source ? " from " : "", source ? source : "");
  fprintf(f, "# (cubesim exec reads it back; docs/PROGRAM.md describes the format)\n");
  for (size_t i = 0; i < ntensors; i++) {
    const sim_prog_tensor *t = &tensors[i];
    fprintf(f, ".gm %s %s [", t->name, isa_dtype_name(t->dtype));
    for (int d = 0; d < t->ndim; d++) fprintf(f, "%s%" PRIu64, d ? "," : "", t->shape[d]);
    fprintf(f, "] %s\n", sim_tensor_kind_name(t->kind));
  }
  tensor_table tt = {tensors, ntensors};
  isa_text_syms syms = {&tt, tensor_name_of, NULL};
  char line[ISA_TEXT_LINE_BYTES];
  for (unsigned c = 0; c < sim_core_count(s); c++) {
    const sim_core *core = sim_get_core(s, c);
    size_t n = sim_core_stream_len(core);
    if (!n) continue;
    fprintf(f, ".core %u\n", c);
    isa_insn in;
    for (sim_stream_cursor cur = {.s = sim_core_records(core)}; sim_stream_next(&cur, &in);) {
      isa_disasm_syms(&in, &syms, line, sizeof line);
      fprintf(f, "%s\n", line);
    }
  }
  if (fflush(f) != 0 || ferror(f))
    return cs_err_set(err, CS_EIO, "could not write the program text: %s", strerror(errno));
  return CS_OK;
}
