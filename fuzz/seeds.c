/* seeds — writes what the fuzz targets start from that no file of the repository holds as such
 * (scripts/fuzz runs it; the other seeds are the repository's files and what cubesim writes):
 *
 *   seeds program DIR DICT   one program per instruction of the table (its canonical text, every
 *                            field 0) into DIR, and the mnemonics, field names, memory, pipe,
 *                            type and quant-mode names and directives into the libFuzzer
 *                            dictionary DICT
 *
 * Linked with the library, so the seeds follow the instruction table as it grows. */
#include <stdio.h>
#include <string.h>

#include "isa/isa_dtype.h"
#include "isa/isa_insn.h"
#include "isa/isa_text.h"

static int program_seeds(const char *dir, const char *dict_path) {
  FILE *dict = fopen(dict_path, "w");
  if (!dict) {
    perror(dict_path);
    return 1;
  }
  for (uint32_t op = 0; op < ISA_OP_COUNT; op++) {
    isa_insn in;
    memset(&in, 0, sizeof in);
    in.op = op;
    char text[ISA_TEXT_LINE_BYTES], path[4096];
    isa_disasm(&in, text, sizeof text);
    size_t name_len = strcspn(text, " ");
    snprintf(path, sizeof path, "%s/insn_%.*s.s", dir, (int)name_len, text);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
      perror(path);
      return 1;
    }
    /* the mnemonic, then each "field=" */
    fprintf(dict, "\"%.*s\"\n", (int)name_len, text);
    for (const char *t = text + name_len; *t;) {
      t += strspn(t, " ");
      size_t eq = strcspn(t, "=");
      if (t[eq] == '=') fprintf(dict, "\"%.*s=\"\n", (int)eq, t);
      t += strcspn(t, " ");
    }
  }
  for (int m = 0; m < ISA_MEM_COUNT; m++) fprintf(dict, "\"%s:0x\"\n", isa_mem_name((isa_mem)m));
  for (int p = 0; p < ISA_PIPE_COUNT; p++) fprintf(dict, "\"%s\"\n", isa_pipe_name((isa_pipe)p));
  for (int t = 0; t < ISA_DTYPE_COUNT; t++) fprintf(dict, "\"%s\"\n", isa_dtype_name((isa_dtype)t));
  for (int q = 0; q < ISA_QUANT_COUNT; q++) fprintf(dict, "\"%s\"\n", isa_quant_mode_name((isa_quant_mode)q));
  fputs("\".gm \"\n\".core \"\n\" in\"\n\" out\"\n\" inout\"\n\" temp\"\n\"GM:\"\n\"+0x\"\n", dict);
  return fclose(dict) != 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "program") == 0) return program_seeds(argv[2], argv[3]);
  fprintf(stderr, "usage: seeds program DIR DICT\n");
  return 2;
}
