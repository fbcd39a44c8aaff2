/* sim_config — the chip configuration: one parameter table, defaults, YAML loading, validation.
 *
 * Every parameter is one row of SIM_CONFIG_TABLE. The row expands into the field of sim_config
 * (`<section>_<key>`), its default, its YAML key, its range check, its unit and description for
 * `cubesim config show`, and its provenance: either the document the default comes from (DOC)
 * or, where the documents are silent, why cubesim assumes that value (ASSUMED). Adding a
 * parameter is adding a row; nothing else keeps a list of parameters.
 *
 * The pipeline is fixed:
 *   sim_config_defaults -> sim_config_load_file / _load_string (YAML over the defaults)
 *     -> sim_config_validate (every check, in one place) -> sim_config_derive
 * sim_config_resolve runs all of it. Loading checks each value's type and range as it reads it,
 * so those errors carry file:line:column; checks that relate several keys (a buffer size and
 * its alignment, the L2 geometry) are in sim_config_validate.
 *
 * The YAML accepted (docs/CONFIG.md says the same to users):
 *   - a mapping of sections, each a mapping of `key: scalar`; comments anywhere; keys left out
 *     keep their current value (the defaults); an empty file (or only comments) changes nothing;
 *     a section with an empty value (`l2:`) changes nothing;
 *   - unsigned integers in decimal or 0x hex (no sign, no leading zero, no underscores, must fit
 *     64 bits); numbers as decimal/exponent floats (no .inf/.nan); booleans true/false (also
 *     True/TRUE/False/FALSE, the YAML 1.2 core schema; yes/no/on/off are refused); strings plain
 *     or quoted. A quoted scalar is a string, never a number or boolean;
 *   - refused: unknown sections and keys (with the closest known name when one is close),
 *     duplicates, sequences or mappings where a value is expected, aliases, tags, a second
 *     document, malformed YAML (libyaml's problem and position).
 * Every error message starts with `file:line:column: ` (1-based) and names the key path.
 */
#ifndef SIM_CONFIG_H
#define SIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/cs_json.h"
#include "base/cs_status.h"

/* Sections, in the order they are written: name, one-line description. */
#define SIM_CONFIG_SECTION_TABLE(X)                                                         \
  X(chip, "the chip: name, number of cores, clock, fixpipe mode")                          \
  X(buffers, "per-core buffer sizes and address alignments, and the GM address space")     \
  X(scalar, "the scalar unit (S): dispatch of each core's instructions into pipe queues")  \
  X(mte2, "MTE2: transfers GM -> L1 and GM -> UB")                                          \
  X(mte1, "MTE1: transfers L1 -> L0A, L0B, BT and FB")                                      \
  X(cube, "the cube unit (M pipe): mmad throughput per input type")                         \
  X(fixpipe, "the fixpipe (FIX pipe): L0C -> GM or L1, with quantization")                  \
  X(mte3, "MTE3: transfers UB -> GM")                                                       \
  X(vector, "the vector unit (V pipe), working on UB")                                      \
  X(aiv, "the AI vector cores (AIV): their UB, scalar entry and GM engines, and cross-core flags") \
  X(gm, "global memory: the HBM all cores share")                                           \
  X(l2, "the chip-wide L2 cache in front of HBM")

/* The parameter table. Columns:
 *   section, key    YAML path `section.key`; C field `section_key`
 *   type            U64 (uint64_t), F64 (double), BOOL (bool), STR (char[SIM_CONFIG_STR_BYTES])
 *   default         the built-in value: the 910B's where documented
 *   min, max        inclusive range (for STR: the length in characters; for BOOL: 0, 1)
 *   rule            ANY, POW2 (a power of two), X4 / X8 / X256 (a multiple of 4 / 8 / 256)
 *   unit            "" when the value has none
 *   origin          DOC (documented) or ASSUMED (cubesim's choice)
 *   source          DOC: the document and its figure; ASSUMED: why this value
 *   description     what the parameter means to the model
 * Figures cited from docs/DESIGN.md are the Atlas A2 (910B) values Huawei publishes in the
 * Ascend C/CANN documents. GB is 1e9 bytes; KiB/MiB/GiB are powers of 1024.
 */
