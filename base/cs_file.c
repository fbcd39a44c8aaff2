/* cs_file — capped whole-file reads and the YAML nesting guard (see cs_file.h). */
#include "base/cs_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cs_host.h"

cs_status cs_file_read(const char *path, const char *what, uint64_t max_bytes, char **text,
                       size_t *len, cs_err *err) {
  *text = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return cs_err_set(err, cs_errno_status(errno, CS_EIO), "%s: cannot open: %s", path, strerror(errno));
  char cap_text[32];
  cs_bytes_text(max_bytes, cap_text, sizeof cap_text);
  struct stat st;
  bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
  if (regular && (uint64_t)st.st_size > max_bytes) {
    char size_text[32];
    cs_bytes_text((uint64_t)st.st_size, size_text, sizeof size_text);
    fclose(f);
    return cs_err_set(err, CS_EINVAL, "%s: %s is more than %s may hold (%s)", path, size_text,
                      what, cap_text);
  }
  if (!regular && max_bytes > CS_FILE_STREAM_MAX_BYTES) {
    max_bytes = CS_FILE_STREAM_MAX_BYTES;
    cs_bytes_text(max_bytes, cap_text, sizeof cap_text);
  }
  /* a regular file is read in one go; anything else in growing steps, one byte past the cap */
  size_t cap = regular ? (size_t)st.st_size + 1 : 65536;
  char *buf = NULL;
  size_t n = 0;
  cs_status r = CS_OK;
  for (;;) {
    if (cap - n < 2) cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
    char *grown = realloc(buf, cap);
    if (!grown) {
      r = cs_err_set(err, CS_ENOMEM, "%s: no host memory to read it (%zu bytes)", path, cap);
      break;
    }
    buf = grown;
    size_t want = cap - n - 1; /* room for the NUL */
    if (n + want > max_bytes + 1) want = (size_t)(max_bytes + 1 - n);
    size_t got = fread(buf + n, 1, want, f);
    n += got;
    if (n > max_bytes) {
      r = cs_err_set(err, CS_EINVAL, "%s: not a regular file, and it gave more than the %s cubesim reads of %s",
                     path, cap_text, what);
      break;
    }
    if (got < want) {
      if (ferror(f)) r = cs_err_set(err, CS_EIO, "%s: read error: %s", path, strerror(errno));
      break;
    }
  }
  fclose(f);
  if (r != CS_OK) {
    free(buf);
    return r;
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return CS_OK;
}

/* Whether a collection or a quoted scalar may start at position i, given `last`, the last
 * non-blank character before it on its line (0: none) and the flow depth. Outside any flow
 * collection, only a value's first character can ("key: [", "- [", "? [", or a line's first),
 * with a blank after the ':' or '-' ("a:[1]" and "x [" are plain scalars); inside one, the
 * character after '[', '{', ',' or ':'. */
static bool starts_node(const char *text, size_t i, char last, unsigned depth) {
  if (last == 0) return true;
  if (depth > 0) return last == '[' || last == '{' || last == ',' || last == ':' || last == '?';
  bool blank_before = i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t');
  return blank_before && (last == ':' || last == '-' || last == '?');
}

cs_status cs_yaml_check_flow_depth(const char *text, size_t len, const char *name,
                                   unsigned max_depth, cs_err *err) {
  unsigned depth = 0, line = 1;
  size_t line_start = 0;
  char quote = 0; /* inside a '...' or "..." scalar */
  char last = 0;  /* the last non-blank character of the line so far, outside quotes */
  for (size_t i = 0; i < len; i++) {
    char ch = text[i];
    if (ch == '\n') {
      line++;
      line_start = i + 1;
      if (!quote) last = 0;
      continue;
    }
    if (quote) {
      if (quote == '"' && ch == '\\') i++; /* the escaped character, whatever it is */
      else if (ch == quote && quote == '\'' && i + 1 < len && text[i + 1] == '\'') i++; /* '' */
      else if (ch == quote) quote = 0, last = ch;
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\r') continue;
    bool blank_before = i == line_start || text[i - 1] == ' ' || text[i - 1] == '\t';
    if (ch == '#' && blank_before) { /* a comment runs to the end of the line */
      while (i + 1 < len && text[i + 1] != '\n') i++;
      continue;
    }
    if ((ch == '\'' || ch == '"') && starts_node(text, i, last, depth)) {
      quote = ch;
    } else if ((ch == '[' || ch == '{') && starts_node(text, i, last, depth)) {
      if (++depth > max_depth)
        return cs_err_set(err, CS_EFORMAT,
                          "%s:%u:%zu: YAML flow collections nested more than %u deep", name, line,
                          i - line_start + 1, max_depth);
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      depth--;
    }
    last = ch;
  }
  return CS_OK;
}
