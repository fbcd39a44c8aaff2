/* rt_tiling — how one matmul is cut up: Ascend C's TCubeTiling (every field that shapes a single
 * matmul, with Ascend's meaning and constraints) plus five fields of cubesim's own; the check
 * that a tiling is legal for the types and fits the chip's buffers; the schedule a tiling
 * implies (the blocks of C the cores take, the order of the base tiles in a block, the L1 loads);
 * and the analytic estimate the automatic search ranks tilings by.
 *
 * The vocabulary is Ascend's (docs/KERNELS.md, "Tiling"):
 *   - C (m x n) is cut into blocks of single_core_m x single_core_n, one block per core at a
 *     time (K is never split across cores: single_core_k = ka = kb = k);
 *   - a block is cut into base tiles of base_m x base_n, each computed in one L0C buffer by
 *     mmads of base_m x base_n x base_k (one L0A and one L0B buffer each);
 *   - L1 holds A in loads of step_m base tiles along M times step_ka base_k along K, B in loads
 *     of step_n x step_kb; depth_a1 (depth_b1) counts the base_m x base_k (base_n x base_k)
 *     blocks A (B) has room for in L1: one load (step_m * step_ka blocks) or two (the copies of
 *     the next load overlap the use of the current one);
 *   - iterate_order says which way the base tiles of a block are walked.
 */
#ifndef RT_TILING_H
#define RT_TILING_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cs_json.h"
#include "base/cs_status.h"
#include "isa/isa_insn.h"
#include "sim/sim_config.h"

/* Types and layouts of one matmul (Ascend's MatmulType per operand). */
typedef struct rt_matmul_types {
  isa_dtype a, b;   /* int8, int4, fp16, bf16 (a == b) */
  isa_dtype c;      /* in GM: int32 or fp32 (as accumulated), fp16, bf16, int8, uint8 */
  bool has_bias;    /* int32 bias for integer inputs, fp32 for float inputs, one per column */
  bool a_trans;     /* A is stored K x M */
  bool b_trans;     /* B is stored N x K */
  bool a_nz;        /* A is stored FRACTAL_NZ (of the stored matrix: C0-wide column blocks) */
  bool b_nz;        /* B is stored FRACTAL_NZ */
} rt_matmul_types;

/* How blocks and base tiles go to the cores (cubesim's own field core_split). */
typedef enum rt_core_split {
  RT_SPLIT_BLOCK,       /* Ascend: block i (numbered M first, round by round) runs on core
                         * i % used_core_num, which walks its base tiles in iterate_order */
  RT_SPLIT_ROUND_ROBIN  /* the base tiles of every block, in iterate_order, are dealt one at a
                         * time to the used_core_num cores, so at any moment the cores work on
                         * neighbouring tiles and share what they read in L2 */
} rt_core_split;

/* The fields, one row each: field (snake_case: the `cubesim run` attribute), name in a
 * TCubeTiling (camelCase; the last three are cubesim's own), smallest and largest value, kind
 * (INT: a number; SPLIT: rt_core_split, named block / round_robin), use (ATTR: an attribute of
 * the matmul operators; SHAPE: follows from the inputs), and what it means. */
