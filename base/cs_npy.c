/* cs_npy — .npy reading (versions 1.0, 2.0, 3.0) and atomic writing (version 1.0). */
#include "base/cs_npy.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cs_host.h"
#include "base/cs_out.h"

/* The data bytes are copied as they are: cubesim runs on little-endian hosts only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cs_npy assumes a little-endian host"
#endif

static const struct {
  const char *descr;
  size_t bytes;
  const char *name;
} dtype_rows[CS_NPY_DTYPE_COUNT] = {
#define CS_NPY_DTYPE_ROW(id, descr, bytes, name) {descr, bytes, name},
    CS_NPY_DTYPE_TABLE(CS_NPY_DTYPE_ROW)
#undef CS_NPY_DTYPE_ROW
};

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
#define NPY_PREAMBLE_V1_BYTES 10u /* magic, 2 version bytes, uint16 header length */
#define NPY_PREAMBLE_V2_BYTES 12u /* magic, 2 version bytes, uint32 header length */
#define NPY_ALIGN_BYTES 64u       /* numpy pads the header so the data starts 64-aligned */
#define NPY_DESCR_MAX 32u
/* numpy writes headers of a few hundred bytes (and by default refuses to read past 10000) */
#define NPY_MAX_HEADER_BYTES 65536u

const char *cs_npy_dtype_descr(cs_npy_dtype t) {
  return (unsigned)t < CS_NPY_DTYPE_COUNT ? dtype_rows[t].descr : "?";
}
size_t cs_npy_dtype_bytes(cs_npy_dtype t) {
  return (unsigned)t < CS_NPY_DTYPE_COUNT ? dtype_rows[t].bytes : 0;
}
const char *cs_npy_dtype_name(cs_npy_dtype t) {
  return (unsigned)t < CS_NPY_DTYPE_COUNT ? dtype_rows[t].name : "?";
}

cs_npy_dtype cs_npy_dtype_from_descr(const char *descr) {
  if (!descr) return CS_NPY_DTYPE_COUNT;
  for (int t = 0; t < CS_NPY_DTYPE_COUNT; t++) {
    const char *d = dtype_rows[t].descr;
    if (strcmp(descr, d) == 0) return (cs_npy_dtype)t;
    /* Byte order means nothing for one byte: numpy writes '|', other writers '<'. */
    if (d[0] == '|' && descr[0] == '<' && strcmp(descr + 1, d + 1) == 0) return (cs_npy_dtype)t;
  }
  return CS_NPY_DTYPE_COUNT;
}

