/* rt_tiling — the tiling table, its legality check, the schedule a tiling implies, and the
 * analytic estimate and search (docs/KERNELS.md, "Tiling"). */
#include "runtime/rt_tiling.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/cs_jsonr.h"
#include "sim/sim_gm.h"

/* x rounded up to a multiple of a, and x / a rounded up. */
static uint64_t round_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }
static uint64_t cdiv(uint64_t x, uint64_t a) { return (x + a - 1) / a; }
static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* ---- the table ---------------------------------------------------------------------------- */

static const rt_tiling_field fields[RT_TF_COUNT] = {
#define RT_TILING_NAMES_INT NULL
#define RT_TILING_NAMES_SPLIT RT_CORE_SPLIT_NAMES
#define RT_TILING_NAMES_API RT_API_NAMES
#define RT_TILING_USE_ATTR true
#define RT_TILING_USE_SHAPE false
#define RT_TILING_ROW(f, camel, lo, hi, kind, use, desc) {#f, #camel, lo, hi, RT_TILING_NAMES_##kind, RT_TILING_USE_##use, desc},
    RT_TILING_TABLE(RT_TILING_ROW)
#undef RT_TILING_ROW
};

static const size_t offsets[RT_TF_COUNT] = {
#define RT_TILING_OFF(f, camel, lo, hi, kind, use, desc) offsetof(rt_tiling, f),
    RT_TILING_TABLE(RT_TILING_OFF)
#undef RT_TILING_OFF
};

const rt_tiling_field *rt_tiling_field_at(int i) { return i >= 0 && i < RT_TF_COUNT ? &fields[i] : NULL; }

int rt_tiling_field_find(const char *name) {
  for (int i = 0; i < RT_TF_COUNT; i++)
    if (strcmp(fields[i].name, name) == 0 || strcmp(fields[i].camel, name) == 0) return i;
  return -1;
}

uint32_t rt_tiling_get(const rt_tiling *t, int i) {
  uint32_t v;
  memcpy(&v, (const char *)t + offsets[i], sizeof v);
  return v;
}

void rt_tiling_set(rt_tiling *t, int i, uint32_t v) { memcpy((char *)t + offsets[i], &v, sizeof v); }

/* The length of the v-th comma-separated name of `names` and where it starts (0 if none). */
static size_t nth_name(const char *names, uint32_t v, const char **start) {
  const char *p = names;
  for (uint32_t k = 0; k < v && p; k++) {
    p = strchr(p, ',');
    if (p) p++;
  }
  if (!p) return 0;
  *start = p;
  const char *end = strchr(p, ',');
  return end ? (size_t)(end - p) : strlen(p);
}

const char *rt_tiling_value_name(int i, uint32_t v) {
  static const char *const split[] = {"block", "round_robin"}, *const api[] = {"matmul", "basic"};
  if (i == RT_TF_core_split) return v < 2 ? split[v] : NULL;
  if (i == RT_TF_api) return v < 2 ? api[v] : NULL;
  return NULL;
}

int rt_tiling_value_parse(int i, const char *name) {
  const rt_tiling_field *f = rt_tiling_field_at(i);
  if (!f || !f->names) return -1;
  for (uint32_t v = 0; v <= f->hi; v++) {
    const char *start;
    size_t len = nth_name(f->names, v, &start);
    if (len && strlen(name) == len && strncmp(start, name, len) == 0) return (int)v;
  }
  return -1;
}

/* ---- text and JSON ----------------------------------------------------------------------- */

void rt_tiling_describe(const rt_tiling *t, char *out, size_t out_bytes) {
  snprintf(out, out_bytes,
           "base %u x %u x %u; L1 A %u blocks (step_m %u x step_ka %u), B %u (step_n %u x step_kb %u); "
           "L0 buffers A %u, B %u, C %u; %s %u x %u on %u cores; iterate_order %u, l2_split %u, unit_flag %u; "
           "%s tiling, %s API",
           t->base_m, t->base_n, t->base_k, t->depth_a1, t->step_m, t->step_ka, t->depth_b1, t->step_n, t->step_kb,
           t->db_l0a, t->db_l0b, t->db_l0c, t->core_split == RT_SPLIT_BLOCK ? "blocks" : "round-robin over blocks",
           t->single_core_m, t->single_core_n, t->used_core_num, t->iterate_order, t->l2_split, t->unit_flag,
           t->const_tiling ? "constant" : "run-time", t->api == RT_API_BASIC ? "basic" : "Matmul");
}

void rt_tiling_json_members(const rt_tiling *t, cs_json *j) {
  for (int i = 0; i < RT_TF_COUNT; i++) {
    if (fields[i].names) cs_json_member_str(j, fields[i].camel, rt_tiling_value_name(i, rt_tiling_get(t, i)));
    else cs_json_member_uint(j, fields[i].camel, rt_tiling_get(t, i));
  }
}

/* TCubeTiling fields (Ascend's matmul_tilingdata.h) that do not shape a single matmul here. */
static const char *const unmodelled[] = {
    "transLength",  "shareMode",    "shareL1Size",  "shareL0CSize",    "shareUbSize",     "batchM",
    "batchN",       "singleBatchM", "singleBatchN", "depthAL1CacheUB", "depthBL1CacheUB", "ALayoutInfoB",
    "ALayoutInfoS", "ALayoutInfoN", "ALayoutInfoG", "ALayoutInfoD",    "BLayoutInfoB",    "BLayoutInfoS",
    "BLayoutInfoN", "BLayoutInfoG", "BLayoutInfoD", "CLayoutInfoB",    "CLayoutInfoS1",   "CLayoutInfoN",
    "CLayoutInfoG", "CLayoutInfoS2", "BatchNum",    "mxTypePara",
};

/* A member's value as words for a message: "a string", the number as written, "true", ... */
static const char *json_shown(const cs_jvalue *v) {
  switch (cs_jtype_of(v)) {
    case CS_JNUMBER: return cs_jnumber_text(v);
    case CS_JSTRING: return "a string";
    case CS_JBOOL: return "true or false";
    case CS_JNULL: return "null";
    default: return "an object or array";
  }
}

/* Member i of the object: a field of the tiling, an unmodelled TCubeTiling field, or an error. */
static cs_status json_member(const char *where, const cs_jvalue *obj, size_t i, rt_tiling *t, rt_tiling_mask *found,
                             char *ignored, size_t ignored_bytes, cs_err *err) {
  const char *key = cs_jkey_at(obj, i);
  const cs_jvalue *v = cs_jat(obj, i);
  int f = -1;
  for (int k = 0; k < RT_TF_COUNT && f < 0; k++)
    if (strcmp(fields[k].camel, key) == 0) f = k;
  int64_t x = 0;
  if (f < 0) {
    for (size_t k = 0; k < sizeof unmodelled / sizeof unmodelled[0]; k++) {
      if (strcmp(unmodelled[k], key) != 0) continue;
      if (!cs_ji64(v, &x))
        return cs_err_set(err, CS_EINVAL, "%s: %s: expected an integer, got %s", where, key, json_shown(v));
      if (x != 0) {
        size_t used = strlen(ignored);
        snprintf(ignored + used, ignored_bytes - used, "%s%s", used ? ", " : "", key);
      }
      return CS_OK;
    }
    char known[1024] = "";
    size_t used = 0;
    for (int k = 0; k < RT_TF_COUNT && used < sizeof known; k++)
      used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "", fields[k].camel);
    return cs_err_set(err, CS_EINVAL, "%s: unknown TCubeTiling field \"%s\" (cubesim reads %s)", where, key, known);
  }
  const rt_tiling_field *fd = &fields[f];
  bool b;
  if (fd->names && cs_jis(v, CS_JSTRING)) {
    const char *name = cs_jstring(v);
    int named = rt_tiling_value_parse(f, name);
    if (named < 0) return cs_err_set(err, CS_EINVAL, "%s: %s: \"%s\" is not one of %s", where, fd->camel, name, fd->names);
    x = named;
  } else if (f == RT_TF_is_bias && cs_jbool(v, &b)) {
    x = b;
  } else if (!cs_ji64(v, &x)) {
    return cs_err_set(err, CS_EINVAL, "%s: %s: expected an integer%s%s%s, got %s", where, fd->camel,
                      fd->names ? " or a name (" : f == RT_TF_is_bias ? " or true/false" : "", fd->names ? fd->names : "",
                      fd->names ? ")" : "", json_shown(v));
  }
  if (x < fd->lo || x > fd->hi)
    return cs_err_set(err, CS_EINVAL, "%s: %s = %" PRId64 " is out of range [%u, %u]", where, fd->camel, x, fd->lo, fd->hi);
  rt_tiling_set(t, f, (uint32_t)x);
  *found |= (rt_tiling_mask)1 << f;
  return CS_OK;
}

cs_status rt_tiling_read_json(const char *text, size_t len, const char *where, rt_tiling *t, rt_tiling_mask *found,
                              char *ignored, size_t ignored_bytes, cs_err *err) {
  char none[1];
  if (!ignored || !ignored_bytes) ignored = none, ignored_bytes = sizeof none;
  ignored[0] = '\0';
  *found = 0;
  cs_jerror je;
  cs_jdoc *doc = cs_jparse(text, len, &je);
  if (!doc)
    return cs_err_set(err, je.status == CS_ENOMEM ? CS_ENOMEM : CS_EINVAL, "%s:%u:%u: %s", where, je.line, je.column,
                      je.msg);
  const cs_jvalue *root = cs_jroot(doc);
  cs_status st = CS_OK;
  if (!cs_jis(root, CS_JOBJECT))
    st = cs_err_set(err, CS_EINVAL, "%s: a TCubeTiling is a JSON object of its fields, not %s", where,
                    cs_jtype_name(cs_jtype_of(root)));
  for (size_t i = 0; st == CS_OK && i < cs_jcount(root); i++)
    st = json_member(where, root, i, t, found, ignored, ignored_bytes, err);
  cs_jfree(doc);
  return st;
}

/* ---- types -------------------------------------------------------------------------------- */

static bool is_int_input(isa_dtype t) { return t == ISA_INT8 || t == ISA_INT4; }

isa_quant_mode rt_matmul_quant_mode(const rt_matmul_types *ty, bool vector_word) {
  if (is_int_input(ty->a)) {
    switch (ty->c) {
      case ISA_INT32: return ISA_QUANT_NO_QUANT;
      case ISA_FP16: return vector_word ? ISA_QUANT_VDEQF16 : ISA_QUANT_DEQF16;
      case ISA_INT8: case ISA_UINT8: return vector_word ? ISA_QUANT_VREQ8 : ISA_QUANT_REQ8;
      default: return ISA_QUANT_COUNT;
    }
  }
  switch (ty->c) {
    case ISA_FP32: return ISA_QUANT_NO_QUANT;
    case ISA_FP16: return ISA_QUANT_F322F16;
    case ISA_BF16: return ISA_QUANT_F322BF16;
    case ISA_INT8: case ISA_UINT8: return vector_word ? ISA_QUANT_VQF322B8_PRE : ISA_QUANT_QF322B8_PRE;
    default: return ISA_QUANT_COUNT;
  }
}

