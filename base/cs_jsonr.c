/* cs_jsonr — strict recursive-descent JSON parser into an arena-allocated tree (see the
 * header for the rules and the path syntax). */
#include "base/cs_jsonr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_file.h"

#define CS_JMAX_DEPTH 512
#define CS_JBLOCK_BYTES 65536

struct cs_jvalue {
  cs_jtype type;
  bool boolean;
  double number;
  const char *text;   /* string (decoded) or number literal, NUL-terminated */
  size_t len;         /* bytes of text */
  const cs_jvalue **items; /* array elements / object member values */
  const char **keys;      /* object keys */
  size_t count;
};

/* ---- arena ------------------------------------------------------------------------------ */

typedef struct cs_jblock {
  struct cs_jblock *next;
  size_t used, cap;
  max_align_t data[]; /* cap bytes */
} cs_jblock;

struct cs_jdoc {
  cs_jblock *blocks;
  const cs_jvalue *root;
};

static void *arena_alloc(cs_jdoc *d, size_t bytes) {
  bytes = (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  cs_jblock *b = d->blocks;
  if (!b || b->cap - b->used < bytes) {
    size_t cap = bytes > CS_JBLOCK_BYTES / 4 ? bytes : CS_JBLOCK_BYTES;
    cs_jblock *nb = malloc(sizeof *nb + cap);
    if (!nb) return NULL;
    nb->used = 0;
    nb->cap = cap;
    if (b && bytes > CS_JBLOCK_BYTES / 4) { /* a big one-off: keep filling the current block */
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      d->blocks = nb;
    }
    b = nb;
  }
  void *p = (char *)b->data + b->used;
  b->used += bytes;
  return p;
}

void cs_jfree(cs_jdoc *doc) {
  if (!doc) return;
  cs_jblock *b = doc->blocks;
  while (b) {
    cs_jblock *n = b->next;
    free(b);
    b = n;
  }
  free(doc);
}

/* ---- parser ----------------------------------------------------------------------------- */

typedef struct parser {
  const char *s;
  size_t len, pos;
  cs_jdoc *doc;
  cs_jerror *err;
  bool failed;
  /* children of the containers being parsed, innermost last */
  const cs_jvalue **stack;
  const char **stack_keys;
  size_t depth_items, cap_items;
} parser;

static bool fail(parser *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(parser *p, size_t at, const char *fmt, ...) {
  if (p->failed) return false;
  p->failed = true;
  if (p->err) {
    p->err->offset = at;
    unsigned line = 1, col = 1;
    for (size_t i = 0; i < at && i < p->len; i++) {
      if (p->s[i] == '\n') line++, col = 1;
      else col++;
    }
    p->err->line = line;
    p->err->column = col;
    p->err->status = CS_EFORMAT;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
  }
  return false;
}

static bool oom(parser *p) {
  bool first = !p->failed;
  fail(p, p->pos, "no host memory");
  if (first && p->err) p->err->status = CS_ENOMEM;
  return false;
}

static void skip_ws(parser *p) {
  while (p->pos < p->len) {
    char c = p->s[p->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->pos++;
  }
}

static int peek(const parser *p) { return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1; }

/* A printable description of the character at pos for messages. */
static const char *describe(const parser *p, size_t at, char *buf, size_t n) {
  if (at >= p->len) return "end of input";
  unsigned char c = (unsigned char)p->s[at];
  if (c >= 0x20 && c < 0x7f) snprintf(buf, n, "'%c'", c);
  else snprintf(buf, n, "byte 0x%02x", c);
  return buf;
}

static cs_jvalue *new_value(parser *p, cs_jtype t) {
  cs_jvalue *v = arena_alloc(p->doc, sizeof *v);
  if (!v) {
    oom(p);
    return NULL;
  }
  memset(v, 0, sizeof *v);
  v->type = t;
  return v;
}

static bool push_child(parser *p, const cs_jvalue *v, const char *key) {
  if (p->depth_items == p->cap_items) {
    size_t cap = p->cap_items ? p->cap_items * 2 : 64;
    const cs_jvalue **s = realloc(p->stack, cap * sizeof *s);
    if (!s) return oom(p);
    p->stack = s;
    const char **k = realloc(p->stack_keys, cap * sizeof *k);
    if (!k) return oom(p);
    p->stack_keys = k;
    p->cap_items = cap;
  }
  p->stack[p->depth_items] = v;
  p->stack_keys[p->depth_items] = key;
  p->depth_items++;
  return true;
}

/* Moves the children pushed since base into v. */
static bool take_children(parser *p, cs_jvalue *v, size_t base, bool with_keys) {
  size_t n = p->depth_items - base;
  v->count = n;
  if (n) {
    v->items = arena_alloc(p->doc, n * sizeof *v->items);
    if (!v->items) return oom(p);
    memcpy(v->items, p->stack + base, n * sizeof *v->items);
    if (with_keys) {
      v->keys = arena_alloc(p->doc, n * sizeof *v->keys);
      if (!v->keys) return oom(p);
      memcpy(v->keys, p->stack_keys + base, n * sizeof *v->keys);
    }
  }
  p->depth_items = base;
  return true;
}

static bool expect_word(parser *p, const char *w) {
  size_t n = strlen(w);
  if (p->len - p->pos < n || memcmp(p->s + p->pos, w, n) != 0) {
    char buf[24];
    return fail(p, p->pos, "unexpected %s", describe(p, p->pos, buf, sizeof buf));
  }
  p->pos += n;
  return true;
}

static int hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Four hex digits at pos (after "\u"). */
static bool read_u4(parser *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int d = p->pos < p->len ? hex_digit((unsigned char)p->s[p->pos]) : -1;
    if (d < 0) return fail(p, p->pos, "\\u needs four hex digits");
    v = v * 16 + (unsigned)d;
    p->pos++;
  }
  *out = v;
  return true;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) need = 1;
  else if (c == 0xE0) need = 2, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC) need = 2;
  else if (c == 0xED) need = 2, hi = 0x9F;
  else if (c >= 0xEE && c <= 0xEF) need = 2;
  else if (c == 0xF0) need = 3, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) need = 3;
  else if (c == 0xF4) need = 3, hi = 0x8F;
  else return 0;
  if (n < need + 1) return 0;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i <= need; i++)
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  return need + 1;
}