#define SIM_CONFIG_TABLE(X)                                                                  \
  /* ---- chip ---- */                                                                       \
  X(chip, name, STR, "ascend910b", 1, 63, ANY, "", DOC,                                      \
    "the Atlas A2 (910B) family that docs/DESIGN.md models",                                 \
    "name of the modelled chip, written into traces and reports (letters, digits, . _ -)")   \
  X(chip, aic_cores, U64, 24, 1, 1024, ANY, "cores", DOC,                                        \
    "910B: 24 AI cube cores (docs/DESIGN.md §6)",                                            \
    "AI cube cores; each runs its own instruction stream, all share L2 and HBM")             \
  X(chip, aiv_per_aic, U64, 2, 0, 4, ANY, "cores", DOC,                                    \
    "Atlas A2: each AI core pairs one cube core with two vector cores (Ascend C's "           \
    "KERNEL_TYPE_MIX_AIC_1_2; GetSubBlockIdx 0 and 1)",                                       \
    "AI vector cores per cube core: each has its own scalar unit, MTE2, V, MTE3 and UB and "  \
    "reaches the cube core only through GM and cross-core flags (0: none)")                  \
  X(chip, clock_mhz, U64, 1850, 1, 100000, ANY, "MHz", DOC,                                  \
    "910B: 1.85 GHz (docs/DESIGN.md §6)",                                                    \
    "core clock: converts cycles to time and GB/s to bytes per cycle")                       \
  X(chip, fixpipe_saturation, BOOL, true, 0, 1, ANY, "", DOC,                                \
    "CTRL[48] = 0 (saturation mode) is the hardware's default (docs/DESIGN.md §3)",          \
    "CTRL[48] saturation of fp16/bf16 results (fixpipe, vector fp16 arithmetic and casts): " \
    "overflow gives +-max finite and NaN gives 0; false keeps inf/NaN")                      \
  X(chip, launch_us, F64, 0.5, 0.0, 1000000.0, ANY, "us", ASSUMED,                            \
    "fitted: task time minus aicore time of one-core anchors (docs/TIMING.md, Calibration)",  \
    "from the task's launch to the first core's start: in the task time, not in any core's")  \
  X(chip, core_start_skew_cycles, U64, 256, 0, 1000000, ANY, "cycles", ASSUMED,              \
    "fitted: task time minus aicore time of balanced 24-core anchors (docs/TIMING.md)",       \
    "block i starts i times this after block 0 (blocks are started one after another)")     \
  /* ---- buffers: sizes (per core) ---- */                                                 \
  X(buffers, l1_bytes, U64, 524288, 512, 67108864, ANY, "bytes", DOC,                        \
    "910B: L1 512 KiB (docs/DESIGN.md §6)",                                                  \
    "L1 per core: A and B tiles staged from GM (at least one 512 B fractal)")                \
  X(buffers, l0a_bytes, U64, 65536, 512, 67108864, ANY, "bytes", DOC,                        \
    "910B: L0A 64 KiB (docs/DESIGN.md §6)",                                                  \
    "L0A per core: the cube's A operand in Zz fractals (at least one 512 B fractal)")        \
  X(buffers, l0b_bytes, U64, 65536, 512, 67108864, ANY, "bytes", DOC,                        \
    "910B: L0B 64 KiB (docs/DESIGN.md §6)",                                                  \
    "L0B per core: the cube's B operand in Zn fractals (at least one 512 B fractal)")        \
  X(buffers, l0c_bytes, U64, 131072, 1024, 67108864, ANY, "bytes", DOC,                      \
    "910B: L0C 128 KiB (docs/DESIGN.md §6)",                                                 \
    "L0C per core: int32/fp32 accumulators in 16x16 fractals (at least one 1 KiB fractal)")  \
  X(buffers, ub_bytes, U64, 196608, 32, 67108864, ANY, "bytes", DOC,                         \
    "910B: UB 192 KiB (docs/DESIGN.md §6)",                                                  \
    "unified buffer per core: vector operands (at least one 32 B block)")                    \
  X(buffers, bt_bytes, U64, 1024, 64, 67108864, X4, "bytes", DOC,                            \
    "910B: BT 1 KiB (docs/DESIGN.md §6)",                                                    \
    "bias table per core: int32/fp32 biases that initialise L0C (at least 16 biases)")       \
  X(buffers, fb_bytes, U64, 2048, 128, 67108864, X8, "bytes", DOC,                           \
    "910B: FB 2 KiB = 256 quant words (docs/DESIGN.md §5.2, §6)",                            \
    "fixpipe buffer per core: per-column uint64 quant words (at least 16 words)")            \
  /* ---- buffers: address alignments ---- */                                               \
  X(buffers, l1_align_bytes, U64, 32, 1, 65536, POW2, "bytes", DOC,                          \
    "docs/DESIGN.md §4: a GM -> L1 copy needs a 32 B aligned destination",                   \
    "alignment every L1 address must have")                                                  \
  X(buffers, l0a_align_bytes, U64, 512, 1, 65536, POW2, "bytes", DOC,                        \
    "docs/DESIGN.md §4: mmad's A operand is 512 B (one fractal) aligned",                    \
    "alignment every L0A address must have")                                                 \
  X(buffers, l0b_align_bytes, U64, 512, 1, 65536, POW2, "bytes", DOC,                        \
    "docs/DESIGN.md §4: mmad's B operand is 512 B (one fractal) aligned",                    \
    "alignment every L0B address must have")                                                 \
  X(buffers, l0c_align_bytes, U64, 1024, 1, 65536, POW2, "bytes", DOC,                       \
    "docs/DESIGN.md §4: mmad's destination is 1 KiB (one 16x16 fp32 fractal) aligned",       \
    "alignment every L0C address must have")                                                 \
  X(buffers, ub_align_bytes, U64, 32, 1, 65536, POW2, "bytes", DOC,                          \
    "docs/DESIGN.md §4: UB addresses are 32 B aligned",                                      \
    "alignment every UB address must have")                                                  \
  X(buffers, bt_align_bytes, U64, 64, 1, 65536, POW2, "bytes", ASSUMED,                      \
    "not in the documents cubesim follows; 64 B holds the biases of one 16-column fractal",  \
    "alignment every BT address must have")                                                  \
  X(buffers, fb_align_bytes, U64, 64, 1, 65536, POW2, "bytes", ASSUMED,                      \
    "not in the documents cubesim follows; taken equal to the bias table's",                 \
    "alignment every FB address must have")                                                  \
  X(buffers, gm_align_bytes, U64, 1, 1, 65536, POW2, "bytes", ASSUMED,                       \
    "GM needs only element alignment, which each instruction checks for its type; "          \
    "1 adds no rule of cubesim's own",                                                       \
    "alignment every GM address must have")                                                  \
  X(buffers, gm_capacity_bytes, U64, 68719476736, 1, 281474976710656, ANY, "bytes", DOC,     \
    "910B product specification: 64 GB HBM per chip",                                        \
    "GM address space shared by all cores; backed only where tensors are allocated")         \
  /* ---- scalar ---- */                                                                     \
  X(scalar, dispatch_cycles, U64, 5, 1, 10000, ANY, "cycles", ASSUMED,                       \
    "fitted (docs/TIMING.md, Calibration): the scalar time of the basic-API 8192^3 matmul "   \
    "(the intrinsics' issue alone, no Matmul object)",                                        \
    "cycles the scalar unit spends issuing one instruction, address arithmetic included")    \
  X(scalar, kernel_init_cycles, U64, 2000, 0, 100000000, ANY, "cycles", ASSUMED,               \
    "fitted (docs/TIMING.md, Calibration): a block's time before its first transfer",        \
    "scalar work at the entry of each core's kernel (arguments, tiling data, set-up) before its first instruction") \
  X(scalar, matmul_step_cycles, U64, 149, 0, 1000000, ANY, "cycles", ASSUMED,                 \
    "fitted (docs/TIMING.md, Calibration): the scalar time of ladder cases C1 (Norm) and C5 (MDL) "\
    "against their k-steps and L1 packets", \
    "scalar work of the Matmul object per k-step (loop control, L0 buffer bookkeeping, operand addresses)") \
  X(scalar, matmul_copy_cycles, U64, 99, 0, 1000000, ANY, "cycles", ASSUMED,                 \
    "fitted (docs/TIMING.md, Calibration): the scalar time of ladder cases C1 and C5 (one L1 "  \
    "packet per k-step and operand in C1, 3 in 8 in C5)", \
    "scalar work of the Matmul object per L1 packet of A or B (queue bookkeeping, GM offsets, Nd2Nz parameters)") \
  X(scalar, matmul_tile_cycles, U64, 298, 0, 1000000, ANY, "cycles", ASSUMED,                 \
    "not published; taken as two k-steps' worth (a tile's set-up and its fixpipe parameters)", \
    "scalar work of the Matmul object per base tile of C (its set-up and its fixpipe)")      \
  X(scalar, matmul_const_tiling_percent, U64, 55, 1, 100, ANY, "%", ASSUMED,                   \
    "fitted (docs/TIMING.md, Calibration): the ladder's constant-tiling case C7 against C6", \
    "the Matmul object's scalar work with a constant (compile-time) tiling, in % of a tiling read at run time") \
  /* ---- mte2 ---- */                                                                       \
  X(mte2, gm_bytes_per_cycle, U64, 256, 1, 65536, ANY, "B/cycle", ASSUMED,                   \
    "not published; above every rate measured on one core, so that it never binds on the 910B", \
    "width of MTE2's GM port: no read streams faster on one core")                          \
  X(mte2, outstanding_bytes, U64, 8910, 1, 1073741824, ANY, "bytes", ASSUMED,               \
    "fitted (docs/TIMING.md, Calibration): the per-core ND->NZ rates from HBM and from L2",   \
    "bytes of reads MTE2 keeps in flight: a read streams at most this / its latency")       \
  X(mte2, outstanding_bursts, U64, 83, 0, 1000000, ANY, "bursts", ASSUMED,                   \
    "fitted (docs/TIMING.md, Calibration): bursts of data in L2 against bursts from HBM",   \
    "bursts MTE2 keeps in flight: each burst costs the latency / this on top of burst_cycles (0: no limit)") \
  X(mte2, burst_cycles, F64, 2.04, 0.0, 100000.0, ANY, "cycles", ASSUMED,                  \
    "fitted (docs/TIMING.md, Calibration): the per-core ND->NZ rate against the row length", \
    "cost of one burst: a contiguous run of GM bytes (a row of an ND->NZ copy, a block of a copy)") \
  X(mte2, setup_cycles, U64, 49, 0, 100000, ANY, "cycles", ASSUMED,                            \
    "fitted (docs/TIMING.md, Calibration): the rate of copies of a few rows",                \
    "per instruction: MTE2 is busy this long before the first byte streams")                 \
  X(mte2, latency_cycles, U64, 32, 0, 100000, ANY, "cycles", ASSUMED,                        \
    "not published; descriptor decode and burst set-up of a DMA engine",                     \
    "fixed cost of one MTE2 instruction, after its last byte, added to the L2/HBM latency")  \
  X(mte2, queue_depth, U64, 16, 1, 4096, ANY, "instructions", ASSUMED,                     \
    "not published; deep enough for double-buffered loops to run ahead of a slow pipe, "     \
    "shallow enough that a stalled pipe soon stalls dispatch",                               \
    "MTE2's instruction queue: dispatched, not started; dispatch stalls while it is full")  \
  /* ---- mte1 ---- */                                                                       \
  X(mte1, l0a_bytes_per_cycle, U64, 256, 1, 65536, ANY, "B/cycle", DOC,                      \
    "910B: L1 -> L0A 256 B/cycle (docs/DESIGN.md §6)", "width of the L1 -> L0A link")        \
  X(mte1, l0b_bytes_per_cycle, U64, 128, 1, 65536, ANY, "B/cycle", DOC,                      \
    "910B: L1 -> L0B 128 B/cycle (docs/DESIGN.md §6)", "width of the L1 -> L0B link")        \
  X(mte1, bt_bytes_per_cycle, U64, 32, 1, 65536, ANY, "B/cycle", DOC,                        \
    "910B: L1 -> BT 32 B/cycle (docs/DESIGN.md §6)", "width of the L1 -> BT link")           \
  X(mte1, fb_bytes_per_cycle, U64, 32, 1, 65536, ANY, "B/cycle", DOC,                        \
    "910B: L1 -> FB 32 B/cycle (docs/DESIGN.md §6)", "width of the L1 -> FB link")           \
  X(mte1, insn_cycles, U64, 20, 0, 100000, ANY, "cycles", ASSUMED,                            \
    "fitted (docs/TIMING.md, Calibration): MTE1's busy time in ladder cases C3 and C5 "       \
    "(one load3d and baseK / 16 load2d per k-step)",                                         \
    "per instruction: added to the bytes over the link width of every MTE1 transfer")        \
  X(mte1, latency_cycles, U64, 16, 0, 100000, ANY, "cycles", ASSUMED,                        \
    "not published; a short on-core path, half of MTE2's fixed cost",                        \
    "cycles from the end of an MTE1 transfer's occupancy until its data is usable")          \
  X(mte1, queue_depth, U64, 32, 1, 4096, ANY, "instructions", DOC,                          \
    "A2: MTE1's instruction queue holds 32 (Huawei's basic-API matmul sample, its notes on LoadData)", \
    "MTE1's instruction queue: dispatched, not started; dispatch stalls while it is full")  \
  /* ---- cube ---- */                                                                       \
  X(cube, macs_per_cycle_fp16, U64, 4096, 256, 1048576, X256, "MACs/cycle", DOC,             \
    "910B cube: 16x16x16 fp16 per cycle (docs/DESIGN.md §6)",                                \
    "fp16 x fp16 multiply-accumulates per cycle; k0 = this / 256")                           \
  X(cube, macs_per_cycle_bf16, U64, 4096, 256, 1048576, X256, "MACs/cycle", DOC,             \
    "910B cube: 16x16x16 bf16 per cycle (docs/DESIGN.md §6)",                                \
    "bf16 x bf16 multiply-accumulates per cycle; k0 = this / 256")                           \
  X(cube, macs_per_cycle_int8, U64, 8192, 256, 1048576, X256, "MACs/cycle", DOC,             \
    "910B cube: 16x16x32 int8 per cycle (docs/DESIGN.md §6)",                                \
    "int8 x int8 multiply-accumulates per cycle; k0 = this / 256")                           \
  X(cube, macs_per_cycle_int4, U64, 16384, 256, 1048576, X256, "MACs/cycle", DOC,            \
    "910B cube: 16x16x64 int4 per cycle (docs/DESIGN.md §6)",                                \
    "int4 x int4 multiply-accumulates per cycle; k0 = this / 256")                           \
  X(cube, head_cycles, U64, 10, 0, 100000, ANY, "cycles", ASSUMED,                           \
    "calibration: the 910B sample's cube is busy 3082 us against 3023 us in theory (+2%); " \
    "10 cycles on a 128x256x64 fp16 mmad (512 cycles) is that 2%",                           \
    "fixed overhead added to every mmad's occupancy of the cube")                            \
  X(cube, restart_cycles, U64, 54, 0, 100000, ANY, "cycles", ASSUMED,                        \
    "fitted (docs/TIMING.md, Calibration): mmads the cube waits for take longer (8192^3 anchors)", \
    "added to an mmad that starts on an idle cube (the previous mmad's occupancy already over)") \
  X(cube, latency_cycles, U64, 16, 0, 100000, ANY, "cycles", ASSUMED,                        \
    "not published; a short pipeline from the last fractal product to L0C",                  \
    "cycles from the end of an mmad's occupancy until its result is in L0C")                 \
  X(cube, queue_depth, U64, 32, 1, 4096, ANY, "instructions", ASSUMED,                     \
    "not published; taken equal to MTE1's documented 32, so that MTE1's queue, not the cube's, " \
    "bounds how far dispatch runs ahead of a matmul's cube (what a UnitFlag fixpipe waits)",   \
    "the M pipe's instruction queue: dispatched, not started; dispatch stalls while it is full")  \
  /* ---- fixpipe ---- */                                                                    \
  X(fixpipe, elements_per_cycle, U64, 64, 1, 65536, ANY, "elements/cycle", DOC,              \
    "910B: fixpipe 64 elements/cycle (docs/DESIGN.md §6)",                                   \
    "L0C elements the fixpipe converts and moves per cycle (to GM or L1)")                   \
  X(fixpipe, gm_bytes_per_cycle, U64, 128, 1, 65536, ANY, "B/cycle", DOC,                    \
    "Ascend C's cube performance table (dav-2201): F322F16 moves 64 elements = 128 B a cycle",  \
    "width of the fixpipe's write port: fp32 output moves half the elements of fp16")        \
  X(fixpipe, outstanding_bytes, U64, 8910, 1, 1073741824, ANY, "bytes", ASSUMED,            \
    "not published; the fixpipe keeps as many bytes in flight as MTE2",                      \
    "bytes of writes the fixpipe keeps in flight: it streams at most this / the L2 latency") \
  X(fixpipe, outstanding_bursts, U64, 83, 0, 1000000, ANY, "bursts", ASSUMED,                   \
    "not published; the fixpipe keeps as many bursts in flight as MTE2",                    \
    "bursts the fixpipe keeps in flight: each burst costs the latency / this on top of burst_cycles (0: no limit)") \
  X(fixpipe, burst_cycles, F64, 3.3, 0.0, 100000.0, ANY, "cycles", ASSUMED,                \
    "fitted (docs/TIMING.md, Calibration): ladder C5's fixpipe, a 128 x 256 fp16 tile in about 1000 cycles", \
    "cost of one burst written: each ND output row is one")                                 \
  X(fixpipe, setup_cycles, U64, 16, 0, 100000, ANY, "cycles", ASSUMED,                        \
    "not published; the fixpipe's set-up taken equal to MTE2's",                             \
    "per instruction to GM: busy this long before the first byte is written")               \
  X(fixpipe, latency_cycles, U64, 32, 0, 100000, ANY, "cycles", ASSUMED,                     \
    "not published; a few stages (quantization, ReLU, conversion, layout) before the write", \
    "cycles from the end of a fixpipe instruction's occupancy until its data is written")    \
  X(fixpipe, queue_depth, U64, 16, 1, 4096, ANY, "instructions", ASSUMED,                     \
    "not published; deep enough for double-buffered loops to run ahead of a slow pipe, "     \
    "shallow enough that a stalled pipe soon stalls dispatch",                               \
    "FIX's instruction queue: dispatched, not started; dispatch stalls while it is full")  \
  /* ---- mte3 ---- */                                                                       \
  X(mte3, gm_bytes_per_cycle, U64, 128, 1, 65536, ANY, "B/cycle", ASSUMED,                   \
    "not published; one 128-byte burst per cycle",                                           \
    "per-core cap on GM writes from UB; the share of the chip's bandwidth may give less")    \
  X(mte3, outstanding_bytes, U64, 8910, 1, 1073741824, ANY, "bytes", ASSUMED,               \
    "not published; MTE3 keeps as many bytes in flight as MTE2",                             \
    "bytes of writes MTE3 keeps in flight: it streams at most this / the L2 latency")       \
  X(mte3, outstanding_bursts, U64, 83, 0, 1000000, ANY, "bursts", ASSUMED,                   \
    "not published; MTE3 keeps as many bursts in flight as MTE2",                           \
    "bursts MTE3 keeps in flight: each burst costs the latency / this on top of burst_cycles (0: no limit)") \
  X(mte3, burst_cycles, F64, 2.04, 0.0, 100000.0, ANY, "cycles", ASSUMED,                  \
    "not published; a burst costs MTE3 what it costs MTE2",              \
    "cost of one burst written (a block of the copy)")                                      \
  X(mte3, setup_cycles, U64, 49, 0, 100000, ANY, "cycles", ASSUMED,                           \
    "not published; MTE3's set-up taken equal to MTE2's",                                    \
    "per instruction: MTE3 is busy this long before the first byte streams")                 \
  X(mte3, latency_cycles, U64, 32, 0, 100000, ANY, "cycles", ASSUMED,                        \
    "not published; taken equal to MTE2's",                                                  \
    "fixed cost of one MTE3 instruction, added to the L2/HBM latency and the transfer")      \
  X(mte3, queue_depth, U64, 16, 1, 4096, ANY, "instructions", ASSUMED,                     \
    "not published; deep enough for double-buffered loops to run ahead of a slow pipe, "     \
    "shallow enough that a stalled pipe soon stalls dispatch",                               \
    "MTE3's instruction queue: dispatched, not started; dispatch stalls while it is full")  \
  /* ---- vector ---- */                                                                     \
  X(vector, bytes_per_cycle, U64, 256, 1, 65536, ANY, "B/cycle", ASSUMED,                    \
    "Ascend C: one vector repeat covers 256 B (8 blocks of 32 B); one repeat per cycle is "  \
    "assumed",                                                                               \
    "bytes of UB operands the vector unit processes per cycle")                              \
  X(vector, insn_cycles, U64, 22, 0, 100000, ANY, "cycles", ASSUMED,                         \
    "fitted (docs/TIMING.md, Calibration): Ascend's add sample on 48 AIVs, 4096 fp16 a vadd "  \
    "(32 repeats in 86 cycles with the bank rule's 2 cycles a repeat); predicts its 16384 "   \
    "(128 repeats in 278) and 16256 (127 in 150) cases",                                       \
    "per instruction: added to the repeats' cycles of every vector instruction")             \
  X(vector, ub_bank_groups, U64, 16, 0, 64, ANY, "groups", DOC,                            \
    "Ascend C best practices (UB bank conflicts, arch 220x): 192 KiB UB in 16 bank groups "    \
    "of 3 banks, 32-byte rows interleaved across the groups; one row per group and beat",     \
    "UB bank groups: a repeat takes as many beats as the most 32-byte blocks it reads from "  \
    "one group (or writes to one group); 0: no bank model")                                   \
  X(vector, div_cycles_per_repeat, U64, 5, 1, 1000, ANY, "cycles", ASSUMED,                 \
    "not published; fitted to Ascend's matmul_gelu sample, whose GELU kernel (8 vector ops "   \
    "on 1.4 M fp32 per AIV) takes 236.5 us of vector time on A2: with its 6 other ops at one " \
    "repeat a cycle and vector.insn_cycles each, Exp and Div share about 10 cycles a repeat, " \
    "taken as 5 each",                                                                         \
    "cycles one repeat of vdiv, vrec or vsqrt takes (the other ops: one repeat a cycle)")    \
  X(vector, transcendental_cycles_per_repeat, U64, 5, 1, 1000, ANY, "cycles", ASSUMED,       \
    "not published; fitted with vector.div_cycles_per_repeat (see there)",                   \
    "cycles one repeat of vexp or vln takes")                                                \
  X(vector, latency_cycles, U64, 16, 0, 100000, ANY, "cycles", ASSUMED,                      \
    "not published; a short arithmetic pipeline, like the cube's",                           \
    "cycles from the end of a vector instruction's occupancy until its result is in UB")     \
  X(vector, queue_depth, U64, 16, 1, 4096, ANY, "instructions", ASSUMED,                     \
    "not published; deep enough for double-buffered loops to run ahead of a slow pipe, "     \
    "shallow enough that a stalled pipe soon stalls dispatch",                               \
    "V's instruction queue: dispatched, not started; dispatch stalls while it is full")  \
  /* ---- aiv ---- */                                                                        \
  X(aiv, ub_bytes, U64, 196608, 32, 67108864, ANY, "bytes", DOC,                             \
    "Atlas A2: each AIV has a 192 KiB UB (48 banks in 16 groups, Huawei's bank-conflict sample)", \
    "unified buffer of each AIV (its only on-chip buffer)")                                  \
  X(aiv, kernel_init_cycles, U64, 2000, 0, 100000000, ANY, "cycles", ASSUMED,                 \
    "not published; taken equal to the cube core's scalar.kernel_init_cycles",               \
    "scalar work at the entry of each AIV's kernel before its first instruction")            \
  X(aiv, dispatch_cycles, U64, 2, 1, 10000, ANY, "cycles", ASSUMED,                          \
    "fitted (docs/TIMING.md, Calibration): the scalar time of Ascend's add sample on one AIV, "  \
    "26 cycles a tile of 16 instructions",                                                    \
    "cycles an AIV's scalar unit spends issuing one instruction (the cube core's: "           \
    "scalar.dispatch_cycles)")                                                                \
  X(aiv, mte2_outstanding_bytes, U64, 5400, 1, 1073741824, ANY, "bytes", ASSUMED,           \
    "fitted (docs/TIMING.md, Calibration) with aiv.mte2_setup_cycles: the task time of "       \
    "Ascend's add sample on one AIV, whose one-buffer tiles wait for their 8 KiB copies from "  \
    "HBM (latency-bound); Huawei's CATLASS tiling model assumes 30 GB/s for one AIV",          \
    "bytes of reads an AIV's MTE2 keeps in flight (its other costs are the mte2 section's)") \
  X(aiv, mte2_setup_cycles, U64, 15, 0, 1000000, ANY, "cycles", ASSUMED,                   \
    "fitted (docs/TIMING.md, Calibration) with aiv.mte2_outstanding_bytes: Ascend's data_copy " \
    "sample on 48 AIVs copying one 128-byte row per DataCopyPad (about 21 cycles a copy); the " \
    "cube core's 49 is fitted on its Nd2Nz copies",                                           \
    "per instruction: an AIV's MTE2 is busy this long before the first byte streams (the "     \
    "cube core's: mte2.setup_cycles)")                                                        \
  X(aiv, mte3_outstanding_bytes, U64, 1787, 1, 1073741824, ANY, "bytes", ASSUMED,           \
    "fitted (docs/TIMING.md, Calibration): the add sample on one AIV, whose 8 KiB write-backs "  \
    "into the L2 take 295 cycles of MTE3 each (30 B/cycle); on 48 AIVs they take the same",    \
    "bytes of writes an AIV's MTE3 keeps in flight (its other costs are the mte3 section's)") \
  X(aiv, vector_bytes_per_cycle, U64, 256, 1, 65536, ANY, "B/cycle", DOC,                    \
    "Huawei's add_high_performance sample: an A2 AIV adds 128 halves (256 B) a cycle",       \
    "bytes of UB operands an AIV's vector unit processes per cycle (the rest: vector section)") \
  X(aiv, cross_flag_cycles, U64, 100, 0, 1000000, ANY, "cycles", ASSUMED,                    \
    "not published; a message between cores of one AI core through the chip's interconnect", \
    "from a cross-core set_flag firing to the waiting cores' counters (CrossCoreSetFlag)")    \
  /* ---- gm ---- */                                                                         \
  X(gm, hbm_gb_per_s, F64, 1800.0, 1.0, 1000000.0, ANY, "GB/s", DOC,                         \
    "910B: HBM about 1.8 TB/s (docs/DESIGN.md §6)",                                          \
    "HBM bandwidth, shared fairly by the GM transfers of all cores in flight")               \
  X(gm, hbm_burst_bytes, U64, 256, 1, 65536, POW2, "bytes", ASSUMED,                         \
    "fitted (docs/TIMING.md, Calibration): 24 cores reading 128 B rows with the L2 bypassed",  \
    "smallest HBM transfer: a GM access that bypasses the L2 moves whole aligned bursts")    \
  X(gm, hbm_efficiency, F64, 0.746, 0.01, 1.0, ANY, "", ASSUMED,                               \
    "fitted (docs/TIMING.md, Calibration): 24 cores streaming ND->NZ copies from HBM",       \
    "share of the HBM peak that streaming reads and write-backs sustain")                    \
  X(gm, pitch_efficiency_256b, F64, 0.8, 0.01, 1.0, ANY, "", DOC,                            \
    "Huawei's fitted ND->NZ bandwidth model for A2 (CATLASS): x80/100 of a 512 B pitch",      \
    "rate of a transfer whose bursts start 256 B aligned (not 512), against 512 B aligned")  \
  X(gm, pitch_efficiency_128b, F64, 0.5, 0.01, 1.0, ANY, "", DOC,                            \
    "Huawei's fitted ND->NZ bandwidth model for A2 (CATLASS): x50/100 of a 512 B pitch",      \
    "rate of a transfer whose bursts start 128 B aligned (not 256), against 512 B aligned")  \
  X(gm, pitch_efficiency_64b, F64, 0.4, 0.01, 1.0, ANY, "", DOC,                             \
    "Huawei's fitted ND->NZ bandwidth model for A2 (CATLASS): x40/100 below 128 B alignment", \
    "rate of a transfer whose bursts start 64 B aligned (not 128), against 512 B aligned")   \
  X(gm, pitch_efficiency_32b, F64, 0.4, 0.01, 1.0, ANY, "", DOC,                             \
    "Huawei's fitted ND->NZ bandwidth model for A2 (CATLASS): x40/100 at 32 B alignment",     \
    "rate of a transfer whose bursts start 32 B aligned (not 64), against 512 B aligned")    \
  X(gm, pitch_efficiency_unaligned, F64, 0.3, 0.01, 1.0, ANY, "", DOC,                       \
    "Huawei's fitted ND->NZ bandwidth model for A2 (CATLASS): x30/100 without 32 B alignment", \
    "rate of a transfer whose bursts start below 32 B alignment, against 512 B aligned")     \
  /* ---- l2 ---- */                                                                         \
  X(l2, enabled, BOOL, true, 0, 1, ANY, "", DOC,                                             \
    "910B has a chip-wide L2 in front of HBM (docs/DESIGN.md §6)",                           \
    "model the L2; false sends every GM access to HBM (with l2.miss_latency_cycles)")        \
  X(l2, bytes, U64, 201326592, 32, 4294967296, ANY, "bytes", DOC,                            \
    "910B: L2 192 MB (docs/DESIGN.md §6)", "L2 capacity, shared by all cores")               \
  X(l2, line_bytes, U64, 512, 32, 65536, POW2, "bytes", DOC,                                 \
    "910B: 512 B L2 lines (docs/DESIGN.md §6)",                                              \
    "L2 line: the unit of allocation and of HBM transfers")                                  \
  X(l2, ways, U64, 16, 1, 1024, ANY, "ways", ASSUMED,                                        \
    "not published; 16 ways is common for large last-level caches",                          \
    "L2 associativity; LRU replacement within a set")                                        \
  X(l2, gb_per_s, F64, 5000.0, 1.0, 1000000.0, ANY, "GB/s", DOC,                             \
    "910B: L2 about 5 TB/s (docs/DESIGN.md §6)",                                             \
    "L2 bandwidth for hits, shared fairly by the GM transfers of all cores in flight")       \
  X(l2, same_line_gb_per_s, F64, 320.0, 1.0, 1000000.0, ANY, "GB/s", ASSUMED,               \
    "fitted (docs/TIMING.md, Calibration): cores copying the same addresses at the same time", \
    "bandwidth transfers of different cores share while they read the same lines at once")   \
  X(l2, same_line_request_cycles, F64, 0.74, 0.0, 1000.0, ANY, "cycles", ASSUMED,             \
    "fitted (docs/TIMING.md, Calibration): ladder cases C2 and C3 (2 x 12 against 4 x 6 blocks, "\
    "whose cores read 128-byte rows of the same tiles of A and B at the same time)",           \
    "cycles the L2 takes per request (a burst, at most a line) to serve the cores that read the " \
    "same lines at once from it, one after the other; 0: no such serialisation")             \
  X(l2, hit_latency_cycles, U64, 60, 0, 100000, ANY, "cycles", ASSUMED,                      \
    "fitted (docs/TIMING.md, Calibration): one core's Norm-template ladder cases, whose L1 loads wait for each k-step's data", \
    "cycles from a GM request to its first byte when its lines are in L2")                   \
  X(l2, miss_latency_cycles, U64, 150, 0, 100000, ANY, "cycles", ASSUMED,                    \
    "not published; kept at 2.5 times the fitted hit latency (the HBM to L2 ratio the earlier fit had)", \
    "cycles from a GM request to its first byte from HBM (a miss, or any access without L2)") \
  X(l2, queue_cycles, U64, 7, 0, 100000, ANY, "cycles", ASSUMED,                            \
    "fitted (docs/TIMING.md, Calibration): the Norm-template ladder cases on 1 and on 24 cores", \
    "cycles every GM transfer's data lands later for each other core of the launch (their requests queue at the L2 ahead of it)")

