/* cs_status — cubesim's status codes and the error record every fallible call fills in.
 *
 * The library never exits and never prints: a fallible function returns a cs_status and, when
 * given a non-NULL cs_err, leaves there a one-line message naming the place, the value and the
 * limit. Only main() turns a status into an exit code (cs_status_exit_code).
 */
#ifndef CS_STATUS_H
#define CS_STATUS_H

#include <stddef.h>

/* One row per status: enum name, short name, exit code of the command line, meaning. */
#define CS_STATUS_TABLE(X)                                                            \
  X(CS_OK,        "ok",        0, "success")                                          \
  X(CS_EINVAL,    "invalid",   2, "invalid argument or input value")                  \
  X(CS_ENOMEM,    "nomem",     3, "out of host memory")                               \
  X(CS_EIO,       "io",        2, "file could not be read or written")                \
  X(CS_EFORMAT,   "format",    2, "malformed input file")                             \
  X(CS_ECONFIG,   "config",    2, "invalid configuration")                            \
  X(CS_EFAULT,    "fault",     4, "the simulated kernel raised a fault")              \
  X(CS_EHAZARD,   "hazard",    5, "a data hazard was detected")                       \
  X(CS_EDEADLOCK, "deadlock",  4, "the simulated kernel deadlocked")                  \
  X(CS_EMISMATCH, "mismatch",  6, "results differ from the reference")                \
  X(CS_EINTERNAL, "internal",  70, "internal error (a bug in cubesim)")

typedef enum cs_status {
#define CS_STATUS_ENUM(name, str, code, desc) name,
  CS_STATUS_TABLE(CS_STATUS_ENUM)
#undef CS_STATUS_ENUM
  CS_STATUS_COUNT
} cs_status;

#define CS_ERR_MSG_BYTES 512

/* An error record: the status and a detailed one-line message. */
typedef struct cs_err {
  cs_status code;
  char msg[CS_ERR_MSG_BYTES];
} cs_err;

/* Short name of a status ("invalid", "fault", ...). */
const char *cs_status_name(cs_status st);
/* One-line description of a status. */
const char *cs_status_desc(cs_status st);
/* Exit status the command line uses for st. */
int cs_status_exit_code(cs_status st);

/* Fills err (if non-NULL) with code and a printf-formatted message; returns code. */
cs_status cs_err_set(cs_err *err, cs_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes the message already in err with "prefix: " (for adding the file or operand). */
void cs_err_prefix(cs_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The status of a system call that failed with errno e: CS_ENOMEM when e is ENOMEM (the host ran
 * out of memory: exit 3, whatever the call was), otherwise `otherwise` (CS_EIO, usually). */
cs_status cs_errno_status(int e, cs_status otherwise);
/* Clears err to CS_OK with an empty message. */
void cs_err_clear(cs_err *err);

/* The version of the library ("0.1.0"), to compare with the one a program was built against. */
const char *cs_version(void);

#endif
