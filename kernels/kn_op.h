/* kn_op — the operator registry behind `cubesim run`: every kernel and host operator declares its
 * inputs, attributes and outputs by the names of its source document (ATB, ONNX, TensorFlow,
 * DirectML, Ascend C), and provides up to three functions: run (on the simulated chip, or on the
 * host for host operators), reference (a plain-C host reference for --check), and make_inputs
 * (deterministic inputs from shape attributes when the user gives none).
 *
 * The generic layer (kn_op.c) validates names and dtypes against the declarations, so an
 * operator only sees inputs and attributes it declared; it reports its own errors (shapes,
 * values) with the input's name and the value.
 */
#ifndef KN_OP_H
#define KN_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_dtype.h"
#include "runtime/rt_host.h"
#include "runtime/rt_tiling.h"

#define KN_MAX_DIMS 8
#define KN_MAX_OUTPUTS 8 /* outputs one operator may declare */

/* A host tensor: what a .npy file holds. data is owned by the tensor. */
typedef struct kn_tensor {
  char name[32];
  isa_dtype dtype;         /* as the operator sees it (int4 held one value per int8) */
  uint32_t ndim;
  uint64_t shape[KN_MAX_DIMS];
  uint64_t count;          /* product of the shape (1 for a scalar) */
  void *data;              /* count elements of dtype (int4/uint4: one per byte; bf16: fp32);
                            * NULL in a timing-only run's shapes (kn_ctx_has_data) */
} kn_tensor;

/* Element size of a kn_tensor's host storage (int4/uint4: 1; bf16: 4, held as fp32). */
size_t kn_host_elem_bytes(isa_dtype t);
cs_status kn_tensor_alloc(kn_tensor *t, const char *name, isa_dtype dtype, uint32_t ndim,
                          const uint64_t *shape, cs_err *err);
/* The same without data (data NULL): what a timing-only run's generated inputs and outputs are. */
cs_status kn_tensor_shape(kn_tensor *t, const char *name, isa_dtype dtype, uint32_t ndim,
                          const uint64_t *shape, cs_err *err);
void kn_tensor_free(kn_tensor *t);
/* "[2, 3]" */
void kn_shape_str(const kn_tensor *t, char *out, size_t out_bytes);

/* Declarations. dtypes: comma-separated type names the input accepts ("int8,uint8"). */
typedef struct kn_io_desc {
  const char *name;
  const char *dtypes;
  bool optional;
  const char *desc;
} kn_io_desc;

typedef enum kn_attr_kind { KN_ATTR_INT, KN_ATTR_FLOAT, KN_ATTR_BOOL, KN_ATTR_ENUM, KN_ATTR_STR } kn_attr_kind;

typedef struct kn_attr_desc {
  const char *name;
  kn_attr_kind kind;
  const char *def;     /* default as text, NULL = no default (absent unless given) */
  const char *choices; /* KN_ATTR_ENUM: comma-separated allowed values */
  const char *desc;
} kn_attr_desc;

typedef struct kn_ctx kn_ctx;

/* A declaration array and its length, for the field pairs of kn_op (inputs, ninputs), (attrs,
 * nattrs) and (outputs, noutputs): `.inputs = KN_LIST(linear_inputs)` sets both. */
#define KN_LIST(arr) (arr), (uint32_t)(sizeof(arr) / sizeof((arr)[0]))

typedef struct kn_op {
  const char *name;    /* "linear", "onnx_qlinear_matmul" */
  const char *summary;
  const char *source;  /* the document it follows */
  bool simulated;      /* runs on the simulated chip (has cycles, trace) */
  const kn_io_desc *inputs;
  uint32_t ninputs;
  const kn_attr_desc *attrs;
  uint32_t nattrs;
  const kn_io_desc *outputs;
  uint32_t noutputs;
  /* Computes the outputs (simulated operators: on ctx's simulator). */
  cs_status (*run)(kn_ctx *ctx, cs_err *err);
  /* Host reference of the same outputs, into ctx's reference outputs (NULL: none). */
  cs_status (*reference)(kn_ctx *ctx, cs_err *err);
  /* Fills missing inputs deterministically from the attributes (NULL: inputs are required). */
  cs_status (*make_inputs)(kn_ctx *ctx, cs_err *err);
} kn_op;

/* ---- the registry: one row per operator, each defined as `const kn_op kn_op_<name>` ---- */
#define KN_OP_TABLE(X) \
  X(add) \
  X(data_copy) \
  X(dml_quantized_linear_matmul) \
  X(gelu) \
  X(linear) \
  X(matmul) \
  X(matmul_gelu) \
  X(matmul_quant) \
  X(matmul_requant) \
  X(nd2nz) \
  X(onnx_dequantize_linear) \
  X(onnx_matmul_integer) \
  X(onnx_qlinear_matmul) \
  X(onnx_quantize_linear) \
  X(tf_dequantize) \
  X(tf_quantize_v2) \
  /* one row per operator, alphabetical; each row ends with a backslash */

