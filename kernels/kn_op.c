/* kn_op — the operator registry and the generic driver: declared names, dtype checks, attribute
 * parsing, outputs, references and bit-exact comparison. */
#include "kernels/kn_op.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/cs_host.h"
#include "base/cs_parse.h"
#include "kernels/kn_mm.h"
#include "isa/isa_num.h"

static const kn_op *const registry[] = {
#define KN_OP_ROW(name) &kn_op_##name,
    KN_OP_TABLE(KN_OP_ROW)
#undef KN_OP_ROW
    NULL};

size_t kn_op_count(void) { return sizeof registry / sizeof registry[0] - 1; }
const kn_op *kn_op_at(size_t i) { return i < kn_op_count() ? registry[i] : NULL; }

const kn_op *kn_op_find(const char *name) {
  for (size_t i = 0; i < kn_op_count(); i++)
    if (strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

/* ---- host tensors ----------------------------------------------------------------------- */

size_t kn_host_elem_bytes(isa_dtype t) {
  switch (t) {
    case ISA_INT4: case ISA_UINT4: return 1;
    case ISA_BF16: return 4;
    default: return isa_dtype_bits(t) / 8;
  }
}

cs_status kn_tensor_shape(kn_tensor *t, const char *name, isa_dtype dtype, uint32_t ndim,
                          const uint64_t *shape, cs_err *err) {
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  if (ndim > KN_MAX_DIMS)
    return cs_err_set(err, CS_EINVAL, "%s: %u dimensions, at most %d are supported", name, ndim, KN_MAX_DIMS);
  t->dtype = dtype;
  t->ndim = ndim;
  t->count = 1;
  for (uint32_t i = 0; i < ndim; i++) {
    t->shape[i] = shape[i];
    if (shape[i] && t->count > UINT64_MAX / shape[i])
      return cs_err_set(err, CS_EINVAL, "%s: shape too large", name);
    t->count *= shape[i];
  }
  size_t eb = kn_host_elem_bytes(dtype);
  if (t->count > SIZE_MAX / eb) return cs_err_set(err, CS_EINVAL, "%s: shape too large", name);
  return CS_OK;
}

cs_status kn_tensor_alloc(kn_tensor *t, const char *name, isa_dtype dtype, uint32_t ndim,
                          const uint64_t *shape, cs_err *err) {
  cs_status st = kn_tensor_shape(t, name, dtype, ndim, shape, err);
  if (st != CS_OK) return st;
  t->data = calloc(t->count ? t->count : 1, kn_host_elem_bytes(dtype));
  if (!t->data)
    return cs_err_set(err, CS_ENOMEM, "%s: no host memory for %llu elements", name,
                      (unsigned long long)t->count);
  return CS_OK;
}

void kn_tensor_free(kn_tensor *t) {
  free(t->data);
  t->data = NULL;
}

void kn_shape_str(const kn_tensor *t, char *out, size_t out_bytes) {
  size_t used = (size_t)snprintf(out, out_bytes, "[");
  for (uint32_t i = 0; i < t->ndim && used < out_bytes; i++)
    used += (size_t)snprintf(out + used, out_bytes - used, "%s%llu", i ? ", " : "",
                             (unsigned long long)t->shape[i]);
  if (used < out_bytes) snprintf(out + used, out_bytes - used, "]");
}

double kn_tensor_get(const kn_tensor *t, uint64_t i) {
  const void *p = t->data;
  switch (t->dtype) {
    case ISA_INT4: case ISA_INT8: return ((const int8_t *)p)[i];
    case ISA_UINT4: case ISA_UINT8: return ((const uint8_t *)p)[i];
    case ISA_INT16: return ((const int16_t *)p)[i];
    case ISA_UINT16: return ((const uint16_t *)p)[i];
    case ISA_INT32: return ((const int32_t *)p)[i];
    case ISA_FP16: return isa_f16_to_f32(((const uint16_t *)p)[i]);
    case ISA_BF16: case ISA_FP32: return ((const float *)p)[i];
    case ISA_INT64: return (double)((const int64_t *)p)[i];
    case ISA_UINT64: return (double)((const uint64_t *)p)[i];
    default: return NAN;
  }
}

/* ---- the context ------------------------------------------------------------------------ */

typedef struct slot {
  bool present;
  kn_tensor t;
} slot;

struct kn_ctx {
  const kn_op *op;
  kn_run_options opt; /* opt.cfg points at cfg below */
  sim_config cfg;
  slot *in, *out, *ref;
  char **attr_text; /* per declared attribute: the given text, or NULL */
  char notes[4096];
  rt_device *dev; /* simulated operators: the device they ran on */
  uint64_t host_tensor_bytes; /* the last preflight's estimate of what is held beside the device */
  rt_tiling tiling;
  bool has_tiling, generated;
  unsigned tile_top, nchoices; /* cubesim tile */
  int tile_timed;
  rt_tiling_choice choices[RT_TILING_CHOICES_MAX];
};

cs_status kn_ctx_create(const kn_op *op, const kn_run_options *opt, kn_ctx **out, cs_err *err) {
  kn_ctx *c = calloc(1, sizeof *c);
  if (!c) return cs_err_set(err, CS_ENOMEM, "no host memory");
  c->op = op;
  c->opt = *opt;
  if (opt->cfg) { /* a copy: the caller's configuration need not outlive the context */
    c->cfg = *opt->cfg;
    c->opt.cfg = &c->cfg;
  }
  c->in = calloc(op->ninputs + 1, sizeof *c->in);
  c->out = calloc(op->noutputs + 1, sizeof *c->out);
  c->ref = calloc(op->noutputs + 1, sizeof *c->ref);
  c->attr_text = calloc(op->nattrs + 1, sizeof *c->attr_text);
  if (!c->in || !c->out || !c->ref || !c->attr_text) {
    kn_ctx_destroy(c);
    return cs_err_set(err, CS_ENOMEM, "no host memory");
  }
  *out = c;
  return CS_OK;
}

static void free_slots(slot *s, uint32_t n) {
  if (!s) return;
  for (uint32_t i = 0; i < n; i++)
    if (s[i].present) kn_tensor_free(&s[i].t);
  free(s);
}

void kn_ctx_destroy(kn_ctx *c) {
  if (!c) return;
  free_slots(c->in, c->op->ninputs);
  free_slots(c->out, c->op->noutputs);
  free_slots(c->ref, c->op->noutputs);
  for (uint32_t i = 0; c->attr_text && i < c->op->nattrs; i++) free(c->attr_text[i]);
  free(c->attr_text);
  rt_device_destroy(c->dev);
  free(c);
}

const kn_op *kn_ctx_op(const kn_ctx *c) { return c->op; }
const kn_run_options *kn_options(const kn_ctx *c) { return &c->opt; }

bool kn_ctx_has_data(const kn_ctx *c) { return !(c->op->simulated && c->opt.timing_only); }
const char *kn_ctx_notes(const kn_ctx *c) { return c->notes; }

static int find_io(const kn_io_desc *d, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(d[i].name, name) == 0) return (int)i;
  return -1;
}

static int find_attr(const kn_op *op, const char *name) {
  for (uint32_t i = 0; i < op->nattrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) return (int)i;
  return -1;
}

/* Is `word` one of the comma-separated items of `list`? */
static bool in_list(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len == n && strncmp(p, word, n) == 0) return true;
    p = comma ? comma + 1 : NULL;
  }
  return false;
}