/* Derived values (sim_config_derive): name, type, unit, formula. */
#define SIM_CONFIG_DERIVED_TABLE(X)                                                          \
  X(clock_period_ns, F64, "ns", "1000 / chip.clock_mhz")                                     \
  X(cycles_per_us, F64, "cycles/us", "chip.clock_mhz")                                       \
  X(hbm_bytes_per_cycle, F64, "B/cycle", "gm.hbm_gb_per_s * 1e9 / (chip.clock_mhz * 1e6)")   \
  X(hbm_sustained_bytes_per_cycle, F64, "B/cycle", "hbm_bytes_per_cycle * gm.hbm_efficiency") \
  X(same_line_bytes_per_cycle, F64, "B/cycle", "l2.same_line_gb_per_s * 1e9 / (chip.clock_mhz * 1e6)") \
  X(launch_cycles, U64, "cycles", "round(chip.launch_us * chip.clock_mhz)")                  \
  X(l2_bytes_per_cycle, F64, "B/cycle", "l2.gb_per_s * 1e9 / (chip.clock_mhz * 1e6)")        \
  X(l2_lines, U64, "lines", "l2.bytes / l2.line_bytes")                                      \
  X(l2_sets, U64, "sets", "l2.bytes / (l2.line_bytes * l2.ways)")                            \
  X(cube_k0_fp16, U64, "elements", "cube.macs_per_cycle_fp16 / 256 (16 x 16 x k0 per cycle)") \
  X(cube_k0_bf16, U64, "elements", "cube.macs_per_cycle_bf16 / 256")                         \
  X(cube_k0_int8, U64, "elements", "cube.macs_per_cycle_int8 / 256")                         \
  X(cube_k0_int4, U64, "elements", "cube.macs_per_cycle_int4 / 256")                         \
  X(peak_fp16_tflops, F64, "TFLOPS",                                                         \
    "2 * cube.macs_per_cycle_fp16 * chip.aic_cores * chip.clock_mhz / 1e6")