/* A string at pos (on the opening quote). *out is NUL-terminated in the arena. */
static bool parse_string(parser *p, const char **out, size_t *out_len) {
  size_t open = p->pos++;
  /* find the closing quote first: the decoded text is never longer than the raw text */
  size_t i = p->pos;
  while (i < p->len && p->s[i] != '"') i += p->s[i] == '\\' ? 2 : 1;
  if (i >= p->len) return fail(p, open, "unterminated string");
  char *o = arena_alloc(p->doc, i - p->pos + 1);
  if (!o) return oom(p);
  size_t n = 0;
  for (;;) {
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c == '"') break;
    if (c < 0x20) return fail(p, p->pos, "control character U+%04X in a string (escape it)", c);
    if (c == '\\') {
      size_t at = p->pos++;
      int e = peek(p);
      p->pos++;
      switch (e) {
        case '"': o[n++] = '"'; break;
        case '\\': o[n++] = '\\'; break;
        case '/': o[n++] = '/'; break;
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case 'u': {
          unsigned cp = 0; /* read_u4 sets it; -O3 cannot tell */
          if (!read_u4(p, &cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return fail(p, at, "unpaired low surrogate in \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned lo = 0;
            if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
              return fail(p, at, "unpaired high surrogate in \\u escape");
            p->pos += 2;
            if (!read_u4(p, &lo)) return false;
            if (lo < 0xDC00 || lo > 0xDFFF) return fail(p, at, "unpaired high surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          n += put_utf8(o + n, cp);
          break;
        }
        default: {
          char buf[24];
          return fail(p, at, "invalid escape: backslash followed by %s", describe(p, at + 1, buf, sizeof buf));
        }
      }
      continue;
    }
    if (c < 0x80) {
      o[n++] = (char)c;
      p->pos++;
      continue;
    }
    size_t k = utf8_len((const unsigned char *)p->s + p->pos, p->len - p->pos);
    if (!k) return fail(p, p->pos, "invalid UTF-8 in a string");
    memcpy(o + n, p->s + p->pos, k);
    n += k;
    p->pos += k;
  }
  p->pos++; /* closing quote */
  o[n] = '\0';
  *out = o;
  *out_len = n;
  return true;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static bool parse_number(parser *p, cs_jvalue *v) {
  size_t start = p->pos;
  if (peek(p) == '-') p->pos++;
  if (peek(p) == '0') {
    p->pos++;
    if (is_digit(peek(p))) return fail(p, p->pos - 1, "leading zeros are not allowed in numbers");
  } else if (is_digit(peek(p))) {
    while (is_digit(peek(p))) p->pos++;
  } else {
    char buf[24];
    return fail(p, p->pos, "digit expected, found %s", describe(p, p->pos, buf, sizeof buf));
  }
  if (peek(p) == '.') {
    p->pos++;
    if (!is_digit(peek(p))) {
      char buf[24];
      return fail(p, p->pos, "digit expected after '.', found %s", describe(p, p->pos, buf, sizeof buf));
    }
    while (is_digit(peek(p))) p->pos++;
  }
  if (peek(p) == 'e' || peek(p) == 'E') {
    p->pos++;
    if (peek(p) == '+' || peek(p) == '-') p->pos++;
    if (!is_digit(peek(p))) {
      char buf[24];
      return fail(p, p->pos, "digit expected in exponent, found %s", describe(p, p->pos, buf, sizeof buf));
    }
    while (is_digit(peek(p))) p->pos++;
  }
  size_t n = p->pos - start;
  char *t = arena_alloc(p->doc, n + 1);
  if (!t) return oom(p);
  memcpy(t, p->s + start, n);
  t[n] = '\0';
  v->text = t;
  v->len = n;
  v->number = strtod(t, NULL);
  return true;
}

static const cs_jvalue *parse_value(parser *p, int depth);

static bool duplicate_key(const parser *p, size_t base, const char *key, size_t key_len) {
  for (size_t i = base; i < p->depth_items; i++)
    if (strlen(p->stack_keys[i]) == key_len && memcmp(p->stack_keys[i], key, key_len) == 0) return true;
  return false;
}

static const cs_jvalue *parse_object(parser *p, int depth) {
  cs_jvalue *v = new_value(p, CS_JOBJECT);
  if (!v) return NULL;
  size_t base = p->depth_items;
  p->pos++; /* { */
  skip_ws(p);
  if (peek(p) == '}') {
    p->pos++;
    return v;
  }
  for (;;) {
    skip_ws(p);
    if (peek(p) != '"') {
      char buf[24];
      fail(p, p->pos, "object key (a string) expected, found %s", describe(p, p->pos, buf, sizeof buf));
      return NULL;
    }
    size_t key_at = p->pos;
    const char *key;
    size_t key_len;
    if (!parse_string(p, &key, &key_len)) return NULL;
    if (strlen(key) != key_len) {
      fail(p, key_at, "object key contains \\u0000");
      return NULL;
    }
    if (duplicate_key(p, base, key, key_len)) {
      fail(p, key_at, "duplicate key \"%s\" in an object", key);
      return NULL;
    }
    skip_ws(p);
    if (peek(p) != ':') {
      char buf[24];
      fail(p, p->pos, "':' expected after an object key, found %s", describe(p, p->pos, buf, sizeof buf));
      return NULL;
    }
    p->pos++;
    const cs_jvalue *child = parse_value(p, depth + 1);
    if (!child || !push_child(p, child, key)) return NULL;
    skip_ws(p);
    int c = peek(p);
    if (c == ',') {
      p->pos++;
      continue;
    }
    if (c == '}') {
      p->pos++;
      break;
    }
    char buf[24];
    fail(p, p->pos, "',' or '}' expected after an object member, found %s", describe(p, p->pos, buf, sizeof buf));
    return NULL;
  }
  return take_children(p, v, base, true) ? v : NULL;
}

static const cs_jvalue *parse_array(parser *p, int depth) {
  cs_jvalue *v = new_value(p, CS_JARRAY);
  if (!v) return NULL;
  size_t base = p->depth_items;
  p->pos++; /* [ */
  skip_ws(p);
  if (peek(p) == ']') {
    p->pos++;
    return v;
  }
  for (;;) {
    const cs_jvalue *child = parse_value(p, depth + 1);
    if (!child || !push_child(p, child, NULL)) return NULL;
    skip_ws(p);
    int c = peek(p);
    if (c == ',') {
      p->pos++;
      continue;
    }
    if (c == ']') {
      p->pos++;
      break;
    }
    char buf[24];
    fail(p, p->pos, "',' or ']' expected after an array element, found %s", describe(p, p->pos, buf, sizeof buf));
    return NULL;
  }
  return take_children(p, v, base, false) ? v : NULL;
}

static const cs_jvalue *parse_value(parser *p, int depth) {
  skip_ws(p);
  if (depth > CS_JMAX_DEPTH) {
    fail(p, p->pos, "nesting deeper than 512 levels");
    return NULL;
  }
  int c = peek(p);
  cs_jvalue *v;
  switch (c) {
    case '{': return parse_object(p, depth);
    case '[': return parse_array(p, depth);
    case '"':
      v = new_value(p, CS_JSTRING);
      if (!v || !parse_string(p, &v->text, &v->len)) return NULL;
      return v;
    case 't':
    case 'f':
      v = new_value(p, CS_JBOOL);
      if (!v || !expect_word(p, c == 't' ? "true" : "false")) return NULL;
      v->boolean = c == 't';
      return v;
    case 'n':
      v = new_value(p, CS_JNULL);
      if (!v || !expect_word(p, "null")) return NULL;
      return v;
    default:
      if (c == '-' || is_digit(c)) {
        v = new_value(p, CS_JNUMBER);
        if (!v || !parse_number(p, v)) return NULL;
        return v;
      }
      if (c < 0) {
        fail(p, p->pos, "unexpected end of input: a value is expected");
      } else {
        char buf[24];
        fail(p, p->pos, "a value is expected, found %s", describe(p, p->pos, buf, sizeof buf));
      }
      return NULL;
  }
}

cs_jdoc *cs_jparse(const char *text, size_t len, cs_jerror *err) {
  if (err) memset(err, 0, sizeof *err);
  cs_jdoc *doc = calloc(1, sizeof *doc);
  parser p = {text, len, 0, doc, err, false, NULL, NULL, 0, 0};
  if (!doc) {
    oom(&p);
    return NULL;
  }
  const cs_jvalue *root = parse_value(&p, 0);
  if (root) {
    skip_ws(&p);
    if (p.pos < p.len) {
      char buf[24];
      fail(&p, p.pos, "%s after the JSON value", describe(&p, p.pos, buf, sizeof buf));
      root = NULL;
    }
  }
  free(p.stack);
  free(p.stack_keys);
  if (!root) {
    cs_jfree(doc);
    return NULL;
  }
  doc->root = root;
  return doc;
}

cs_jdoc *cs_jparse_file(const char *path, cs_jerror *err) {
  if (err) memset(err, 0, sizeof *err);
  char *buf;
  size_t n;
  cs_err e;
  if (cs_file_read(path, "a JSON document", CS_FILE_JSON_MAX_BYTES, &buf, &n, &e) != CS_OK) {
    if (err) {
      err->line = err->column = 1;
      err->status = e.code;
      snprintf(err->msg, sizeof err->msg, "%.*s", (int)sizeof err->msg - 1, e.msg);
    }
    return NULL;
  }
  cs_jdoc *d = cs_jparse(buf, n, err);
  free(buf);
  return d;
}

const cs_jvalue *cs_jroot(const cs_jdoc *doc) { return doc ? doc->root : NULL; }

/* ---- access ----------------------------------------------------------------------------- */

const char *cs_jtype_name(cs_jtype t) {
  static const char *const names[] = {"null", "bool", "number", "string", "array", "object"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

cs_jtype cs_jtype_of(const cs_jvalue *v) { return v->type; }
bool cs_jis(const cs_jvalue *v, cs_jtype t) { return v && v->type == t; }

size_t cs_jcount(const cs_jvalue *v) {
  return v && (v->type == CS_JARRAY || v->type == CS_JOBJECT) ? v->count : 0;
}

const cs_jvalue *cs_jat(const cs_jvalue *v, size_t i) { return i < cs_jcount(v) ? v->items[i] : NULL; }

const char *cs_jkey_at(const cs_jvalue *v, size_t i) {
  return cs_jis(v, CS_JOBJECT) && i < v->count ? v->keys[i] : NULL;
}

static const cs_jvalue *member_n(const cs_jvalue *obj, const char *key, size_t n) {
  if (!cs_jis(obj, CS_JOBJECT)) return NULL;
  for (size_t i = 0; i < obj->count; i++)
    if (strncmp(obj->keys[i], key, n) == 0 && obj->keys[i][n] == '\0') return obj->items[i];
  return NULL;
}

const cs_jvalue *cs_jmember(const cs_jvalue *obj, const char *key) { return member_n(obj, key, strlen(key)); }

const cs_jvalue *cs_jget(const cs_jvalue *v, const char *path) {
  const char *s = path;
  bool first = true;
  while (v && *s) {
    if (*s == '[') {
      s++;
      if (*s == '"') { /* ["key"] */
        char key[256];
        size_t n = 0;
        for (s++; *s && *s != '"'; s++) {
          if (*s == '\\' && (s[1] == '"' || s[1] == '\\')) s++;
          if (n + 1 >= sizeof key) return NULL;
          key[n++] = *s;
        }
        if (*s != '"' || s[1] != ']') return NULL;
        key[n] = '\0';
        s += 2;
        v = cs_jmember(v, key);
      } else { /* [N] */
        if (*s < '0' || *s > '9') return NULL;
        size_t idx = 0;
        while (*s >= '0' && *s <= '9') {
          size_t d = (size_t)(*s++ - '0');
          if (idx > (SIZE_MAX - d) / 10) return NULL;
          idx = idx * 10 + d;
        }
        if (*s != ']' || !cs_jis(v, CS_JARRAY)) return NULL;
        s++;
        v = cs_jat(v, idx);
      }
    } else {
      if (*s == '.') {
        if (first) return NULL;
        s++;
      } else if (!first) {
        return NULL; /* "a[0]b" */
      }
      size_t n = strcspn(s, ".[");
      if (n == 0) return NULL;
      v = member_n(v, s, n);
      s += n;
    }
    first = false;
  }
  return v;
}

const char *cs_jstring(const cs_jvalue *v) { return cs_jis(v, CS_JSTRING) ? v->text : NULL; }
size_t cs_jstring_len(const cs_jvalue *v) { return cs_jis(v, CS_JSTRING) ? v->len : 0; }

bool cs_jbool(const cs_jvalue *v, bool *out) {
  if (!cs_jis(v, CS_JBOOL)) return false;
  *out = v->boolean;
  return true;
}

bool cs_jnumber(const cs_jvalue *v, double *out) {
  if (!cs_jis(v, CS_JNUMBER)) return false;
  *out = v->number;
  return true;
}

const char *cs_jnumber_text(const cs_jvalue *v) { return cs_jis(v, CS_JNUMBER) ? v->text : NULL; }

/* The magnitude of an integer literal (no '.', 'e' or 'E'), exactly; false if it overflows. */
static bool integer_magnitude(const char *t, bool *negative, uint64_t *mag) {
  *negative = *t == '-';
  if (*negative) t++;
  uint64_t m = 0;
  for (; *t; t++) {
    if (*t < '0' || *t > '9') return false;
    uint64_t d = (uint64_t)(*t - '0');
    if (m > (UINT64_MAX - d) / 10) return false;
    m = m * 10 + d;
  }
  *mag = m;
  return true;
}

bool cs_ju64(const cs_jvalue *v, uint64_t *out) {
  bool neg;
  uint64_t m;
  if (!cs_jis(v, CS_JNUMBER) || !integer_magnitude(v->text, &neg, &m)) return false;
  if (neg && m != 0) return false;
  *out = m;
  return true;
}

bool cs_ji64(const cs_jvalue *v, int64_t *out) {
  bool neg;
  uint64_t m;
  if (!cs_jis(v, CS_JNUMBER) || !integer_magnitude(v->text, &neg, &m)) return false;
  if (neg) {
    if (m > (uint64_t)INT64_MAX + 1) return false;
    *out = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
  } else {
    if (m > (uint64_t)INT64_MAX) return false;
    *out = (int64_t)m;
  }
  return true;
}

const char *cs_jget_string(const cs_jvalue *v, const char *path) { return cs_jstring(cs_jget(v, path)); }
bool cs_jget_number(const cs_jvalue *v, const char *path, double *out) { return cs_jnumber(cs_jget(v, path), out); }
bool cs_jget_u64(const cs_jvalue *v, const char *path, uint64_t *out) { return cs_ju64(cs_jget(v, path), out); }
