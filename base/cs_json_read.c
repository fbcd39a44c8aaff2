/* cs_json_read — a strict reader of flat JSON objects (RFC 8259). */
#include "base/cs_json_read.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
  const char *p, *end, *line_start;
  unsigned line;
  const char *where;
  cs_err *err;
} reader;

static unsigned column(const reader *r, const char *at) { return (unsigned)(at - r->line_start) + 1; }

static cs_status fail_at(reader *r, const char *at, const char *what) {
  if (at >= r->end) return cs_err_set(r->err, CS_EINVAL, "%s:%u:%u: expected %s, found the end of the text", r->where, r->line,
                                      column(r, r->end), what);
  unsigned char c = (unsigned char)*at;
  if (c >= 0x20 && c < 0x7f)
    return cs_err_set(r->err, CS_EINVAL, "%s:%u:%u: expected %s, found '%c'", r->where, r->line, column(r, at), what, c);
  return cs_err_set(r->err, CS_EINVAL, "%s:%u:%u: expected %s, found byte 0x%02x", r->where, r->line, column(r, at), what, c);
}

static void skip_ws(reader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) {
    if (*r->p == '\n') {
      r->line++;
      r->line_start = r->p + 1;
    }
    r->p++;
  }
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool read_hex4(reader *r, uint32_t *v) {
  if (r->end - r->p < 4) return false;
  *v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(r->p[i]);
    if (h < 0) return false;
    *v = *v << 4 | (uint32_t)h;
  }
  r->p += 4;
  return true;
}

/* Appends code point cp as UTF-8; false when out does not hold it. */
static bool put_utf8(char *out, size_t cap, size_t *n, uint32_t cp) {
  char b[4];
  size_t k;
  if (cp < 0x80) b[0] = (char)cp, k = 1;
  else if (cp < 0x800) b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), k = 2;
  else if (cp < 0x10000)
    b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | (cp >> 6 & 0x3F)), b[2] = (char)(0x80 | (cp & 0x3F)), k = 3;
  else
    b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | (cp >> 12 & 0x3F)), b[2] = (char)(0x80 | (cp >> 6 & 0x3F)),
    b[3] = (char)(0x80 | (cp & 0x3F)), k = 4;
  if (*n + k >= cap) return false;
  memcpy(out + *n, b, k);
  *n += k;
  return true;
}

/* Length of the valid UTF-8 sequence at p (0 if invalid). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end) {
  unsigned char c = p[0];
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  if ((size_t)(end - p) < n) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (p[i] & 0x3F);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  return n;
}

/* A string at r->p (the opening quote), unescaped into out (what: "key" or "value"). */
static cs_status read_string(reader *r, char *out, size_t cap, const char *what) {
  const char *start = r->p;
  size_t n = 0;
  r->p++;
  for (;;) {
    if (r->p >= r->end) return fail_at(r, r->p, "the closing '\"' of the string");
    unsigned char c = (unsigned char)*r->p;
    if (c == '"') {
      r->p++;
      break;
    }
    if (c < 0x20) return fail_at(r, r->p, "an escape for a control character in a string");
    if (c == '\\') {
      r->p++;
      if (r->p >= r->end) return fail_at(r, r->p, "an escape");
      char e = *r->p++;
      uint32_t cp;
      switch (e) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u': {
          const char *at = r->p - 2;
          if (!read_hex4(r, &cp)) return fail_at(r, at, "\\u and four hex digits");
          if (cp >= 0xDC00 && cp <= 0xDFFF) return fail_at(r, at, "a character, not an unpaired low surrogate");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') return fail_at(r, at, "a high surrogate's low half (\\uDC00..\\uDFFF)");
            r->p += 2;
            if (!read_hex4(r, &lo) || lo < 0xDC00 || lo > 0xDFFF) return fail_at(r, at, "a high surrogate's low half (\\uDC00..\\uDFFF)");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          break;
        }
        default: return fail_at(r, r->p - 1, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
      }
      if (!put_utf8(out, cap, &n, cp)) goto too_long;
      continue;
    }
    size_t k = utf8_len((const unsigned char *)r->p, (const unsigned char *)r->end);
    if (!k) return fail_at(r, r->p, "valid UTF-8 in a string");
    if (n + k >= cap) goto too_long;
    memcpy(out + n, r->p, k);
    n += k;
    r->p += k;
  }
  out[n] = '\0';
  return CS_OK;
too_long:
  return cs_err_set(r->err, CS_EINVAL, "%s:%u:%u: the %s is longer than %zu bytes", r->where, r->line, column(r, start), what,
                    cap - 1);
}