/* Room of a STR parameter, terminating NUL included. */
#define SIM_CONFIG_STR_BYTES 64

#define SIM_CONFIG_CTYPE_U64 uint64_t
#define SIM_CONFIG_CTYPE_F64 double
#define SIM_CONFIG_CTYPE_BOOL bool
#define SIM_CONFIG_FIELD_U64(name) uint64_t name;
#define SIM_CONFIG_FIELD_F64(name) double name;
#define SIM_CONFIG_FIELD_BOOL(name) bool name;
#define SIM_CONFIG_FIELD_STR(name) char name[SIM_CONFIG_STR_BYTES];

/* The configuration: one field per table row, `<section>_<key>` (cfg->chip_aic_cores,
 * cfg->l2_line_bytes). Units are in the names; the table says what each means. */
typedef struct sim_config {
#define SIM_CONFIG_STRUCT_FIELD(sec, key, type, ...) SIM_CONFIG_FIELD_##type(sec##_##key)
  SIM_CONFIG_TABLE(SIM_CONFIG_STRUCT_FIELD)
#undef SIM_CONFIG_STRUCT_FIELD
} sim_config;

/* Values computed once from a validated configuration; the timing model only reads these. */
typedef struct sim_config_derived {
#define SIM_CONFIG_DERIVED_FIELD(name, type, unit, formula) SIM_CONFIG_FIELD_##type(name)
  SIM_CONFIG_DERIVED_TABLE(SIM_CONFIG_DERIVED_FIELD)
#undef SIM_CONFIG_DERIVED_FIELD
} sim_config_derived;

