/* Tests of how the command line writes its files (base/cs_out through cli_run and cli_exec, and
 * cli/cli_temps for signals): devices and FIFOs written in place, /dev/full and a full stdout
 * failing the run, a failing last output leaving every earlier target unchanged, outputs
 * validated before the simulation, and SIGINT/SIGTERM during a long traced run leaving no
 * temporary file. The binary is run through the shell where a process of its own is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/cli_run.h"
#include "support/tmp_files.h"

/* One core copies A to B through UB; B is 256 bytes, so its .npy is 128 + 256 bytes. */
static const char copy_program[] =
    ".gm A int8 [4,64] in\n"
    ".gm B int8 [4,64] out\n"
    "copy_gm_ub dst=UB:0x0 src=GM:A block_count=1 block_len_bytes=256\n"
    "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
    "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
    "copy_ub_gm dst=GM:B src=UB:0x0 block_count=1 block_len_bytes=256\n";

typedef struct files {
  char dir[64], prog[128], a[128], in_a[140];
  int8_t a_data[256];
} files;

static void files_make(files *t) {
  tf_mkdtemp(t->dir, sizeof t->dir);
  tf_join(t->prog, sizeof t->prog, t->dir, "copy.s");
  tf_join(t->a, sizeof t->a, t->dir, "a.npy");
  tf_write_text(t->prog, copy_program);
  for (int i = 0; i < 256; i++) t->a_data[i] = (int8_t)(i * 7 - 100);
  const size_t shape[2] = {4, 64};
  tf_write_npy(t->a, CS_NPY_I8, 2, shape, t->a_data);
  snprintf(t->in_a, sizeof t->in_a, "A=%s", t->a);
}

static void assert_char_device(const char *path) {
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISCHR(st.st_mode));
}

/* Names in dir that look like temporary files ("*.tmp"). */
static int count_temps(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0) n++;
  }
  closedir(d);
  return n;
}

/* ---- special files ------------------------------------------------------------------------ */

static void test_outputs_dev_null_stays_a_device(void **state) {
  (void)state;
  files t;
  files_make(&t);
  cr_result r = cr_run("exec", t.prog, "--in", t.in_a, "--out", "B=/dev/null", "--trace", "/dev/null", "--csv",
                       "/dev/null", "--dump-stream", "/dev/null", NULL);
  cr_assert_ok(&r);
  cr_free(&r);
  assert_char_device("/dev/null");
  tf_remove_tree(t.dir);
}

/* A FIFO given as --out and as --trace stays a FIFO, and its reader gets the whole file: the
 * .npy equals the one written to a regular file, the trace is the complete JSON. */