/* A number as RFC 8259 writes it, copied as text. */
static cs_status read_number(reader *r, char *out, size_t cap) {
  const char *s = r->p;
  if (r->p < r->end && *r->p == '-') r->p++;
  if (r->p >= r->end || *r->p < '0' || *r->p > '9') return fail_at(r, r->p, "a digit");
  if (*r->p == '0') {
    r->p++;
    if (r->p < r->end && *r->p >= '0' && *r->p <= '9') return fail_at(r, r->p, "the end of a number starting with 0 (no leading zeros)");
  } else {
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
  }
  if (r->p < r->end && *r->p == '.') {
    r->p++;
    if (r->p >= r->end || *r->p < '0' || *r->p > '9') return fail_at(r, r->p, "a digit after the decimal point");
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
  }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
    r->p++;
    if (r->p < r->end && (*r->p == '+' || *r->p == '-')) r->p++;
    if (r->p >= r->end || *r->p < '0' || *r->p > '9') return fail_at(r, r->p, "a digit in the exponent");
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
  }
  size_t n = (size_t)(r->p - s);
  if (n >= cap)
    return cs_err_set(r->err, CS_EINVAL, "%s:%u:%u: the number is longer than %zu characters", r->where, r->line, column(r, s),
                      cap - 1);
  memcpy(out, s, n);
  out[n] = '\0';
  return CS_OK;
}

static bool word(reader *r, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(r->end - r->p) < n || strncmp(r->p, w, n) != 0) return false;
  r->p += n;
  return true;
}

cs_status cs_json_read_flat(const char *text, size_t len, const char *where, cs_json_member_fn fn, void *arg,
                            cs_err *err) {
  reader r = {text, text + len, text, 1, where, err};
  cs_status st;
  char(*keys)[128] = NULL;
  size_t nkeys = 0, capkeys = 0;
  skip_ws(&r);
  if (r.p >= r.end || *r.p != '{') return fail_at(&r, r.p, "a JSON object '{'");
  r.p++;
  skip_ws(&r);
  bool first = true;
  for (;;) {
    if (r.p < r.end && *r.p == '}' && first) {
      r.p++;
      break;
    }
    cs_json_member m;
    memset(&m, 0, sizeof m);
    if (r.p >= r.end || *r.p != '"') {
      st = fail_at(&r, r.p, first ? "a key (a string) or '}'" : "a key (a string)");
      goto out;
    }
    unsigned kline = r.line, kcol = column(&r, r.p);
    m.key_line = kline;
    m.key_column = kcol;
    if ((st = read_string(&r, m.key, sizeof m.key, "key")) != CS_OK) goto out;
    for (size_t i = 0; i < nkeys; i++)
      if (strcmp(keys[i], m.key) == 0) {
        st = cs_err_set(err, CS_EINVAL, "%s:%u:%u: key \"%s\" appears twice", where, kline, kcol, m.key);
        goto out;
      }
    if (nkeys == capkeys) {
      size_t c2 = capkeys ? capkeys * 2 : 32;
      char(*k2)[128] = realloc(keys, c2 * sizeof *keys);
      if (!k2) {
        st = cs_err_set(err, CS_ENOMEM, "%s: no host memory", where);
        goto out;
      }
      keys = k2;
      capkeys = c2;
    }
    memcpy(keys[nkeys++], m.key, sizeof m.key);
    skip_ws(&r);
    if (r.p >= r.end || *r.p != ':') {
      st = fail_at(&r, r.p, "':' after the key");
      goto out;
    }
    r.p++;
    skip_ws(&r);
    m.line = r.line;
    m.column = column(&r, r.p);
    if (r.p < r.end && *r.p == '"') {
      m.kind = CS_JSON_STRING;
      st = read_string(&r, m.text, sizeof m.text, "value");
    } else if (r.p < r.end && (*r.p == '-' || (*r.p >= '0' && *r.p <= '9'))) {
      m.kind = CS_JSON_NUMBER;
      st = read_number(&r, m.text, sizeof m.text);
    } else if (word(&r, "true")) {
      m.kind = CS_JSON_TRUE;
      st = CS_OK;
    } else if (word(&r, "false")) {
      m.kind = CS_JSON_FALSE;
      st = CS_OK;
    } else if (word(&r, "null")) {
      m.kind = CS_JSON_NULL;
      st = CS_OK;
    } else if (r.p < r.end && (*r.p == '{' || *r.p == '[')) {
      st = fail_at(&r, r.p, "a number, string, true, false or null (this object holds no nested values)");
    } else {
      st = fail_at(&r, r.p, "a value");
    }
    if (st != CS_OK || (st = fn(arg, &m, err)) != CS_OK) goto out;
    skip_ws(&r);
    first = false;
    if (r.p < r.end && *r.p == ',') {
      r.p++;
      skip_ws(&r);
      if (r.p < r.end && *r.p == '}') {
        st = fail_at(&r, r.p, "a key after ',' (no trailing comma)");
        goto out;
      }
      continue;
    }
    if (r.p < r.end && *r.p == '}') {
      r.p++;
      break;
    }
    st = fail_at(&r, r.p, "',' or '}'");
    goto out;
  }
  skip_ws(&r);
  st = r.p < r.end ? fail_at(&r, r.p, "nothing after the object") : CS_OK;
out:
  free(keys);
  return st;
}