/* Parameter ids (SIM_PARAM_chip_aic_cores, ...), in table order: indices for the introspection. */
typedef enum sim_param_id {
#define SIM_CONFIG_PARAM_ENUM(sec, key, ...) SIM_PARAM_##sec##_##key,
  SIM_CONFIG_TABLE(SIM_CONFIG_PARAM_ENUM)
#undef SIM_CONFIG_PARAM_ENUM
  SIM_PARAM_COUNT
} sim_param_id;

typedef enum sim_section_id {
#define SIM_CONFIG_SECTION_ENUM(sec, desc) SIM_SECTION_##sec,
  SIM_CONFIG_SECTION_TABLE(SIM_CONFIG_SECTION_ENUM)
#undef SIM_CONFIG_SECTION_ENUM
  SIM_SECTION_COUNT
} sim_section_id;

typedef enum sim_derived_id {
#define SIM_CONFIG_DERIVED_ENUM(name, ...) SIM_DERIVED_##name,
  SIM_CONFIG_DERIVED_TABLE(SIM_CONFIG_DERIVED_ENUM)
#undef SIM_CONFIG_DERIVED_ENUM
  SIM_DERIVED_COUNT
} sim_derived_id;

typedef enum sim_param_type {
  SIM_TYPE_U64,
  SIM_TYPE_F64,
  SIM_TYPE_BOOL,
  SIM_TYPE_STR
} sim_param_type;

