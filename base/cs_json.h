/* cs_json — a small streaming JSON writer (commas, nesting and escaping handled for the caller).
 *
 * Nothing is held in memory: every call writes to the FILE. Numbers that are not finite are
 * written as null (JSON has no NaN). Doubles use the shortest form that reads back exactly.
 */
#ifndef CS_JSON_H
#define CS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CS_JSON_MAX_DEPTH 32

typedef struct cs_json {
  FILE *f;
  int depth;                        /* current nesting depth */
  bool pretty;                      /* newlines and two-space indentation */
  bool after_key;                   /* a key was written; the next value follows it */
  bool has_items[CS_JSON_MAX_DEPTH]; /* per level: an item was already written */
} cs_json;

void cs_json_init(cs_json *j, FILE *f, bool pretty);
void cs_json_obj_begin(cs_json *j);
void cs_json_obj_end(cs_json *j);
void cs_json_arr_begin(cs_json *j);
void cs_json_arr_end(cs_json *j);
void cs_json_key(cs_json *j, const char *key);
void cs_json_str(cs_json *j, const char *s);
void cs_json_int(cs_json *j, int64_t v);
void cs_json_uint(cs_json *j, uint64_t v);
void cs_json_double(cs_json *j, double v);
void cs_json_bool(cs_json *j, bool v);
void cs_json_null(cs_json *j);
/* Writes a value that is already valid JSON text (no checking). */
void cs_json_raw(cs_json *j, const char *text);
/* A member of the open object: cs_json_key followed by the value. */
void cs_json_member_str(cs_json *j, const char *key, const char *s);
void cs_json_member_int(cs_json *j, const char *key, int64_t v);
void cs_json_member_uint(cs_json *j, const char *key, uint64_t v);
void cs_json_member_double(cs_json *j, const char *key, double v);

/* Writes s as a JSON string literal (with quotes) to f. */
void cs_json_write_string(FILE *f, const char *s);
/* Formats v in the shortest %g form that parses back to the same double ("0.1", "1e-05"). */
void cs_json_format_double(char *out, size_t out_bytes, double v);

#endif
