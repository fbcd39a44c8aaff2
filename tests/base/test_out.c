/* Tests of base/cs_out: temporary files next to the target (never a planted one), modes kept,
 * symlinks resolved, devices, FIFOs and inherited descriptors written in place, validation
 * before any work, all-or-nothing commits (rollback included), and the hooks a signal handler
 * relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cs_out.h"
#include "support/tmp_files.h"

/* ---- helpers ---------------------------------------------------------------------------- */

/* Writes text into a fresh set's single output at path and commits. */
static cs_status write_one(const char *path, const char *text, cs_err *e) {
  cs_out_set *s;
  assert_int_equal(cs_out_set_create(NULL, &s, e), CS_OK);
  cs_out *o;
  FILE *f;
  cs_status st = cs_out_add(s, "--x", path, &o, e);
  if (st == CS_OK) st = cs_out_stream(o, &f, e);
  if (st == CS_OK) fputs(text, f);
  if (st == CS_OK) st = cs_out_set_commit(s, e);
  cs_out_set_destroy(s);
  return st;
}

static void assert_file_text(const char *path, const char *want) {
  char *got = tf_read(path, NULL);
  assert_string_equal(got, want);
  free(got);
}

static mode_t mode_of(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return st.st_mode & 07777;
}

/* ---- regular files ---------------------------------------------------------------------- */

static void test_out_new_file_gets_the_umask_mode(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char path[128];
  tf_join(path, sizeof path, d.path, "new.txt");
  mode_t old = umask(022);
  cs_err e;
  assert_int_equal(write_one(path, "hello\n", &e), CS_OK);
  umask(old);
  assert_file_text(path, "hello\n");
  assert_int_equal(mode_of(path), 0644); /* 0666 & ~022, as any new file */
  assert_int_equal(tf_count_entries(d.path), 1);
  tf_dir_remove(&d);
}

static void test_out_replaced_file_keeps_its_mode(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char path[128];
  tf_join(path, sizeof path, d.path, "old.txt");
  tf_write_text(path, "old contents that are longer\n");
  assert_int_equal(chmod(path, 0640), 0);
  struct stat before;
  assert_int_equal(stat(path, &before), 0);
  cs_err e;
  assert_int_equal(write_one(path, "new\n", &e), CS_OK);
  assert_file_text(path, "new\n");
  assert_int_equal(mode_of(path), 0640);
  struct stat after;
  assert_int_equal(stat(path, &after), 0);
  assert_int_not_equal(after.st_ino, before.st_ino); /* replaced by a rename, not rewritten */
  assert_int_equal(tf_count_entries(d.path), 1);
  tf_dir_remove(&d);
}

/* A symlink planted at every name the writer would try first is skipped: the file it points at
 * is never opened, the output still lands. */
static void test_out_planted_symlinks_at_temp_names_are_not_followed(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char path[128], victim[128], link[256];
  tf_join(path, sizeof path, d.path, "out.json");
  tf_join(victim, sizeof victim, d.path, "victim");
  tf_write_text(victim, "precious\n");
  /* a fresh set numbers its temporary names PATH.PID-0.tmp, PATH.PID-1.tmp, ... */
  for (int k = 0; k < 5; k++) {
    snprintf(link, sizeof link, "%s.%ld-%d.tmp", path, (long)getpid(), k);
    assert_int_equal(symlink(victim, link), 0);
  }
  cs_out_set *s;
  cs_err e;
  assert_int_equal(cs_out_set_create(NULL, &s, &e), CS_OK);
  cs_out *o;
  assert_int_equal(cs_out_add(s, "--trace", path, &o, &e), CS_OK);
  snprintf(link, sizeof link, "%s.%ld-5.tmp", path, (long)getpid());
  assert_string_equal(cs_out_temp_path(o), link);
  FILE *f;
  assert_int_equal(cs_out_stream(o, &f, &e), CS_OK);
  fputs("{}\n", f);
  assert_int_equal(cs_out_set_commit(s, &e), CS_OK);
  cs_out_set_destroy(s);
  assert_file_text(victim, "precious\n");
  assert_file_text(path, "{}\n");
  struct stat st;
  for (int k = 0; k < 5; k++) { /* the planted links are left as they were */
    snprintf(link, sizeof link, "%s.%ld-%d.tmp", path, (long)getpid(), k);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
  }
  assert_int_equal(tf_count_entries(d.path), 2 + 5);
  tf_dir_remove(&d);
}