#define RT_TILING_TABLE(X)                                                                          \
  X(used_core_num, usedCoreNum, 1, 1024, INT, ATTR,                                                 \
    "cores the matmul runs on (block split: blocks beyond it wait for a core)")                     \
  X(m, M, 1, 16777216, INT, SHAPE, "rows of A and C")                                               \
  X(n, N, 1, 16777216, INT, SHAPE, "columns of B and C")                                            \
  X(ka, Ka, 1, 16777216, INT, SHAPE, "columns of A (the reduction length)")                         \
  X(kb, Kb, 1, 16777216, INT, SHAPE, "rows of B (the reduction length, equal to Ka)")               \
  X(single_core_m, singleCoreM, 1, 16777216, INT, ATTR, "rows of the block of C a core computes")   \
  X(single_core_n, singleCoreN, 1, 16777216, INT, ATTR, "columns of the block of C a core computes") \
  X(single_core_k, singleCoreK, 1, 16777216, INT, ATTR, "reduction length per core: always K")     \
  X(base_m, baseM, 16, 4080, INT, ATTR, "rows of one base tile (one mmad, one L0A and L0C buffer)") \
  X(base_n, baseN, 16, 4080, INT, ATTR, "columns of one base tile (one mmad, L0B and L0C buffer)")  \
  X(base_k, baseK, 4, 4095, INT, ATTR, "reduction length of one mmad (a multiple of C0)")          \
  X(depth_a1, depthA1, 1, 65535, INT, ATTR,                                                         \
    "base_m x base_k blocks of A in L1: step_m * step_ka (one buffer) or twice that (two)")         \
  X(depth_b1, depthB1, 1, 65535, INT, ATTR,                                                         \
    "base_n x base_k blocks of B in L1: step_n * step_kb (one buffer) or twice that (two)")         \
  X(step_m, stepM, 1, 65535, INT, ATTR, "base tiles along M per L1 load of A (> 1 needs all of K)") \
  X(step_n, stepN, 1, 65535, INT, ATTR, "base tiles along N per L1 load of B (> 1 needs all of K)") \
  X(step_ka, stepKa, 1, 65535, INT, ATTR, "base_k blocks along K per L1 load of A")                \
  X(step_kb, stepKb, 1, 65535, INT, ATTR, "base_k blocks along K per L1 load of B")                \
  X(iterate_order, iterateOrder, 0, 1, INT, ATTR,                                                   \
    "walk of a block's base tiles: 0 down M first (a column of tiles), 1 along N first (a row)")    \
  X(is_bias, isBias, 0, 1, INT, SHAPE, "1: C starts from a bias row (the matmul has a bias)")       \
  X(db_l0a, dbL0A, 1, 2, INT, ATTR, "L0A buffers: 2 overlaps the next load with the mmad")         \
  X(db_l0b, dbL0B, 1, 2, INT, ATTR, "L0B buffers: 2 overlaps the next load with the mmad")         \
  X(db_l0c, dbL0C, 1, 2, INT, ATTR, "L0C buffers: 2 overlaps a tile's fixpipe with the next tile")  \
  X(l2_split, l2Split, 1, 65535, INT, ATTR,                                                         \
    "rounds M is cut into, one after the other, so B stays in L2 within a round")                   \
  X(unit_flag, unitFlag, 0, 1, INT, ATTR,                                                           \
    "1: the fixpipe follows a tile's last mmad in 512 B units (no flag between them)")             \
  X(core_split, coreSplit, 0, 1, SPLIT, ATTR,                                                       \
    "where tiles go: blocks to cores as Ascend does, or base tiles dealt round-robin")              \
  X(const_tiling, constTiling, 0, 1, INT, ATTR,                                                     \
    "1: the tiling is a compile-time constant (less scalar work per step, packet and tile)")       \
  X(api, api, 0, 1, API, ATTR,                                                                      \
    "whose scalar work the kernel pays: the high-level Matmul object's, or a basic-API kernel's")

/* The names of rt_core_split values, in order (the values of kind SPLIT). */
#define RT_CORE_SPLIT_NAMES "block,round_robin"

/* Whose scalar work a matmul pays (cubesim's own field api). */
typedef enum rt_api {
  RT_API_MATMUL, /* the high-level Matmul object: scalar.matmul_* per k-step, L1 packet and tile */
  RT_API_BASIC   /* a kernel on the basic API: only the intrinsics' own issue */
} rt_api;
#define RT_API_NAMES "matmul,basic"

typedef struct rt_tiling {
#define RT_TILING_FIELD(f, camel, lo, hi, kind, use, desc) uint32_t f;
  RT_TILING_TABLE(RT_TILING_FIELD)
#undef RT_TILING_FIELD
} rt_tiling;

enum {
#define RT_TILING_INDEX(f, camel, lo, hi, kind, use, desc) RT_TF_##f,
  RT_TILING_TABLE(RT_TILING_INDEX)
#undef RT_TILING_INDEX
  RT_TF_COUNT
};

/* The row of field i of RT_TILING_TABLE. */
typedef struct rt_tiling_field {
  const char *name;  /* snake_case */
  const char *camel; /* TCubeTiling */
  uint32_t lo, hi;
  const char *names; /* kind SPLIT: RT_CORE_SPLIT_NAMES, API: RT_API_NAMES; else NULL (a number) */
  bool attr;         /* use ATTR */
  const char *desc;
} rt_tiling_field;
const rt_tiling_field *rt_tiling_field_at(int i);
/* The index of a field by its snake_case or camelCase name; -1 if none. */
int rt_tiling_field_find(const char *name);
uint32_t rt_tiling_get(const rt_tiling *t, int i);
/* The name of value v of a named field (one of its `names`); NULL for a number field or a value
 * without a name. */
const char *rt_tiling_value_name(int i, uint32_t v);
/* The value named `name` of a named field; -1 when the field has no such name or no names. */
int rt_tiling_value_parse(int i, const char *name);
void rt_tiling_set(rt_tiling *t, int i, uint32_t v);

