/* The happens-before hazard check (sim/sim_hb.h) against seeded synchronisation bugs: small
 * correct programs, each run again with one of its flags (a set_flag and its wait_flag), one of
 * its barriers or one instruction's UnitFlag taken out, under the default configuration and
 * under configurations that make one pipe 10x and 100x slower (latency up, rate down) or every
 * queue one deep. Whatever the timing:
 *   - a correct program has no hazard (neither check finds one);
 *   - every seeded bug is found, with the same hazards in every configuration, and each hazard
 *     lies across the removed synchronisation (the earlier access before it, the later after);
 *   - the replay's own overlap check (timing_hazard_count) never finds a pair the happens-before
 *     check does not, and misses some: the reason the check must not depend on timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_hb.h"
#include "sim/sim_stream.h"
#include "support/insn_build.h"
#include "support/sim_build.h"

#ifndef __STDC_NO_THREADS__
#include <threads.h>
#endif

/* ---- programs with their synchronisation marked ------------------------------------------ */

#define MAX_INSNS 96

typedef enum mark { NONE, SYNC, UNIT_FLAG } mark;

/* A program: instructions, and for each the group it belongs to (0: none). A seeded bug takes one
 * group out: a SYNC group is a set_flag with its wait_flag, or a barrier, removed from the
 * stream; a UNIT_FLAG group is one instruction whose unit_flag becomes 0. */
typedef struct prog {
  const char *name;
  size_t n;
  isa_insn in[MAX_INSNS];
  int group[MAX_INSNS];
  mark kind[MAX_INSNS];
  int ngroups;
  uint64_t a, b; /* GM: input and output, set by build */
} prog;

static void add(prog *p, isa_insn in, int group, mark kind) {
  assert_true(p->n < MAX_INSNS);
  p->in[p->n] = in;
  p->group[p->n] = group;
  p->kind[p->n] = group ? kind : NONE;
  if (group > p->ngroups) p->ngroups = group;
  p->n++;
}

static void insn(prog *p, isa_insn in) { add(p, in, 0, NONE); }

/* set_flag and wait_flag of one event as group g, issued at the two places the caller chose. */
static void set(prog *p, isa_pipe src, isa_pipe dst, uint32_t id, int g) {
  add(p, ib_flag(ISA_OP_SET_FLAG, src, dst, id), g, SYNC);
}
static void wait(prog *p, isa_pipe src, isa_pipe dst, uint32_t id, int g) {
  add(p, ib_flag(ISA_OP_WAIT_FLAG, src, dst, id), g, SYNC);
}
static void flag(prog *p, isa_pipe src, isa_pipe dst, uint32_t id, int g) {
  set(p, src, dst, id, g);
  wait(p, src, dst, id, g);
}
static void barrier(prog *p, uint32_t pipe, int g) { add(p, ib_barrier(pipe), g, SYNC); }


/* GM in at 0, out at 64 KiB: the addresses sim_gm_alloc gives the first two tensors are taken
 * from the simulator each run (build_sim). */
typedef void (*build_fn)(prog *p, uint64_t gm_in, uint64_t gm_out);

/* Double-buffered UB pipeline, four rounds: MTE2 brings 256 B into in[b], V computes
 * tmp[b] = in[b] + in[b], pipe_barrier(V), out[b] = tmp[b] * tmp[b], MTE3 writes out[b] to GM.
 * Flags MTE2->V and V->MTE3 every round; MTE3->MTE2 frees buffer b for round i + 2. */
static void build_ub_pipeline(prog *p, uint64_t gm_in, uint64_t gm_out) {
  p->name = "UB pipeline";
  int g = 0, freed[2] = {0, 0};
  for (uint32_t i = 0; i < 4; i++) {
    uint32_t b = i % 2;
    uint64_t in = b * 0x1000, tmp = 0x2000 + b * 0x1000, out = 0x4000 + b * 0x1000;
    if (i >= 2) wait(p, ISA_PIPE_MTE3, ISA_PIPE_MTE2, b, freed[b]);
    insn(p, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, in, ISA_MEM_GM, gm_in + i * 256, 256));
    flag(p, ISA_PIPE_MTE2, ISA_PIPE_V, b, ++g);
    insn(p, ib_vbinary_n(ISA_OP_VADD, ISA_FP16, tmp, in, in, 128));
    barrier(p, ISA_PIPE_V, ++g);
    insn(p, ib_vbinary_n(ISA_OP_VMUL, ISA_FP16, out, tmp, tmp, 128));
    flag(p, ISA_PIPE_V, ISA_PIPE_MTE3, b, ++g);
    insn(p, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, gm_out + i * 256, ISA_MEM_UB, out, 256));
    if (i < 2) set(p, ISA_PIPE_MTE3, ISA_PIPE_MTE2, b, freed[b] = ++g);
  }
}

/* Two int8 tiles C = A (16 x 64) x B (64 x 32) through one L1, one L0A/L0B and one L0C buffer
 * (the operands of tests/sim/test_cube_timing.c's tile): MTE2 -> MTE1 -> M -> FIX every tile, and
 * for the second tile MTE1 -> MTE2 (L1 free), M -> MTE1 (L0A/L0B free), FIX -> M (L0C free). */