bool rt_matmul_uses_words(const rt_matmul_types *ty) {
  isa_quant_mode q = rt_matmul_quant_mode(ty, true);
  return q != ISA_QUANT_NO_QUANT && q != ISA_QUANT_F322F16 && q != ISA_QUANT_F322BF16 && q != ISA_QUANT_COUNT;
}

/* ---- buffers ------------------------------------------------------------------------------ */

static uint64_t ebytes(isa_dtype t, uint64_t elems) { return isa_dtype_bytes(t, elems); }

/* L1 holds A and B as NZ (docs/KERNELS.md): A's rows (transposed: its K rows) padded to 16 per
 * column block, or to C0 where transposing loads read whole C0 x C0 squares; L0A and L0B hold
 * whole 512-byte fractals. */
rt_tiling_slots rt_tiling_slots_of(const rt_matmul_types *ty, const rt_tiling *t) {
  rt_tiling_slots s;
  memset(&s, 0, sizeof s);
  uint32_t c0 = isa_dtype_c0(ty->a);
  uint64_t a_rows = (uint64_t)t->step_m * t->base_m, b_cols = (uint64_t)t->step_n * t->base_n;
  s.a1 = ebytes(ty->a, round_up(a_rows, ty->a_trans ? c0 : 16) * t->step_ka * t->base_k);
  s.b1 = ebytes(ty->b, round_up(b_cols, ty->b_trans ? 16 : c0) * t->step_kb * t->base_k);
  uint64_t kb = cdiv(t->base_k, c0);
  s.a2 = kb * round_up(t->base_m, ty->a_trans ? c0 : 16) / 16 * 512;
  s.b2 = kb * round_up(t->base_n, ty->b_trans ? 16 : c0) / 16 * 512;
  s.co1 = round_up(t->base_m, 16) * round_up(t->base_n, 16) * 4;
  s.bt_used = ty->has_bias;
  s.fb_used = rt_matmul_uses_words(ty);
  s.bt = (uint64_t)t->base_n * 4;
  s.fb = (uint64_t)t->base_n * 8;
  /* bias (4 B a column) and quant words (8 B) are staged through L1 only when used */
  s.n_c1 = (unsigned)s.bt_used + (unsigned)s.fb_used;
  s.c1 = s.n_c1 ? (uint64_t)t->base_n * (s.fb_used ? 8 : 4) : 0;
  uint64_t sa = (uint64_t)t->step_m * t->step_ka, sb = (uint64_t)t->step_n * t->step_kb;
  s.n_a1 = sa && t->depth_a1 >= 2 * sa ? 2 : 1;
  s.n_b1 = sb && t->depth_b1 >= 2 * sb ? 2 : 1;
  s.n_a2 = t->db_l0a >= 2 ? 2 : 1;
  s.n_b2 = t->db_l0b >= 2 ? 2 : 1;
  s.n_co1 = t->db_l0c >= 2 ? 2 : 1;
  return s;
}

static uint64_t align_up(uint64_t x, uint64_t a) { return a > 1 ? (x + a - 1) / a * a : x; }

static uint64_t capacity(const sim_config *c, isa_mem m, uint64_t *align) {
  switch (m) {
    case ISA_MEM_L1: *align = c->buffers_l1_align_bytes; return c->buffers_l1_bytes;
    case ISA_MEM_L0A: *align = c->buffers_l0a_align_bytes; return c->buffers_l0a_bytes;
    case ISA_MEM_L0B: *align = c->buffers_l0b_align_bytes; return c->buffers_l0b_bytes;
    case ISA_MEM_L0C: *align = c->buffers_l0c_align_bytes; return c->buffers_l0c_bytes;
    case ISA_MEM_BT: *align = c->buffers_bt_align_bytes; return c->buffers_bt_bytes;
    case ISA_MEM_FB: *align = c->buffers_fb_align_bytes; return c->buffers_fb_bytes;
    default: *align = 1; return 0;
  }
}

/* Every buffer's need, each slot rounded up to its buffer's alignment (al: all ones gives the
 * bare footprint). */
static void buffer_bytes(const rt_tiling_slots *s, const uint64_t al[ISA_MEM_COUNT], uint64_t need[ISA_MEM_COUNT]) {
  memset(need, 0, sizeof(uint64_t) * ISA_MEM_COUNT);
  need[ISA_MEM_L1] = align_up(s->a1, al[ISA_MEM_L1]) * s->n_a1 + align_up(s->b1, al[ISA_MEM_L1]) * s->n_b1 +
                     align_up(s->c1, al[ISA_MEM_L1]) * s->n_c1;
  need[ISA_MEM_L0A] = align_up(s->a2, al[ISA_MEM_L0A]) * s->n_a2;
  need[ISA_MEM_L0B] = align_up(s->b2, al[ISA_MEM_L0B]) * s->n_b2;
  need[ISA_MEM_L0C] = align_up(s->co1, al[ISA_MEM_L0C]) * s->n_co1;
  need[ISA_MEM_BT] = s->bt_used ? align_up(s->bt, al[ISA_MEM_BT]) : 0;
  need[ISA_MEM_FB] = s->fb_used ? align_up(s->fb, al[ISA_MEM_FB]) : 0;
}

void rt_tiling_footprint(const rt_matmul_types *ty, const rt_tiling *t, uint64_t bytes[ISA_MEM_COUNT]) {
  uint64_t ones[ISA_MEM_COUNT];
  for (int m = 0; m < ISA_MEM_COUNT; m++) ones[m] = 1;
  rt_tiling_slots s = rt_tiling_slots_of(ty, t);
  buffer_bytes(&s, ones, bytes);
}

/* The message for a buffer that does not fit: what fills it and which fields size it. */
static cs_status buffer_error(const rt_matmul_types *ty, const rt_tiling *t, const rt_tiling_slots *s, isa_mem m,
                              uint64_t need, uint64_t cap, const uint64_t al[ISA_MEM_COUNT], cs_err *err) {
  const char *name = isa_mem_name(m);
  switch (m) {
    case ISA_MEM_L1: {
      char c1[96] = "";
      if (s->n_c1)
        snprintf(c1, sizeof c1, " + C1 %u x %" PRIu64 " B (%s staging)", s->n_c1, align_up(s->c1, al[m]),
                 s->bt_used && s->fb_used ? "bias and quant word" : s->bt_used ? "bias" : "quant word");
      return cs_err_set(err, CS_EINVAL,
                        "tiling: L1 needs %" PRIu64 " bytes but has %" PRIu64 ": A1 %u x %" PRIu64
                        " B (depth_a1 %u = %u x step_m %u x step_ka %u blocks of base_m %u x base_k %u) + B1 %u x %" PRIu64
                        " B (depth_b1 %u = %u x step_n %u x step_kb %u blocks of base_n %u x base_k %u)%s; lower "
                        "depth_a1/depth_b1, step_ka/step_kb or the base sizes",
                        need, cap, s->n_a1, align_up(s->a1, al[m]), t->depth_a1, s->n_a1, t->step_m, t->step_ka,
                        t->base_m, t->base_k, s->n_b1, align_up(s->b1, al[m]), t->depth_b1, s->n_b1, t->step_n,
                        t->step_kb, t->base_n, t->base_k, c1);
    }
    case ISA_MEM_L0A:
    case ISA_MEM_L0B: {
      bool a = m == ISA_MEM_L0A;
      uint32_t base = a ? t->base_m : t->base_n, db = a ? t->db_l0a : t->db_l0b;
      uint32_t padded = (uint32_t)round_up(base, (a ? ty->a_trans : !ty->b_trans) ? isa_dtype_c0(ty->a) : 16);
      char pad[64] = "";
      if (padded != base) snprintf(pad, sizeof pad, " (padded to %u, whole C0 x C0 squares)", padded);
      return cs_err_set(err, CS_EINVAL,
                        "tiling: %s needs %" PRIu64 " bytes but has %" PRIu64 ": %u x %" PRIu64 " B (%s %u; base_%s %u%s x "
                        "base_k %u of %s); %slower base_%s or base_k",
                        name, need, cap, a ? s->n_a2 : s->n_b2, align_up(a ? s->a2 : s->b2, al[m]), a ? "db_l0a" : "db_l0b",
                        db, a ? "m" : "n", base, pad, t->base_k, isa_dtype_name(ty->a),
                        db > 1 ? (a ? "set db_l0a = 1 or " : "set db_l0b = 1 or ") : "", a ? "m" : "n");
    }
    case ISA_MEM_L0C:
      return cs_err_set(err, CS_EINVAL,
                        "tiling: L0C needs %" PRIu64 " bytes but has %" PRIu64 ": %u x %" PRIu64
                        " B (db_l0c %u; base_m %u x base_n %u of 4-byte accumulators); %slower base_m or base_n",
                        need, cap, s->n_co1, align_up(s->co1, al[m]), t->db_l0c, t->base_m, t->base_n,
                        t->db_l0c > 1 ? "set db_l0c = 1 or " : "");
    case ISA_MEM_BT:
      return cs_err_set(err, CS_EINVAL, "tiling: BT needs %" PRIu64 " bytes (base_n %u biases of 4 B) but has %" PRIu64
                        "; lower base_n", need, t->base_n, cap);
    default:
      return cs_err_set(err, CS_EINVAL, "tiling: %s needs %" PRIu64 " bytes (base_n %u quant words of 8 B) but has %" PRIu64
                        "; lower base_n", name, need, t->base_n, cap);
  }
}

/* ---- legality ----------------------------------------------------------------------------- */

/* Rows of one L2 round. */
static uint32_t round_rows(const rt_tiling *t) { return (uint32_t)cdiv(t->m, t->l2_split ? t->l2_split : 1); }

/* The layout rules of an NZ operand: the stored matrix (rows x cols) in whole fractals, and the
 * blocks and tiles starting on fractal boundaries. */
typedef struct nz_rule {
  bool on;
  const char *op, *field;
  uint32_t value, align;
  bool rows; /* the rule keeps whole 16-row fractals (else whole C0-wide column blocks) */
} nz_rule;