#define KN_OP_DECL(name) extern const kn_op kn_op_##name;
KN_OP_TABLE(KN_OP_DECL)
#undef KN_OP_DECL

size_t kn_op_count(void);
const kn_op *kn_op_at(size_t i);
const kn_op *kn_op_find(const char *name);

/* ---- what an operator sees ---- */

typedef struct kn_run_options {
  const sim_config *cfg;   /* the chip */
  bool timing_only;        /* simulated operators: skip data */
  sim_trace *trace;        /* NULL: none */
  bool allow_hazards;
  uint64_t seed;           /* for make_inputs */
  const sim_observer *observer; /* of the replay (sim_run_options); NULL: none */
  const sim_progress_hook *progress; /* of the record and the replay (sim_options); NULL: none */
  uint64_t max_memory_bytes; /* host memory the run may take (0: no limit): see kn_footprint */
  unsigned host_threads;   /* of the record (sim_options.record_threads) and the replay
                            * (sim_run_options); 0: the default */
} kn_run_options;

/* ---- host memory: the preflight -------------------------------------------------------------
 * Before a simulated operator generates its inputs, and again before it creates its simulator
 * (when the tiling, hence the number of instructions, is known), the host memory it will take
 * is estimated and compared with opt.max_memory_bytes: over it, the run stops with CS_ENOMEM,
 * the estimate part by part and the limit (docs/RELIABILITY.md, "Resources"), having allocated
 * nothing large. */
typedef struct kn_footprint {
  uint64_t inputs_bytes;   /* host tensors of the inputs */
  uint64_t device_bytes;   /* device-form copies of the inputs and the output */
  uint64_t outputs_bytes;  /* host tensors of the outputs */
  uint64_t instructions;   /* the estimate behind sim.stream_bytes (a lower bound before the tiling) */
  sim_footprint sim;       /* the simulator's own */
  uint64_t total_bytes;
} kn_footprint;
/* CS_OK, or CS_ENOMEM "host memory: this run needs about T (inputs ..., ...), over the limit of
 * L" when f->total_bytes is over kn_options(ctx)->max_memory_bytes. The simulator that
 * kn_device_create makes next may then grow to the limit less the host tensors of f. */
cs_status kn_check_footprint(kn_ctx *ctx, const kn_footprint *f, cs_err *err);


/* False in a timing-only run of a simulated operator: its outputs, and the large inputs that
 * make_inputs generates, are shapes without data (kn_tensor_shape), and nothing may read them. */
bool kn_ctx_has_data(const kn_ctx *c);
/* The input named `name` (NULL if absent and optional). */
const kn_tensor *kn_input(const kn_ctx *ctx, const char *name);
/* Replaces or sets an input (make_inputs). Takes ownership of t's data. */
cs_status kn_set_input(kn_ctx *ctx, const char *name, kn_tensor *t, cs_err *err);
/* Attribute values; *given tells whether the user gave it (else the default applies). */
cs_status kn_attr_int(const kn_ctx *ctx, const char *name, int64_t *out, cs_err *err);
cs_status kn_attr_float(const kn_ctx *ctx, const char *name, double *out, cs_err *err);
cs_status kn_attr_bool(const kn_ctx *ctx, const char *name, bool *out, cs_err *err);
/* ENUM and STR attributes as text (ENUM: one of its choices, as declared). */
cs_status kn_attr_str(const kn_ctx *ctx, const char *name, const char **out, cs_err *err);
bool kn_attr_given(const kn_ctx *ctx, const char *name);
/* The n integer attributes names[] that shape generated inputs, into out[], each in [1, max]
 * (else "attribute m = 0 is out of range [1, max]", for the first that is not). */
cs_status kn_attr_dims(const kn_ctx *ctx, const char *const *names, int n, int64_t max, int64_t *out, cs_err *err);
/* Allocates output `name` (a declared output). */
cs_status kn_output_alloc(kn_ctx *ctx, const char *name, isa_dtype dtype, uint32_t ndim,
                          const uint64_t *shape, kn_tensor **out, cs_err *err);
/* The same for the reference outputs (reference functions). */
cs_status kn_reference_alloc(kn_ctx *ctx, const char *name, isa_dtype dtype, uint32_t ndim,
                             const uint64_t *shape, kn_tensor **out, cs_err *err);
/* Moves a tensor the operator computed on the host into output `name` (or, for a reference,
 * into reference output `name`); t's data is taken (or freed on an error). */