static void build_cube_tiles(prog *p, uint64_t gm_in, uint64_t gm_out) {
  p->name = "cube tiles";
  int g = 0, l1_free = 0, l0_free = 0, l0c_free = 0;
  for (uint32_t t = 0; t < 2; t++) {
    if (t) wait(p, ISA_PIPE_MTE1, ISA_PIPE_MTE2, 1, l1_free);
    insn(p, ib_nd2nz(ISA_INT8, 0, gm_in + t * 4096, 16, 64));
    insn(p, ib_nd2nz(ISA_INT8, 0x1000, gm_in + t * 4096 + 1024, 64, 32));
    flag(p, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0, ++g);
    if (t) wait(p, ISA_PIPE_M, ISA_PIPE_MTE1, 1, l0_free);
    insn(p, ib_load2d(ISA_OP_LOAD_L0A, ISA_INT8, 0, 0, 0, 2, 1, 0));
    insn(p, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 0, 0x1000, 0, 1, 4, 1));
    insn(p, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 1024, 0x1000, 2, 1, 4, 1));
    if (!t) set(p, ISA_PIPE_MTE1, ISA_PIPE_MTE2, 1, l1_free = ++g);
    flag(p, ISA_PIPE_MTE1, ISA_PIPE_M, 0, ++g);
    if (t) wait(p, ISA_PIPE_FIX, ISA_PIPE_M, 1, l0c_free);
    insn(p, ib_mmad(ISA_INT8, 16, 32, 64));
    if (!t) set(p, ISA_PIPE_M, ISA_PIPE_MTE1, 1, l0_free = ++g);
    flag(p, ISA_PIPE_M, ISA_PIPE_FIX, 0, ++g);
    insn(p, ib_fixpipe_nd(ISA_MEM_GM, gm_out + t * 1024, ISA_QUANT_DEQF16, ISA_FP16, 16, 32));
    if (!t) set(p, ISA_PIPE_FIX, ISA_PIPE_M, 1, l0c_free = ++g);
  }
}

static isa_insn uf_mmad(uint32_t uf) {
  isa_insn in = ib_mmad(ISA_INT8, 16, 32, 64);
  in.u.mmad.unit_flag = uf;
  return in;
}

static isa_insn uf_fixpipe(uint64_t gm, uint32_t uf) {
  isa_insn in = ib_fixpipe_nd(ISA_MEM_GM, gm, ISA_QUANT_DEQF16, ISA_FP16, 16, 32);
  in.u.fixpipe.unit_flag = uf;
  return in;
}

/* UnitFlag: the operands loaded once, then two tiles through one L0C with no M <-> FIX flags:
 * each fixpipe (unit_flag 3) follows its mmad (unit_flag 3), the second mmad (unit_flag 2) the
 * first fixpipe. Seeded bugs: any of the four with unit_flag 0. */
static void build_unit_flag(prog *p, uint64_t gm_in, uint64_t gm_out) {
  p->name = "UnitFlag tiles";
  int g = 0;
  insn(p, ib_nd2nz(ISA_INT8, 0, gm_in, 16, 64));
  insn(p, ib_nd2nz(ISA_INT8, 0x1000, gm_in + 1024, 64, 32));
  flag(p, ISA_PIPE_MTE2, ISA_PIPE_MTE1, 0, ++g);
  insn(p, ib_load2d(ISA_OP_LOAD_L0A, ISA_INT8, 0, 0, 0, 2, 1, 0));
  insn(p, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 0, 0x1000, 0, 1, 4, 1));
  insn(p, ib_load2d(ISA_OP_LOAD_L0B, ISA_INT8, 1024, 0x1000, 2, 1, 4, 1));
  flag(p, ISA_PIPE_MTE1, ISA_PIPE_M, 0, ++g);
  add(p, uf_mmad(3), ++g, UNIT_FLAG);
  add(p, uf_fixpipe(gm_out, 3), ++g, UNIT_FLAG);
  add(p, uf_mmad(3), ++g, UNIT_FLAG);
  add(p, uf_fixpipe(gm_out + 1024, 3), ++g, UNIT_FLAG);
}

/* The dispatcher's own orders: a flag to S (the dispatcher waits), scalar work (touches no
 * data), pipe_barrier(ALL) between MTE3 writing GM and MTE2 reading it back, a vector step with
 * its barrier, and a flag V -> S before MTE2 overwrites what V used. */
