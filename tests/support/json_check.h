/* json_check — a strict JSON reader for tests: parses a document (RFC 8259, nothing more) into a
 * tree, finds values by a key path such as "traceEvents[3].args.bytes", and reads them with
 * type checks.
 *
 * Strict means: one value with only whitespace around it; no comments, trailing commas, single
 * quotes, NaN/Infinity, leading zeros or leading '+'; no control characters, invalid escapes,
 * unpaired \u surrogates or invalid UTF-8 in strings; no duplicate keys in an object (RFC 8259
 * says keys SHOULD be unique; a writer that repeats one has a bug). A failure reports the byte
 * offset (and line:column) of the first error.
 *
 * Paths: segments `name` (up to the next '.' or '['), `[N]` (array index) and `["any key"]`
 * (object key with \" and \\ escapes), joined by '.' between names: `a.b[2]["x.y"].c`. The empty
 * path is the value itself. Every accessor accepts NULL and returns NULL / false for a missing
 * value or the wrong type, so tests can write assert_non_null(jc_get(root, "a.b")).
 */
#ifndef JSON_CHECK_H
#define JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum jc_type { JC_NULL, JC_BOOL, JC_NUMBER, JC_STRING, JC_ARRAY, JC_OBJECT } jc_type;

typedef struct jc_value jc_value;
typedef struct jc_doc jc_doc;

/* Where and why parsing failed. offset is in bytes from the start; line and column are 1-based
 * (column in bytes). */
typedef struct jc_error {
  size_t offset;
  unsigned line, column;
  char msg[200];
} jc_error;

/* Parses len bytes of text. NULL on failure (err, if non-NULL, says where and why). */
jc_doc *jc_parse(const char *text, size_t len, jc_error *err);
/* Reads and parses a whole file; a file that cannot be read fails with offset 0 and the
 * system's reason. */
jc_doc *jc_parse_file(const char *path, jc_error *err);
void jc_free(jc_doc *doc);
const jc_value *jc_root(const jc_doc *doc);

/* "null", "bool", "number", "string", "array", "object". */
const char *jc_type_name(jc_type t);
jc_type jc_type_of(const jc_value *v); /* v must not be NULL */
bool jc_is(const jc_value *v, jc_type t);

/* The value at path below v, or NULL (missing key, index out of range, wrong container, or a
 * malformed path). */
const jc_value *jc_get(const jc_value *v, const char *path);
/* Elements of an array or members of an object (0 for anything else). */
size_t jc_count(const jc_value *v);
/* Element i of an array, or the value of member i of an object (in document order). */
const jc_value *jc_at(const jc_value *v, size_t i);
/* Key of member i of an object. */
const char *jc_key_at(const jc_value *v, size_t i);
const jc_value *jc_member(const jc_value *obj, const char *key);

/* Scalars. A string is NUL-terminated; jc_string_len counts bytes (a \u0000 may be inside). */
const char *jc_string(const jc_value *v);
size_t jc_string_len(const jc_value *v);
bool jc_bool(const jc_value *v, bool *out);
bool jc_number(const jc_value *v, double *out);
/* The number's literal as written ("1.50", "-0", "2e3"). */
const char *jc_number_text(const jc_value *v);
/* Exact integers: the literal has no fraction or exponent and fits the type. */
bool jc_u64(const jc_value *v, uint64_t *out);
bool jc_i64(const jc_value *v, int64_t *out);

/* jc_get followed by the accessor. */
const char *jc_get_string(const jc_value *v, const char *path);
bool jc_get_number(const jc_value *v, const char *path, double *out);
bool jc_get_u64(const jc_value *v, const char *path, uint64_t *out);

#endif