static cs_status check_nz(const rt_matmul_types *ty, const rt_tiling *t, cs_err *err) {
  uint32_t c0 = isa_dtype_c0(ty->a);
  bool a = ty->a_nz, b = ty->b_nz;
  const nz_rule rules[] = {
      /* A: stored M x K (column blocks along K), or transposed K x M (column blocks along M) */
      {a, "A", "m", t->m, ty->a_trans ? c0 : 16, !ty->a_trans},
      {a, "A", "k", t->ka, ty->a_trans ? 16 : c0, ty->a_trans},
      {a, "A", "single_core_m", t->single_core_m, ty->a_trans ? c0 : 16, !ty->a_trans},
      {a && t->l2_split > 1, "A", "the rows of an l2_split round", round_rows(t), ty->a_trans ? c0 : 16, !ty->a_trans},
      {a && ty->a_trans, "A", "base_m", t->base_m, c0, false},
      /* B: stored K x N (column blocks along N), or transposed N x K (column blocks along K) */
      {b, "B", "n", t->n, ty->b_trans ? 16 : c0, ty->b_trans},
      {b, "B", "k", t->kb, ty->b_trans ? c0 : 16, !ty->b_trans},
      {b, "B", "single_core_n", t->single_core_n, ty->b_trans ? 16 : c0, ty->b_trans},
      {b && !ty->b_trans, "B", "base_n", t->base_n, c0, false},
  };
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (rules[i].on && rules[i].value % rules[i].align)
      return cs_err_set(err, CS_EINVAL, "tiling: %s = %u must be a multiple of %u with an NZ %s%s (whole %s)", rules[i].field,
                        rules[i].value, rules[i].align, rules[i].op,
                        (rules[i].op[0] == 'A' ? ty->a_trans : ty->b_trans) ? " stored transposed" : "",
                        rules[i].rows ? "16-row fractals" : "C0-wide column blocks");
  return CS_OK;
}

/* The ND limits of a GM -> L1 copy with ND -> NZ (isa nd2nz): a source row of at most 65535
 * elements (Ascend's Ka / M / N / Kb <= 65535 rule) and at most 16384 rows per copy. */
static cs_status check_nd(const rt_matmul_types *ty, const rt_tiling *t, cs_err *err) {
  struct {
    bool nd;
    const char *op;
    const char *row_name;
    uint32_t row;
    const char *rows_name;
    uint64_t rows;
  } c[2] = {
      {!ty->a_nz, "A", ty->a_trans ? "m" : "k", ty->a_trans ? t->m : t->ka, ty->a_trans ? "step_ka * base_k" : "step_m * base_m",
       ty->a_trans ? (uint64_t)t->step_ka * t->base_k : (uint64_t)t->step_m * t->base_m},
      {!ty->b_nz, "B", ty->b_trans ? "k" : "n", ty->b_trans ? t->kb : t->n, ty->b_trans ? "step_n * base_n" : "step_kb * base_k",
       ty->b_trans ? (uint64_t)t->step_n * t->base_n : (uint64_t)t->step_kb * t->base_k},
  };
  for (int i = 0; i < 2; i++) {
    if (!c[i].nd) continue;
    bool tr = i ? ty->b_trans : ty->a_trans;
    if (c[i].row > 65535)
      return cs_err_set(err, CS_EINVAL, "tiling: %s = %u: an ND %s%s has rows of %u elements, more than the 65535 a GM -> L1 "
                        "copy reads", c[i].row_name, c[i].row, c[i].op, tr ? " stored transposed" : "", c[i].row);
    if (c[i].rows > 16384)
      return cs_err_set(err, CS_EINVAL, "tiling: %s = %" PRIu64 " rows of an ND %s%s in one L1 load; a GM -> L1 copy "
                        "takes at most 16384", c[i].rows_name, c[i].rows, c[i].op, tr ? " stored transposed" : "");
  }
  return CS_OK;
}

cs_status rt_tiling_check(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t, cs_err *err) {
  if (ty->a != ty->b)
    return cs_err_set(err, CS_EINVAL, "matmul: A is %s and B is %s; the cube multiplies equal types",
                      isa_dtype_name(ty->a), isa_dtype_name(ty->b));
  if (ty->a != ISA_INT8 && ty->a != ISA_INT4 && ty->a != ISA_FP16 && ty->a != ISA_BF16)
    return cs_err_set(err, CS_EINVAL, "matmul: input type %s is not one the cube takes (int8, int4, fp16, bf16)",
                      isa_dtype_name(ty->a));
  if (rt_matmul_quant_mode(ty, false) == ISA_QUANT_COUNT)
    return cs_err_set(err, CS_EINVAL, "matmul: %s inputs cannot produce %s output", isa_dtype_name(ty->a),
                      isa_dtype_name(ty->c));
  for (int i = 0; i < RT_TF_COUNT; i++) {
    uint32_t v = rt_tiling_get(t, i);
    if (v < fields[i].lo || v > fields[i].hi)
      return cs_err_set(err, CS_EINVAL, "tiling: %s = %u is out of range [%u, %u]", fields[i].name, v, fields[i].lo,
                        fields[i].hi);
  }
  uint32_t c0 = isa_dtype_c0(ty->a), k = t->ka;
  if (t->ka != t->kb)
    return cs_err_set(err, CS_EINVAL, "tiling: ka = %u and kb = %u differ; A's columns and B's rows are one K", t->ka, t->kb);
  if (t->single_core_k != k)
    return cs_err_set(err, CS_EINVAL, "tiling: single_core_k = %u but k = %u: like Ascend's Matmul, cubesim does not split "
                      "K across cores", t->single_core_k, k);
  uint32_t rows = round_rows(t);
  if (cdiv(t->m, rows) != t->l2_split)
    return cs_err_set(err, CS_EINVAL, "tiling: l2_split = %u leaves a round empty (m = %u in rounds of %u rows)", t->l2_split,
                      t->m, rows);
  if (t->single_core_m > rows)
    return cs_err_set(err, CS_EINVAL, "tiling: single_core_m = %u is more than the %u rows of %s", t->single_core_m, rows,
                      t->l2_split > 1 ? "an l2_split round" : "C");
  if (t->single_core_n > t->n)
    return cs_err_set(err, CS_EINVAL, "tiling: single_core_n = %u is more than the %u columns of C", t->single_core_n, t->n);
  if (t->used_core_num > cfg->chip_aic_cores)
    return cs_err_set(err, CS_EINVAL, "tiling: used_core_num = %u but the chip has %" PRIu64 " cores (chip.aic_cores)",
                      t->used_core_num, cfg->chip_aic_cores);
  if (t->base_m % 16 || t->base_n % 16)
    return cs_err_set(err, CS_EINVAL, "tiling: base_m = %u and base_n = %u must be multiples of 16 (whole fractals)",
                      t->base_m, t->base_n);
  if (t->base_k % c0)
    return cs_err_set(err, CS_EINVAL, "tiling: base_k = %u must be a multiple of C0 = %u for %s", t->base_k, c0,
                      isa_dtype_name(ty->a));
  uint32_t lo = umin(t->step_ka, t->step_kb), hi = t->step_ka > t->step_kb ? t->step_ka : t->step_kb;
  if (hi % lo)
    return cs_err_set(err, CS_EINVAL, "tiling: step_ka = %u and step_kb = %u: the larger must be a multiple of the smaller",
                      t->step_ka, t->step_kb);
  if (t->step_m > 1 && (uint64_t)t->step_ka * t->base_k < k)
    return cs_err_set(err, CS_EINVAL, "tiling: step_m = %u needs all of K in one L1 load of A (step_ka * base_k = %" PRIu64
                      " < k = %u)", t->step_m, (uint64_t)t->step_ka * t->base_k, k);
  if (t->step_n > 1 && (uint64_t)t->step_kb * t->base_k < k)
    return cs_err_set(err, CS_EINVAL, "tiling: step_n = %u needs all of K in one L1 load of B (step_kb * base_k = %" PRIu64
                      " < k = %u)", t->step_n, (uint64_t)t->step_kb * t->base_k, k);
  uint64_t sa = (uint64_t)t->step_m * t->step_ka, sb = (uint64_t)t->step_n * t->step_kb;
  if (t->depth_a1 != sa && t->depth_a1 != 2 * sa)
    return cs_err_set(err, CS_EINVAL, "tiling: depth_a1 = %u must be step_m * step_ka = %" PRIu64 " (one L1 buffer) or %" PRIu64
                      " (two)", t->depth_a1, sa, 2 * sa);
  if (t->depth_b1 != sb && t->depth_b1 != 2 * sb)
    return cs_err_set(err, CS_EINVAL, "tiling: depth_b1 = %u must be step_n * step_kb = %" PRIu64 " (one L1 buffer) or %" PRIu64
                      " (two)", t->depth_b1, sb, 2 * sb);
  if (t->is_bias != (uint32_t)ty->has_bias)
    return cs_err_set(err, CS_EINVAL, "tiling: is_bias = %u but the matmul has %s", t->is_bias,
                      ty->has_bias ? "a bias" : "no bias");
  /* a transposing load moves C0 x C0 squares: tiles inside one L1 load start on them */
  if (ty->a_trans && t->step_m > 1 && t->base_m % c0)
    return cs_err_set(err, CS_EINVAL, "tiling: step_m = %u with a transposed A needs base_m a multiple of C0 = %u (got %u)",
                      t->step_m, c0, t->base_m);
  if (!ty->b_trans && t->step_n > 1 && t->base_n % c0)
    return cs_err_set(err, CS_EINVAL, "tiling: step_n = %u with B not transposed needs base_n a multiple of C0 = %u (got %u)",
                      t->step_n, c0, t->base_n);
  if (ty->a == ISA_INT4) {
    bool odd_rows = (!ty->a_trans && k % 2) || (ty->a_trans && t->m % 2) || (!ty->b_trans && !ty->b_nz && t->n % 2) ||
                    (ty->b_trans && k % 2);
    if (odd_rows)
      return cs_err_set(err, CS_EINVAL, "matmul: int4 rows must be whole bytes: the stored row length (m %u, n %u, k %u) "
                        "must be even", t->m, t->n, k);
    if ((ty->a_trans && (t->single_core_m % 2 || rows % 2)) || (!ty->b_trans && !ty->b_nz && t->single_core_n % 2))
      return cs_err_set(err, CS_EINVAL, "tiling: int4 blocks must start on whole bytes: single_core_%s = %u and the l2_split "
                        "rounds must be even", ty->a_trans ? "m" : "n", ty->a_trans ? t->single_core_m : t->single_core_n);
  }
  cs_status st = check_nz(ty, t, err);
  if (st == CS_OK) st = check_nd(ty, t, err);
  if (st != CS_OK) return st;
  rt_tiling_slots s = rt_tiling_slots_of(ty, t);
  uint64_t al[ISA_MEM_COUNT], need[ISA_MEM_COUNT];
  for (int m = 0; m < ISA_MEM_COUNT; m++) capacity(cfg, (isa_mem)m, &al[m]);
  buffer_bytes(&s, al, need);
  for (int m = 0; m < ISA_MEM_COUNT; m++) {
    uint64_t a, cap = capacity(cfg, (isa_mem)m, &a);
    if (need[m] > cap) return buffer_error(ty, t, &s, (isa_mem)m, need[m], cap, al, err);
  }
  return CS_OK;
}