typedef enum sim_param_rule {
  SIM_RULE_ANY,      /* the range only */
  SIM_RULE_POW2,     /* a power of two */
  SIM_RULE_MULTIPLE  /* a multiple of sim_param_info.multiple */
} sim_param_rule;

/* One row of the table, as the program sees it. */
typedef struct sim_param_info {
  sim_section_id section_id;
  const char *section;     /* "chip" */
  const char *key;         /* "aic_cores" */
  const char *path;        /* "chip.aic_cores" */
  sim_param_type type;
  uint64_t def_u64;        /* default of U64 and BOOL rows */
  double def_f64;          /* default of F64 rows */
  const char *def_str;     /* default of STR rows, else NULL */
  uint64_t min_u64, max_u64; /* range of U64 rows; length range of STR rows; 0, 1 for BOOL */
  double min_f64, max_f64; /* range of F64 rows */
  sim_param_rule rule;
  uint64_t multiple;       /* for SIM_RULE_MULTIPLE */
  const char *unit;        /* "" when none */
  bool assumption;         /* true: cubesim's choice, false: documented */
  const char *source;      /* documented: where from; assumption: why */
  const char *description;
  size_t offset;           /* of the field in sim_config */
} sim_param_info;

typedef struct sim_derived_info {
  const char *name;        /* "l2_sets" */
  sim_param_type type;     /* U64 or F64 */
  const char *unit;
  const char *formula;
  size_t offset;           /* of the field in sim_config_derived */
} sim_derived_info;

