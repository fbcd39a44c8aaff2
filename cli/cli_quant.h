/* cli_quant — what the two files of `cubesim quant` share: cli_quant.c (pack, and unpack of one
 * word) and cli_quant_tensor.c (unpack, check and diff of .npy tensors of words). */
#ifndef CLI_QUANT_H
#define CLI_QUANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/cs_json.h"
#include "base/cs_npy.h"
#include "cli/cli.h"
#include "isa/isa_quant.h"

#define CLI_QUANT_CMD "quant"
#define CLI_QUANT_TEXT_COLUMNS 100 /* the text output fits a 100-column terminal */

/* Options of the form --name VALUE, each given at most once, stored as const char * members of
 * an arguments struct at the row's offset. */
typedef struct cli_quant_opt_row {
  const char *name;
  size_t offset;
} cli_quant_opt_row;

/* 1 if argv[*i] is one of rows (its value stored, *i advanced), 0 if it is not, -1 after
 * printing an error (a missing value, an option given twice; *rc is the exit status). */
int cli_quant_take_option(cli_io *io, int argc, char **argv, int *i,
                          const cli_quant_opt_row *rows, size_t n_rows, void *args, int *rc);

/* Prints "<indent><label><pad>text", wrapped at 100 columns with a hanging indent. */
void cli_quant_wrap(FILE *f, int indent, const char *label, int label_width, const char *text);
/* "(4096,)", "(2, 3)", "()": a shape as numpy prints it. */
void cli_quant_shape(char *out, size_t out_bytes, int ndim, const size_t *shape);

/* A JSON number in the shortest exact form ("300", not "3e+02"); null when not finite. */
void cli_quant_json_num(cs_json *j, double v);
void cli_quant_json_hex64(cs_json *j, const char *key, uint64_t v);
/* The decoded fields of a word as JSON members (shared by pack, unpack and the tensors). */
void cli_quant_json_fields(cs_json *j, const isa_qw_fields *q);
/* "warning_ids": the short names of the warning bits set. */
void cli_quant_json_warning_ids(cs_json *j, unsigned warnings);

/* Reads an fp32 tensor (what: "scales", "offsets"), refusing any other dtype. */
cs_status cli_quant_read_f32(const char *path, const char *what, cs_npy *a, cs_err *err);
/* Reads REQ8's pre-shift options: --shift N (0..15) and --mcb B (0 or 1); NULL keeps 0. */
cs_status cli_quant_shift_opts(const char *shift, const char *mcb, unsigned *n, unsigned *m,
                               cs_err *err);

/* The tensor forms (cli_quant_tensor.c). */
int cli_quant_unpack_file(cli_io *io, const char *path, bool json);
int cli_quant_check(cli_io *io, int argc, char **argv);
int cli_quant_diff(cli_io *io, int argc, char **argv);

#endif
