/* cs_yaml — a small, strict YAML document model over libyaml, for the project's data files
 * (measured anchors, sweeps): mappings, sequences and scalars, each node with its line and
 * column, so every error can name its place ("anchors.yaml:12:7: ...").
 *
 * Refused, with the place: malformed YAML (libyaml's problem), a second document, aliases and
 * anchors, tags, duplicate keys, keys that are not plain scalars, nesting deeper than
 * CS_YAML_MAX_DEPTH, files larger than CS_YAML_MAX_BYTES. Scalars keep their text; the typed
 * readers below convert them (a quoted scalar is always a string).
 */
#ifndef CS_YAML_H
#define CS_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"

#define CS_YAML_MAX_DEPTH 64
#define CS_YAML_MAX_BYTES (16u << 20)

typedef enum cs_ynode_kind { CS_Y_SCALAR, CS_Y_MAP, CS_Y_SEQ } cs_ynode_kind;

typedef struct cs_ynode cs_ynode;
struct cs_ynode {
  cs_ynode_kind kind;
  unsigned line, col; /* 1-based */
  const char *text;   /* scalar: its text, NUL-terminated; NULL otherwise */
  bool quoted;        /* scalar written in quotes */
  size_t n;           /* mapping: pairs; sequence: items */
  cs_ynode **keys;    /* mapping: the key of each pair (scalars) */
  cs_ynode **items;   /* mapping: the values; sequence: the items */
};

typedef struct cs_ydoc cs_ydoc;

/* Parses `len` bytes of text; `name` prefixes every error ("file.yaml"). An empty document
 * gives a NULL root. */
cs_status cs_yaml_load_string(const char *text, size_t len, const char *name, cs_ydoc **out, cs_err *err);
/* Reads and parses a file (CS_EIO if it cannot be read). */
cs_status cs_yaml_load_file(const char *path, cs_ydoc **out, cs_err *err);
void cs_yaml_free(cs_ydoc *d);
const cs_ynode *cs_yaml_root(const cs_ydoc *d);
const char *cs_yaml_name(const cs_ydoc *d);

/* The value of `key` in a mapping (NULL when absent or when m is not a mapping). */
const cs_ynode *cs_ymap_get(const cs_ynode *m, const char *key);

/* An error at node n: "name:line:col: <message>", code CS_EFORMAT. */
cs_status cs_yaml_error(const cs_ydoc *d, const cs_ynode *n, cs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Checks that mapping m has only keys among the NULL-terminated `allowed` (the message names the
 * unknown key and, when one is close, the allowed key it resembles). */
cs_status cs_ymap_check_keys(const cs_ydoc *d, const cs_ynode *m, const char *const *allowed, cs_err *err);

/* Typed readers of a scalar node: errors name the place and `what`. */
cs_status cs_yaml_str(const cs_ydoc *d, const cs_ynode *n, const char *what, const char **out, cs_err *err);
cs_status cs_yaml_double(const cs_ydoc *d, const cs_ynode *n, const char *what, double *out, cs_err *err);
cs_status cs_yaml_u64(const cs_ydoc *d, const cs_ynode *n, const char *what, uint64_t *out, cs_err *err);
cs_status cs_yaml_bool(const cs_ydoc *d, const cs_ynode *n, const char *what, bool *out, cs_err *err);
/* The node must be a mapping / a sequence. */
cs_status cs_yaml_want(const cs_ydoc *d, const cs_ynode *n, cs_ynode_kind kind, const char *what, cs_err *err);

#endif