/* ---- the pipeline ---- */

/* The built-in configuration: the documented 910B values and cubesim's assumptions. */
void sim_config_defaults(sim_config *c);
/* Reads the YAML file at path over c (call sim_config_defaults first for "defaults + file").
 * On failure c is unchanged. CS_EIO if the file cannot be read, CS_EFORMAT if it is not YAML,
 * CS_ECONFIG for anything else; the message starts with "path:line:column: ". */
cs_status sim_config_load_file(sim_config *c, const char *path, cs_err *err);
/* The same for text in memory (len bytes, need not be NUL-terminated); name is the file name
 * the messages use ("t.yaml"). */
cs_status sim_config_load_string(sim_config *c, const char *text, size_t len, const char *name,
                                 cs_err *err);
/* Sets one parameter from text, as if `key: text` were read from YAML as a plain scalar
 * (for command-line overrides: path "chip.aic_cores", text "4"). Range-checked; on failure c is
 * unchanged and the message names the path ("chip.aic_cores = 0 is below the minimum 1"). */
cs_status sim_config_set(sim_config *c, const char *path, const char *text, cs_err *err);
/* Every check of every parameter (type range, rule) and between parameters (buffer size a
 * multiple of its alignment, L2 geometry). CS_ECONFIG with "l2.ways = 0 is below the minimum 1". */