const kn_tensor *kn_input(const kn_ctx *c, const char *name) {
  int i = find_io(c->op->inputs, c->op->ninputs, name);
  return i >= 0 && c->in[i].present ? &c->in[i].t : NULL;
}

cs_status kn_set_input(kn_ctx *c, const char *name, kn_tensor *t, cs_err *err) {
  int i = find_io(c->op->inputs, c->op->ninputs, name);
  if (i < 0) {
    kn_tensor_free(t);
    return cs_err_set(err, CS_EINVAL, "%s has no input '%s'", c->op->name, name);
  }
  const kn_io_desc *d = &c->op->inputs[i];
  if (!in_list(d->dtypes, isa_dtype_name(t->dtype))) {
    cs_status st = cs_err_set(err, CS_EINVAL, "%s: input '%s' is %s, expected one of %s",
                              c->op->name, name, isa_dtype_name(t->dtype), d->dtypes);
    kn_tensor_free(t);
    return st;
  }
  if (c->in[i].present) kn_tensor_free(&c->in[i].t);
  c->in[i].t = *t;
  snprintf(c->in[i].t.name, sizeof c->in[i].t.name, "%s", name);
  c->in[i].present = true;
  t->data = NULL;
  return CS_OK;
}

cs_status kn_attr_check(const kn_attr_desc *d, const char *value, cs_err *err) {
  char what[96];
  snprintf(what, sizeof what, "attribute %s", d->name);
  int64_t iv;
  double dv;
  int bv;
  switch (d->kind) {
    case KN_ATTR_INT: return cs_parse_i64(value, what, &iv, err);
    case KN_ATTR_FLOAT: return cs_parse_double(value, what, &dv, err);
    case KN_ATTR_BOOL: return cs_parse_bool(value, what, &bv, err);
    case KN_ATTR_ENUM:
      if (!in_list(d->choices, value))
        return cs_err_set(err, CS_EINVAL, "attribute %s: '%s' is not one of %s", d->name, value, d->choices);
      return CS_OK;
    case KN_ATTR_STR: return CS_OK;
  }
  return cs_err_set(err, CS_EINVAL, "attribute %s: unknown kind %d", d->name, (int)d->kind);
}