static void build_scalar(prog *p, uint64_t gm_in, uint64_t gm_out) {
  p->name = "dispatcher orders";
  int g = 0;
  insn(p, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, gm_in, 256));
  flag(p, ISA_PIPE_MTE2, ISA_PIPE_S, 0, ++g);
  insn(p, ib_scalar(20));
  insn(p, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, gm_out, ISA_MEM_UB, 0, 256));
  barrier(p, ISA_PIPE_ALL, ++g);
  insn(p, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x1000, ISA_MEM_GM, gm_out, 256));
  flag(p, ISA_PIPE_MTE2, ISA_PIPE_V, 0, ++g);
  insn(p, ib_vbinary_n(ISA_OP_VADD, ISA_FP16, 0x2000, 0x1000, 0x1000, 128));
  barrier(p, ISA_PIPE_V, ++g);
  insn(p, ib_vbinary_n(ISA_OP_VMUL, ISA_FP16, 0x3000, 0x2000, 0x2000, 128));
  flag(p, ISA_PIPE_V, ISA_PIPE_MTE3, 0, ++g);
  insn(p, ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, gm_out + 0x1000, ISA_MEM_UB, 0x3000, 256));
  flag(p, ISA_PIPE_V, ISA_PIPE_S, 1, ++g);
  insn(p, ib_scalar(3));
  insn(p, ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0x2000, ISA_MEM_GM, gm_in + 0x1000, 256));
}

static const build_fn programs[] = {build_ub_pipeline, build_cube_tiles, build_unit_flag, build_scalar};
#define NPROGRAMS (sizeof programs / sizeof programs[0])

/* ---- configurations ----------------------------------------------------------------------- */

static uint64_t slower(uint64_t rate, unsigned f) { return rate / f ? rate / f : 1; }

/* The cube's MAC rates are multiples of 256. */
static uint64_t slower_macs(uint64_t rate, unsigned f) {
  uint64_t r = rate / f / 256 * 256;
  return r ? r : 256;
}

/* Pipe p (ISA_PIPE_COUNT: none) f times slower: latency x f, rates / f. */
static void stretch(sim_config *c, isa_pipe p, unsigned f) {
  switch (p) {
    case ISA_PIPE_MTE2:
      c->mte2_latency_cycles *= f;
      c->mte2_gm_bytes_per_cycle = slower(c->mte2_gm_bytes_per_cycle, f);
      break;
    case ISA_PIPE_MTE1:
      c->mte1_latency_cycles *= f;
      c->mte1_l0a_bytes_per_cycle = slower(c->mte1_l0a_bytes_per_cycle, f);
      c->mte1_l0b_bytes_per_cycle = slower(c->mte1_l0b_bytes_per_cycle, f);
      c->mte1_bt_bytes_per_cycle = slower(c->mte1_bt_bytes_per_cycle, f);
      c->mte1_fb_bytes_per_cycle = slower(c->mte1_fb_bytes_per_cycle, f);
      break;
    case ISA_PIPE_M:
      c->cube_latency_cycles *= f;
      c->cube_head_cycles *= f;
      c->cube_macs_per_cycle_fp16 = slower_macs(c->cube_macs_per_cycle_fp16, f);
      c->cube_macs_per_cycle_bf16 = slower_macs(c->cube_macs_per_cycle_bf16, f);
      c->cube_macs_per_cycle_int8 = slower_macs(c->cube_macs_per_cycle_int8, f);
      c->cube_macs_per_cycle_int4 = slower_macs(c->cube_macs_per_cycle_int4, f);
      break;
    case ISA_PIPE_FIX:
      c->fixpipe_latency_cycles *= f;
      c->fixpipe_elements_per_cycle = slower(c->fixpipe_elements_per_cycle, f);
      c->fixpipe_gm_bytes_per_cycle = slower(c->fixpipe_gm_bytes_per_cycle, f);
      break;
    case ISA_PIPE_MTE3:
      c->mte3_latency_cycles *= f;
      c->mte3_gm_bytes_per_cycle = slower(c->mte3_gm_bytes_per_cycle, f);
      break;
    case ISA_PIPE_V:
      c->vector_latency_cycles *= f;
      c->vector_bytes_per_cycle = slower(c->vector_bytes_per_cycle, f);
      break;
    case ISA_PIPE_S: /* the scalar unit: every dispatch and its own work */
      c->scalar_dispatch_cycles *= f;
      c->scalar_kernel_init_cycles *= f;
      break;
    default: break;
  }
}

/* Configuration i: 0 the defaults, 1 every queue one deep, then each pipe 10x, then 100x. */
#define NSTRETCHED 7
#define NCONFIGS (2 + 2 * NSTRETCHED)
static const isa_pipe stretched[NSTRETCHED] = {ISA_PIPE_MTE2, ISA_PIPE_MTE1, ISA_PIPE_M, ISA_PIPE_FIX,
                                               ISA_PIPE_MTE3, ISA_PIPE_V,    ISA_PIPE_S};

static void config_of(int i, sim_config *c, char *name, size_t n) {
  sim_config_defaults(c);
  c->chip_aic_cores = 1;
  if (i == 0) {
    snprintf(name, n, "defaults");
  } else if (i == 1) {
    c->mte2_queue_depth = c->mte1_queue_depth = c->cube_queue_depth = 1;
    c->fixpipe_queue_depth = c->mte3_queue_depth = c->vector_queue_depth = 1;
    snprintf(name, n, "queues of 1");
  } else {
    unsigned f = i < 2 + NSTRETCHED ? 10 : 100;
    isa_pipe p = stretched[(i - 2) % NSTRETCHED];
    stretch(c, p, f);
    snprintf(name, n, "%s %ux slower", isa_pipe_name(p), f);
  }
}