cs_status sim_config_validate(const sim_config *c, cs_err *err);
/* Fills d from a validated c. */
void sim_config_derive(const sim_config *c, sim_config_derived *d);
/* The whole pipeline: defaults, the YAML file at path_or_NULL over them, validate, derive.
 * A validation error is prefixed with the file name when there is one. */
cs_status sim_config_resolve(const char *path_or_NULL, sim_config *c, sim_config_derived *d,
                             cs_err *err);

/* ---- writers ---- */

/* A complete, commented YAML of c (every parameter, with unit, range and provenance) that
 * loads back to c. Embedded in traces and reports so a run can be reproduced. */
void sim_config_write_yaml(const sim_config *c, FILE *f);
/* c as a JSON object {"chip": {"name": ..., "aic_cores": ...}, ...}, written as one value of j. */
void sim_config_write_json(const sim_config *c, cs_json *j);
/* d as a JSON object {"clock_period_ns": ..., ...}, written as one value of j. */
void sim_config_write_derived_json(const sim_config_derived *d, cs_json *j);

/* ---- introspection (config show, docs) ---- */

size_t sim_config_param_count(void);
/* Row i of the table (NULL when i >= count). */
const sim_param_info *sim_config_param(size_t i);
/* Index of the parameter "section.key" (a former spelling such as "chip.cores" included), or -1. */
int sim_config_param_find(const char *path);
const char *sim_config_section_name(sim_section_id s);
const char *sim_config_section_description(sim_section_id s);
/* The value of parameter i in c as YAML writes it: "24", "1800", "true", "ascend910b".
 * Doubles use the shortest text that reads back exactly. */
void sim_config_param_value_text(const sim_config *c, size_t i, char *out, size_t out_bytes);
/* The default of parameter i, the same way. */
void sim_config_param_default_text(size_t i, char *out, size_t out_bytes);
/* The allowed values of parameter i in words: "1 to 1024", "1 to 65536, a power of two",
 * "1 to 63 characters", "true or false". */
void sim_config_param_range_text(size_t i, char *out, size_t out_bytes);
/* true if parameter i has the same value in a and b. */
bool sim_config_param_equal(const sim_config *a, const sim_config *b, size_t i);
/* true if every parameter is equal. */
bool sim_config_equal(const sim_config *a, const sim_config *b);

size_t sim_config_derived_count(void);
const sim_derived_info *sim_config_derived_info(size_t i);
/* Derived value i of d: integers exactly, doubles with up to 6 significant digits. */
void sim_config_derived_value_text(const sim_config_derived *d, size_t i, char *out,
                                   size_t out_bytes);

#endif