cs_status kn_ctx_set_attr(kn_ctx *c, const char *name, const char *value, cs_err *err) {
  int i = find_attr(c->op, name);
  if (i < 0) {
    char known[512] = "";
    size_t used = 0;
    for (uint32_t k = 0; k < c->op->nattrs && used < sizeof known; k++)
      used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "",
                               c->op->attrs[k].name);
    return cs_err_set(err, CS_EINVAL, "%s has no attribute '%s' (it has: %s)", c->op->name, name,
                      c->op->nattrs ? known : "none");
  }
  cs_status st = kn_attr_check(&c->op->attrs[i], value, err);
  if (st != CS_OK) return st;
  char *copy = strdup(value);
  if (!copy) return cs_err_set(err, CS_ENOMEM, "no host memory");
  free(c->attr_text[i]);
  c->attr_text[i] = copy;
  return CS_OK;
}

bool kn_attr_given(const kn_ctx *c, const char *name) {
  int i = find_attr(c->op, name);
  return i >= 0 && c->attr_text[i];
}

/* The text of attribute `name`: given, or its default; CS_EINVAL if undeclared or absent. */
static cs_status attr_text(const kn_ctx *c, const char *name, kn_attr_kind kind, const char **out,
                           cs_err *err) {
  int i = find_attr(c->op, name);
  if (i < 0) return cs_err_set(err, CS_EINTERNAL, "%s: attribute '%s' is not declared", c->op->name, name);
  const kn_attr_desc *d = &c->op->attrs[i];
  if (d->kind != kind && !(kind == KN_ATTR_STR && d->kind == KN_ATTR_ENUM))
    return cs_err_set(err, CS_EINTERNAL, "%s: attribute '%s' read as the wrong kind", c->op->name, name);
  *out = c->attr_text[i] ? c->attr_text[i] : d->def;
  if (!*out) return cs_err_set(err, CS_EINVAL, "%s: attribute '%s' is required", c->op->name, name);
  return CS_OK;
}

cs_status kn_attr_int(const kn_ctx *c, const char *name, int64_t *out, cs_err *err) {
  const char *t;
  cs_status st = attr_text(c, name, KN_ATTR_INT, &t, err);
  return st != CS_OK ? st : cs_parse_i64(t, name, out, err);
}

cs_status kn_attr_float(const kn_ctx *c, const char *name, double *out, cs_err *err) {
  const char *t;
  cs_status st = attr_text(c, name, KN_ATTR_FLOAT, &t, err);
  return st != CS_OK ? st : cs_parse_double(t, name, out, err);
}

cs_status kn_attr_bool(const kn_ctx *c, const char *name, bool *out, cs_err *err) {
  const char *t;
  int b = 0;
  cs_status st = attr_text(c, name, KN_ATTR_BOOL, &t, err);
  if (st == CS_OK) st = cs_parse_bool(t, name, &b, err);
  *out = b != 0;
  return st;
}