void cs_npy_free(cs_npy *a) {
  if (!a) return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

/* ---- Header parsing ---- */

typedef struct header {
  cs_npy_dtype dtype;
  int ndim;
  size_t shape[CS_NPY_MAX_DIMS];
  size_t count;
  size_t data_bytes;
  size_t data_offset; /* bytes before the data */
} header;

/* A cursor over the header dict text. */
typedef struct scan {
  const char *name; /* file name for messages */
  const char *start;
  const char *p;
  const char *end;
} scan;

static cs_status syntax(scan *s, cs_err *err, const char *what) {
  return cs_err_set(err, CS_EFORMAT, "%s: malformed header: %s at column %td", s->name, what,
                    s->p - s->start + 1);
}

static void skip_ws(scan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

static int peek(scan *s) { return s->p < s->end ? (unsigned char)*s->p : -1; }

/* A Python string literal in single or double quotes, without escapes. */
static cs_status parse_string(scan *s, char *out, size_t out_bytes, cs_err *err) {
  int q = peek(s);
  if (q != '\'' && q != '"') return syntax(s, err, "expected a quoted string");
  s->p++;
  size_t n = 0;
  while (s->p < s->end && *s->p != q) {
    if (*s->p == '\\') return syntax(s, err, "escapes in strings are not supported");
    if (n + 1 >= out_bytes) return syntax(s, err, "string too long");
    out[n++] = *s->p++;
  }
  if (s->p >= s->end) return syntax(s, err, "unterminated string");
  s->p++;
  out[n] = '\0';
  return CS_OK;
}

static cs_status parse_bool(scan *s, int *out, cs_err *err) {
  size_t left = (size_t)(s->end - s->p);
  if (left >= 4 && memcmp(s->p, "True", 4) == 0) {
    s->p += 4;
    *out = 1;
  } else if (left >= 5 && memcmp(s->p, "False", 5) == 0) {
    s->p += 5;
    *out = 0;
  } else {
    return syntax(s, err, "expected True or False");
  }
  return CS_OK;
}

/* A non-negative integer (Python 2 writers may append 'L'). */
static cs_status parse_dim(scan *s, size_t *out, cs_err *err) {
  if (peek(s) < '0' || peek(s) > '9') return syntax(s, err, "expected a dimension (an integer)");
  size_t v = 0;
  while (peek(s) >= '0' && peek(s) <= '9') {
    size_t d = (size_t)(*s->p - '0');
    if (v > (SIZE_MAX - d) / 10) return syntax(s, err, "dimension too large");
    v = v * 10 + d;
    s->p++;
  }
  if (peek(s) == 'L') s->p++;
  *out = v;
  return CS_OK;
}

/* A Python tuple of dimensions: "()", "(3,)", "(2, 3)", "(2, 3,)". "(3)" is not a tuple. */
static cs_status parse_shape(scan *s, header *h, cs_err *err) {
  if (peek(s) != '(') return syntax(s, err, "expected the shape tuple '('");
  s->p++;
  h->ndim = 0;
  int trailing_comma = 0;
  for (;;) {
    skip_ws(s);
    if (peek(s) == ')') break;
    if (h->ndim > 0 && !trailing_comma) return syntax(s, err, "expected ',' or ')' in the shape");
    if (h->ndim == CS_NPY_MAX_DIMS)
      return cs_err_set(err, CS_EFORMAT, "%s: the shape has more than %d dimensions (cubesim "
                        "reads at most %d)", s->name, CS_NPY_MAX_DIMS, CS_NPY_MAX_DIMS);
    cs_status st = parse_dim(s, &h->shape[h->ndim], err);
    if (st != CS_OK) return st;
    h->ndim++;
    skip_ws(s);
    trailing_comma = 0;
    if (peek(s) == ',') {
      trailing_comma = 1;
      s->p++;
    }
  }
  if (h->ndim == 1 && !trailing_comma)
    return syntax(s, err, "a one-dimensional shape must be written (n,) (with the comma)");
  s->p++;
  return CS_OK;
}

/* The three keys of the header dict, in any order, each exactly once. */
static cs_status parse_dict(scan *s, header *h, char *descr, size_t descr_bytes, int *fortran,
                            cs_err *err) {
  int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
  skip_ws(s);
  if (peek(s) != '{') return syntax(s, err, "expected '{'");
  s->p++;
  for (;;) {
    skip_ws(s);
    if (peek(s) == '}') break;
    char key[32];
    cs_status st = parse_string(s, key, sizeof key, err);
    if (st != CS_OK) return st;
    skip_ws(s);
    if (peek(s) != ':') return syntax(s, err, "expected ':' after a key");
    s->p++;
    skip_ws(s);
    int *seen;
    if (strcmp(key, "descr") == 0) {
      seen = &seen_descr;
      if (peek(s) == '[')
        return cs_err_set(err, CS_EFORMAT, "%s: structured dtypes are not supported (cubesim "
                          "reads plain numeric arrays)", s->name);
      st = parse_string(s, descr, descr_bytes, err);
    } else if (strcmp(key, "fortran_order") == 0) {
      seen = &seen_fortran;
      st = parse_bool(s, fortran, err);
    } else if (strcmp(key, "shape") == 0) {
      seen = &seen_shape;
      st = parse_shape(s, h, err);
    } else {
      return cs_err_set(err, CS_EFORMAT, "%s: malformed header: unexpected key '%s' (a .npy "
                        "header has exactly descr, fortran_order and shape)", s->name, key);
    }
    if (st != CS_OK) return st;
    if (*seen)
      return cs_err_set(err, CS_EFORMAT, "%s: malformed header: key '%s' appears twice",
                        s->name, key);
    *seen = 1;
    skip_ws(s);
    if (peek(s) == ',') {
      s->p++;
      continue;
    }
    skip_ws(s);
    if (peek(s) != '}') return syntax(s, err, "expected ',' or '}' after a value");
  }
  s->p++;
  skip_ws(s);
  if (s->p != s->end) return syntax(s, err, "unexpected text after the dict");
  const char *missing = !seen_descr ? "descr" : !seen_fortran ? "fortran_order"
                        : !seen_shape ? "shape" : NULL;
  if (missing)
    return cs_err_set(err, CS_EFORMAT, "%s: malformed header: key '%s' is missing", s->name,
                      missing);
  return CS_OK;
}

static void supported_list(char *out, size_t n) {
  size_t used = 0;
  out[0] = '\0';
  for (int t = 0; t < CS_NPY_DTYPE_COUNT && used < n; t++) {
    int k = snprintf(out + used, n - used, "%s%s", t ? " " : "", dtype_rows[t].descr);
    if (k < 0) break;
    used += (size_t)k;
  }
}

/* The preamble: magic, version, header length. n is how many bytes b holds (the whole file, or
 * its first bytes when it is read piece by piece: at most 12 are looked at). */
static cs_status parse_preamble(const unsigned char *b, size_t n, const char *name, size_t *pre_out,
                                size_t *hlen_out, cs_err *err) {
  if (n == 0) return cs_err_set(err, CS_EFORMAT, "%s: not a .npy file: it is empty", name);
  if (n < sizeof npy_magic || memcmp(b, npy_magic, sizeof npy_magic) != 0) {
    char got[3 * sizeof npy_magic + 1] = "";
    size_t k = n < sizeof npy_magic ? n : sizeof npy_magic;
    for (size_t i = 0, used = 0; i < k; i++)
      used += (size_t)snprintf(got + used, sizeof got - used, "%s%02x", i ? " " : "", b[i]);
    int zip = n >= 2 && b[0] == 'P' && b[1] == 'K';
    return cs_err_set(err, CS_EFORMAT,
                      "%s: not a .npy file: it starts with %s, not the magic 93 4e 55 4d 50 59 "
                      "(\"\\x93NUMPY\")%s",
                      name, got,
                      zip ? "; it looks like a zip archive (an .npz?): extract the .npy inside"
                          : "");
  }
  if (n < NPY_PREAMBLE_V1_BYTES)
    return cs_err_set(err, CS_EFORMAT, "%s: truncated: %zu bytes, shorter than the 10-byte "
                      ".npy preamble", name, n);
  unsigned major = b[6], minor = b[7];
  if (major == 1 && minor == 0) {
    *pre_out = NPY_PREAMBLE_V1_BYTES;
    *hlen_out = (size_t)b[8] | (size_t)b[9] << 8;
  } else if ((major == 2 || major == 3) && minor == 0) {
    *pre_out = NPY_PREAMBLE_V2_BYTES;
    if (n < NPY_PREAMBLE_V2_BYTES)
      return cs_err_set(err, CS_EFORMAT, "%s: truncated: %zu bytes, shorter than the 12-byte "
                        ".npy %u.0 preamble", name, n, major);
    *hlen_out = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
  } else {
    return cs_err_set(err, CS_EFORMAT, "%s: unsupported .npy format version %u.%u (cubesim "
                      "reads 1.0, 2.0 and 3.0)", name, major, minor);
  }
  return CS_OK;
}

/* The header dict (hlen bytes at text) and the checks on what it says; h->data_offset is set
 * to pre + hlen. */
static cs_status parse_dict_text(const char *text, size_t pre, size_t hlen, const char *name, header *h,
                                 cs_err *err) {
  scan s = {name, text, text, text + hlen};
  char descr[NPY_DESCR_MAX];
  int fortran = 0;
  cs_status st = parse_dict(&s, h, descr, sizeof descr, &fortran, err);
  if (st != CS_OK) return st;

  h->dtype = cs_npy_dtype_from_descr(descr);
  if (h->dtype == CS_NPY_DTYPE_COUNT) {
    char list[128];
    supported_list(list, sizeof list);
    if (descr[0] == '>')
      return cs_err_set(err, CS_EFORMAT, "%s: big-endian dtype '%s' is not supported (cubesim "
                        "reads little-endian data: save arr.astype('<%s'))", name, descr,
                        descr + 1);
    return cs_err_set(err, CS_EFORMAT, "%s: dtype '%s' is not supported (cubesim reads %s)",
                      name, descr, list);
  }
  if (fortran)
    return cs_err_set(err, CS_EFORMAT, "%s: fortran_order is True: cubesim reads C-order "
                      "arrays only (save np.ascontiguousarray(arr))", name);
  size_t count = 1;
  for (int i = 0; i < h->ndim; i++) {
    if (h->shape[i] && count > SIZE_MAX / h->shape[i])
      return cs_err_set(err, CS_EFORMAT, "%s: the shape's element count overflows", name);
    count *= h->shape[i];
  }
  size_t item = dtype_rows[h->dtype].bytes;
  if (count > SIZE_MAX / item)
    return cs_err_set(err, CS_EFORMAT, "%s: the shape's byte count overflows", name);
  h->count = count;
  h->data_bytes = count * item;
  h->data_offset = pre + hlen;
  return CS_OK;
}

static cs_status check_data_size(const char *name, const header *h, size_t have, cs_err *err) {
  if (have < h->data_bytes)
    return cs_err_set(err, CS_EFORMAT, "%s: truncated: header says %zu bytes of data, file has "
                      "%zu", name, h->data_bytes, have);
  if (have > h->data_bytes)
    return cs_err_set(err, CS_EFORMAT, "%s: %zu extra bytes after the data: header says %zu "
                      "bytes of data, file has %zu", name, have - h->data_bytes, h->data_bytes,
                      have);
  return CS_OK;
}

static cs_status header_truncated(const char *name, size_t hlen, size_t have, cs_err *err) {
  return cs_err_set(err, CS_EFORMAT, "%s: truncated: the header length says %zu bytes of "
                    "header, the file has %zu after the preamble", name, hlen, have);
}

/* Everything before the data: preamble, header dict, and the checks on what it says. n is the
 * size of the whole image (the data must fill the rest of it exactly). */
static cs_status parse_header(const unsigned char *b, size_t n, const char *name, header *h,
                              cs_err *err) {
  memset(h, 0, sizeof *h);
  size_t pre, hlen;
  cs_status st = parse_preamble(b, n, name, &pre, &hlen, err);
  if (st != CS_OK) return st;
  if (hlen > n - pre) return header_truncated(name, hlen, n - pre, err);
  st = parse_dict_text((const char *)b + pre, pre, hlen, name, h, err);
  return st != CS_OK ? st : check_data_size(name, h, n - h->data_offset, err);
}

static void fill(cs_npy *out, const header *h, void *data) {
  memset(out, 0, sizeof *out);
  out->dtype = h->dtype;
  out->descr = dtype_rows[h->dtype].descr;
  out->item_bytes = dtype_rows[h->dtype].bytes;
  out->ndim = h->ndim;
  memcpy(out->shape, h->shape, sizeof h->shape);
  out->count = h->count;
  out->data_bytes = h->data_bytes;
  out->data = data;
}

cs_status cs_npy_parse(const void *bytes, size_t n_bytes, const char *name, cs_npy *out,
                       cs_err *err) {
  memset(out, 0, sizeof *out);
  header h;
  cs_status st = parse_header(bytes, n_bytes, name, &h, err);
  if (st != CS_OK) return st;
  void *data = malloc(h.data_bytes ? h.data_bytes : 1);
  if (!data)
    return cs_err_set(err, CS_ENOMEM, "%s: no host memory for %zu bytes of data", name,
                      h.data_bytes);
  if (h.data_bytes) memcpy(data, (const unsigned char *)bytes + h.data_offset, h.data_bytes);
  fill(out, &h, data);
  return CS_OK;
}

/* Reads up to n bytes (fewer only at the end of the file or on an error). */
static size_t read_some(FILE *f, void *buf, size_t n) { return n ? fread(buf, 1, n, f) : 0; }

/* The header is read first and the data only once its size is known and allowed, so a huge or
 * endless input (a FIFO, /dev/zero) costs nothing before it is refused. */
static cs_status read_open(FILE *f, const char *path, uint64_t max_data_bytes, cs_npy *out, cs_err *err) {
  struct stat sb;
  bool regular = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode);
  unsigned char first[NPY_PREAMBLE_V2_BYTES];
  size_t got = read_some(f, first, sizeof first);
  if (ferror(f)) return cs_err_set(err, CS_EIO, "%s: read error: %s", path, strerror(errno));
  size_t pre, hlen;
  cs_status st = parse_preamble(first, regular ? (size_t)sb.st_size : got, path, &pre, &hlen, err);
  if (st != CS_OK) return st;
  if (hlen > NPY_MAX_HEADER_BYTES)
    return cs_err_set(err, CS_EFORMAT, "%s: a header of %zu bytes is longer than cubesim reads (%u)", path,
                      hlen, NPY_MAX_HEADER_BYTES);
  char *text = malloc(hlen + 1);
  if (!text) return cs_err_set(err, CS_ENOMEM, "%s: no host memory for its header", path);
  /* what the preamble's read already took of the header: the 12 bytes of a 2.0 preamble hold
   * two bytes after a 1.0 one, more than a header of 0 or 1 bytes (never a valid dict: refused
   * below) */
  size_t have = got > pre ? got - pre : 0;
  if (have > hlen) have = hlen;
  memcpy(text, first + pre, have);
  have += read_some(f, text + have, hlen - have);
  header h;
  memset(&h, 0, sizeof h);
  st = have < hlen ? header_truncated(path, hlen, have, err) : parse_dict_text(text, pre, hlen, path, &h, err);
  free(text);
  if (st != CS_OK) return st;
  if (regular) { /* the size says already whether the data is all there */
    size_t after = (uint64_t)sb.st_size > h.data_offset ? (size_t)sb.st_size - h.data_offset : 0;
    if ((st = check_data_size(path, &h, after, err)) != CS_OK) return st;
  }
  if (h.data_bytes > max_data_bytes) {
    char size_text[32], max_text[32];
    cs_bytes_text(h.data_bytes, size_text, sizeof size_text);
    cs_bytes_text(max_data_bytes, max_text, sizeof max_text);
    return cs_err_set(err, CS_ENOMEM, "%s: its data (%s) is more than the host memory left for it (%s)", path,
                      size_text, max_text);
  }
  void *data = malloc(h.data_bytes ? h.data_bytes : 1);
  if (!data) return cs_err_set(err, CS_ENOMEM, "%s: no host memory for %zu bytes of data", path, h.data_bytes);
  size_t n = read_some(f, data, h.data_bytes);
  if (ferror(f)) st = cs_err_set(err, CS_EIO, "%s: read error: %s", path, strerror(errno));
  else if (n < h.data_bytes) st = check_data_size(path, &h, n, err);
  else if (fgetc(f) != EOF) /* a stream that goes on: how far is not worth reading */
    st = cs_err_set(err, CS_EFORMAT, "%s: extra bytes after the data: header says %zu bytes of data", path,
                    h.data_bytes);
  if (st != CS_OK) {
    free(data);
    return st;
  }
  fill(out, &h, data);
  return CS_OK;
}

cs_status cs_npy_read_max(const char *path, uint64_t max_data_bytes, cs_npy *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return cs_err_set(err, cs_errno_status(errno, CS_EIO), "%s: cannot open: %s", path, strerror(errno));
  cs_status st = read_open(f, path, max_data_bytes, out, err);
  fclose(f);
  return st;
}

cs_status cs_npy_read(const char *path, cs_npy *out, cs_err *err) {
  return cs_npy_read_max(path, UINT64_MAX, out, err);
}

/* ---- Writing ---- */

/* Builds the numpy header text (dict, space padding, '\n') for format 1.0, or 2.0 when the
 * text does not fit a uint16 length. Returns the preamble+header bytes in *out (malloc'd). */
static cs_status build_header(cs_npy_dtype dtype, int ndim, const size_t *shape,
                              unsigned char **out, size_t *out_bytes, cs_err *err) {
  char dict[64 + CS_NPY_MAX_DIMS * 24];
  int k = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   dtype_rows[dtype].descr);
  size_t used = (size_t)k;
  for (int i = 0; i < ndim; i++) {
    k = snprintf(dict + used, sizeof dict - used, "%s%zu", i ? ", " : "", shape[i]);
    used += (size_t)k;
  }
  k = snprintf(dict + used, sizeof dict - used, "%s), }", ndim == 1 ? "," : "");
  used += (size_t)k;

  size_t pre = NPY_PREAMBLE_V1_BYTES;
  size_t total = pre + used + 1;
  total = (total + NPY_ALIGN_BYTES - 1) / NPY_ALIGN_BYTES * NPY_ALIGN_BYTES;
  if (total - pre > 0xFFFFu) {
    pre = NPY_PREAMBLE_V2_BYTES;
    total = (pre + used + 1 + NPY_ALIGN_BYTES - 1) / NPY_ALIGN_BYTES * NPY_ALIGN_BYTES;
  }
  unsigned char *b = malloc(total);
  if (!b) return cs_err_set(err, CS_ENOMEM, "no host memory for a %zu-byte .npy header", total);
  size_t hlen = total - pre;
  memcpy(b, npy_magic, sizeof npy_magic);
  b[6] = pre == NPY_PREAMBLE_V1_BYTES ? 1 : 2;
  b[7] = 0;
  b[8] = (unsigned char)(hlen & 0xFF);
  b[9] = (unsigned char)(hlen >> 8 & 0xFF);
  if (pre == NPY_PREAMBLE_V2_BYTES) {
    b[10] = (unsigned char)(hlen >> 16 & 0xFF);
    b[11] = (unsigned char)(hlen >> 24 & 0xFF);
  }
  memcpy(b + pre, dict, used);
  memset(b + pre + used, ' ', total - pre - used - 1);
  b[total - 1] = '\n';
  *out = b;
  *out_bytes = total;
  return CS_OK;
}