/* ---- running ------------------------------------------------------------------------------ */

typedef struct outcome {
  cs_status st;
  uint64_t count, timing_count, total_cycles;
  unsigned kept;
  sim_hazard h[SIM_MAX_HAZARDS_KEPT];
  size_t orig[MAX_INSNS]; /* stream index -> index in the correct program */
  size_t removed_lo, removed_hi; /* the removed group's first and last index (SYNC) */
  size_t mutated;                /* the UNIT_FLAG instruction changed */
} outcome;

/* Program `which` without group `drop` (0: the correct one) under configuration `cfg`, the
 * replay on `threads` host threads (0: the default). */
static void run_variant_on(size_t which, int drop, int cfg, unsigned threads, prog *p, outcome *o) {
  sim_config c;
  char cname[64];
  config_of(cfg, &c, cname, sizeof cname);
  sim *s = NULL;
  cs_err err;
  sim_options so = {.timing_only = true};
  assert_int_equal(sim_create(&c, &so, &s, &err), CS_OK);
  uint64_t in, out;
  assert_int_equal(sim_gm_alloc(s, "in", 65536, &in, &err), CS_OK);
  assert_int_equal(sim_gm_alloc(s, "out", 65536, &out, &err), CS_OK);
  memset(p, 0, sizeof *p);
  programs[which](p, in, out);
  memset(o, 0, sizeof *o);
  o->removed_lo = SIZE_MAX;
  size_t n = 0;
  for (size_t i = 0; i < p->n; i++) {
    isa_insn x = p->in[i];
    if (drop && p->group[i] == drop) {
      if (p->kind[i] == SYNC) {
        if (o->removed_lo == SIZE_MAX) o->removed_lo = i;
        o->removed_hi = i;
        continue;
      }
      o->mutated = i;
      if (x.op == ISA_OP_MMAD) x.u.mmad.unit_flag = 0;
      else x.u.fixpipe.unit_flag = 0;
    }
    sb_issue(s, 0, x);
    o->orig[n++] = i;
  }
  sim_result res;
  sim_run_options ro = {.allow_hazards = false, .host_threads = threads, .overlap_check = true};
  o->st = sim_run(s, &ro, &res, &err);
  o->total_cycles = res.total_cycles;
  if (o->st != CS_OK && o->st != CS_EHAZARD)
    fail_msg("%s without group %d, %s: %s", p->name, drop, cname, err.msg);
  o->count = res.hazard_count;
  o->timing_count = res.timing_hazard_count;
  o->kept = res.hazards_kept;
  memcpy(o->h, res.hazards, sizeof o->h);
  sim_result_free(&res);
  sim_destroy(s);
}

static void run_variant(size_t which, int drop, int cfg, prog *p, outcome *o) {
  run_variant_on(which, drop, cfg, 0, p, o);
}

static bool same_pair(const sim_hazard *a, const sim_hazard *b) {
  return a->kind == b->kind && a->earlier == b->earlier && a->later == b->later && a->mem == b->mem &&
         a->lo == b->lo && a->hi == b->hi;
}

/* The correct programs: no hazard from either check under any configuration. */
static void test_hb_correct_programs_have_no_hazard(void **state) {
  (void)state;
  static prog p;
  static outcome o;
  for (size_t w = 0; w < NPROGRAMS; w++)
    for (int c = 0; c < NCONFIGS; c++) {
      run_variant(w, 0, c, &p, &o);
      if (o.st != CS_OK || o.count || o.timing_count) {
        char cname[64], msg[512];
        sim_config cfg;
        config_of(c, &cfg, cname, sizeof cname);
        if (o.kept) sim_hazard_describe(&o.h[0], msg, sizeof msg);
        else snprintf(msg, sizeof msg, "(the replay's check only)");
        fail_msg("false alarm in %s under %s: %" PRIu64 " hazards, %" PRIu64 " overlapped; %s", p.name, cname,
                 o.count, o.timing_count, msg);
      }
    }
}

/* Every seeded bug, every configuration: found, the same hazards everywhere, each across the
 * removed synchronisation (or on the instruction that lost its UnitFlag). */