cs_status kn_attr_str(const kn_ctx *c, const char *name, const char **out, cs_err *err) {
  return attr_text(c, name, KN_ATTR_STR, out, err);
}

cs_status kn_attr_dims(const kn_ctx *c, const char *const *names, int n, int64_t max, int64_t *out, cs_err *err) {
  for (int i = 0; i < n; i++) {
    cs_status st = kn_attr_int(c, names[i], &out[i], err);
    if (st != CS_OK) return st;
  }
  for (int i = 0; i < n; i++)
    if (out[i] < 1 || out[i] > max)
      return cs_err_set(err, CS_EINVAL, "attribute %s = %" PRId64 " is out of range [1, %" PRId64 "]", names[i], out[i],
                        max);
  return CS_OK;
}

static cs_status alloc_into(kn_ctx *c, slot *slots, const char *name, isa_dtype dtype,
                            uint32_t ndim, const uint64_t *shape, kn_tensor **out, cs_err *err) {
  int i = find_io(c->op->outputs, c->op->noutputs, name);
  if (i < 0) return cs_err_set(err, CS_EINTERNAL, "%s has no output '%s'", c->op->name, name);
  if (slots[i].present) kn_tensor_free(&slots[i].t);
  slots[i].present = false;
  /* a timing-only run's outputs have a shape and no data */
  cs_status st = slots == c->out && !kn_ctx_has_data(c) ? kn_tensor_shape(&slots[i].t, name, dtype, ndim, shape, err)
                                                        : kn_tensor_alloc(&slots[i].t, name, dtype, ndim, shape, err);
  if (st != CS_OK) return st;
  slots[i].present = true;
  *out = &slots[i].t;
  return CS_OK;
}

cs_status kn_output_alloc(kn_ctx *c, const char *name, isa_dtype dtype, uint32_t ndim,
                          const uint64_t *shape, kn_tensor **out, cs_err *err) {
  return alloc_into(c, c->out, name, dtype, ndim, shape, out, err);
}

cs_status kn_reference_alloc(kn_ctx *c, const char *name, isa_dtype dtype, uint32_t ndim,
                             const uint64_t *shape, kn_tensor **out, cs_err *err) {
  return alloc_into(c, c->ref, name, dtype, ndim, shape, out, err);
}

cs_status kn_output_move(kn_ctx *c, bool reference, const char *name, kn_tensor *t, cs_err *err) {
  int i = find_io(c->op->outputs, c->op->noutputs, name);
  if (i < 0) {
    kn_tensor_free(t);
    return cs_err_set(err, CS_EINTERNAL, "%s has no output '%s'", c->op->name, name);
  }
  slot *s = &(reference ? c->ref : c->out)[i];
  if (s->present) kn_tensor_free(&s->t);
  s->t = *t;
  snprintf(s->t.name, sizeof s->t.name, "%s", name);
  s->present = true;
  t->data = NULL;
  return CS_OK;
}

const kn_tensor *kn_ctx_output(const kn_ctx *c, const char *name) {
  int i = find_io(c->op->outputs, c->op->noutputs, name);
  return i >= 0 && c->out[i].present ? &c->out[i].t : NULL;
}

const kn_tensor *kn_ctx_reference_output(const kn_ctx *c, const char *name) {
  int i = find_io(c->op->outputs, c->op->noutputs, name);
  return i >= 0 && c->ref[i].present ? &c->ref[i].t : NULL;
}

void kn_note(kn_ctx *c, const char *fmt, ...) {
  char line[sizeof c->notes];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  /* the reference re-reads the same inputs and notes the same things: each line once */
  size_t n = strlen(line);
  for (const char *p = c->notes; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len == n && strncmp(p, line, n) == 0) return;
    p = nl ? nl + 1 : p + len;
  }
  size_t used = strlen(c->notes);
  if (used + n + 2 > sizeof c->notes) return;
  memcpy(c->notes + used, line, n);
  c->notes[used + n] = '\n';
  c->notes[used + n + 1] = '\0';
}