/* A symlink is resolved: its target gets the content, the link stays a link; a dangling link
 * creates its target (through two hops, one relative). */
static void test_out_symlinks_are_resolved_to_their_target(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char real[128], link[128], sub[128], dangling[128], hop[128], made[160];
  tf_join(real, sizeof real, d.path, "real.csv");
  tf_join(link, sizeof link, d.path, "link.csv");
  tf_write_text(real, "old\n");
  assert_int_equal(symlink(real, link), 0);
  cs_err e;
  assert_int_equal(write_one(link, "a,b\n", &e), CS_OK);
  struct stat st;
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_file_text(real, "a,b\n");
  /* dangling: link -> hop -> sub/made.csv (relative), sub exists, made.csv does not */
  tf_join(sub, sizeof sub, d.path, "sub");
  assert_int_equal(mkdir(sub, 0755), 0);
  tf_join(dangling, sizeof dangling, d.path, "dangling");
  tf_join(hop, sizeof hop, d.path, "hop");
  assert_int_equal(symlink("sub/made.csv", hop), 0);
  assert_int_equal(symlink(hop, dangling), 0);
  assert_int_equal(write_one(dangling, "x\n", &e), CS_OK);
  snprintf(made, sizeof made, "%s/made.csv", sub);
  assert_file_text(made, "x\n");
  assert_int_equal(lstat(dangling, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(tf_count_entries(sub), 1);
  /* a loop is refused */
  char a[128], b[128];
  tf_join(a, sizeof a, d.path, "loop_a");
  tf_join(b, sizeof b, d.path, "loop_b");
  assert_int_equal(symlink(b, a), 0);
  assert_int_equal(symlink(a, b), 0);
  assert_int_equal(write_one(a, "x\n", &e), CS_EIO);
  char want[256];
  snprintf(want, sizeof want, "--x %s: more than 40 symlinks to follow (a loop?)", a);
  assert_string_equal(e.msg, want);
  tf_dir_remove(&d);
}

/* ---- validation --------------------------------------------------------------------------- */

static void test_out_bad_targets_are_refused_when_added(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char missing[128], dir[128], file[128], under_file[160], want[400];
  tf_join(missing, sizeof missing, d.path, "nodir/out.npy");
  tf_join(dir, sizeof dir, d.path, "adir");
  assert_int_equal(mkdir(dir, 0755), 0);
  tf_join(file, sizeof file, d.path, "file");
  tf_write_text(file, "");
  snprintf(under_file, sizeof under_file, "%s/x.npy", file);
  cs_out_set *s;
  cs_err e;
  assert_int_equal(cs_out_set_create(NULL, &s, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--out y", missing, NULL, &e), CS_EIO);
  snprintf(want, sizeof want, "--out y %s: directory %s/nodir does not exist", missing, d.path);
  assert_string_equal(e.msg, want);
  assert_int_equal(cs_out_add(s, "--trace", dir, NULL, &e), CS_EIO);
  snprintf(want, sizeof want, "--trace %s: is a directory", dir);
  assert_string_equal(e.msg, want);
  assert_int_equal(cs_out_add(s, "--csv", under_file, NULL, &e), CS_EIO);
  snprintf(want, sizeof want, "--csv %s: %s is not a directory", under_file, file);
  assert_string_equal(e.msg, want);
  assert_int_equal(cs_out_add(s, "--csv", "", NULL, &e), CS_EINVAL);
  assert_string_equal(e.msg, "--csv: an empty file name");
  /* the same file twice, however it is spelled */
  char a[128], a2[160], alink[128];
  tf_join(a, sizeof a, d.path, "a.json");
  snprintf(a2, sizeof a2, "%s/./a.json", d.path);
  tf_join(alink, sizeof alink, d.path, "alink");
  assert_int_equal(symlink("a.json", alink), 0);
  assert_int_equal(cs_out_add(s, "--trace", a, NULL, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--csv", a2, NULL, &e), CS_EINVAL);
  snprintf(want, sizeof want, "--csv %s: the same file as --trace %s", a2, a);
  assert_string_equal(e.msg, want);
  assert_int_equal(cs_out_add(s, "--out c", alink, NULL, &e), CS_EINVAL);
  snprintf(want, sizeof want, "--out c %s: the same file as --trace %s", alink, a);
  assert_string_equal(e.msg, want);
  /* a descriptor that is not open */
  assert_int_equal(cs_out_add(s, "--csv", "/dev/fd/987", NULL, &e), CS_EIO);
  assert_string_equal(e.msg, "--csv /dev/fd/987: descriptor 987 is not open");
  cs_out_set_destroy(s); /* removes the one temporary file: only the fixtures are left */
  assert_int_equal(tf_count_entries(d.path), 3);
  tf_dir_remove(&d);
}

/* ---- special files ------------------------------------------------------------------------ */

static void test_out_devices_are_written_in_place(void **state) {
  (void)state;
  struct stat before, after;
  assert_int_equal(stat("/dev/null", &before), 0);
  cs_err e;
  assert_int_equal(write_one("/dev/null", "discarded\n", &e), CS_OK);
  assert_int_equal(stat("/dev/null", &after), 0);
  assert_true(S_ISCHR(after.st_mode));
  assert_int_equal(after.st_ino, before.st_ino);
  assert_int_equal(after.st_rdev, before.st_rdev);
  /* /dev/full: the write error fails the commit, naming the output and the reason */
  assert_int_equal(write_one("/dev/full", "lost\n", &e), CS_EIO);
  char want[200];
  snprintf(want, sizeof want, "--x /dev/full: cannot write: %s", strerror(ENOSPC));
  assert_string_equal(e.msg, want);
  assert_int_equal(stat("/dev/full", &after), 0);
  assert_true(S_ISCHR(after.st_mode));
}

/* A FIFO stays a FIFO and its reader (a child process) receives the data. */
static void test_out_fifo_is_written_in_place(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char fifo[128], copy[128];
  tf_join(fifo, sizeof fifo, d.path, "pipe");
  tf_join(copy, sizeof copy, d.path, "copy");
  assert_int_equal(mkfifo(fifo, 0600), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) { /* the reader: copies what comes through the FIFO into a file */
    int in = open(fifo, O_RDONLY), out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char buf[256];
    ssize_t k;
    while (in >= 0 && out >= 0 && (k = read(in, buf, sizeof buf)) > 0)
      if (write(out, buf, (size_t)k) != k) _exit(2);
    _exit(in >= 0 && out >= 0 && close(out) == 0 ? 0 : 1);
  }
  cs_err e;
  assert_int_equal(write_one(fifo, "through the pipe\n", &e), CS_OK);
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  assert_file_text(copy, "through the pipe\n");
  struct stat st;
  assert_int_equal(lstat(fifo, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_equal(tf_count_entries(d.path), 2);
  tf_dir_remove(&d);
}

/* /dev/fd/N and /proc/self/fd/N are the process's descriptor N, whatever it refers to (here the
 * write end of a pipe, which a path lookup would turn into "pipe:[...]"). */
static void test_out_inherited_descriptors_are_written_in_place(void **state) {
  (void)state;
  int p[2];
  assert_int_equal(pipe(p), 0);
  char path[64];
  snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
  cs_err e;
  assert_int_equal(write_one(path, "one ", &e), CS_OK);
  snprintf(path, sizeof path, "/proc/self/fd/%d", p[1]);
  assert_int_equal(write_one(path, "two", &e), CS_OK);
  close(p[1]);
  char buf[32] = {0};
  assert_int_equal(read(p[0], buf, sizeof buf - 1), 7);
  assert_string_equal(buf, "one two");
  close(p[0]);
  /* the read end is refused */
  assert_int_equal(pipe(p), 0);
  snprintf(path, sizeof path, "/dev/fd/%d", p[0]);
  assert_int_equal(write_one(path, "x", &e), CS_EIO);
  char want[128];
  snprintf(want, sizeof want, "--x %s: descriptor %d is open for reading only", path, p[0]);
  assert_string_equal(e.msg, want);
  close(p[0]);
  close(p[1]);
}

/* ---- all or nothing ----------------------------------------------------------------------- */

/* The last output fails (a write error): the earlier targets keep their old content and no
 * temporary file is left. */
static void test_out_failure_of_the_last_output_changes_nothing(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char a[128], b[128];
  tf_join(a, sizeof a, d.path, "a.npy");
  tf_join(b, sizeof b, d.path, "b.json");
  tf_write_text(a, "old a\n");
  cs_out_set *s;
  cs_err e;
  assert_int_equal(cs_out_set_create(NULL, &s, &e), CS_OK);
  cs_out *oa, *ob, *ofull;
  FILE *f;
  assert_int_equal(cs_out_add(s, "--out a", a, &oa, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--trace", b, &ob, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--csv", "/dev/full", &ofull, &e), CS_OK);
  assert_int_equal(tf_count_entries(d.path), 3); /* a.npy and two temporary files */
  assert_int_equal(cs_out_stream(oa, &f, &e), CS_OK);
  fputs("new a\n", f);
  assert_int_equal(cs_out_stream(ob, &f, &e), CS_OK);
  fputs("new b\n", f);
  assert_int_equal(cs_out_stream(ofull, &f, &e), CS_OK);
  fputs("csv\n", f);
  assert_int_equal(cs_out_set_commit(s, &e), CS_EIO);
  char want[128];
  snprintf(want, sizeof want, "--csv /dev/full: cannot write: %s", strerror(ENOSPC));
  assert_string_equal(e.msg, want);
  cs_out_set_destroy(s);
  assert_file_text(a, "old a\n");
  assert_false(tf_exists(b));
  assert_int_equal(tf_count_entries(d.path), 1);
  tf_dir_remove(&d);
}

/* A rename that fails half-way (the last target turned into a directory during the run) puts
 * back the targets already renamed: old content restored, new files removed. */
static void test_out_failed_rename_rolls_back_the_earlier_ones(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char a[128], b[128], c[128], inside[160];
  tf_join(a, sizeof a, d.path, "a.txt");
  tf_join(b, sizeof b, d.path, "b.txt");
  tf_join(c, sizeof c, d.path, "c.txt");
  tf_write_text(a, "old a\n");
  cs_out_set *s;
  cs_err e;
  assert_int_equal(cs_out_set_create(NULL, &s, &e), CS_OK);
  cs_out *o[3];
  const char *paths[3] = {a, b, c};
  for (int i = 0; i < 3; i++) {
    FILE *f;
    assert_int_equal(cs_out_add(s, "--x", paths[i], &o[i], &e), CS_OK);
    assert_int_equal(cs_out_stream(o[i], &f, &e), CS_OK);
    fprintf(f, "new %d\n", i);
  }
  assert_int_equal(mkdir(c, 0755), 0);
  snprintf(inside, sizeof inside, "%s/keep", c);
  tf_write_text(inside, "k");
  assert_int_equal(cs_out_set_commit(s, &e), CS_EIO);
  char want[300];
  snprintf(want, sizeof want, "--x %s: cannot rename ", c);
  assert_memory_equal(e.msg, want, strlen(want));
  cs_out_set_destroy(s);
  assert_file_text(a, "old a\n");
  assert_false(tf_exists(b));
  assert_file_text(inside, "k");
  assert_int_equal(tf_count_entries(d.path), 2); /* a.txt and the directory c.txt: no temp, no backup */
  tf_dir_remove(&d);
}

/* Destroying a set that was never committed is how a failed run discards its outputs. */
static void test_out_destroy_without_commit_removes_the_temporary_files(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char a[128];
  tf_join(a, sizeof a, d.path, "a.txt");
  tf_write_text(a, "old\n");
  cs_out_set *s;
  cs_err e;
  assert_int_equal(cs_out_set_create(NULL, &s, &e), CS_OK);
  cs_out *o;
  FILE *f;
  assert_int_equal(cs_out_add(s, "--x", a, &o, &e), CS_OK);
  assert_int_equal(cs_out_stream(o, &f, &e), CS_OK);
  fputs("new\n", f);
  assert_int_equal(tf_count_entries(d.path), 2);
  cs_out_set_destroy(s);
  assert_int_equal(tf_count_entries(d.path), 1);
  assert_file_text(a, "old\n");
  /* an output added but never written becomes an empty file */
  assert_int_equal(cs_out_set_create(NULL, &s, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--x", a, NULL, &e), CS_OK);
  assert_int_equal(cs_out_set_commit(s, &e), CS_OK);
  cs_out_set_destroy(s);
  assert_file_text(a, "");
  tf_dir_remove(&d);
}

/* ---- hooks -------------------------------------------------------------------------------- */

typedef struct hook_log {
  int created, removed, refuse_after;
  char live[4][256]; /* the names the hooks say exist */
  int nlive;
  bool blocked_each_time; /* SIGINT and SIGTERM were blocked in every call */
} hook_log;

static bool signals_blocked(void) {
  sigset_t cur;
  pthread_sigmask(SIG_BLOCK, NULL, &cur);
  return sigismember(&cur, SIGINT) == 1 && sigismember(&cur, SIGTERM) == 1;
}

static bool on_created(void *ctx, const char *path) {
  hook_log *h = ctx;
  h->blocked_each_time &= signals_blocked();
  if (h->created == h->refuse_after) return false;
  h->created++;
  assert_true(tf_exists(path)); /* it exists when reported */
  snprintf(h->live[h->nlive++], sizeof h->live[0], "%s", path);
  return true;
}

static void on_removed(void *ctx, const char *path) {
  hook_log *h = ctx;
  h->blocked_each_time &= signals_blocked();
  h->removed++;
  for (int i = 0; i < h->nlive; i++)
    if (strcmp(h->live[i], path) == 0) {
      assert_true(tf_exists(path)); /* renamed or unlinked right after the call */
      memmove(h->live[i], h->live[i + 1], (size_t)(h->nlive - i - 1) * sizeof h->live[0]);
      h->nlive--;
      return;
    }
  fail_msg("removed %s, which was never reported created", path);
}

static void test_out_hooks_see_every_temporary_file_come_and_go(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  char a[128], b[128];
  tf_join(a, sizeof a, d.path, "a");
  tf_join(b, sizeof b, d.path, "b");
  hook_log h;
  memset(&h, 0, sizeof h);
  h.refuse_after = -1;
  h.blocked_each_time = true;
  cs_out_hooks hooks = {on_created, on_removed, &h};
  cs_out_set *s;
  cs_err e;
  /* committed: both reported created, then removed (renamed) */
  assert_int_equal(cs_out_set_create(&hooks, &s, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--x", a, NULL, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--x", b, NULL, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--x", "/dev/null", NULL, &e), CS_OK); /* no temporary file */
  assert_int_equal(h.created, 2);
  assert_int_equal(h.nlive, 2);
  assert_int_equal(cs_out_set_commit(s, &e), CS_OK);
  assert_int_equal(h.removed, 2);
  assert_int_equal(h.nlive, 0);
  cs_out_set_destroy(s);
  assert_false(signals_blocked()); /* the mask is given back */
  /* discarded: removed as well */
  assert_int_equal(cs_out_set_create(&hooks, &s, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--x", a, NULL, &e), CS_OK);
  assert_int_equal(h.nlive, 1);
  cs_out_set_destroy(s);
  assert_int_equal(h.nlive, 0);
  /* a hook that cannot take one more refuses the output, leaving no file */
  h.refuse_after = h.created;
  assert_int_equal(cs_out_set_create(&hooks, &s, &e), CS_OK);
  assert_int_equal(cs_out_add(s, "--x", b, NULL, &e), CS_EINVAL);
  char want[200];
  snprintf(want, sizeof want, "--x %s: too many outputs at once", b);
  assert_string_equal(e.msg, want);
  cs_out_set_destroy(s);
  assert_true(h.blocked_each_time);
  assert_int_equal(tf_count_entries(d.path), 2); /* a and b */
  tf_dir_remove(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_out_new_file_gets_the_umask_mode),
      cmocka_unit_test(test_out_replaced_file_keeps_its_mode),
      cmocka_unit_test(test_out_planted_symlinks_at_temp_names_are_not_followed),
      cmocka_unit_test(test_out_symlinks_are_resolved_to_their_target),
      cmocka_unit_test(test_out_bad_targets_are_refused_when_added),
      cmocka_unit_test(test_out_devices_are_written_in_place),
      cmocka_unit_test(test_out_fifo_is_written_in_place),
      cmocka_unit_test(test_out_inherited_descriptors_are_written_in_place),
      cmocka_unit_test(test_out_failure_of_the_last_output_changes_nothing),
      cmocka_unit_test(test_out_failed_rename_rolls_back_the_earlier_ones),
      cmocka_unit_test(test_out_destroy_without_commit_removes_the_temporary_files),
      cmocka_unit_test(test_out_hooks_see_every_temporary_file_come_and_go),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