/* ---- the schedule ------------------------------------------------------------------------- */

/* Blocks along M and N in round r, and the round's first row and rows. */
static void round_grid(const rt_tiling *t, uint32_t r, uint32_t *m0, uint32_t *rows, uint32_t *bm, uint32_t *bn) {
  uint32_t per = round_rows(t);
  *m0 = r * per;
  *rows = umin(per, t->m - *m0);
  *bm = (uint32_t)cdiv(*rows, t->single_core_m);
  *bn = (uint32_t)cdiv(t->n, t->single_core_n);
}

uint64_t rt_tiling_block_count(const rt_tiling *t) {
  uint64_t total = 0;
  for (uint32_t r = 0; r < t->l2_split; r++) {
    uint32_t m0, rows, bm, bn;
    round_grid(t, r, &m0, &rows, &bm, &bn);
    total += (uint64_t)bm * bn;
  }
  return total;
}

rt_rect rt_tiling_block(const rt_tiling *t, uint64_t i) {
  rt_rect b = {0, 0, 0, 0};
  for (uint32_t r = 0; r < t->l2_split; r++) {
    uint32_t m0, rows, bm, bn;
    round_grid(t, r, &m0, &rows, &bm, &bn);
    uint64_t nb = (uint64_t)bm * bn;
    if (i >= nb) {
      i -= nb;
      continue;
    }
    uint32_t mi = (uint32_t)(i % bm), ni = (uint32_t)(i / bm);
    b.m0 = m0 + mi * t->single_core_m;
    b.n0 = ni * t->single_core_n;
    b.ml = umin(t->single_core_m, m0 + rows - b.m0);
    b.nl = umin(t->single_core_n, t->n - b.n0);
    return b;
  }
  return b;
}

uint64_t rt_tiling_tile_count(const rt_tiling *t, uint32_t ml, uint32_t nl) {
  return cdiv(ml, t->base_m) * cdiv(nl, t->base_n);
}

