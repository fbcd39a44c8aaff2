/* cs_yaml — the document model over libyaml's event parser. */
#include "base/cs_yaml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/cs_parse.h"

struct cs_ydoc {
  char name[256];
  cs_ynode *root;
};

static void node_free(cs_ynode *n) {
  if (!n) return;
  for (size_t i = 0; i < n->n; i++) {
    if (n->keys) node_free(n->keys[i]);
    if (n->items) node_free(n->items[i]);
  }
  free(n->keys);
  free(n->items);
  free((char *)n->text);
  free(n);
}

void cs_yaml_free(cs_ydoc *d) {
  if (!d) return;
  node_free(d->root);
  free(d);
}

const cs_ynode *cs_yaml_root(const cs_ydoc *d) { return d ? d->root : NULL; }
const char *cs_yaml_name(const cs_ydoc *d) { return d ? d->name : ""; }

typedef struct builder {
  yaml_parser_t p;
  const char *name;
  cs_err *err;
} builder;

static cs_status fail_at(builder *b, const yaml_mark_t *m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static cs_status fail_at(builder *b, const yaml_mark_t *m, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cs_err_set(b->err, CS_EFORMAT, "%s:%lu:%lu: %s", b->name, (unsigned long)m->line + 1,
                    (unsigned long)m->column + 1, msg);
}

static cs_status next_event(builder *b, yaml_event_t *ev) {
  if (yaml_parser_parse(&b->p, ev)) return CS_OK;
  return fail_at(b, &b->p.problem_mark, "not valid YAML: %s", b->p.problem ? b->p.problem : "parse error");
}

static cs_ynode *new_node(cs_ynode_kind kind, const yaml_mark_t *m) {
  cs_ynode *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->line = (unsigned)m->line + 1;
  n->col = (unsigned)m->column + 1;
  return n;
}

static bool push(cs_ynode *n, cs_ynode *key, cs_ynode *item, size_t *cap) {
  if (n->n == *cap) {
    size_t c = *cap ? *cap * 2 : 8;
    cs_ynode **it = realloc(n->items, c * sizeof *it);
    if (!it) return false;
    n->items = it;
    if (n->kind == CS_Y_MAP) {
      cs_ynode **k = realloc(n->keys, c * sizeof *k);
      if (!k) return false;
      n->keys = k;
    }
    *cap = c;
  }
  if (n->kind == CS_Y_MAP) n->keys[n->n] = key;
  n->items[n->n++] = item;
  return true;
}

/* Builds the node whose first event is `ev` (consumed). */
static cs_status build(builder *b, yaml_event_t *ev, unsigned depth, cs_ynode **out) {
  *out = NULL;
  if (depth > CS_YAML_MAX_DEPTH) {
    cs_status st = fail_at(b, &ev->start_mark, "nesting deeper than %d levels", CS_YAML_MAX_DEPTH);
    yaml_event_delete(ev);
    return st;
  }
  cs_status st = CS_OK;
  switch (ev->type) {
    case YAML_ALIAS_EVENT:
      st = fail_at(b, &ev->start_mark, "aliases are not accepted");
      break;
    case YAML_SCALAR_EVENT: {
      if (ev->data.scalar.anchor || ev->data.scalar.tag) {
        st = fail_at(b, &ev->start_mark, "anchors and tags are not accepted");
        break;
      }
      cs_ynode *n = new_node(CS_Y_SCALAR, &ev->start_mark);
      char *t = n ? malloc(ev->data.scalar.length + 1) : NULL;
      if (!n || !t) {
        free(n);
        free(t);
        st = cs_err_set(b->err, CS_ENOMEM, "%s: no host memory", b->name);
        break;
      }
      memcpy(t, ev->data.scalar.value, ev->data.scalar.length);
      t[ev->data.scalar.length] = '\0';
      n->text = t;
      n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                  ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
      *out = n;
      break;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
      bool map = ev->type == YAML_MAPPING_START_EVENT;
      const yaml_char_t *anchor = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
      const yaml_char_t *tag = map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
      if (anchor || tag) {
        st = fail_at(b, &ev->start_mark, "anchors and tags are not accepted");
        break;
      }
      cs_ynode *n = new_node(map ? CS_Y_MAP : CS_Y_SEQ, &ev->start_mark);
      if (!n) {
        st = cs_err_set(b->err, CS_ENOMEM, "%s: no host memory", b->name);
        break;
      }
      size_t cap = 0;
      for (;;) {
        yaml_event_t e2;
        if ((st = next_event(b, &e2)) != CS_OK) break;
        if (e2.type == YAML_MAPPING_END_EVENT || e2.type == YAML_SEQUENCE_END_EVENT) {
          yaml_event_delete(&e2);
          break;
        }
        cs_ynode *key = NULL, *val = NULL;
        if (map) {
          if (e2.type != YAML_SCALAR_EVENT) {
            st = fail_at(b, &e2.start_mark, "a key must be a plain scalar");
            yaml_event_delete(&e2);
            break;
          }
          if ((st = build(b, &e2, depth + 1, &key)) != CS_OK) break;
          for (size_t i = 0; i < n->n; i++)
            if (strcmp(n->keys[i]->text, key->text) == 0) {
              yaml_mark_t m = {0, key->line - 1, key->col - 1};
              st = fail_at(b, &m, "duplicate key '%s' (first at line %u)", key->text, n->keys[i]->line);
              break;
            }
          if (st != CS_OK) {
            node_free(key);
            break;
          }
          yaml_event_t e3;
          if ((st = next_event(b, &e3)) != CS_OK) {
            node_free(key);
            break;
          }
          if ((st = build(b, &e3, depth + 1, &val)) != CS_OK) {
            node_free(key);
            break;
          }
        } else if ((st = build(b, &e2, depth + 1, &val)) != CS_OK) {
          break;
        }
        if (!push(n, key, val, &cap)) {
          node_free(key);
          node_free(val);
          st = cs_err_set(b->err, CS_ENOMEM, "%s: no host memory", b->name);
          break;
        }
      }
      if (st != CS_OK) node_free(n);
      else *out = n;
      break;
    }
    default:
      st = fail_at(b, &ev->start_mark, "unexpected YAML event");
      break;
  }
  yaml_event_delete(ev);
  return st;
}

cs_status cs_yaml_load_string(const char *text, size_t len, const char *name, cs_ydoc **out, cs_err *err) {
  *out = NULL;
  if (len > CS_YAML_MAX_BYTES)
    return cs_err_set(err, CS_EFORMAT, "%s: %zu bytes, more than the %u a YAML file may have", name, len,
                      (unsigned)CS_YAML_MAX_BYTES);
  cs_ydoc *d = calloc(1, sizeof *d);
  if (!d) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", name);
  snprintf(d->name, sizeof d->name, "%s", name);
  builder b;
  memset(&b, 0, sizeof b);
  b.name = d->name;
  b.err = err;
  if (!yaml_parser_initialize(&b.p)) {
    free(d);
    return cs_err_set(err, CS_ENOMEM, "%s: no host memory for the YAML parser", name);
  }
  yaml_parser_set_input_string(&b.p, (const unsigned char *)text, len);
  cs_status st = CS_OK;
  bool in_doc = false, done = false;
  while (st == CS_OK && !done) {
    yaml_event_t ev;
    if ((st = next_event(&b, &ev)) != CS_OK) break;
    switch (ev.type) {
      case YAML_STREAM_START_EVENT: yaml_event_delete(&ev); break;
      case YAML_STREAM_END_EVENT: yaml_event_delete(&ev); done = true; break;
      case YAML_DOCUMENT_START_EVENT:
        if (d->root || in_doc) st = fail_at(&b, &ev.start_mark, "a second document is not accepted");
        in_doc = true;
        yaml_event_delete(&ev);
        break;
      case YAML_DOCUMENT_END_EVENT: yaml_event_delete(&ev); break;
      default:
        if (d->root) {
          st = fail_at(&b, &ev.start_mark, "a second document is not accepted");
          yaml_event_delete(&ev);
        } else {
          st = build(&b, &ev, 1, &d->root);
        }
        break;
    }
  }
  yaml_parser_delete(&b.p);
  if (st != CS_OK) {
    cs_yaml_free(d);
    return st;
  }
  *out = d;
  return CS_OK;
}

cs_status cs_yaml_load_file(const char *path, cs_ydoc **out, cs_err *err) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return cs_err_set(err, cs_errno_status(errno, CS_EIO), "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  cs_status st = CS_OK;
  while (buf) {
    if (len == cap) {
      if (cap > CS_YAML_MAX_BYTES) {
        st = cs_err_set(err, CS_EFORMAT, "%s: more than the %u bytes a YAML file may have", path,
                        (unsigned)CS_YAML_MAX_BYTES);
        break;
      }
      char *nb = realloc(buf, cap * 2);
      if (!nb) break;
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  if (st == CS_OK && !buf) st = cs_err_set(err, CS_ENOMEM, "%s: no host memory", path);
  if (st == CS_OK && ferror(f)) st = cs_err_set(err, CS_EIO, "%s: read error", path);
  fclose(f);
  if (st == CS_OK) st = cs_yaml_load_string(buf, len, path, out, err);
  free(buf);
  return st;
}

const cs_ynode *cs_ymap_get(const cs_ynode *m, const char *key) {
  if (!m || m->kind != CS_Y_MAP) return NULL;
  for (size_t i = 0; i < m->n; i++)
    if (strcmp(m->keys[i]->text, key) == 0) return m->items[i];
  return NULL;
}

cs_status cs_yaml_error(const cs_ydoc *d, const cs_ynode *n, cs_err *err, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!n) return cs_err_set(err, CS_EFORMAT, "%s: %s", cs_yaml_name(d), msg);
  return cs_err_set(err, CS_EFORMAT, "%s:%u:%u: %s", cs_yaml_name(d), n->line, n->col, msg);
}

cs_status cs_ymap_check_keys(const cs_ydoc *d, const cs_ynode *m, const char *const *allowed, cs_err *err) {
  if (!m || m->kind != CS_Y_MAP) return CS_OK;
  for (size_t i = 0; i < m->n; i++) {
    bool ok = false;
    for (const char *const *a = allowed; *a && !ok; a++) ok = strcmp(*a, m->keys[i]->text) == 0;
    if (ok) continue;
    char list[300] = "";
    size_t used = 0;
    for (const char *const *a = allowed; *a && used < sizeof list; a++)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", a == allowed ? "" : ", ", *a);
    return cs_yaml_error(d, m->keys[i], err, "unknown key '%s' (known: %s)", m->keys[i]->text, list);
  }
  return CS_OK;
}

static const char *kind_name(cs_ynode_kind k) {
  return k == CS_Y_MAP ? "a mapping" : k == CS_Y_SEQ ? "a sequence" : "a scalar";
}

cs_status cs_yaml_want(const cs_ydoc *d, const cs_ynode *n, cs_ynode_kind kind, const char *what, cs_err *err) {
  if (!n) return cs_yaml_error(d, NULL, err, "%s is missing", what);
  if (n->kind != kind) return cs_yaml_error(d, n, err, "%s must be %s, not %s", what, kind_name(kind), kind_name(n->kind));
  return CS_OK;
}

cs_status cs_yaml_str(const cs_ydoc *d, const cs_ynode *n, const char *what, const char **out, cs_err *err) {
  cs_status st = cs_yaml_want(d, n, CS_Y_SCALAR, what, err);
  if (st == CS_OK) *out = n->text;
  return st;
}

cs_status cs_yaml_double(const cs_ydoc *d, const cs_ynode *n, const char *what, double *out, cs_err *err) {
  cs_status st = cs_yaml_want(d, n, CS_Y_SCALAR, what, err);
  if (st != CS_OK) return st;
  cs_err e2;
  if (n->quoted || cs_parse_double(n->text, what, out, &e2) != CS_OK || !isfinite(*out))
    return cs_yaml_error(d, n, err, "%s = '%s' is not a finite number", what, n->text);
  return CS_OK;
}

cs_status cs_yaml_u64(const cs_ydoc *d, const cs_ynode *n, const char *what, uint64_t *out, cs_err *err) {
  cs_status st = cs_yaml_want(d, n, CS_Y_SCALAR, what, err);
  if (st != CS_OK) return st;
  cs_err e2;
  if (n->quoted || cs_parse_u64(n->text, what, out, &e2) != CS_OK)
    return cs_yaml_error(d, n, err, "%s = '%s' is not an unsigned integer", what, n->text);
  return CS_OK;
}

cs_status cs_yaml_bool(const cs_ydoc *d, const cs_ynode *n, const char *what, bool *out, cs_err *err) {
  cs_status st = cs_yaml_want(d, n, CS_Y_SCALAR, what, err);
  if (st != CS_OK) return st;
  if (!n->quoted && (strcmp(n->text, "true") == 0 || strcmp(n->text, "false") == 0)) {
    *out = n->text[0] == 't';
    return CS_OK;
  }
  return cs_yaml_error(d, n, err, "%s = '%s' is not true or false", what, n->text);
}
