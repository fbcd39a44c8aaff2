/* isa_text — the text form of one instruction (assembler and disassembler), read from the table.
 *
 * One instruction per line: its mnemonic, then `field=value` for the fields of its format.
 *
 *   copy_gm_ub dst=UB:0x0 src=GM:0x1000 block_count=1 block_len_bytes=64 src_gap_bytes=0 dst_gap_bytes=0
 *
 * Nothing here knows an opcode: the mnemonics, the field names, their order and their storage
 * kinds all come from ISA_INSN_TABLE and the ISA_FMT_<format> rows (isa_op_info).
 *
 * Values, by the field's storage kind (isa_field_kind):
 *   ADDR   MEM:OFFSET, MEM one of GM L1 L0A L0B L0C UB BT FB (any case) or a memory number,
 *          OFFSET an unsigned 64-bit integer; written `L1:0x200`. With symbols (isa_text_syms),
 *          also GM:NAME and GM:NAME+OFFSET for the GM tensor NAME.
 *   U32    an unsigned integer that fits 32 bits; written in decimal.
 *   U64    an unsigned integer that fits 64 bits; written as 0x hex.
 *   BOOL   an unsigned integer that fits 32 bits; written 0 / 1.
 *   DTYPE  a type name (isa_dtype_from_name: int8, fp16, float16, ...) or a number;
 *   QUANT  a quant mode name (NoQuant, DEQF16, ..., any case) or a number;
 *   PIPE   a pipe name (MTE2, V, VECTOR, ALL, ..., any case) or a number.
 * DTYPE, QUANT and PIPE are written by name; a stored value that names nothing (which
 * isa_insn_check refuses) is written as its number, so every record has a text that reads back
 * to the same bits. Decimal and 0x hex are accepted for every number; octal is not.
 *
 * The assembler accepts the fields in any order; an omitted field is 0 (ADDR: GM:0x0). It checks
 * only what the text can say: a known mnemonic, known field names each given once, and values
 * that parse and fit their 32- or 64-bit storage. Whether a value is in its documented range is
 * isa_insn_check's question, not the parser's. `#` starts a comment that runs to the end of the
 * line. The disassembly is canonical: every field in table order, each written one way, so
 * isa_disasm(isa_asm_line(text)) is the same for every spelling of an instruction.
 */
#ifndef ISA_TEXT_H
#define ISA_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_insn.h"

/* Room for any disassembled line (the longest format, with full 64-bit values and symbols). */
#define ISA_TEXT_LINE_BYTES 2048

/* Symbolic GM addresses. Either function may be NULL. */
typedef struct isa_text_syms {
  void *ctx;
  /* Disassembler: the name of the GM tensor holding addr and its base address, or NULL when
   * addr lies in no tensor (it is then written as a number). */
  const char *(*name_of)(void *ctx, uint64_t addr, uint64_t *base);
  /* Assembler: the address of GM:name+offset for the ADDR field `field`. On failure returns a
   * status and a message without a location (the assembler adds the column). */
  cs_status (*resolve)(void *ctx, const isa_field_desc *field, const char *name, uint64_t offset,
                       uint64_t *addr, cs_err *err);
} isa_text_syms;

/* Writes the canonical text of in (no newline) into out (n bytes, NUL-terminated when n > 0,
 * cut short if too small) and returns the length of the whole text, as snprintf does. An
 * unknown opcode is written as `<unknown opcode N>`, which does not read back. */
size_t isa_disasm(const isa_insn *in, char *out, size_t n);
/* The same, writing GM addresses inside a tensor as GM:NAME or GM:NAME+0xOFF (syms may be NULL). */
size_t isa_disasm_syms(const isa_insn *in, const isa_text_syms *syms, char *out, size_t n);

/* Parses one line into *out (zeroed first, padding included, so records compare with memcmp).
 * On failure, CS_EINVAL with a message "column C: <what is wrong with which token>". */
cs_status isa_asm_line(const char *line, isa_insn *out, cs_err *err);
/* The same with symbolic GM operands resolved by syms (may be NULL: symbolic names are then an
 * error), and the 1-based column of the offending token in *column (may be NULL) instead of in
 * the message. */
cs_status isa_asm_line_syms(const char *line, const isa_text_syms *syms, isa_insn *out,
                            size_t *column, cs_err *err);

#endif