/* A set of fields (bit i: field i), e.g. the fields a user gave. */
typedef uint32_t rt_tiling_mask;
#define RT_TILING_BIT(f) ((rt_tiling_mask)1 << RT_TF_##f)

/* ---- text and JSON ----------------------------------------------------------------------- */

/* One line: "base 128 x 256 x 64, L1 A 16 (step_m 1 x step_ka 8) B 8 (1 x 4), L0 db 2/2/1,
 * block split 2048 x 1536 on 24 cores, iterate_order 0, l2_split 1, unit_flag 0". */
void rt_tiling_describe(const rt_tiling *t, char *out, size_t out_bytes);
/* Writes every field as a member of the open JSON object, by its TCubeTiling name (what
 * rt_tiling_read_json reads back; coreSplit as "block" / "round_robin"). */
void rt_tiling_json_members(const rt_tiling *t, cs_json *j);
/* Reads a TCubeTiling written as a flat JSON object of its camelCase fields (numbers; isBias also
 * true/false, coreSplit also "block"/"round_robin"): the fields found are set in *t and their
 * bits in *found. The TCubeTiling fields cubesim does not model (batch layouts, L1 sharing, UB
 * caching: transLength, shareMode, ...) are accepted; those not zero are named, comma-separated,
 * in `ignored`. Any other key, a value out of its field's range or of the wrong kind is an error
 * naming where:line:column. */
cs_status rt_tiling_read_json(const char *text, size_t len, const char *where, rt_tiling *t, rt_tiling_mask *found,
                              char *ignored, size_t ignored_bytes, cs_err *err);

/* ---- legality ----------------------------------------------------------------------------- */

/* Checks a tiling against the types, the shape rules and the configuration's cores and buffers.
 * The message names the field (or buffer), the value and the limit, and for a buffer that does
 * not fit the bytes needed and available and the fields that size it. */
cs_status rt_tiling_check(const sim_config *cfg, const rt_matmul_types *types, const rt_tiling *t,
                          cs_err *err);
/* Bytes each buffer needs for a tiling, indexed by isa_mem (no alignment rounding). */
void rt_tiling_footprint(const rt_matmul_types *types, const rt_tiling *t, uint64_t bytes[ISA_MEM_COUNT]);

/* The scalar work the Matmul object emits (as `scalar` instructions) for a tiling: cycles before
 * each k-step's L0 loads, before each L1 packet copy of A or B, and before each tile's fixpipe
 * (scalar.matmul_step_cycles, _copy_cycles, _tile_cycles; scaled by
 * scalar.matmul_const_tiling_percent with const_tiling; all 0 with api basic). */
typedef struct rt_scalar_costs {
  uint32_t step, copy, tile;
} rt_scalar_costs;
rt_scalar_costs rt_tiling_scalar_costs(const sim_config *cfg, const rt_tiling *t);

/* Slot sizes of the Matmul object's queues (bytes, before alignment) and their counts. */
typedef struct rt_tiling_slots {
  uint64_t a1, b1, a2, b2, co1, c1, bt, fb;
  unsigned n_a1, n_b1, n_a2, n_b2, n_co1, n_c1; /* n_c1: 0 when nothing is staged */
  bool bt_used, fb_used;
} rt_tiling_slots;
rt_tiling_slots rt_tiling_slots_of(const rt_matmul_types *types, const rt_tiling *t);

/* Whether the types' fixpipe mode takes per-column quant words (the FB queue exists then). */
bool rt_matmul_uses_words(const rt_matmul_types *types);
/* The fixpipe quant mode a matmul of these types uses (scalar or vector word); ISA_QUANT_COUNT
 * when no mode produces that output from those inputs. */
isa_quant_mode rt_matmul_quant_mode(const rt_matmul_types *types, bool vector_word);

/* ---- the schedule ------------------------------------------------------------------------- */

/* A rectangle of C: rows m0 .. m0 + ml, columns n0 .. n0 + nl. */
typedef struct rt_rect {
  uint32_t m0, n0, ml, nl;
} rt_rect;

/* Blocks of C, all rounds: l2_split rounds of ceil(m / l2_split) rows, each cut into blocks of
 * single_core_m x single_core_n (the last ones smaller), numbered round by round and, within a
 * round, down M first (block i of a round: M index i % blocks_m, N index i / blocks_m, as the
 * Ascend samples place them). */