cs_status kn_device_create(kn_ctx *c, rt_device **out, cs_err *err) {
  /* the simulator may take what the preflight left of the limit beside the host tensors */
  uint64_t limit = c->opt.max_memory_bytes, outside = c->host_tensor_bytes;
  sim_options o = {.timing_only = c->opt.timing_only,
                   .progress = c->opt.progress,
                   .max_host_bytes = limit ? (limit > outside ? limit - outside : 1) : 0,
                   .record_threads = c->opt.host_threads,
                   /* a timing-only run need not keep the streams of a launch whose arguments
                    * the device owns (rt_launch_concurrent_owned: the matmuls') */
                   .stream_record = c->opt.timing_only};
  rt_device *dev;
  cs_status st = rt_device_create(c->opt.cfg, &o, &dev, err);
  if (st != CS_OK) return st;
  rt_device_destroy(c->dev); /* an operator that runs twice keeps the last device */
  c->dev = *out = dev;
  return CS_OK;
}

cs_status kn_device_run(kn_ctx *c, cs_err *err) {
  if (!c->dev) return cs_err_set(err, CS_EINTERNAL, "%s: kn_device_run before kn_device_create", c->op->name);
  sim_run_options o = {.trace = c->opt.trace, .allow_hazards = c->opt.allow_hazards, .observer = c->opt.observer,
                       .host_threads = c->opt.host_threads};
  return rt_device_run(c->dev, &o, err);
}

rt_device *kn_device(const kn_ctx *c) { return c->dev; }

void kn_set_tiling(kn_ctx *c, const rt_tiling *t) {
  c->tiling = *t;
  c->has_tiling = true;
}
const rt_tiling *kn_get_tiling(const kn_ctx *c) { return c->has_tiling ? &c->tiling : NULL; }
bool kn_inputs_generated(const kn_ctx *c) { return c->generated; }
void kn_ctx_set_tile_search(kn_ctx *c, unsigned top, int timed) {
  c->tile_top = top < RT_TILING_CHOICES_MAX ? top : RT_TILING_CHOICES_MAX;
  c->tile_timed = timed;
}
bool kn_tile_search(const kn_ctx *c, unsigned *top, int *timed) {
  *top = c->tile_top;
  *timed = c->tile_timed;
  return c->tile_top > 0;
}
void kn_set_tiling_choices(kn_ctx *c, const rt_tiling_choice *ch, unsigned n) {
  c->nchoices = n < RT_TILING_CHOICES_MAX ? n : RT_TILING_CHOICES_MAX;
  memcpy(c->choices, ch, c->nchoices * sizeof *ch);
}
const rt_tiling_choice *kn_tiling_choices(const kn_ctx *c, unsigned *n) {
  *n = c->nchoices;
  return c->nchoices ? c->choices : NULL;
}

cs_status kn_check_footprint(kn_ctx *c, const kn_footprint *f, cs_err *err) {
  uint64_t limit = c->opt.max_memory_bytes;
  c->host_tensor_bytes = f->total_bytes - f->sim.total_bytes;
  if (!limit || f->total_bytes <= limit) return CS_OK;
  char total[32], lim[32], in[32], dev[32], out[32], parts[256];
  cs_bytes_text(f->total_bytes, total, sizeof total);
  cs_bytes_text(limit, lim, sizeof lim);
  cs_bytes_text(f->inputs_bytes, in, sizeof in);
  cs_bytes_text(f->device_bytes, dev, sizeof dev);
  cs_bytes_text(f->outputs_bytes, out, sizeof out);
  sim_footprint_text(&f->sim, parts, sizeof parts);
  return cs_err_set(err, CS_ENOMEM,
                    "host memory: this run needs about %s (inputs %s, device copies %s, outputs %s, %s; ~%" PRIu64
                    " instructions), over the limit of %s (--max-memory)",
                    total, in, dev, out, parts, f->instructions, lim);
}

