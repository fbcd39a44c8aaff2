/* cs_parse — strict parsing of numbers from command-line and text-file tokens.
 *
 * Every function accepts the whole token or nothing: trailing garbage, empty strings and
 * out-of-range values are CS_EINVAL with a message naming what (the `what` argument) and the
 * token.
 */
#ifndef CS_PARSE_H
#define CS_PARSE_H

#include <stdint.h>

#include "base/cs_status.h"

/* Unsigned 64-bit integer, decimal or 0x-prefixed hex. */
cs_status cs_parse_u64(const char *s, const char *what, uint64_t *out, cs_err *err);
/* Signed 64-bit integer, decimal or 0x-prefixed hex (with optional sign). */
cs_status cs_parse_i64(const char *s, const char *what, int64_t *out, cs_err *err);
/* A double as strtod reads it ("nan" and "inf" are accepted; the caller judges them). */
cs_status cs_parse_double(const char *s, const char *what, double *out, cs_err *err);
/* A boolean: true/false, 1/0, yes/no, on/off (case-insensitive). */
cs_status cs_parse_bool(const char *s, const char *what, int *out, cs_err *err);

#endif