/* The checks and the header of a write; *head is malloc'd. */
static cs_status prepare_write(const char *name, cs_npy_dtype dtype, int ndim, const size_t *shape,
                               const void *data, unsigned char **head, size_t *head_bytes,
                               size_t *data_bytes, cs_err *err) {
  if ((unsigned)dtype >= CS_NPY_DTYPE_COUNT)
    return cs_err_set(err, CS_EINVAL, "%s: unknown dtype %d", name, (int)dtype);
  if (ndim < 0 || ndim > CS_NPY_MAX_DIMS)
    return cs_err_set(err, CS_EINVAL, "%s: %d dimensions (cubesim writes 0 to %d)", name, ndim,
                      CS_NPY_MAX_DIMS);
  size_t count = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] && count > SIZE_MAX / shape[i])
      return cs_err_set(err, CS_EINVAL, "%s: the shape's element count overflows", name);
    count *= shape[i];
  }
  size_t item = dtype_rows[dtype].bytes;
  if (count > SIZE_MAX / item)
    return cs_err_set(err, CS_EINVAL, "%s: the shape's byte count overflows", name);
  *data_bytes = count * item;
  if (*data_bytes && !data)
    return cs_err_set(err, CS_EINVAL, "%s: no data given for %zu elements", name, count);
  return build_header(dtype, ndim, shape, head, head_bytes, err);
}