uint64_t rt_tiling_block_count(const rt_tiling *t);
rt_rect rt_tiling_block(const rt_tiling *t, uint64_t i);
/* Base tiles of a block of ml x nl. */
uint64_t rt_tiling_tile_count(const rt_tiling *t, uint32_t ml, uint32_t nl);
/* Tile i of a block of ml x nl in iterate order (rectangle relative to the block). M first (0):
 * groups of step_n columns of tiles, left to right; in each, groups of step_m rows, top to
 * bottom; in each, the tiles row by row. N first (1): groups of step_m rows; in each, groups of
 * step_n columns; in each, the tiles column by column. With step_m = step_n = 1 that is column
 * by column (0) and row by row (1). */
rt_rect rt_tiling_tile(const rt_tiling *t, uint32_t ml, uint32_t nl, uint64_t i);

/* Tiles i, i + 1, i + 2, ... of rt_tiling_tile one after the other, without its divisions (the
 * tiling search walks tens of thousands of candidates). In either order the tiles go through
 * groups along an outer dimension (M for N first, N for M first), in each through groups along
 * the inner one, and in each through the inner group's members, the outer group's fastest. */
typedef struct rt_tile_walk {
  const rt_tiling *t;
  uint32_t ml, nl;
  uint64_t t_out, t_in, s_out, s_in; /* tiles and group size along the outer and inner dimension */
  uint64_t g_out, g_in;             /* the current groups */
  uint64_t n_out, n_in;             /* their sizes (the last groups may be smaller) */
  uint64_t a, b;                    /* position in them: inner member a, outer member b */
} rt_tile_walk;

void rt_tile_walk_init(rt_tile_walk *w, const rt_tiling *t, uint32_t ml, uint32_t nl, uint64_t i);
/* The current tile (rt_tiling_tile of its index); then the walk moves to the next index. */
rt_rect rt_tile_walk_next(rt_tile_walk *w);

/* One step of a block's schedule: a base tile and a stretch of K of min(step_ka, step_kb)
 * base_k blocks, with the L1 loads of A and B it reads from. */
typedef struct rt_step {
  rt_rect tile;         /* relative to the block */
  uint32_t k0, kl;      /* the K stretch */
  bool first_k, last_k; /* the tile's first / last stretch */
  rt_rect a_unit;       /* A's L1 load: rows m0 .. (ml), K columns n0 .. (nl) */
  rt_rect b_unit;       /* B's L1 load: K rows m0 .. (ml), columns n0 .. (nl) */
  bool new_a, new_b;    /* the load differs from the previous step's (it must be copied) */
} rt_step;

/* The steps of `count` tiles of a block (tiles first, first + stride, ... in iterate order). */
typedef struct rt_sched {
  const rt_tiling *t;
  uint32_t ml, nl;
  uint64_t first, count, stride;
  uint32_t k_steps;     /* steps per tile */
} rt_sched;
void rt_sched_init(rt_sched *s, const rt_tiling *t, uint32_t ml, uint32_t nl, uint64_t first, uint64_t count,
                   uint64_t stride);
uint64_t rt_sched_steps(const rt_sched *s);
/* Step i (0 <= i < rt_sched_steps). */
rt_step rt_sched_step(const rt_sched *s, uint64_t i);

/* ---- estimate and search ------------------------------------------------------------------ */

/* What the analytic model predicts for a tiling on a configuration (all cores, batch 1). */
typedef struct rt_estimate {
  double cycles;            /* the slowest core, start to finish */
  double mte2_cycles, mte1_cycles, cube_cycles, fix_cycles, scalar_cycles; /* that core's pipes */
  uint64_t instructions;    /* over all cores */
} rt_estimate;
rt_estimate rt_tiling_estimate(const sim_config *cfg, const rt_matmul_types *types, const rt_tiling *t,
                               uint32_t batch);

/* A tiling, what the estimate predicts for it, and what the timing model measured (the callers
 * that run it fill that in). */
typedef struct rt_tiling_choice {
  rt_tiling t;
  rt_estimate est;
  uint64_t model_cycles; /* 0: not timed by the model */
} rt_tiling_choice;

/* The longest list of candidates the search returns. */
#define RT_TILING_CHOICES_MAX 16

/* Searches the legal tilings of an m x n x k matmul of `batch` matrices (docs/KERNELS.md, "The
 * automatic tiling"): start holds m, n, ka, kb and the fields of `given`, which every candidate
 * keeps. The `max` best by the estimate go to out[], fastest first, without repeats (*count of
 * them). When no candidate is legal, the error is the check's verdict on the simplest one. */
cs_status rt_tiling_search(const sim_config *cfg, const rt_matmul_types *types, uint32_t batch, const rt_tiling *start,
                           rt_tiling_mask given, rt_tiling_choice *out, unsigned max, unsigned *count, cs_err *err);

#endif