cs_status kn_ctx_run(kn_ctx *c, cs_err *err) {
  if (c->op->simulated && !c->opt.cfg)
    return cs_err_set(err, CS_EINVAL, "%s runs on the simulated chip: its options need a configuration", c->op->name);
  /* inputs are generated only when none was given: a partial set is a mistake to report */
  bool any = false;
  for (uint32_t i = 0; i < c->op->ninputs; i++) any = any || c->in[i].present;
  if (!any && c->op->make_inputs) {
    /* the preflight of what generating and running will take, from the shape attributes */
    cs_status st = c->op->simulated ? kn_mm_preflight_attrs(c, err) : CS_OK;
    if (st == CS_OK) st = c->op->make_inputs(c, err);
    if (st != CS_OK) return st;
    c->generated = true;
  }
  for (uint32_t i = 0; i < c->op->ninputs; i++)
    if (!c->in[i].present && !c->op->inputs[i].optional)
      return cs_err_set(err, CS_EINVAL, "%s: input '%s' is required (--in %s=FILE.npy)",
                        c->op->name, c->op->inputs[i].name, c->op->inputs[i].name);
  cs_status st = c->op->run(c, err);
  for (uint32_t i = 0; st != CS_OK && i < c->op->noutputs; i++) /* a failed run produces no output */
    if (c->out[i].present) {
      kn_tensor_free(&c->out[i].t);
      c->out[i].present = false;
    }
  return st;
}

cs_status kn_ctx_reference(kn_ctx *c, cs_err *err) {
  if (!c->op->reference)
    return cs_err_set(err, CS_EINVAL, "%s has no host reference to check against", c->op->name);
  return c->op->reference(c, err);
}

/* Raw bits of element i (for the bit-exact comparison). */
static uint64_t elem_bits(const kn_tensor *t, uint64_t i) {
  size_t eb = kn_host_elem_bytes(t->dtype);
  uint64_t v = 0;
  memcpy(&v, (const uint8_t *)t->data + i * eb, eb); /* little-endian host */
  return v;
}

cs_status kn_compare_tensors(const kn_tensor *got, const kn_tensor *want, kn_compare *cmp,
                             cs_err *err) {
  memset(cmp, 0, sizeof *cmp);
  char gs[96], ws[96];
  kn_shape_str(got, gs, sizeof gs);
  kn_shape_str(want, ws, sizeof ws);
  if (got->dtype != want->dtype || got->count != want->count || strcmp(gs, ws) != 0)
    return cs_err_set(err, CS_EMISMATCH, "%s: got %s %s, the reference is %s %s", got->name,
                      isa_dtype_name(got->dtype), gs, isa_dtype_name(want->dtype), ws);
  cmp->count = got->count;
  for (uint64_t i = 0; i < got->count; i++) {
    uint64_t a = elem_bits(got, i), b = elem_bits(want, i);
    if (a == b) continue;
    double da = kn_tensor_get(got, i), db = kn_tensor_get(want, i);
    double diff = fabs(da - db);
    if (!(diff <= cmp->max_abs_diff)) cmp->max_abs_diff = diff;
    if (cmp->mismatches++ == 0) {
      cmp->first_index = i;
      char idx[96] = "";
      size_t used = 0;
      uint64_t rem = i;
      uint64_t stride[KN_MAX_DIMS];
      for (int d = (int)got->ndim - 1; d >= 0; d--) {
        stride[d] = d == (int)got->ndim - 1 ? 1 : stride[d + 1] * got->shape[d + 1];
      }
      for (uint32_t d = 0; d < got->ndim && used < sizeof idx; d++) {
        used += (size_t)snprintf(idx + used, sizeof idx - used, "%s%llu", d ? ", " : "",
                                 (unsigned long long)(rem / stride[d]));
        rem %= stride[d];
      }
      snprintf(cmp->first, sizeof cmp->first, "%s[%s]: got %.9g (0x%llx), expected %.9g (0x%llx)",
               got->name, idx, da, (unsigned long long)a, db, (unsigned long long)b);
    }
  }
  return CS_OK;
}

uint64_t kn_rng_next(uint64_t *state) {
  uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

int64_t kn_rng_int(uint64_t *state, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)(hi - lo) + 1;
  return lo + (int64_t)(span ? kn_rng_next(state) % span : kn_rng_next(state));
}

double kn_rng_unit(uint64_t *state) { return (double)(kn_rng_next(state) >> 11) * 0x1.0p-53; }
