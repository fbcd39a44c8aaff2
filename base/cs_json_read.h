/* cs_json_read — reading a flat JSON object (RFC 8259): one object whose members are scalars,
 * such as a TCubeTiling written as {"baseM": 128, "baseN": 256, ...}.
 *
 * Strict: one object with only whitespace around it; no comments, trailing commas, single quotes,
 * NaN/Infinity, leading zeros or '+'; strings with valid escapes and UTF-8, no control characters;
 * no nested objects or arrays; no key twice. An error names the place as "WHERE:line:column: "
 * (1-based; columns in bytes) and says what was expected.
 */
#ifndef CS_JSON_READ_H
#define CS_JSON_READ_H

#include <stddef.h>

#include "base/cs_status.h"

typedef enum cs_json_kind { CS_JSON_NUMBER, CS_JSON_STRING, CS_JSON_TRUE, CS_JSON_FALSE, CS_JSON_NULL } cs_json_kind;

/* One member as read: its key, the kind of its value and the value's text (a number as written;
 * a string unescaped), and where the key and the value start. */
typedef struct cs_json_member {
  char key[128];
  cs_json_kind kind;
  char text[256];
  unsigned key_line, key_column;
  unsigned line, column;
} cs_json_member;

/* Called for each member in order; a non-CS_OK status stops the reading and is returned (the
 * callback sets the message, and may use cs_json_member's line and column). */
typedef cs_status (*cs_json_member_fn)(void *arg, const cs_json_member *m, cs_err *err);

/* Reads `len` bytes of text (where: the name errors start with, e.g. the file's path). Keys and
 * string values longer than their fields are errors. */
cs_status cs_json_read_flat(const char *text, size_t len, const char *where, cs_json_member_fn fn, void *arg,
                            cs_err *err);

#endif
