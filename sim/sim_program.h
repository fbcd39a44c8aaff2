/* sim_program — text programs for the simulated chip: GM tensor declarations and per-core
 * instruction streams (the format is docs/PROGRAM.md), parsed, linked to a simulator, issued,
 * and written back from recorded streams.
 *
 *   # comment                                  from # to the end of any line
 *   .gm NAME DTYPE [d0,d1,...] in|out|inout|temp   a GM tensor, allocated in declaration order
 *   .core N                                     following instructions go to core N (default 0)
 *   copy_gm_ub dst=UB:0x0 src=GM:A+0x40 ...     an instruction (isa_text.h), GM:NAME allowed
 *
 * The three steps are separate so that each error comes at its place: sim_program_parse checks
 * the text alone (every message "file:line:column: ..."), sim_program_link allocates the tensors
 * in a simulator and turns every GM:NAME operand into its address (the stream itself holds only
 * plain addresses; the names stay in the program for printing), sim_program_issue records the
 * instructions core by core (all of core 0 in program order, then core 1, ...), which is the
 * order in which the functional effects are applied.
 */
#ifndef SIM_PROGRAM_H
#define SIM_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/cs_status.h"
#include "isa/isa_dtype.h"
#include "isa/isa_insn.h"
#include "sim/sim.h"

/* enum suffix, name: what the program does with a tensor's data */
#define SIM_TENSOR_KIND_TABLE(X) \
  X(IN, "in")       /* read: loaded from a file (zero when none is given) */ \
  X(OUT, "out")     /* written: saved to a file on request */                 \
  X(INOUT, "inout") /* both */                                                \
  X(TEMP, "temp")   /* neither: scratch space, zero at the start */

typedef enum sim_tensor_kind {
#define SIM_TENSOR_KIND_ENUM(sfx, name) SIM_TENSOR_##sfx,
  SIM_TENSOR_KIND_TABLE(SIM_TENSOR_KIND_ENUM)
#undef SIM_TENSOR_KIND_ENUM
  SIM_TENSOR_KIND_COUNT
} sim_tensor_kind;

const char *sim_tensor_kind_name(sim_tensor_kind k);
bool sim_tensor_kind_is_input(sim_tensor_kind k);  /* in, inout */
bool sim_tensor_kind_is_output(sim_tensor_kind k); /* out, inout */

#define SIM_PROG_NAME_BYTES 64 /* a tensor name: [A-Za-z_][A-Za-z0-9_]*, at most 63 characters */
#define SIM_PROG_MAX_DIMS 8
#define SIM_PROG_MAX_RELOCS 8  /* GM:NAME operands in one instruction */

/* A declared GM tensor. */
typedef struct sim_prog_tensor {
  char name[SIM_PROG_NAME_BYTES];
  isa_dtype dtype;
  sim_tensor_kind kind;
  int ndim;                          /* 0 .. SIM_PROG_MAX_DIMS (0: one element) */
  uint64_t shape[SIM_PROG_MAX_DIMS]; /* elements along each dimension, each >= 1 */
  uint64_t elements;                 /* product of the dimensions */
  uint64_t bytes;                    /* isa_dtype_bytes(dtype, elements) */
  unsigned line;                     /* of the .gm declaration */
  uint64_t addr;                     /* GM address, once linked */
} sim_prog_tensor;

/* One GM:NAME operand: the field at `field_offset` of the operands holds an offset into tensor
 * `tensor` until sim_program_link adds the tensor's address. */
typedef struct sim_prog_reloc {
  uint32_t field_offset; /* isa_field_desc.offset */
  uint32_t tensor;       /* index in sim_program.tensors */
} sim_prog_reloc;

typedef struct sim_prog_insn {
  isa_insn insn;
  unsigned core;
  unsigned line;
  unsigned nrelocs;
  sim_prog_reloc relocs[SIM_PROG_MAX_RELOCS];
} sim_prog_insn;

/* A .core directive, kept to check it against the simulator's core count. */
typedef struct sim_prog_core_dir {
  unsigned core;
  unsigned line, column; /* of the number */
} sim_prog_core_dir;

/* A parsed program. Read-only for its users; made by sim_program_parse / _read. */
typedef struct sim_program {
  char *file; /* the name messages use */
  sim_prog_tensor *tensors;
  size_t ntensors;
  sim_prog_insn *insns; /* every core's instructions, in file order */
  size_t ninsns;
  sim_prog_core_dir *core_dirs;
  size_t ncore_dirs;
  bool linked;
} sim_program;

/* Parses len bytes of text; file is the name messages give ("prog.s"). CS_EINVAL with
 * "file:line:column: message" on the first error; CS_ENOMEM. *out is NULL on failure. */
cs_status sim_program_parse(const char *text, size_t len, const char *file, sim_program **out,
                            cs_err *err);
/* Reads and parses the file at path (CS_EIO when it cannot be read). */
cs_status sim_program_read(const char *path, sim_program **out, cs_err *err);
void sim_program_free(sim_program *p);

/* The tensor called name, or NULL. */
const sim_prog_tensor *sim_program_tensor(const sim_program *p, const char *name);
/* The declared tensor name closest to typed (for "did you mean"), or NULL. */
const char *sim_program_suggest_tensor(const sim_program *p, const char *typed);

/* Allocates the tensors in s (zero-filled, in declaration order), checks every .core against
 * the simulator's cores and turns GM:NAME operands into addresses. Once per program. Errors:
 * "file:line:column: ...". */
cs_status sim_program_link(sim_program *p, sim *s, cs_err *err);

/* Issues every instruction of a linked program to its core: core 0's in program order, then
 * core 1's, ... A fault stops everything: CS_EFAULT with
 * "file:line: core C, instruction I (mnemonic): <message> [cause]" (sim_fault_describe). */
cs_status sim_program_issue(const sim_program *p, sim *s, cs_err *err);

/* The program line of instruction `index` of core `core`'s stream as sim_program_issue recorded
 * it, or 0 when there is none. */
unsigned sim_program_line_of(const sim_program *p, unsigned core, uint64_t index);

/* Writes a program that reproduces the simulator's recorded streams: a header comment, one .gm
 * line per tensor (tensors[i].addr must be their addresses in s, as after sim_program_link), then
 * `.core N` and the canonical disassembly of core N's stream for every core that recorded
 * something, GM operands inside a tensor written GM:NAME+0xOFF. Read back and linked in the same
 * configuration, it gives the same streams. `source` names what was recorded (for the header;
 * may be NULL). CS_EIO if a write fails. */
cs_status sim_program_write_streams(FILE *f, const char *source, const sim_prog_tensor *tensors,
                                    size_t ntensors, sim *s, cs_err *err);

#endif
