/* cs_file — reading whole input files (configurations, programs, JSON) with a size cap, and a
 * guard for the one text format whose parser slows down on deep nesting.
 *
 * A regular file's size is known before reading: one larger than the cap is refused at once.
 * Anything else (a FIFO, /dev/stdin, /dev/zero, a character device) is read until its end or
 * until it has given more than the cap (and never more than CS_FILE_STREAM_MAX_BYTES), which is
 * then refused: /dev/zero given as a configuration is an error after 16 MiB, not a host out of
 * memory. The messages name the
 * file, what it was read as and the cap.
 */
#ifndef CS_FILE_H
#define CS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"

/* The caps of the text inputs (documented in docs/RELIABILITY.md). */
#define CS_FILE_CONFIG_MAX_BYTES ((uint64_t)16 << 20)  /* a YAML configuration */
#define CS_FILE_JSON_MAX_BYTES ((uint64_t)64 << 20)    /* a tiling or a run summary */
#define CS_FILE_PROGRAM_MAX_BYTES ((uint64_t)4 << 30)  /* a text program (a 8192^3 dump is ~1 GiB) */
/* At most this much of any input is read from something that is not a regular file (its size
 * is unknown until it ends, and /dev/zero never does). */
#define CS_FILE_STREAM_MAX_BYTES ((uint64_t)256 << 20)

/* Reads path whole into *text (malloc'd, NUL-terminated; *len bytes before the NUL). what
 * names the kind of file in messages ("a configuration"). CS_EIO if it cannot be opened or
 * read, CS_EINVAL if it holds more than max_bytes, CS_ENOMEM if the host has no memory. */
cs_status cs_file_read(const char *path, const char *what, uint64_t max_bytes, char **text,
                       size_t *len, cs_err *err);

/* How deep a parser will find the nesting of YAML flow collections ('[' and '{' that open a
 * collection, outside quoted scalars and comments) may go before the text is refused. libyaml
 * takes time quadratic in that depth (100 KB of '[' took 97 s), so callers check first. */
#define CS_YAML_MAX_FLOW_DEPTH 64u

/* CS_OK, or CS_EFORMAT "NAME:LINE:COLUMN: YAML flow collections nested more than 64 deep" at
 * the first bracket past max_depth. Linear in len. */
cs_status cs_yaml_check_flow_depth(const char *text, size_t len, const char *name,
                                   unsigned max_depth, cs_err *err);

#endif