cs_status cs_npy_fwrite(FILE *f, const char *name, cs_npy_dtype dtype, int ndim,
                        const size_t *shape, const void *data, cs_err *err) {
  unsigned char *head;
  size_t head_bytes, data_bytes;
  cs_status st = prepare_write(name, dtype, ndim, shape, data, &head, &head_bytes, &data_bytes, err);
  if (st != CS_OK) return st;
  if (fwrite(head, 1, head_bytes, f) != head_bytes ||
      (data_bytes && fwrite(data, 1, data_bytes, f) != data_bytes))
    st = cs_err_set(err, CS_EIO, "%s: cannot write: %s", name, strerror(errno));
  free(head);
  return st;
}

typedef struct npy_job {
  const char *path;
  cs_npy_dtype dtype;
  int ndim;
  const size_t *shape;
  const void *data;
} npy_job;

static cs_status fill_npy(FILE *f, void *ctx, cs_err *err) {
  const npy_job *j = ctx;
  return cs_npy_fwrite(f, j->path, j->dtype, j->ndim, j->shape, j->data, err);
}

cs_status cs_npy_write(const char *path, cs_npy_dtype dtype, int ndim, const size_t *shape,
                       const void *data, cs_err *err) {
  /* the checks come first, so a bad call leaves no file behind */
  unsigned char *head;
  size_t head_bytes, data_bytes;
  cs_status st = prepare_write(path, dtype, ndim, shape, data, &head, &head_bytes, &data_bytes, err);
  if (st != CS_OK) return st;
  free(head);
  npy_job j = {path, dtype, ndim, shape, data};
  return cs_out_write_file("", path, fill_npy, &j, err);
}