static void test_hb_every_seeded_bug_is_found_under_every_config(void **state) {
  (void)state;
  static prog p;
  static outcome o, first;
  unsigned bugs = 0, runs = 0, timing_found = 0;
  for (size_t w = 0; w < NPROGRAMS; w++) {
    run_variant(w, 0, 0, &p, &o);
    int ngroups = p.ngroups;
    for (int g = 1; g <= ngroups; g++, bugs++)
      for (int c = 0; c < NCONFIGS; c++, runs++) {
        run_variant(w, g, c, &p, &o);
        char cname[64];
        sim_config cfg;
        config_of(c, &cfg, cname, sizeof cname);
        if (o.st != CS_EHAZARD || !o.count)
          fail_msg("%s without group %d: not found under %s", p.name, g, cname);
        if (o.timing_count > o.count)
          fail_msg("%s without group %d under %s: the replay overlapped %" PRIu64 " pairs, %" PRIu64 " hazards",
                   p.name, g, cname, o.timing_count, o.count);
        if (o.timing_count) timing_found++;
        if (c == 0) {
          first = o;
          for (unsigned i = 0; i < o.kept; i++) {
            size_t e = o.orig[o.h[i].earlier], l = o.orig[o.h[i].later];
            if (p.kind[o.mutated] == UNIT_FLAG && o.removed_lo == SIZE_MAX)
              assert_true(e == o.mutated || l == o.mutated);
            else if (!(e < o.removed_lo && l > o.removed_hi))
              fail_msg("%s without group %d: hazard between %zu and %zu is not across [%zu, %zu]", p.name, g, e,
                       l, o.removed_lo, o.removed_hi);
          }
          continue;
        }
        if (o.count != first.count || o.kept != first.kept)
          fail_msg("%s without group %d: %" PRIu64 " hazards under %s, %" PRIu64 " under the defaults", p.name, g,
                   o.count, cname, first.count);
        for (unsigned i = 0; i < o.kept; i++) assert_true(same_pair(&o.h[i], &first.h[i]));
      }
  }
  /* 4 programs: 14 + 9 + 6 + 6 seeded bugs, 16 configurations each */
  assert_int_equal(bugs, 35);
  assert_int_equal(runs, 35 * NCONFIGS);
  print_message("seeded bugs: %u, runs %u: all found; the replay's overlap check alone found %u\n", bugs, runs,
                timing_found);
  assert_true(timing_found < runs); /* the timing alone hides some */
}

/* One seeded bug in words: the L0A reuse of the second cube tile without M -> MTE1, the issue's
 * example (found by the timing check only with a slow cube). load_l0a of tile 1 (instruction 20
 * once the flag's two instructions, 11 and 21, are out) overwrites L0A [0, 0x400) that the first
 * mmad (instruction 10) reads. */
static void test_hb_l0a_reuse_without_its_flag(void **state) {
  (void)state;
  static prog p;
  static outcome o;
  run_variant(1, 4, 0, &p, &o); /* group 4: set M->MTE1 #1 after the first mmad, its wait */
  assert_true(p.group[11] == 4 && p.in[11].op == ISA_OP_SET_FLAG && p.in[11].u.flag.src_pipe == ISA_PIPE_M);
  assert_true(p.group[21] == 4 && p.in[21].op == ISA_OP_WAIT_FLAG);
  assert_int_equal(o.st, CS_EHAZARD);
  assert_int_equal(o.count, 3); /* load_l0a, and both load_l0b, against the mmad */
  const sim_hazard *h = &o.h[0];
  assert_int_equal(h->kind, SIM_HAZARD_WAR);
  assert_int_equal(h->earlier, 10);
  assert_int_equal(h->later, 20);
  assert_int_equal(h->earlier_op, ISA_OP_MMAD);
  assert_int_equal(h->later_op, ISA_OP_LOAD_L0A);
  assert_int_equal(h->mem, ISA_MEM_L0A);
  assert_int_equal(h->lo, 0);
  assert_int_equal(h->hi, 0x400);
}

/* UnitFlag partners with a double-buffered L0C: each buffer pairs with its own reader, not with
 * the latest fixpipe (which reads the other buffer). */
static void test_hb_unit_flag_partners_per_l0c_buffer(void **state) {
  (void)state;
  sim_uf_track t;
  sim_uf_track_init(&t);
  isa_insn m0 = uf_mmad(3), f0 = uf_fixpipe(0, 3), m1 = uf_mmad(3), f1 = uf_fixpipe(1024, 3);
  m1.u.mmad.dst.off = f1.u.fixpipe.src.off = 0x2000; /* buffer 1 */
  isa_insn m0b = uf_mmad(2), m1b = m1;
  m1b.u.mmad.unit_flag = 2;
  assert_int_equal(sim_uf_track_next(&t, &m0, 0), SIM_UF_NONE); /* nothing read buffer 0 yet */
  assert_int_equal(sim_uf_track_next(&t, &f0, 1), 0);           /* buffer 0's reader follows m0 */
  assert_int_equal(sim_uf_track_next(&t, &m1, 2), SIM_UF_NONE);
  assert_int_equal(sim_uf_track_next(&t, &f1, 3), 2);
  assert_int_equal(sim_uf_track_next(&t, &m0b, 4), 1); /* buffer 0 again: after f0, not f1 */
  assert_int_equal(sim_uf_track_next(&t, &m1b, 5), 3);
  isa_insn plain = uf_mmad(0);
  assert_int_equal(sim_uf_track_next(&t, &plain, 6), SIM_UF_NONE); /* unit_flag 0: no partner */
  assert_int_equal(sim_uf_track_oldest(&t, true), 1);
  assert_int_equal(sim_uf_track_oldest(&t, false), 0);
}

