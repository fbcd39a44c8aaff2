/* cs_status — status names, exit codes and the error record. */
#include "base/cs_status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
  const char *name;
  int exit_code;
  const char *desc;
} status_rows[CS_STATUS_COUNT] = {
#define CS_STATUS_ROW(name, str, code, desc) {str, code, desc},
    CS_STATUS_TABLE(CS_STATUS_ROW)
#undef CS_STATUS_ROW
};

const char *cs_status_name(cs_status st) {
  return (unsigned)st < CS_STATUS_COUNT ? status_rows[st].name : "unknown";
}

const char *cs_status_desc(cs_status st) {
  return (unsigned)st < CS_STATUS_COUNT ? status_rows[st].desc : "unknown status";
}

int cs_status_exit_code(cs_status st) {
  return (unsigned)st < CS_STATUS_COUNT ? status_rows[st].exit_code : 70;
}

cs_status cs_err_set(cs_err *err, cs_status code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return code;
}

void cs_err_prefix(cs_err *err, const char *fmt, ...) {
  if (!err) return;
  char line[CS_ERR_MSG_BYTES];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t used = strlen(line);
  if (used + 2 < sizeof line) {
    memcpy(line + used, ": ", 3);
    used += 2;
    size_t room = sizeof line - 1 - used;
    size_t len = strlen(err->msg);
    if (len > room) len = room;
    memcpy(line + used, err->msg, len);
    line[used + len] = '\0';
  }
  memcpy(err->msg, line, sizeof line);
}

void cs_err_clear(cs_err *err) {
  if (!err) return;
  err->code = CS_OK;
  err->msg[0] = '\0';
}

const char *cs_version(void) { return CUBESIM_VERSION; }

cs_status cs_errno_status(int e, cs_status otherwise) { return e == ENOMEM ? CS_ENOMEM : otherwise; }
