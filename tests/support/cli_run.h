/* cli_run — running the command line in tests: `cubesim ...` through cli_main in this process
 * with its output and errors captured, or the built binary through the shell; and the text
 * assertions those tests share. */
#ifndef TESTS_CLI_RUN_H
#define TESTS_CLI_RUN_H

/* What a run printed (both NUL-terminated, malloc'd) and its exit status. */
typedef struct cr_result {
  int status;
  char *out;
  char *err;
} cr_result;

/* `cubesim <first> ...` (the arguments end with NULL; first may be NULL: no arguments). */
cr_result cr_run(const char *first, ...);
/* The same with argv[0] = "cubesim" given. */
cr_result cr_runv(int argc, char **argv);
void cr_free(cr_result *r);

/* Runs a shell command line; returns what it wrote to its stdout (malloc'd) and its exit
 * status in *status (a command that does not exit normally fails the test). */
char *cr_shell(const char *cmd, int *status);
/* cr_shell of a printf-formatted command line. */
char *cr_shellf(int *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Exit status 0 and nothing on stderr. */
void cr_assert_ok(const cr_result *r);
void cr_assert_contains(const char *text, const char *needle);
void cr_assert_prefix(const char *text, const char *prefix);

#endif