/* The check over a recorded stream reads where each pipe's accesses end from the record phase
 * (sim_hb_reach, noted as the core issues each instruction) instead of a pass of its own; the
 * check over the program as an array finds it by that pass. Every seeded bug: the same hazards,
 * in the same order, both ways. */
typedef struct collected {
  uint64_t n;
  sim_hb_hazard h[SIM_MAX_HAZARDS_KEPT];
} collected;

static void collect(void *arg, const sim_hb_hazard *z) {
  collected *c = arg;
  if (c->n < SIM_MAX_HAZARDS_KEPT) c->h[c->n] = *z;
  c->n++;
}

static void test_hb_stream_reach_matches_the_prepass(void **state) {
  (void)state;
  static prog p;
  static outcome o;
  static isa_insn kept[MAX_INSNS];
  static collected c;
  unsigned compared = 0;
  for (size_t w = 0; w < NPROGRAMS; w++) {
    run_variant(w, 0, 0, &p, &o);
    int ngroups = p.ngroups;
    for (int g = 1; g <= ngroups; g++) {
      run_variant(w, g, 0, &p, &o); /* the stream path, through sim_run */
      size_t n = 0;
      for (size_t i = 0; i < p.n; i++) {
        isa_insn x = p.in[i];
        if (p.group[i] == g) {
          if (p.kind[i] == SYNC) continue;
          if (x.op == ISA_OP_MMAD) x.u.mmad.unit_flag = 0;
          else x.u.fixpipe.unit_flag = 0;
        }
        kept[n++] = x;
      }
      memset(&c, 0, sizeof c);
      sim_hb_sink sink = {collect, &c, NULL};
      cs_err err;
      assert_int_equal(sim_hb_check(kept, n, &sink, &err), CS_OK);
      assert_int_equal(c.n, o.count);
      assert_true(c.n > 0);
      for (unsigned i = 0; i < o.kept && i < c.n; i++, compared++) {
        assert_int_equal(c.h[i].kind, o.h[i].kind);
        assert_int_equal(c.h[i].earlier, o.h[i].earlier);
        assert_int_equal(c.h[i].later, o.h[i].later);
        assert_int_equal(c.h[i].mem, o.h[i].mem);
        assert_int_equal(c.h[i].lo, o.h[i].lo);
        assert_int_equal(c.h[i].hi, o.h[i].hi);
      }
    }
  }
  assert_true(compared >= 35);
}

/* The check's dispatcher runs a bounded distance ahead of the pipes (the instructions they visit
 * stay decoded); a wait whose set_flag lies further on than that must still be passed. MTE2 waits
 * at instruction 0 for V's set at F + 1 before it copies into UB 0, which V's vadd at F reads:
 * ordered by the flag; MTE3's copy out of UB 0 (F + 2) has nothing ordering it after the copy
 * in: one RAW, found only once the copy behind the wait has run. Without the wait, the vadd's
 * read races too. With F = 20002 the dispatcher gets five times further ahead of MTE2 than the
 * check's ring of the instructions' pipes holds at first (4096), so the ring must grow, keeping
 * what MTE2 has still to pass. */
static void test_hb_wait_for_a_set_far_ahead(void **state) {
  (void)state;
  static isa_insn in[20005];
  static const size_t far[] = {1002, 20002};
  for (int f = 0; f < 2; f++)
    for (int with = 0; with < 2; with++) {
      size_t n = 0, F = far[f];
      if (with) in[n++] = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_V, ISA_PIPE_MTE2, 0);
      else in[n++] = ib_scalar(1);
      in[n++] = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, 0, 256);
      while (n < F) in[n++] = ib_scalar(1);
      in[n++] = ib_vbinary_n(ISA_OP_VADD, ISA_FP16, 0x2000, 0, 0, 128);
      in[n++] = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_V, ISA_PIPE_MTE2, 0);
      in[n++] = ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, 0x8000, ISA_MEM_UB, 0, 256);
      static collected c;
      memset(&c, 0, sizeof c);
      sim_hb_sink sink = {collect, &c, NULL};
      cs_err err;
      assert_int_equal(sim_hb_check(in, n, &sink, &err), CS_OK);
      assert_int_equal(c.n, with ? 1 : 2);
      for (uint64_t i = 0; i < c.n; i++) {
        const sim_hb_hazard *z = &c.h[i];
        assert_int_equal(z->kind, SIM_HAZARD_RAW);
        assert_int_equal(z->earlier, 1);
        assert_true(z->later == F || z->later == F + 2);
        assert_int_equal(z->mem, ISA_MEM_UB);
        assert_int_equal(z->lo, 0);
        assert_int_equal(z->hi, 256);
      }
      if (with) assert_int_equal(c.h[0].later, F + 2);
    }
}

/* With two host threads the check runs beside the replay, and a run with hazards is replayed
 * again knowing them: every seeded bug, under the defaults and with the cube 100x slower, gives
 * the same hazards with the same cycles, the same overlaps and the same time as on one thread. */