cs_status kn_output_move(kn_ctx *ctx, bool reference, const char *name, kn_tensor *t, cs_err *err);
const kn_run_options *kn_options(const kn_ctx *ctx);
/* A note line for the run's report (e.g. "precision=fixpipe: 12 of 4096 elements differ by 1"); a
 * line already noted is not repeated (the host reference notes what the run noted). */
void kn_note(kn_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Simulated operators run on a device of the runtime's host API (rt_host.h), made for them:
 * kn_device_create creates it from the run's options (the chip, timing-only) and attaches it to
 * the context, which destroys it; the operator allocates GM, writes its inputs and launches its
 * kernels on it, then kn_device_run replays it with the run's trace and hazard options. */
cs_status kn_device_create(kn_ctx *ctx, rt_device **out, cs_err *err);
cs_status kn_device_run(kn_ctx *ctx, cs_err *err);
/* The device the operator ran on (its result: rt_device_result), or NULL (host operators). */
rt_device *kn_device(const kn_ctx *ctx);

/* Matmul operators: the tiling they ran with (the run's text and JSON summaries show it). */
void kn_set_tiling(kn_ctx *ctx, const rt_tiling *t);
const rt_tiling *kn_get_tiling(const kn_ctx *ctx); /* NULL if none */
/* Whether kn_ctx_run generated the inputs from the shape attributes (make_inputs). */
bool kn_inputs_generated(const kn_ctx *ctx);
/* `cubesim tile`: a matmul operator asked to search its tiling keeps the best `top` candidates
 * (the first `timed` timed by the model; -1: as its budget allows) instead of running. */
void kn_ctx_set_tile_search(kn_ctx *ctx, unsigned top, int timed);
bool kn_tile_search(const kn_ctx *ctx, unsigned *top, int *timed);
void kn_set_tiling_choices(kn_ctx *ctx, const rt_tiling_choice *c, unsigned n);
/* The candidates kept (NULL and *n = 0 if none). */
const rt_tiling_choice *kn_tiling_choices(const kn_ctx *ctx, unsigned *n);

/* ---- driving an operator (cubesim run, tests) ---- */

/* The context keeps a copy of opt->cfg. */
cs_status kn_ctx_create(const kn_op *op, const kn_run_options *opt, kn_ctx **out, cs_err *err);
void kn_ctx_destroy(kn_ctx *ctx);
const kn_op *kn_ctx_op(const kn_ctx *ctx);
/* Checks that `value` is a valid text for attribute d (an integer, a number, true/false, one of
 * the choices); the message names the attribute and the value. */
cs_status kn_attr_check(const kn_attr_desc *d, const char *value, cs_err *err);
/* Sets an attribute from text; unknown names and values of the wrong kind are errors. */
cs_status kn_ctx_set_attr(kn_ctx *ctx, const char *name, const char *value, cs_err *err);
/* Generates the inputs when none was given (make_inputs), checks every required input is
 * there, and runs. A failed run leaves no output (kn_ctx_output is NULL). */
cs_status kn_ctx_run(kn_ctx *ctx, cs_err *err);
/* Runs the host reference into the reference outputs. */
cs_status kn_ctx_reference(kn_ctx *ctx, cs_err *err);
/* An output, or a reference output, by name (NULL if not produced). */
const kn_tensor *kn_ctx_output(const kn_ctx *ctx, const char *name);
const kn_tensor *kn_ctx_reference_output(const kn_ctx *ctx, const char *name);
/* The notes the operator left, one per line ("" if none). */
const char *kn_ctx_notes(const kn_ctx *ctx);

/* Deterministic pseudo-random numbers for make_inputs (xorshift64*; state never 0). */
uint64_t kn_rng_next(uint64_t *state);
/* Uniform integer in [lo, hi]. */
int64_t kn_rng_int(uint64_t *state, int64_t lo, int64_t hi);
/* Uniform double in [0, 1). */
double kn_rng_unit(uint64_t *state);

/* Comparison of an output with its reference, bit for bit. */
typedef struct kn_compare {
  uint64_t count;        /* elements compared */
  uint64_t mismatches;   /* elements whose bits differ */
  uint64_t first_index;  /* first mismatch (flat index) */
  double max_abs_diff;   /* numerically, over mismatches */
  char first[256];       /* "output[1, 2]: got 28 (0x4f00), expected 28.5 (0x4f20)" */
} kn_compare;
cs_status kn_compare_tensors(const kn_tensor *got, const kn_tensor *want, kn_compare *cmp,
                             cs_err *err);
/* Reads element i of a host tensor as a double (for reports and comparisons). */
double kn_tensor_get(const kn_tensor *t, uint64_t i);

#endif
