/* sim_build — simulators for the timing, trace and summary tests: the configurations their
 * cycles are derived from, issuing that fails the test on a fault, and the two-core program
 * whose replay tests/sim/test_trace.c derives by hand. */
#ifndef TESTS_SIM_BUILD_H
#define TESTS_SIM_BUILD_H

#include <stdint.h>

#include "sim/sim.h"

/* The defaults with round numbers (1000 MHz, so 1 GB/s = 1 byte/cycle):
 *   dispatch 1 cycle (the first instruction enters its queue at cycle 1), queues of 16;
 *   MTE2 64 B/cycle per core, latency 10; MTE3 64 B/cycle, latency 10;
 *   MTE1 L1->L0A 256, L1->L0B 128, L1->BT 32, L1->FB 32 B/cycle, latency 5;
 *   cube head 2 cycles, latency 3; macs/cycle are the defaults: fp16 4096 and bf16 4096
 *     (k0 = 4096 / 256 = 16), int8 8192 (k0 32), int4 16384 (k0 64);
 *   fixpipe 64 elements/cycle, latency 7; vector 256 B/cycle, latency 4;
 *   HBM 128 B/cycle; L2 off unless a test turns it on (then 256 B/cycle, hit 20, miss 100):
 *   with L2 off every GM access, read or write, adds the miss latency 100. */
void sb_round_config(sim_config *c, unsigned cores);

/* Turns off what docs/TIMING.md adds beyond bytes over bandwidth, so the hand derivations stay
 * simple: no launch time or start skew, no per-request, per-setup or per-instruction costs, no
 * latency limit on a transfer's rate, every pitch and the HBM fully efficient (bursts of a byte), no same-line
 * sharing limit, an unlimited fixpipe write port. Each of those rules has tests of its own. */
void sb_neutral_costs(sim_config *c);

/* A simulator on the defaults (with sb_neutral_costs) with `cores` cores, dispatch 4 cycles an instruction and MTE2 at 128 B/cycle (the hand derivations
 * of tests/sim/test_trace.c use those). */
sim *sb_trace_sim(unsigned cores);

/* sim_core_issue on core `core`; a refusal fails the test with sim_fault_describe's line. */
void sb_issue(sim *s, unsigned core, isa_insn in);

/* GM tensors of the two-core program. */
typedef struct sb_two_core_gm {
  uint64_t a, b, c, d;
} sb_two_core_gm;

/* Allocates A and B (4096 bytes), C and D (2048 bytes) and issues, on 2 cores:
 *   core 0: copy_gm_ub 4096 B (A -> UB:0); set_flag MTE2->MTE3 #0; wait_flag MTE2->MTE3 #0;
 *           copy_ub_gm 4096 B (UB:0 -> B)
 *   core 1: copy_gm_ub 2048 B (C -> UB:0); set_flag MTE2->S #1; wait_flag MTE2->S #1 (held by
 *           the dispatcher); copy_ub_gm 2048 B (UB:0 -> D); pipe_barrier ALL
 * The addresses go to *gm (may be NULL). */
void sb_two_core_program(sim *s, sb_two_core_gm *gm);

#endif
