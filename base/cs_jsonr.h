/* cs_jsonr — a strict JSON reader: parses a document (RFC 8259, nothing more) into a tree,
 * finds values by a key path such as "traceEvents[3].args.bytes", and reads them with type
 * checks. The reports and comparisons read run summaries with it, the tests read everything
 * cubesim writes with it (base/cs_json is the writer).
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
 * value or the wrong type, so callers can chain them: cs_jget_u64(root, "a.b", &v).
 */
#ifndef CS_JSONR_H
#define CS_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"

typedef enum cs_jtype { CS_JNULL, CS_JBOOL, CS_JNUMBER, CS_JSTRING, CS_JARRAY, CS_JOBJECT } cs_jtype;

typedef struct cs_jvalue cs_jvalue;
typedef struct cs_jdoc cs_jdoc;

/* Where and why parsing failed. offset is in bytes from the start; line and column are 1-based
 * (column in bytes). */
typedef struct cs_jerror {
  size_t offset;
  unsigned line, column;
  char msg[200];
  cs_status status; /* CS_EFORMAT: the text; CS_ENOMEM: no host memory; CS_EIO..: the file */
} cs_jerror;

/* Parses len bytes of text. NULL on failure (err, if non-NULL, says where and why). */
cs_jdoc *cs_jparse(const char *text, size_t len, cs_jerror *err);
/* Reads and parses a whole file; a file that cannot be read fails with offset 0 and the
 * system's reason. */
cs_jdoc *cs_jparse_file(const char *path, cs_jerror *err);
void cs_jfree(cs_jdoc *doc);
const cs_jvalue *cs_jroot(const cs_jdoc *doc);

/* "null", "bool", "number", "string", "array", "object". */
const char *cs_jtype_name(cs_jtype t);
cs_jtype cs_jtype_of(const cs_jvalue *v); /* v must not be NULL */
bool cs_jis(const cs_jvalue *v, cs_jtype t);

/* The value at path below v, or NULL (missing key, index out of range, wrong container, or a
 * malformed path). */
const cs_jvalue *cs_jget(const cs_jvalue *v, const char *path);
/* Elements of an array or members of an object (0 for anything else). */
size_t cs_jcount(const cs_jvalue *v);
/* Element i of an array, or the value of member i of an object (in document order). */
const cs_jvalue *cs_jat(const cs_jvalue *v, size_t i);
/* Key of member i of an object. */
const char *cs_jkey_at(const cs_jvalue *v, size_t i);
const cs_jvalue *cs_jmember(const cs_jvalue *obj, const char *key);

/* Scalars. A string is NUL-terminated; cs_jstring_len counts bytes (a \u0000 may be inside). */
const char *cs_jstring(const cs_jvalue *v);
size_t cs_jstring_len(const cs_jvalue *v);
bool cs_jbool(const cs_jvalue *v, bool *out);
bool cs_jnumber(const cs_jvalue *v, double *out);
/* The number's literal as written ("1.50", "-0", "2e3"). */
const char *cs_jnumber_text(const cs_jvalue *v);
/* Exact integers: the literal has no fraction or exponent and fits the type. */
bool cs_ju64(const cs_jvalue *v, uint64_t *out);
bool cs_ji64(const cs_jvalue *v, int64_t *out);

/* cs_jget followed by the accessor. */
const char *cs_jget_string(const cs_jvalue *v, const char *path);
bool cs_jget_number(const cs_jvalue *v, const char *path, double *out);
bool cs_jget_u64(const cs_jvalue *v, const char *path, uint64_t *out);

#endif