rt_rect rt_tiling_tile(const rt_tiling *t, uint32_t ml, uint32_t nl, uint64_t i) {
  uint64_t tm = cdiv(ml, t->base_m), tn = cdiv(nl, t->base_n);
  uint64_t mi, ni;
  if (t->iterate_order == 0) { /* groups of step_n columns; in each, groups of step_m rows */
    uint64_t ng = i / (t->step_n * tm), r = i - ng * t->step_n * tm;
    uint64_t gn = tn - ng * t->step_n < t->step_n ? tn - ng * t->step_n : t->step_n;
    uint64_t mg = r / (t->step_m * gn), r2 = r - mg * t->step_m * gn;
    mi = mg * t->step_m + r2 / gn;
    ni = ng * t->step_n + r2 % gn;
  } else { /* groups of step_m rows; in each, groups of step_n columns */
    uint64_t mg = i / (t->step_m * tn), r = i - mg * t->step_m * tn;
    uint64_t gm = tm - mg * t->step_m < t->step_m ? tm - mg * t->step_m : t->step_m;
    uint64_t ng = r / (t->step_n * gm), r2 = r - ng * t->step_n * gm;
    ni = ng * t->step_n + r2 / gm;
    mi = mg * t->step_m + r2 % gm;
  }
  rt_rect r = {(uint32_t)mi * t->base_m, (uint32_t)ni * t->base_n, 0, 0};
  r.ml = umin(t->base_m, ml - r.m0);
  r.nl = umin(t->base_n, nl - r.n0);
  return r;
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

void rt_tile_walk_init(rt_tile_walk *w, const rt_tiling *t, uint32_t ml, uint32_t nl, uint64_t i) {
  uint64_t tm = cdiv(ml, t->base_m), tn = cdiv(nl, t->base_n);
  w->t = t;
  w->ml = ml;
  w->nl = nl;
  if (t->iterate_order == 0) { /* outer N (groups of step_n columns), inner M */
    w->t_out = tn, w->s_out = t->step_n, w->t_in = tm, w->s_in = t->step_m;
  } else { /* outer M (groups of step_m rows), inner N */
    w->t_out = tm, w->s_out = t->step_m, w->t_in = tn, w->s_in = t->step_n;
  }
  /* rt_tiling_tile's decomposition of i */
  w->g_out = i / (w->s_out * w->t_in);
  uint64_t r = i - w->g_out * w->s_out * w->t_in;
  w->n_out = w->t_out > w->g_out * w->s_out ? min64(w->s_out, w->t_out - w->g_out * w->s_out) : 1;
  w->g_in = r / (w->s_in * w->n_out);
  uint64_t r2 = r - w->g_in * w->s_in * w->n_out;
  w->n_in = w->t_in > w->g_in * w->s_in ? min64(w->s_in, w->t_in - w->g_in * w->s_in) : 1;
  w->a = r2 / w->n_out;
  w->b = r2 % w->n_out;
}

rt_rect rt_tile_walk_next(rt_tile_walk *w) {
  const rt_tiling *t = w->t;
  uint64_t o = w->g_out * w->s_out + w->b, n = w->g_in * w->s_in + w->a;
  uint64_t mi = t->iterate_order == 0 ? n : o, ni = t->iterate_order == 0 ? o : n;
  rt_rect r = {(uint32_t)mi * t->base_m, (uint32_t)ni * t->base_n, 0, 0};
  r.ml = umin(t->base_m, w->ml - r.m0);
  r.nl = umin(t->base_n, w->nl - r.n0);
  if (++w->b < w->n_out) return r;
  w->b = 0;
  if (++w->a < w->n_in) return r;
  w->a = 0;
  if (++w->g_in * w->s_in >= w->t_in) {
    w->g_in = 0;
    w->g_out++;
    w->n_out = w->t_out > w->g_out * w->s_out ? min64(w->s_out, w->t_out - w->g_out * w->s_out) : 1;
  }
  w->n_in = min64(w->s_in, w->t_in - w->g_in * w->s_in);
  return r;
}

void rt_sched_init(rt_sched *s, const rt_tiling *t, uint32_t ml, uint32_t nl, uint64_t first, uint64_t count,
                   uint64_t stride) {
  s->t = t;
  s->ml = ml;
  s->nl = nl;
  s->first = first;
  s->count = count;
  s->stride = stride ? stride : 1;
  uint64_t kstep = (uint64_t)umin(t->step_ka, t->step_kb) * t->base_k;
  s->k_steps = (uint32_t)cdiv(t->ka, kstep);
}

uint64_t rt_sched_steps(const rt_sched *s) { return s->count * s->k_steps; }

/* The L1 loads of step j of a tile: A rows of the tile's group of step_m tiles, K stretch of
 * step_ka base_k (B likewise along N). */
static void units_of(const rt_sched *s, const rt_rect *tile, uint32_t j, rt_rect *a, rt_rect *b) {
  const rt_tiling *t = s->t;
  uint32_t lo = umin(t->step_ka, t->step_kb);
  uint32_t ga = t->step_m * t->base_m, gb = t->step_n * t->base_n;
  uint64_t ka = (uint64_t)t->step_ka * t->base_k, kb = (uint64_t)t->step_kb * t->base_k;
  a->m0 = tile->m0 / ga * ga;
  a->ml = umin(ga, s->ml - a->m0);
  a->n0 = (uint32_t)((uint64_t)j / (t->step_ka / lo) * ka);
  a->nl = (uint32_t)(ka < t->ka - a->n0 ? ka : t->ka - a->n0);
  b->n0 = tile->n0 / gb * gb;
  b->nl = umin(gb, s->nl - b->n0);
  b->m0 = (uint32_t)((uint64_t)j / (t->step_kb / lo) * kb);
  b->ml = (uint32_t)(kb < t->ka - b->m0 ? kb : t->ka - b->m0);
}

static bool rect_eq(const rt_rect *x, const rt_rect *y) {
  return x->m0 == y->m0 && x->n0 == y->n0 && x->ml == y->ml && x->nl == y->nl;
}

rt_step rt_sched_step(const rt_sched *s, uint64_t i) {
  const rt_tiling *t = s->t;
  rt_step st;
  uint64_t ti = i / s->k_steps;
  uint32_t j = (uint32_t)(i % s->k_steps);
  st.tile = rt_tiling_tile(t, s->ml, s->nl, s->first + ti * s->stride);
  uint64_t kstep = (uint64_t)umin(t->step_ka, t->step_kb) * t->base_k;
  st.k0 = (uint32_t)(j * kstep);
  st.kl = (uint32_t)(kstep < t->ka - st.k0 ? kstep : t->ka - st.k0);
  st.first_k = j == 0;
  st.last_k = j + 1 == s->k_steps;
  units_of(s, &st.tile, j, &st.a_unit, &st.b_unit);
  st.new_a = st.new_b = true;
  if (i > 0) {
    uint64_t pi = i - 1, pti = pi / s->k_steps;
    rt_rect ptile = pti == ti ? st.tile : rt_tiling_tile(t, s->ml, s->nl, s->first + pti * s->stride);
    rt_rect pa, pb;
    units_of(s, &ptile, (uint32_t)(pi % s->k_steps), &pa, &pb);
    st.new_a = !rect_eq(&pa, &st.a_unit);
    st.new_b = !rect_eq(&pb, &st.b_unit);
  }
  return st;
}

rt_scalar_costs rt_tiling_scalar_costs(const sim_config *cfg, const rt_tiling *t) {
  rt_scalar_costs c = {0, 0, 0};
  if (t->api == RT_API_BASIC) return c;
  uint64_t pct = t->const_tiling ? cfg->scalar_matmul_const_tiling_percent : 100;
  c.step = (uint32_t)((cfg->scalar_matmul_step_cycles * pct + 50) / 100);
  c.copy = (uint32_t)((cfg->scalar_matmul_copy_cycles * pct + 50) / 100);
  c.tile = (uint32_t)((cfg->scalar_matmul_tile_cycles * pct + 50) / 100);
  return c;
}

/* ---- the analytic estimate ---------------------------------------------------------------- */

/* Tiles of core 0 walked before the counts are extrapolated (the estimate must stay cheap for
 * tens of thousands of candidates). */
#define WALK_TILES 160

/* What core 0 does, summed over the tiles walked. */
typedef struct work {
  double tiles, a_loads, b_loads, a_bytes, b_bytes, subs;  /* L1 loads; L0 sub-steps (mmads) */
  double a_mte2[2], b_mte2[2]; /* its L1 loads' cycles on MTE2: [0] all from the L2, [1] all from HBM */
  double mte1_cycles, cube_cycles, fix_cycles, insns;
  double l0_chain_a, l0_chain_b;                          /* single L0 buffers: load + mmad, serial */
} work;

/* The instructions the Matmul object records (runtime/rt_matmul.c): per L0 sub-step the L0A and
 * L0B loads, the mmad, and one hand-over each way between MTE1 and the cube (a set and a wait),
 * two each way when L0A and L0B have different numbers of buffers (they cannot share events);
 * per L1 load the copy, its set and wait to MTE1 and the free's set and wait back to MTE2; per
 * base tile the fixpipe, and without UnitFlag a hand-over each way between the cube and the
 * fixpipe. The high-level API adds one scalar instruction per sub-step, L1 load and tile. */
#define SUB_FLAGS 4.0
#define COPY_FLAGS 4.0
#define TILE_FLAGS_NO_UNIT_FLAG 4.0

/* What one tile's K loop costs, which depends only on the tile's shape (ml x nl). */
typedef struct tile_cost {
  uint32_t ml, nl; /* the shape (ml = 0: none yet) */
  uint32_t align;  /* the alignment of its first column in C (start_align) */
  double cube, mte1, chain_a, chain_b, loads, subs, fix;
} tile_cost;

/* Cycles of `count` MTE1 instructions moving `bytes` in all at `bytes_per_cycle`, each as the
 * timing model prices it: mte1.insn_cycles plus its bytes over the link, rounded up. */
static double mte1_cycles(const sim_config *cfg, double count, double bytes, uint64_t bytes_per_cycle) {
  if (count <= 0) return 0;
  return count * ((double)cfg->mte1_insn_cycles + ceil(bytes / count / (double)bytes_per_cycle));
}

static tile_cost tile_cost_of(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t,
                              const rt_rect *tile, double tile_gm_cycles) {
  uint32_t c0 = isa_dtype_c0(ty->a), k0 = (uint32_t)(cfg->cube_macs_per_cycle_fp16 / 256);
  switch (ty->a) {
    case ISA_INT8: k0 = (uint32_t)(cfg->cube_macs_per_cycle_int8 / 256); break;
    case ISA_INT4: k0 = (uint32_t)(cfg->cube_macs_per_cycle_int4 / 256); break;
    case ISA_BF16: k0 = (uint32_t)(cfg->cube_macs_per_cycle_bf16 / 256); break;
    default: break;
  }
  uint32_t kiter = (uint32_t)cdiv(t->ka, t->base_k), ktail = t->ka - (kiter - 1) * t->base_k;
  uint64_t mr = round_up(tile->ml, ty->a_trans ? c0 : 16), nr = round_up(tile->nl, ty->b_trans ? 16 : c0);
  double cube = 0, mte1 = 0, chain_a = 0, chain_b = 0, loads = 0;
  double scalar = t->api == RT_API_BASIC ? 0 : 1; /* the step's scalar instruction */
  rt_tiling_slots sl = rt_tiling_slots_of(ty, t);
  double flags = sl.n_a2 == sl.n_b2 ? SUB_FLAGS : 2 * SUB_FLAGS;
  for (int tail = 0; tail < 2; tail++) { /* kiter - 1 full sub-steps, then the last one */
    uint32_t kn = tail ? ktail : t->base_k;
    double count = tail ? 1 : kiter - 1;
    if (count <= 0) continue;
    uint64_t kb = cdiv(kn, c0);
    double a2 = (double)(kb * mr / 16 * 512), b2 = (double)(kb * nr / 16 * 512);
    /* A: one load3d (transposed: one load2d per C0-wide K block); B: one load2d per K block */
    double la = ty->a_trans ? (double)kb : 1, lb = (double)kb;
    double ca = mte1_cycles(cfg, la, a2, cfg->mte1_l0a_bytes_per_cycle);
    double cb = mte1_cycles(cfg, lb, b2, cfg->mte1_l0b_bytes_per_cycle);
    double mm = (double)(cdiv(tile->ml, 16) * cdiv(tile->nl, 16) * cdiv(kn, k0) + cfg->cube_head_cycles);
    cube += count * mm;
    mte1 += count * (ca + cb);
    chain_a += count * (ca + (double)cfg->mte1_latency_cycles + mm + (double)cfg->cube_latency_cycles);
    chain_b += count * (cb + (double)cfg->mte1_latency_cycles + mm + (double)cfg->cube_latency_cycles);
    loads += count * (la + lb + 1 + flags + scalar);
  }
  tile_cost tc = {tile->ml, tile->nl, 0, cube, mte1, chain_a, chain_b, loads, kiter, tile_gm_cycles};
  return tc;
}

/* The costs of the shapes met so far in one estimate: a block's tiles take at most four shapes
 * (whole, and short along M, N or both), computed once each. */
#define TILE_COSTS 4

typedef struct tile_costs {
  tile_cost c[TILE_COSTS];
  unsigned n, next; /* entries used; the one replaced next when all are */
} tile_costs;

/* What the estimate knows of the chip while it walks. */
typedef struct gm_view {
  double l2_share; /* bytes/cycle of the L2 port each core may count on */
} gm_view;

/* Cycles one GM transfer of `rows` runs of `row_bytes`, `pitch` bytes apart, from byte `base` of
 * its tensor (tensors start 512-byte aligned), keeps its engine
 * (on `path`; GM elements `elem_bytes` wide) busy as the timing model prices it alone
 * (sim_gm.h): the set-up, then the bytes at the rate its shape, its alignment and the latency of
 * where its data comes from (`from_l2` of it from the L2, the rest from HBM) allow, at most the
 * core's share of the L2 port. */
static double gm_cycles(const sim_config *cfg, const gm_view *g, isa_path path, double elem_bytes, double from_l2,
                        uint64_t base, uint64_t rows, uint64_t row_bytes, uint64_t pitch) {
  if (!rows || !row_bytes) return 0;
  isa_range r = {.mem = ISA_MEM_GM, .write = path == ISA_PATH_L0C_TO_GM, .base = base, .row_bytes = row_bytes,
                 .stride_bytes = rows > 1 ? pitch : row_bytes, .rows = rows};
  sim_xfer_shape sh;
  sim_xfer_shape_of(&r, 1, &sh);
  sim_xfer_engine eng;
  sim_xfer_engine_of(cfg, path, elem_bytes, &eng);
  double hit = !cfg->l2_enabled ? 0 : r.write ? 1 : from_l2;
  double lat = hit * (double)cfg->l2_hit_latency_cycles + (1 - hit) * (double)cfg->l2_miss_latency_cycles;
  double rate = sim_xfer_rate(&eng, &sh, sim_xfer_pitch_efficiency(cfg, sh.align_bytes), lat);
  if (cfg->l2_enabled && g->l2_share < rate) rate = g->l2_share;
  return (double)eng.setup_cycles + (double)sh.bytes / rate;
}

/* The fixpipe's cycles for one base tile to GM: its rows of nl elements of C (ND), N apart,
 * from column n0. */
static double fix_cycles_of(const sim_config *cfg, const gm_view *g, const rt_matmul_types *ty, const rt_tiling *t,
                            const rt_rect *tile, uint64_t n0) {
  double eb = (double)isa_dtype_bits(ty->c) / 8;
  uint64_t row = (uint64_t)ceil((double)tile->nl * eb), pitch = (uint64_t)ceil((double)t->n * eb);
  double gm = gm_cycles(cfg, g, ISA_PATH_L0C_TO_GM, eb, 1, (uint64_t)((double)n0 * eb), tile->ml, row, pitch);
  double conv = (double)cdiv((uint64_t)tile->ml * tile->nl, cfg->fixpipe_elements_per_cycle);
  return gm > conv ? gm : conv;
}

/* The alignment a transfer from byte `base` starts at, as far as it prices it (sim_gm.c: below
 * 32 bytes the first burst's address counts). */
static uint32_t start_align(uint64_t base) {
  uint64_t low = base & (~base + 1);
  return base == 0 || low >= 32 ? 32 : (uint32_t)low;
}

/* tile: in its block; n0: its first column in C */
static const tile_cost *tile_cost_find(tile_costs *tc, const sim_config *cfg, const gm_view *g,
                                       const rt_matmul_types *ty, const rt_tiling *t, const rt_rect *tile,
                                       uint64_t n0) {
  uint32_t al = start_align((uint64_t)ceil((double)n0 * isa_dtype_bits(ty->c) / 8));
  for (unsigned i = 0; i < tc->n; i++)
    if (tc->c[i].ml == tile->ml && tc->c[i].nl == tile->nl && tc->c[i].align == al) return &tc->c[i];
  unsigned at = tc->n < TILE_COSTS ? tc->n++ : tc->next++ % TILE_COSTS;
  tc->c[at] = tile_cost_of(cfg, ty, t, tile, fix_cycles_of(cfg, g, ty, t, tile, n0));
  tc->c[at].align = al;
  return &tc->c[at];
}

/* Adds one tile (its whole K loop, costs c) to w; a_new / b_new: how many of its L1 loads of A /
 * B are copies (the others are still in L1 from the tile before), each of a_unit_cycles /
 * b_unit_cycles on MTE2 (from the L2, from HBM). */
static void add_tile(const rt_matmul_types *ty, const rt_tiling *t, const tile_cost *c, double a_new, double b_new,
                     double a_unit_bytes, double b_unit_bytes, const double a_unit_cycles[2],
                     const double b_unit_cycles[2], work *w) {
  w->tiles += 1;
  w->subs += c->subs;
  w->a_loads += a_new;
  w->b_loads += b_new;
  w->a_bytes += a_new * a_unit_bytes;
  w->b_bytes += b_new * b_unit_bytes;
  for (int i = 0; i < 2; i++) {
    w->a_mte2[i] += a_new * a_unit_cycles[i];
    w->b_mte2[i] += b_new * b_unit_cycles[i];
  }
  w->cube_cycles += c->cube;
  w->mte1_cycles += c->mte1;
  w->l0_chain_a += c->chain_a;
  w->l0_chain_b += c->chain_b;
  w->fix_cycles += c->fix;
  double scalar = t->api == RT_API_BASIC ? 0 : 1;
  double staged = (double)ty->has_bias + (double)rt_matmul_uses_words(ty);
  w->insns += c->loads + (a_new + b_new) * (1 + COPY_FLAGS + scalar) + 1 + scalar +
              (t->unit_flag ? 0 : TILE_FLAGS_NO_UNIT_FLAG) + staged * (2 + 2 * COPY_FLAGS);
}

/* MTE2's cycles for one L1 load of an operand (A: `len` rows of M from row `start` by `kl`
 * columns of K; B: `kl` rows of K by `len` columns of N from column `start`) as the Matmul
 * object copies it (copy_a, copy_b): an ND operand row by row (an ND -> NZ copy), an NZ one
 * C0-wide column block by column block (whole fractals: aligned). */
static void load_cycles(const sim_config *cfg, const gm_view *g, const rt_matmul_types *ty, const rt_tiling *t,
                        bool is_a, uint64_t start, uint32_t len, uint32_t kl, double out[2]) {
  double e = (double)isa_dtype_bits(ty->a) / 8;
  uint32_t c0 = isa_dtype_c0(ty->a);
  bool trans = is_a ? ty->a_trans : ty->b_trans, nz = is_a ? ty->a_nz : ty->b_nz;
  uint64_t other = is_a ? t->m : t->n, k = is_a ? t->ka : t->kb; /* the operand's M or N, and its K */
  uint64_t rows, row, pitch, base = 0;
  /* A not transposed and B transposed keep K along the stored rows */
  bool k_along = is_a ? !trans : trans;
  if (!nz) {
    rows = k_along ? len : kl;
    row = (uint64_t)ceil((k_along ? kl : len) * e);
    pitch = (uint64_t)ceil((double)(k_along ? k : other) * e);
    /* the first element: row `start` of a K-along operand, else column `start` of row 0 */
    base = (uint64_t)ceil((double)start * (double)(k_along ? k : 1) * e);
  } else if (k_along) { /* [K/C0][rows][C0]: a block of `len` rows per C0 columns of K */
    rows = cdiv(kl, c0);
    row = (uint64_t)(is_a ? len : round_up(len, 16)) * 32;
    pitch = other * 32;
  } else { /* [rows/C0][K][C0]: a block of kl rows of K per C0 of M or N */
    rows = cdiv(len, c0);
    row = (uint64_t)kl * 32;
    pitch = k * 32;
  }
  out[0] = gm_cycles(cfg, g, ISA_PATH_GM_TO_L1, e, 1, base, rows, row, pitch);
  out[1] = gm_cycles(cfg, g, ISA_PATH_GM_TO_L1, e, 0, base, rows, row, pitch);
}

/* Walks core 0's tiles of one block (tiles first, first + stride, ...) into w, with the L1
 * loads the schedule copies; stops after *budget tiles. */
static void walk_block(const sim_config *cfg, const gm_view *g, const rt_matmul_types *ty, const rt_tiling *t,
                       const rt_rect *blk, uint64_t first, uint64_t stride, uint64_t *budget, tile_costs *tc, work *w) {
  uint64_t nt = rt_tiling_tile_count(t, blk->ml, blk->nl);
  uint32_t k = t->ka;
  uint64_t ka = (uint64_t)t->step_ka * t->base_k, kb = (uint64_t)t->step_kb * t->base_k;
  bool a_full = ka >= k, b_full = kb >= k;
  double a_chunks = (double)cdiv(k, ka), b_chunks = (double)cdiv(k, kb);
  uint32_t ga = t->step_m * t->base_m, gb = t->step_n * t->base_n;
  int64_t prev_ga = -1, prev_gb = -1;
  size_t ea = isa_dtype_bits(ty->a);
  /* the MTE2 cycles of one load of a_rows x K chunk (B: K chunk x b_cols), kept while the
   * load's size and the alignment of its start stay the same */
  uint32_t a_rows_seen = 0, b_cols_seen = 0, a_al = 0, b_al = 0;
  double a_cyc[2] = {0, 0}, b_cyc[2] = {0, 0}, ea_bytes = (double)ea / 8;
  rt_tile_walk walk;
  if (stride == 1) rt_tile_walk_init(&walk, t, blk->ml, blk->nl, first);
  for (uint64_t i = first; i < nt && *budget; i += stride, (*budget)--) {
    rt_rect tile = stride == 1 ? rt_tile_walk_next(&walk) : rt_tiling_tile(t, blk->ml, blk->nl, i);
    int64_t g_a = tile.m0 / ga, g_b = tile.n0 / gb;
    uint32_t a_rows = umin(ga, blk->ml - (uint32_t)g_a * ga), b_cols = umin(gb, blk->nl - (uint32_t)g_b * gb);
    /* bytes as copied: one chunk of the unit; the L1 padding is not read from GM */
    double a_bytes = (double)a_rows * (double)(a_full ? k : ka) * (double)ea / 8;
    double b_bytes = (double)b_cols * (double)(b_full ? k : kb) * (double)ea / 8;
    uint64_t a0 = blk->m0 + (uint64_t)g_a * ga, b0 = blk->n0 + (uint64_t)g_b * gb;
    /* ND: A's rows start on row pitches (aligned when K is), its transposed and B's columns not */
    uint32_t al_a = start_align((uint64_t)ceil((double)a0 * ea_bytes)), al_b = start_align((uint64_t)ceil((double)b0 * ea_bytes));
    if (a_rows != a_rows_seen || al_a != a_al) {
      load_cycles(cfg, g, ty, t, true, a0, a_rows, (uint32_t)(a_full ? k : ka), a_cyc);
      a_rows_seen = a_rows;
      a_al = al_a;
    }
    if (b_cols != b_cols_seen || al_b != b_al) {
      load_cycles(cfg, g, ty, t, false, b0, b_cols, (uint32_t)(b_full ? k : kb), b_cyc);
      b_cols_seen = b_cols;
      b_al = al_b;
    }
    double a_new = a_full ? (g_a != prev_ga) : a_chunks, b_new = b_full ? (g_b != prev_gb) : b_chunks;
    const tile_cost *c = tile_cost_find(tc, cfg, g, ty, t, &tile, (uint64_t)blk->n0 + tile.n0);
    add_tile(ty, t, c, a_new, b_new, a_bytes, b_bytes, a_cyc, b_cyc, w);
    prev_ga = g_a;
    prev_gb = g_b;
  }
}

/* w += f * x, field by field */
static void work_add(work *w, const work *x, double f) {
  w->tiles += f * x->tiles;
  w->a_loads += f * x->a_loads;
  w->b_loads += f * x->b_loads;
  w->a_bytes += f * x->a_bytes;
  w->b_bytes += f * x->b_bytes;
  w->subs += f * x->subs;
  for (int i = 0; i < 2; i++) {
    w->a_mte2[i] += f * x->a_mte2[i];
    w->b_mte2[i] += f * x->b_mte2[i];
  }
  w->mte1_cycles += f * x->mte1_cycles;
  w->cube_cycles += f * x->cube_cycles;
  w->fix_cycles += f * x->fix_cycles;
  w->insns += f * x->insns;
  w->l0_chain_a += f * x->l0_chain_a;
  w->l0_chain_b += f * x->l0_chain_b;
}

/* Blocks that cost the same: the same size and the same alignment of their first row and
 * column in GM (the transfers' starts). A block split gives each core its own blocks: each kind
 * is walked once and counted for every core that has one. */
#define BLOCK_KINDS 16

typedef struct block_kind {
  uint32_t ml, nl, al_m, al_n;
  work w; /* the whole block */
} block_kind;

typedef struct block_kinds {
  block_kind k[BLOCK_KINDS];
  unsigned n;
} block_kinds;

/* The work of a whole block (its tiles walked up to WALK_TILES, the rest extrapolated). */
static const work *block_work(const sim_config *cfg, const gm_view *g, const rt_matmul_types *ty, const rt_tiling *t,
                              const rt_rect *r, block_kinds *bk, work *scratch) {
  double e = (double)isa_dtype_bits(ty->a) / 8;
  uint32_t al_m = start_align((uint64_t)ceil((double)r->m0 * e)), al_n = start_align((uint64_t)ceil((double)r->n0 * e));
  for (unsigned i = 0; i < bk->n; i++) {
    const block_kind *k = &bk->k[i];
    if (k->ml == r->ml && k->nl == r->nl && k->al_m == al_m && k->al_n == al_n) return &k->w;
  }
  work *w = bk->n < BLOCK_KINDS ? &bk->k[bk->n].w : scratch;
  memset(w, 0, sizeof *w);
  uint64_t budget = WALK_TILES, nt = rt_tiling_tile_count(t, r->ml, r->nl);
  tile_costs tc = {.n = 0};
  walk_block(cfg, g, ty, t, r, 0, 1, &budget, &tc, w);
  if (w->tiles > 0 && w->tiles < (double)nt) {
    work whole = {0};
    work_add(&whole, w, (double)nt / w->tiles);
    *w = whole;
  }
  if (bk->n < BLOCK_KINDS) bk->k[bk->n++] = (block_kind){r->ml, r->nl, al_m, al_n, *w};
  return w;
}

/* What a core's work takes it, start to finish: its busiest pipe, or a chain of one-buffer
 * stages, with the pipeline's filling and the kernel's entry; `hit` of what it reads is found in
 * the L2, its data landing lat2 cycles after each transfer. */
static double core_cycles(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t, const work *w,
                          double hit, double lat2, rt_estimate *e) {
  double a_mte2 = hit * w->a_mte2[0] + (1 - hit) * w->a_mte2[1];
  double b_mte2 = hit * w->b_mte2[0] + (1 - hit) * w->b_mte2[1];
  e->mte2_cycles = a_mte2 + b_mte2;
  e->mte1_cycles = w->mte1_cycles;
  e->cube_cycles = w->cube_cycles;
  e->fix_cycles = w->fix_cycles;
  /* fed slower than it computes, the cube is idle before each mmad: each pays its restart */
  if (e->mte1_cycles > e->cube_cycles || e->mte2_cycles > e->cube_cycles)
    e->cube_cycles += w->subs * (double)cfg->cube_restart_cycles;
  rt_scalar_costs sc = rt_tiling_scalar_costs(cfg, t);
  e->scalar_cycles = w->insns * (double)cfg->scalar_dispatch_cycles + w->subs * sc.step +
                     (w->a_loads + w->b_loads) * sc.copy + w->tiles * sc.tile;
  rt_tiling_slots s = rt_tiling_slots_of(ty, t);
  double cyc = fmax(fmax(e->mte2_cycles, e->mte1_cycles), fmax(e->cube_cycles, fmax(e->fix_cycles, e->scalar_cycles)));
  /* one L1 buffer: the next copy waits until MTE1 has read the current one */
  if (s.n_a1 == 1) cyc = fmax(cyc, a_mte2 + w->a_loads * lat2 + e->mte1_cycles);
  if (s.n_b1 == 1) cyc = fmax(cyc, b_mte2 + w->b_loads * lat2 + e->mte1_cycles);
  if (s.n_a1 == 1 && s.n_b1 == 1) cyc = fmax(cyc, e->mte2_cycles + (w->a_loads + w->b_loads) * lat2 + e->mte1_cycles);
  /* one L0A / L0B buffer: load and mmad alternate */
  if (s.n_a2 == 1) cyc = fmax(cyc, w->l0_chain_a);
  if (s.n_b2 == 1) cyc = fmax(cyc, w->l0_chain_b);
  /* one L0C buffer: a tile's fixpipe and the next tile's mmads alternate */
  if (s.n_co1 == 1)
    cyc = fmax(cyc, e->cube_cycles + e->fix_cycles +
                        w->tiles * (double)(cfg->cube_latency_cycles + cfg->fixpipe_latency_cycles + cfg->l2_hit_latency_cycles));
  /* filling the pipeline (the first loads) and draining it (the last fixpipe) */
  double loads = w->a_loads + w->b_loads, first_tile = w->tiles > 0 ? (e->cube_cycles + e->fix_cycles) / w->tiles : 0;
  cyc += (loads > 0 ? e->mte2_cycles / loads : 0) + lat2 + first_tile / 4;
  /* the kernel's entry on the scalar unit, before its first instruction */
  return cyc + (double)cfg->scalar_kernel_init_cycles;
}

/* The most cores an estimate walks one by one (the search keeps used_core_num to the chip's). */
#define ESTIMATE_CORES 64

/* Distinct values seen (the rows or columns of a core's blocks), up to SEEN_MAX; more count as new. */
#define SEEN_MAX 8
typedef struct seen {
  uint64_t v[SEEN_MAX];
  unsigned n;
} seen;

static bool seen_first(seen *s, uint64_t v) {
  for (unsigned i = 0; i < s->n; i++)
    if (s->v[i] == v) return false;
  if (s->n < SEEN_MAX) s->v[s->n++] = v;
  return true;
}

/* Every core's work, from the tiles of its blocks (block split) or the tiles dealt to it (round
 * robin). w[c] for c < P; *total_tiles: all of them. With a block split, first_reads[c]: the bytes of
 * A and B core c is the first to read: the rows of A and columns of B of its blocks, which the
 * cores that share them read at the same time (0 dealt round robin). */
static void walk_cores(const sim_config *cfg, const gm_view *g, const rt_matmul_types *ty, const rt_tiling *t,
                       uint32_t batch, uint64_t P, work *w, double *first_reads, uint64_t *total_tiles) {
  uint64_t blocks = rt_tiling_block_count(t), total = 0;
  for (uint64_t c = 0; c < P; c++) {
    memset(&w[c], 0, sizeof w[c]);
    first_reads[c] = 0;
  }
  for (uint64_t b = 0; b < blocks; b++) {
    rt_rect r = rt_tiling_block(t, b);
    total += rt_tiling_tile_count(t, r.ml, r.nl);
  }
  total *= batch;
  *total_tiles = total;
  if (t->core_split == RT_SPLIT_BLOCK) {
    block_kinds bk = {.n = 0};
    work scratch;
    seen rows[ESTIMATE_CORES], cols[ESTIMATE_CORES];
    for (uint64_t c = 0; c < P; c++) rows[c].n = cols[c].n = 0;
    double e = (double)isa_dtype_bits(ty->a) / 8;
    for (uint64_t i = 0; i < blocks * batch; i++) { /* core c: blocks c, c + P, c + 2P, ... */
      rt_rect r = rt_tiling_block(t, i % blocks);
      uint64_t c = i % P, b = i / blocks;
      work_add(&w[c], block_work(cfg, g, ty, t, &r, &bk, &scratch), 1);
      if (seen_first(&rows[c], b * ((uint64_t)t->m + 1) + r.m0)) first_reads[c] += (double)r.ml * t->ka * e;
      if (seen_first(&cols[c], b * ((uint64_t)t->n + 1) + r.n0)) first_reads[c] += (double)r.nl * t->kb * e;
    }
    return;
  }
  /* core c: global tiles c, c + P, c + 2P, ... over the blocks of every batch, the first
   * WALK_TILES / P (at least 8) of them walked, the rest in proportion */
  uint64_t per_core = WALK_TILES / P > 8 ? WALK_TILES / P : 8;
  for (uint64_t c = 0; c < P; c++) {
    uint64_t off = 0, budget = per_core, mine = 0;
    tile_costs tc = {.n = 0};
    for (uint64_t i = 0; i < blocks * batch; i++) {
      rt_rect r = rt_tiling_block(t, i % blocks);
      uint64_t nt = rt_tiling_tile_count(t, r.ml, r.nl), first = (P + c - off % P) % P;
      if (first < nt) {
        mine += (nt - first + P - 1) / P;
        if (budget) walk_block(cfg, g, ty, t, &r, first, P, &budget, &tc, &w[c]);
      }
      off += nt;
    }
    if (w[c].tiles > 0 && w[c].tiles < (double)mine) {
      work whole = {0};
      work_add(&whole, &w[c], (double)mine / w[c].tiles);
      w[c] = whole;
    }
  }
}

rt_estimate rt_tiling_estimate(const sim_config *cfg, const rt_matmul_types *ty, const rt_tiling *t, uint32_t batch) {
  rt_estimate e;
  memset(&e, 0, sizeof e);
  sim_config_derived d;
  sim_config_derive(cfg, &d);
  if (batch == 0) batch = 1;
  uint64_t P = t->used_core_num ? t->used_core_num : 1;
  if (P > ESTIMATE_CORES) P = ESTIMATE_CORES;
  uint64_t total_tiles = 0, blocks = rt_tiling_block_count(t);
  for (uint64_t b = 0; b < blocks; b++) {
    rt_rect r = rt_tiling_block(t, b);
    total_tiles += rt_tiling_tile_count(t, r.ml, r.nl);
  }
  total_tiles *= batch;
  double cores = (double)(P < total_tiles ? P : total_tiles);
  gm_view g = {.l2_share = d.l2_bytes_per_cycle / (cores > 0 ? cores : 1)};
  work w[ESTIMATE_CORES];
  double first[ESTIMATE_CORES];
  walk_cores(cfg, &g, ty, t, batch, P, w, first, &total_tiles);
  /* what the cores read and what of it is new to the L2: with a block split, each core's first
   * reads of its blocks' rows and columns (the cores sharing them read them at the same time);
   * dealt round robin, the first reads of A and B over all cores */
  double e_bytes = (double)isa_dtype_bits(ty->a) / 8;
  double a_total = (double)t->m * t->ka * e_bytes * batch, b_total = (double)t->ka * t->n * e_bytes * batch;
  double reads = 0;
  for (uint64_t c = 0; c < P; c++) reads += w[c].a_bytes + w[c].b_bytes;
  double chip_hit = reads > 0 ? fmax(0, 1 - (a_total + b_total) / reads) : 1;
  /* a transfer's data lands after MTE2's latency, the L2's and the queue of the other cores */
  double queueing = cores > 1 ? (cores - 1) * (double)cfg->l2_queue_cycles : 0;
  /* the slowest core, core c starting c start skews after core 0 */
  double cyc = 0, insns = 0;
  for (uint64_t c = 0; c < P; c++) {
    insns += w[c].insns;
    if (w[c].tiles <= 0) continue;
    double mine = w[c].a_bytes + w[c].b_bytes;
    double hit = !cfg->l2_enabled ? 0
                 : t->core_split == RT_SPLIT_BLOCK ? (mine > 0 ? fmax(0, 1 - first[c] / mine) : 1)
                                                   : chip_hit;
    double lat2 = (double)cfg->mte2_latency_cycles + hit * (double)cfg->l2_hit_latency_cycles +
                  (1 - hit) * (double)cfg->l2_miss_latency_cycles + queueing;
    rt_estimate ec = e;
    double end = (double)c * (double)cfg->chip_core_start_skew_cycles + core_cycles(cfg, ty, t, &w[c], hit, lat2, &ec);
    if (end > cyc) {
      cyc = end;
      e = ec;
    }
  }
  /* the chip: every read through the L2 port, what L2 cannot keep from HBM */
  double c_round = (double)round_rows(t) * t->n * (double)isa_dtype_bytes(ty->c, 1);
  double set = a_total / t->l2_split + b_total + c_round; /* one round's working set */
  double hbm = a_total + b_total * (set > (double)cfg->l2_bytes ? t->l2_split : 1);
  if (set > (double)cfg->l2_bytes) /* beyond L2 the reuse between the rounds' blocks is lost in part */
    hbm += (reads - a_total - b_total) * (1 - (double)cfg->l2_bytes / set);
  if (cfg->l2_enabled) cyc = fmax(cyc, reads / d.l2_bytes_per_cycle);
  cyc = fmax(cyc, (cfg->l2_enabled ? hbm : reads) / d.hbm_sustained_bytes_per_cycle);
  /* the task: the launch, then the cores */
  e.cycles = (double)d.launch_cycles + cyc;
  e.instructions = (uint64_t)llround(insns);
  return e;
}

/* ---- the search --------------------------------------------------------------------------- */

/* Per-core choices kept from the first stage for the second (placements). */
#define STAGE1_KEEP 8

typedef struct search {
  const sim_config *cfg;
  const rt_matmul_types *ty;
  uint32_t batch;
  const rt_tiling *start;
  rt_tiling_mask given;
  rt_tiling_choice *out;
  unsigned max, n;
} search;

/* Forces the given fields and the ones that follow from the shape and types. */
static void settle(const search *s, rt_tiling *t) {
  for (int i = 0; i < RT_TF_COUNT; i++)
    if (s->given & ((rt_tiling_mask)1 << i)) rt_tiling_set(t, i, rt_tiling_get(s->start, i));
  t->m = s->start->m;
  t->n = s->start->n;
  t->ka = s->start->ka;
  t->kb = s->start->kb;
  t->single_core_k = t->ka;
  t->is_bias = s->ty->has_bias;
}

/* Whether estimate x ranks before y: fewer cycles, and within 0.1 % fewer instructions (less
 * work for the scalar unit, and for the simulator). */
static bool better(const rt_estimate *x, const rt_estimate *y) {
  if (fabs(x->cycles - y->cycles) <= 1e-3 * fmax(x->cycles, y->cycles)) return x->instructions < y->instructions;
  return x->cycles < y->cycles;
}

/* Whether two tilings differ at most in the walk order and UnitFlag: one family, of which the
 * list keeps one (the estimate rarely tells them apart; the model's runs are better spent on
 * tilings that differ more). */
static bool same_family(const rt_tiling *x, const rt_tiling *y) {
  rt_tiling a = *x, b = *y;
  a.iterate_order = b.iterate_order = 0;
  a.unit_flag = b.unit_flag = 0;
  return memcmp(&a, &b, sizeof a) == 0;
}

/* Inserts a legal candidate into the sorted list (one per family; the list keeps the best max). */
static void offer(search *s, const rt_tiling *t) {
  if (rt_tiling_check(s->cfg, s->ty, t, NULL) != CS_OK) return;
  rt_estimate e = rt_tiling_estimate(s->cfg, s->ty, t, s->batch);
  for (unsigned i = 0; i < s->n; i++) {
    if (!same_family(&s->out[i].t, t)) continue;
    if (!better(&e, &s->out[i].est)) return;
    memmove(&s->out[i], &s->out[i + 1], (s->n - i - 1) * sizeof *s->out); /* the better one replaces it */
    s->n--;
    break;
  }
  unsigned pos = s->n;
  while (pos > 0 && better(&e, &s->out[pos - 1].est)) pos--;
  if (pos >= s->max) return;
  unsigned last = s->n < s->max ? s->n : s->max - 1;
  memmove(&s->out[pos + 1], &s->out[pos], (last - pos) * sizeof *s->out);
  s->out[pos].t = *t;
  s->out[pos].est = e;
  s->out[pos].model_cycles = 0;
  if (s->n < s->max) s->n++;
}

static bool given(const search *s, int f) { return (s->given >> f) & 1; }

/* Values tried for a base size: powers of two from `lo` up to `cap`, and the dimension itself
 * (rounded up to `lo`) when it is smaller than the largest. */
static unsigned base_options(uint32_t dim, uint32_t lo, uint32_t cap, uint32_t *out) {
  unsigned n = 0;
  uint32_t fit = (uint32_t)round_up(dim, lo);
  for (uint32_t v = lo; v <= cap && n < 12; v *= 2) {
    if (v >= fit) {
      out[n++] = fit;
      return n;
    }
    out[n++] = v;
  }
  return n;
}

/* The placement of the first stage: base tiles dealt round-robin to every core, whole rows, row by
 * row, UnitFlag on. */
static void default_placement(const search *s, rt_tiling *t) {
  t->core_split = RT_SPLIT_ROUND_ROBIN;
  t->iterate_order = 1;
  t->unit_flag = 1;
  t->l2_split = 1;
  t->single_core_m = t->m;
  t->single_core_n = t->n;
  uint64_t tiles = rt_tiling_tile_count(t, t->m, t->n) * (s->batch ? s->batch : 1);
  t->used_core_num = (uint32_t)(tiles < s->cfg->chip_aic_cores ? tiles : s->cfg->chip_aic_cores);
}

/* Stage 1: the per-core choices (base sizes, L0 and L1 buffers, steps) under the default
 * placement. */
static void stage1(search *s) {
  const sim_config *cfg = s->cfg;
  const rt_matmul_types *ty = s->ty;
  uint32_t c0 = isa_dtype_c0(ty->a), k = s->start->ka;
  uint32_t bm[12], bn[12], bk[12];
  unsigned nbm = given(s, RT_TF_base_m) ? (bm[0] = s->start->base_m, 1) : base_options(s->start->m, 16, 512, bm);
  unsigned nbn = given(s, RT_TF_base_n) ? (bn[0] = s->start->base_n, 1) : base_options(s->start->n, 16, 512, bn);
  unsigned nbk = given(s, RT_TF_base_k) ? (bk[0] = s->start->base_k, 1) : base_options(k, c0, 32 * c0, bk);
  for (unsigned i = 0; i < nbm; i++)
    for (unsigned j = 0; j < nbn; j++)
      for (unsigned q = 0; q < nbk; q++) {
        rt_tiling t = *s->start;
        t.base_m = bm[i];
        t.base_n = bn[j];
        t.base_k = bk[q];
        /* L0: two buffers each where they fit */
        uint64_t al, l0a = capacity(cfg, ISA_MEM_L0A, &al), l0b = capacity(cfg, ISA_MEM_L0B, &al);
        uint64_t l0c = capacity(cfg, ISA_MEM_L0C, &al);
        t.db_l0a = t.db_l0b = t.db_l0c = 1;
        t.step_m = t.step_n = t.step_ka = t.step_kb = 1;
        rt_tiling_slots sl = rt_tiling_slots_of(ty, &t);
        t.db_l0a = 2 * align_up(sl.a2, cfg->buffers_l0a_align_bytes) <= l0a ? 2 : 1;
        t.db_l0b = 2 * align_up(sl.b2, cfg->buffers_l0b_align_bytes) <= l0b ? 2 : 1;
        t.db_l0c = 2 * align_up(sl.co1, cfg->buffers_l0c_align_bytes) <= l0c ? 2 : 1;
        uint32_t kiter = (uint32_t)cdiv(k, t.base_k);
        uint32_t steps[10];
        unsigned ns = 0;
        for (uint32_t v = 1; v < kiter && v <= 64 && ns < 9; v *= 2) steps[ns++] = v;
        steps[ns++] = kiter; /* all of K */
        for (unsigned x = 0; x < ns; x++)
          for (unsigned y = 0; y < ns; y++) {
            uint32_t ska = given(s, RT_TF_step_ka) ? s->start->step_ka : steps[x];
            uint32_t skb = given(s, RT_TF_step_kb) ? s->start->step_kb : steps[y];
            if ((given(s, RT_TF_step_ka) && x) || (given(s, RT_TF_step_kb) && y)) continue;
            uint32_t hi = ska > skb ? ska : skb, lo = ska < skb ? ska : skb;
            if (hi % lo) continue;
            for (uint32_t sm = 1; sm <= 8; sm *= 2)
              for (uint32_t sn = 1; sn <= 8; sn *= 2) {
                if ((sm > 1 && (uint64_t)ska * t.base_k < k) || (sn > 1 && (uint64_t)skb * t.base_k < k)) continue;
                t.step_ka = ska;
                t.step_kb = skb;
                t.step_m = sm;
                t.step_n = sn;
                default_placement(s, &t);
                settle(s, &t);
                /* L1: two buffers each where they fit */
                for (int two = 1; two >= 0; two--) {
                  t.depth_a1 = t.step_m * t.step_ka * (two ? 2 : 1);
                  t.depth_b1 = t.step_n * t.step_kb * (two ? 2 : 1);
                  settle(s, &t);
                  unsigned before = s->n;
                  offer(s, &t);
                  if (s->n > before || rt_tiling_check(cfg, ty, &t, NULL) == CS_OK) break;
                }
              }
          }
      }
}

/* The placements of one per-core choice with the walk order, L2 rounds and UnitFlag set:
 * round-robin over whole rounds, and blocks of mb x nb grids of at most the cores, sized evenly
 * or in whole base tiles. */
static void placements(search *s, const rt_tiling *keep, uint32_t l2, uint32_t order, uint32_t uf) {
  unsigned cores = (unsigned)s->cfg->chip_aic_cores;
  uint64_t batch = s->batch ? s->batch : 1;
  rt_tiling t = *keep;
  t.l2_split = l2;
  t.iterate_order = order;
  t.unit_flag = uf;
  uint32_t rows = (uint32_t)cdiv(t.m, l2);
  if (cdiv(t.m, rows) != l2) return;
  t.core_split = RT_SPLIT_ROUND_ROBIN;
  t.single_core_m = rows;
  t.single_core_n = t.n;
  uint64_t tiles = rt_tiling_tile_count(&t, rows, t.n) * l2 * batch;
  t.used_core_num = (uint32_t)(tiles < cores ? tiles : cores);
  settle(s, &t);
  offer(s, &t);
  for (uint32_t mb = 1; mb <= cores && mb <= rows; mb++) {
    uint32_t nb = cores / mb;
    if (nb > t.n) nb = t.n;
    for (int aligned = 0; aligned < 2; aligned++) {
      rt_tiling b = *keep;
      b.l2_split = l2;
      b.iterate_order = order;
      b.unit_flag = uf;
      b.core_split = RT_SPLIT_BLOCK;
      uint32_t scm = (uint32_t)cdiv(rows, mb), scn = (uint32_t)cdiv(b.n, nb);
      if (aligned) {
        scm = (uint32_t)round_up(scm, b.base_m);
        scn = (uint32_t)round_up(scn, b.base_n);
        if (scm > rows) scm = rows;
        if (scn > b.n) scn = b.n;
      }
      b.single_core_m = scm;
      b.single_core_n = scn;
      uint64_t blocks = rt_tiling_block_count(&b) * batch;
      b.used_core_num = (uint32_t)(blocks < cores ? blocks : cores);
      settle(s, &b);
      offer(s, &b);
    }
  }
}

/* Stage 2: the placements of the best per-core choices. */
static void stage2(search *s, const rt_tiling_choice *keep, unsigned nkeep) {
  /* where the estimate cannot tell, UnitFlag on (it can only help) and row by row come first */
  for (unsigned c = 0; c < nkeep; c++)
    for (uint32_t l2 = 1; l2 <= 4; l2 *= 2)
      for (int uf = 1; uf >= 0; uf--)
        for (int order = 1; order >= 0; order--) placements(s, &keep[c].t, l2, (uint32_t)order, (uint32_t)uf);
}

cs_status rt_tiling_search(const sim_config *cfg, const rt_matmul_types *ty, uint32_t batch, const rt_tiling *start,
                           rt_tiling_mask given_fields, rt_tiling_choice *out, unsigned max, unsigned *count,
                           cs_err *err) {
  *count = 0;
  if (max == 0) return CS_OK;
  /* the simplest candidate: its verdict explains a search that finds nothing */
  rt_tiling base = *start;
  search s0 = {cfg, ty, batch, start, given_fields, NULL, 0, 0};
  base.base_m = base.base_n = 16;
  base.base_k = isa_dtype_c0(ty->a);
  base.step_m = base.step_n = base.step_ka = base.step_kb = base.depth_a1 = base.depth_b1 = 1;
  base.db_l0a = base.db_l0b = base.db_l0c = 1;
  if (base.ka) default_placement(&s0, &base);
  settle(&s0, &base);
  rt_tiling_choice keep[STAGE1_KEEP];
  search s = {cfg, ty, batch, start, given_fields, keep, STAGE1_KEEP, 0};
  if (start->ka && start->m && start->n) stage1(&s);
  if (s.n == 0) {
    cs_status st = rt_tiling_check(cfg, ty, &base, err);
    if (st != CS_OK) return st;
    s.n = 0;
    offer(&s, &base);
  }
  search s2 = {cfg, ty, batch, start, given_fields, out, max, 0};
  for (unsigned i = 0; i < s.n; i++) offer(&s2, &keep[i].t); /* stage 1's own placement competes too */
  stage2(&s2, keep, s.n);
  *count = s2.n;
  return CS_OK;
}
