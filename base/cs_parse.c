/* cs_parse — strict number parsing. */
#include "base/cs_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <strings.h>

static int is_blank(const char *s) {
  for (; *s; s++)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

cs_status cs_parse_u64(const char *s, const char *what, uint64_t *out, cs_err *err) {
  if (!s || is_blank(s) || *s == '-' || *s == '+' || isspace((unsigned char)*s))
    return cs_err_set(err, CS_EINVAL, "%s: '%s' is not an unsigned integer", what, s ? s : "");
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (*end != '\0')
    return cs_err_set(err, CS_EINVAL, "%s: '%s' is not an unsigned integer", what, s);
  if (errno == ERANGE)
    return cs_err_set(err, CS_EINVAL, "%s: '%s' does not fit in 64 bits", what, s);
  /* strtoull takes a leading 0 as octal: refuse "010" rather than read 8. */
  if (s[0] == '0' && s[1] != '\0' && s[1] != 'x' && s[1] != 'X')
    return cs_err_set(err, CS_EINVAL, "%s: '%s' has a leading zero (octal is not accepted)",
                      what, s);
  *out = v;
  return CS_OK;
}

cs_status cs_parse_i64(const char *s, const char *what, int64_t *out, cs_err *err) {
  if (!s || is_blank(s) || isspace((unsigned char)*s))
    return cs_err_set(err, CS_EINVAL, "%s: '%s' is not an integer", what, s ? s : "");
  const char *digits = (*s == '-' || *s == '+') ? s + 1 : s;
  if (*digits == '-' || *digits == '+')
    return cs_err_set(err, CS_EINVAL, "%s: '%s' is not an integer", what, s);
  uint64_t mag;
  cs_status st = cs_parse_u64(digits, what, &mag, err);
  if (st != CS_OK) {
    cs_err_set(err, CS_EINVAL, "%s: '%s' is not an integer", what, s);
    return st;
  }
  if (*s == '-') {
    if (mag > (uint64_t)INT64_MAX + 1)
      return cs_err_set(err, CS_EINVAL, "%s: '%s' does not fit in a signed 64-bit integer",
                        what, s);
    *out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
  } else {
    if (mag > (uint64_t)INT64_MAX)
      return cs_err_set(err, CS_EINVAL, "%s: '%s' does not fit in a signed 64-bit integer",
                        what, s);
    *out = (int64_t)mag;
  }
  return CS_OK;
}

cs_status cs_parse_double(const char *s, const char *what, double *out, cs_err *err) {
  if (!s || is_blank(s) || isspace((unsigned char)*s))
    return cs_err_set(err, CS_EINVAL, "%s: '%s' is not a number", what, s ? s : "");
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end != '\0') return cs_err_set(err, CS_EINVAL, "%s: '%s' is not a number", what, s);
  *out = v; /* ERANGE: strtod gives ±HUGE_VAL or a subnormal/0, which callers then judge */
  return CS_OK;
}

cs_status cs_parse_bool(const char *s, const char *what, int *out, cs_err *err) {
  static const char *const yes[] = {"true", "1", "yes", "on"};
  static const char *const no[] = {"false", "0", "no", "off"};
  for (int i = 0; s && i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0) return *out = 1, CS_OK;
    if (strcasecmp(s, no[i]) == 0) return *out = 0, CS_OK;
  }
  return cs_err_set(err, CS_EINVAL, "%s: '%s' is not a boolean (true or false)", what,
                    s ? s : "");
}