static void test_outputs_fifo_receives_the_data(void **state) {
  (void)state;
  files t;
  files_make(&t);
  char fifo[128], got[128], want[128], cmd[1024];
  tf_join(fifo, sizeof fifo, t.dir, "fifo");
  tf_join(got, sizeof got, t.dir, "got");
  tf_join(want, sizeof want, t.dir, "want.npy");
  assert_int_equal(mkfifo(fifo, 0600), 0);
  snprintf(cmd, sizeof cmd, "cat '%s' > '%s' & '%s' exec '%s' --in '%s' --out 'B=%s' >/dev/null; rc=$?; wait; exit $rc",
           fifo, got, CUBESIM_BINARY, t.prog, t.in_a, fifo);
  int status;
  free(cr_shell(cmd, &status));
  assert_int_equal(status, 0);
  char wantb[160];
  snprintf(wantb, sizeof wantb, "B=%s", want);
  cr_result r = cr_run("exec", t.prog, "--in", t.in_a, "--out", wantb, NULL);
  cr_assert_ok(&r);
  cr_free(&r);
  size_t ng, nw;
  char *g = tf_read(got, &ng), *w = tf_read(want, &nw);
  assert_int_equal(ng, 128 + 256);
  assert_int_equal(ng, nw);
  assert_memory_equal(g, w, nw);
  free(g);
  free(w);
  struct stat st;
  assert_int_equal(lstat(fifo, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  /* the trace through the same FIFO */
  snprintf(cmd, sizeof cmd, "cat '%s' > '%s' & '%s' exec '%s' --in '%s' --trace '%s' >/dev/null; rc=$?; wait; exit $rc",
           fifo, got, CUBESIM_BINARY, t.prog, t.in_a, fifo);
  free(cr_shell(cmd, &status));
  assert_int_equal(status, 0);
  g = tf_read(got, &ng);
  cr_assert_prefix(g, "{\"displayTimeUnit\":\"ns\",\"otherData\":");
  assert_true(ng > 2 && strcmp(g + ng - 3, "]}\n") == 0);
  free(g);
  assert_int_equal(lstat(fifo, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_equal(count_temps(t.dir), 0);
  tf_remove_tree(t.dir);
}

/* /dev/stdout is the process's standard output, written in place: the CSV comes out before the
 * summary, which is printed once every output is committed. */
static void test_outputs_dev_stdout_is_the_standard_output(void **state) {
  (void)state;
  files t;
  files_make(&t);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' exec '%s' --in '%s' --csv /dev/stdout", CUBESIM_BINARY, t.prog, t.in_a);
  int status;
  char *out = cr_shell(cmd, &status);
  assert_int_equal(status, 0);
  cr_assert_prefix(out, "core,critical,start_cycles,finish_cycles,");
  cr_assert_contains(out, "\n0,");
  free(out);
  tf_remove_tree(t.dir);
}

/* ---- failures --------------------------------------------------------------------------- */

static void test_outputs_dev_full_fails_the_run(void **state) {
  (void)state;
  files t;
  files_make(&t);
  char b[128], outb[160];
  tf_join(b, sizeof b, t.dir, "b.npy");
  snprintf(outb, sizeof outb, "B=%s", b);
  cr_result r = cr_run("exec", t.prog, "--in", t.in_a, "--out", outb, "--trace", "/dev/full", NULL);
  assert_int_equal(r.status, 2);
  char want[256];
  snprintf(want, sizeof want, "cubesim exec: error: --trace /dev/full: write failed: %s; no trace was kept\n",
           strerror(ENOSPC));
  assert_string_equal(r.err, want);
  assert_string_equal(r.out, "");
  cr_free(&r);
  assert_false(tf_exists(b)); /* nothing committed */
  assert_char_device("/dev/full");
  /* an --out to /dev/full, through cubesim run */
  r = cr_run("run", "matmul", "--attr", "m=16", "--attr", "n=16", "--attr", "k=16", "--out", "c=/dev/full", NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want, "cubesim run: error: --out c /dev/full: cannot write: %s\n", strerror(ENOSPC));
  assert_string_equal(r.err, want);
  cr_free(&r);
  assert_int_equal(count_temps(t.dir), 0);
  tf_remove_tree(t.dir);
}

/* The last output fails: the earlier ones (an existing file, a new one) are as before. */
static void test_outputs_failing_last_output_leaves_earlier_targets_unchanged(void **state) {
  (void)state;
  files t;
  files_make(&t);
  char b[128], outb[160], trace[128], dump[128];
  tf_join(b, sizeof b, t.dir, "b.npy");
  tf_join(trace, sizeof trace, t.dir, "t.json");
  tf_join(dump, sizeof dump, t.dir, "d.s");
  tf_write_text(b, "old b");
  snprintf(outb, sizeof outb, "B=%s", b);
  /* order of commit: --trace, --out, --dump-stream, --csv (last) */
  cr_result r = cr_run("exec", t.prog, "--in", t.in_a, "--trace", trace, "--out", outb, "--dump-stream", dump,
                       "--csv", "/dev/full", NULL);
  assert_int_equal(r.status, 2);
  char want[256];
  snprintf(want, sizeof want, "cubesim exec: error: --csv /dev/full: cannot write: %s\n", strerror(ENOSPC));
  assert_string_equal(r.err, want);
  cr_free(&r);
  char *old = tf_read(b, NULL);
  assert_string_equal(old, "old b");
  free(old);
  assert_false(tf_exists(trace));
  assert_false(tf_exists(dump));
  assert_int_equal(tf_count_entries(t.dir), 3); /* copy.s, a.npy, b.npy */
  tf_remove_tree(t.dir);
}

/* A bad output is found before any work: the program below would deadlock (the wait has no
 * set), yet the error is the output's. */
static void test_outputs_are_validated_before_the_simulation(void **state) {
  (void)state;
  files t;
  files_make(&t);
  char prog[128], bad[160], want[400];
  tf_join(prog, sizeof prog, t.dir, "dead.s");
  tf_write_text(prog, ".gm B int8 [4,64] out\nwait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n");
  snprintf(bad, sizeof bad, "B=%s/nodir/b.npy", t.dir);
  cr_result r = cr_run("exec", prog, "--out", bad, NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want, "cubesim exec: error: --out B %s/nodir/b.npy: directory %s/nodir does not exist\n",
           t.dir, t.dir);
  assert_string_equal(r.err, want);
  cr_free(&r);
  snprintf(bad, sizeof bad, "c=%s/nodir/c.npy", t.dir);
  r = cr_run("run", "matmul", "--attr", "m=16", "--attr", "n=16", "--attr", "k=16", "--out", bad, NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want, "cubesim run: error: --out c %s/nodir/c.npy: directory %s/nodir does not exist\n",
           t.dir, t.dir);
  assert_string_equal(r.err, want);
  cr_free(&r);
  /* the same file twice */
  char twice[160], csv[128];
  tf_join(csv, sizeof csv, t.dir, "x.csv");
  snprintf(twice, sizeof twice, "B=%s", csv);
  r = cr_run("exec", t.prog, "--in", t.in_a, "--out", twice, "--csv", csv, NULL);
  assert_int_equal(r.status, 2);
  snprintf(want, sizeof want, "cubesim exec: error: --csv %s: the same file as --out B %s\n", csv, csv);
  assert_string_equal(r.err, want);
  cr_free(&r);
  assert_int_equal(tf_count_entries(t.dir), 3);
  tf_remove_tree(t.dir);
}

/* Results that cannot be written to stdout fail the command (exit 2), with a message. */
static void test_outputs_full_stdout_is_an_error(void **state) {
  (void)state;
  char cmd[512];
  int status;
  snprintf(cmd, sizeof cmd, "'%s' config show > /dev/full 2>&1 </dev/null; echo \" $?\"", CUBESIM_BINARY);
  /* 2>&1 sends the message to /dev/full too: only the status comes back through echo */
  char *out = cr_shell(cmd, &status);
  assert_string_equal(out, " 2\n");
  free(out);
  snprintf(cmd, sizeof cmd, "'%s' version 2>&1 >/dev/full", CUBESIM_BINARY);
  out = cr_shell(cmd, &status);
  assert_int_equal(status, 2);
  char want[200];
  snprintf(want, sizeof want, "cubesim version: error: cannot write the results to standard output: %s\n",
           strerror(ENOSPC));
  assert_string_equal(out, want);
  free(out);
}

/* ---- signals ------------------------------------------------------------------------------ */

/* The size of the largest "*.tmp" file in dir (-1: none). */
static long largest_temp_bytes(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  long most = -1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len <= 4 || strcmp(e->d_name + len - 4, ".tmp") != 0) continue;
    char path[512];
    struct stat st;
    if (stat(tf_join(path, sizeof path, dir, e->d_name), &st) == 0 && st.st_size > most) most = (long)st.st_size;
  }
  closedir(d);
  return most;
}

/* Starts a traced 8192^3 run (about a minute, gigabytes of trace) in a child process, waits
 * until a temporary file holds more than min_bytes (past the trace's first megabyte: the replay
 * is writing; -1: the files exist, the kernel is being recorded), sends sig and checks the exit status and
 * that nothing is left in the directory. */
static void interrupt_traced_run(int sig, long min_bytes, int want_status) {
  char dir[64], trace[128], csv[128];
  tf_mkdtemp(dir, sizeof dir);
  tf_join(trace, sizeof trace, dir, "t.json");
  tf_join(csv, sizeof csv, dir, "s.csv");
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGINT, SIG_DFL); /* whatever the test runner ignores */
    signal(SIGTERM, SIG_DFL);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(CUBESIM_BINARY, "cubesim", "run", "matmul", "--attr", "in_dtype=fp16", "--attr", "m=8192", "--attr",
          "n=8192", "--attr", "k=8192", "--timing-only", "--trace", trace, "--csv", csv, (char *)NULL);
    _exit(127);
  }
  /* up to 5 minutes: sanitizer builds on a loaded machine take long to reach the replay */
  for (int i = 0; i < 6000 && largest_temp_bytes(dir) <= min_bytes; i++) {
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  bool reached = largest_temp_bytes(dir) > min_bytes;
  assert_int_equal(kill(pid, reached ? sig : SIGKILL), 0);
  if (!reached) {
    waitpid(pid, NULL, 0);
    tf_remove_tree(dir);
    fail_msg("the run wrote no temporary file past %ld bytes in 5 minutes", min_bytes);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), want_status);
  assert_int_equal(tf_count_entries(dir), 0);
  tf_remove_tree(dir);
}

static void test_outputs_sigint_removes_the_temporary_files(void **state) {
  (void)state;
  interrupt_traced_run(SIGINT, 1L << 20, 130);
}

static void test_outputs_sigterm_removes_the_temporary_files(void **state) {
  (void)state;
  interrupt_traced_run(SIGTERM, -1, 143);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_outputs_dev_null_stays_a_device),
      cmocka_unit_test(test_outputs_fifo_receives_the_data),
      cmocka_unit_test(test_outputs_dev_stdout_is_the_standard_output),
      cmocka_unit_test(test_outputs_dev_full_fails_the_run),
      cmocka_unit_test(test_outputs_failing_last_output_leaves_earlier_targets_unchanged),
      cmocka_unit_test(test_outputs_are_validated_before_the_simulation),
      cmocka_unit_test(test_outputs_full_stdout_is_an_error),
      cmocka_unit_test(test_outputs_sigint_removes_the_temporary_files),
      cmocka_unit_test(test_outputs_sigterm_removes_the_temporary_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