static void test_hb_same_results_on_one_and_two_threads(void **state) {
  (void)state;
  static prog p;
  static outcome one, two;
  unsigned compared = 0;
  const int cfgs[2] = {0, 2 + NSTRETCHED + 2}; /* the defaults; M 100x slower */
  for (size_t w = 0; w < NPROGRAMS; w++) {
    run_variant_on(w, 0, 0, 1, &p, &one);
    int ngroups = p.ngroups;
    for (int g = 0; g <= ngroups; g++)
      for (int c = 0; c < 2; c++) {
        run_variant_on(w, g, cfgs[c], 1, &p, &one);
        run_variant_on(w, g, cfgs[c], 2, &p, &two);
        assert_int_equal(two.st, one.st);
        assert_int_equal(two.count, one.count);
        assert_int_equal(two.timing_count, one.timing_count);
        assert_int_equal(two.total_cycles, one.total_cycles);
        assert_int_equal(two.kept, one.kept);
        for (unsigned i = 0; i < one.kept; i++, compared++) {
          assert_true(same_pair(&two.h[i], &one.h[i]));
          assert_int_equal(two.h[i].time, one.h[i].time);
          assert_int_equal(two.h[i].earlier_done, one.h[i].earlier_done);
        }
      }
  }
  assert_true(compared >= 70);
}

/* sim_stream_next_op hops over the records of other opcodes: from a stream of the cube tiles
 * program, exactly its mmads, at their indices, bit for bit as sim_stream_get decodes them. */
static void test_hb_stream_next_op_hops_to_the_opcode(void **state) {
  (void)state;
  static prog p;
  memset(&p, 0, sizeof p);
  build_cube_tiles(&p, 0, 65536);
  sim_stream st;
  memset(&st, 0, sizeof st);
  size_t mmads = 0;
  for (size_t i = 0; i < p.n; i++) {
    assert_int_equal(sim_stream_append(&st, &p.in[i]), CS_OK);
    mmads += p.in[i].op == ISA_OP_MMAD;
  }
  assert_int_equal(mmads, 2);
  sim_stream_cursor cur;
  sim_stream_cursor_init(&cur, &st, 0);
  isa_insn got;
  size_t found = 0, from = 0;
  while (sim_stream_next_op(&cur, ISA_OP_MMAD, &got)) {
    uint64_t at = cur.idx - 1;
    for (size_t i = from; i < at; i++) assert_int_not_equal(p.in[i].op, ISA_OP_MMAD);
    assert_int_equal(p.in[at].op, ISA_OP_MMAD);
    /* as the stream gives it at that index (every byte outside the fields zero), and field for
     * field the appended one */
    isa_insn ref;
    sim_stream_get(&st, at, &ref);
    assert_memory_equal(&got, &ref, sizeof got);
    assert_int_equal(got.u.mmad.m, p.in[at].u.mmad.m);
    assert_int_equal(got.u.mmad.n, p.in[at].u.mmad.n);
    assert_int_equal(got.u.mmad.k, p.in[at].u.mmad.k);
    assert_int_equal(got.u.mmad.dst.off, p.in[at].u.mmad.dst.off);
    from = at + 1;
    found++;
  }
  assert_int_equal(found, 2);
  assert_int_equal(cur.idx, p.n);
  sim_stream_free(&st);
}

/* ---- the check over a pipe ------------------------------------------------------------------ */

typedef struct piped {
  sim_stream *s;
  const isa_insn *in;
  size_t n;
} piped;

#ifndef __STDC_NO_THREADS__
static int pipe_fill(void *arg) {
  piped *x = arg;
  for (size_t i = 0; i < x->n; i++) assert_int_equal(sim_stream_append(x->s, &x->in[i]), CS_OK);
  sim_stream_pipe_close(x->s);
  return 0;
}
#endif

/* The hazards of in[0 .. n - 1] by sim_hb_check (array) and by sim_hb_check_pipe (a pipe filled
 * on another thread in chunks of a few records, with the reach noted as they are listed): the
 * same, in the same order. */
static void assert_pipe_check_agrees(const isa_insn *in, size_t n, uint64_t *hazards) {
#ifndef __STDC_NO_THREADS__
  static collected a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  cs_err err;
  sim_hb_sink sa = {collect, &a, NULL}, sb = {collect, &b, NULL};
  assert_int_equal(sim_hb_check(in, n, &sa, &err), CS_OK);
  sim_hb_reach reach;
  memset(&reach, 0, sizeof reach);
  for (size_t i = 0; i < n; i++) {
    isa_range r[ISA_MAX_RANGES];
    size_t nr = isa_insn_ranges(&in[i], r);
    sim_hb_reach_note(&reach, i, isa_insn_pipe(&in[i]), r, nr);
  }
  sim_stream pipe;
  assert_int_equal(sim_stream_pipe_open(&pipe, 2 * SIM_STREAM_MAX_RECORD, 1), CS_OK);
  piped x = {&pipe, in, n};
  thrd_t t;
  assert_int_equal(thrd_create(&t, pipe_fill, &x), thrd_success);
  cs_status st = sim_hb_check_pipe(&pipe, n, &reach, &sb, &err);
  sim_stream_pipe_abandon(&pipe);
  assert_int_equal(thrd_join(t, NULL), thrd_success);
  sim_stream_free(&pipe);
  if (st != CS_OK) fail_msg("%s", err.msg);
  assert_int_equal(a.n, b.n);
  for (uint64_t i = 0; i < a.n && i < SIM_MAX_HAZARDS_KEPT; i++) {
    assert_int_equal(a.h[i].kind, b.h[i].kind);
    assert_int_equal(a.h[i].earlier, b.h[i].earlier);
    assert_int_equal(a.h[i].later, b.h[i].later);
    assert_int_equal(a.h[i].mem, b.h[i].mem);
    assert_int_equal(a.h[i].lo, b.h[i].lo);
    assert_int_equal(a.h[i].hi, b.h[i].hi);
  }
  *hazards += a.n;
#else
  (void)in;
  (void)n;
  (void)hazards;
#endif
}

/* Every program, correct and with each seeded bug, and the far-ahead wait (its pipe 20005
 * instructions long, the check's decoded ring made to grow): a pipe read once gives the hazards
 * of the whole stream. A pipe that ends early is an error, not a short check. */
static void test_hb_over_a_pipe_gives_the_same_hazards(void **state) {
  (void)state;
#ifndef __STDC_NO_THREADS__
  static prog p;
  static outcome o;
  static isa_insn kept[MAX_INSNS];
  uint64_t hazards = 0;
  for (size_t w = 0; w < NPROGRAMS; w++) {
    run_variant(w, 0, 0, &p, &o);
    for (int g = 0; g <= p.ngroups; g++) {
      size_t n = 0;
      for (size_t i = 0; i < p.n; i++) {
        isa_insn x = p.in[i];
        if (g && p.group[i] == g) {
          if (p.kind[i] == SYNC) continue;
          if (x.op == ISA_OP_MMAD) x.u.mmad.unit_flag = 0;
          else x.u.fixpipe.unit_flag = 0;
        }
        kept[n++] = x;
      }
      assert_pipe_check_agrees(kept, n, &hazards);
    }
  }
  assert_true(hazards >= 35);
  static isa_insn far[20005];
  size_t n = 0;
  far[n++] = ib_flag(ISA_OP_WAIT_FLAG, ISA_PIPE_V, ISA_PIPE_MTE2, 0);
  far[n++] = ib_copy(ISA_OP_COPY_GM_UB, ISA_MEM_UB, 0, ISA_MEM_GM, 0, 256);
  while (n < 20002) far[n++] = ib_scalar(1);
  far[n++] = ib_vbinary_n(ISA_OP_VADD, ISA_FP16, 0x2000, 0, 0, 128);
  far[n++] = ib_flag(ISA_OP_SET_FLAG, ISA_PIPE_V, ISA_PIPE_MTE2, 0);
  far[n++] = ib_copy(ISA_OP_COPY_UB_GM, ISA_MEM_GM, 0x8000, ISA_MEM_UB, 0, 256);
  uint64_t before = hazards;
  assert_pipe_check_agrees(far, n, &hazards);
  assert_int_equal(hazards - before, 1);
  /* told of more instructions than the pipe brings */
  sim_stream pipe;
  assert_int_equal(sim_stream_pipe_open(&pipe, 2 * SIM_STREAM_MAX_RECORD, 1), CS_OK);
  piped x = {&pipe, far, 100};
  thrd_t t;
  assert_int_equal(thrd_create(&t, pipe_fill, &x), thrd_success);
  sim_hb_reach reach;
  memset(&reach, 0, sizeof reach);
  collected c;
  memset(&c, 0, sizeof c);
  sim_hb_sink sink = {collect, &c, NULL};
  cs_err err;
  assert_int_equal(sim_hb_check_pipe(&pipe, 200, &reach, &sink, &err), CS_EINTERNAL);
  assert_string_equal(err.msg, "the hazard check's pipe ended after 100 of 200 instructions");
  sim_stream_pipe_abandon(&pipe);
  assert_int_equal(thrd_join(t, NULL), thrd_success);
  sim_stream_free(&pipe);
#else
  skip();
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hb_unit_flag_partners_per_l0c_buffer),
      cmocka_unit_test(test_hb_correct_programs_have_no_hazard),
      cmocka_unit_test(test_hb_every_seeded_bug_is_found_under_every_config),
      cmocka_unit_test(test_hb_l0a_reuse_without_its_flag),
      cmocka_unit_test(test_hb_stream_reach_matches_the_prepass),
      cmocka_unit_test(test_hb_stream_next_op_hops_to_the_opcode),
      cmocka_unit_test(test_hb_wait_for_a_set_far_ahead),
      cmocka_unit_test(test_hb_same_results_on_one_and_two_threads),
      cmocka_unit_test(test_hb_over_a_pipe_gives_the_same_hazards),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
