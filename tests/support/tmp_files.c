/* tmp_files — the files a test writes and reads back (see tmp_files.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/tmp_files.h"

void tf_mkdtemp(char *dir, size_t n) {
  int k = snprintf(dir, n, "/tmp/cubesim_test_XXXXXX");
  assert_true(k > 0 && (size_t)k < n);
  if (!mkdtemp(dir)) fail_msg("mkdtemp %s: %s", dir, strerror(errno));
}

void tf_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) fail_msg("cannot remove %s: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode)) {
    DIR *dir = opendir(path);
    if (!dir) fail_msg("cannot list %s: %s", path, strerror(errno));
    struct dirent *e;
    char sub[512];
    while ((e = readdir(dir)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      tf_remove_tree(tf_join(sub, sizeof sub, path, e->d_name));
    }
    closedir(dir);
    if (rmdir(path) != 0) fail_msg("cannot remove %s: %s", path, strerror(errno));
  } else if (unlink(path) != 0) {
    fail_msg("cannot remove %s: %s", path, strerror(errno));
  }
}

const char *tf_join(char *out, size_t n, const char *dir, const char *name) {
  int k = snprintf(out, n, "%s/%s", dir, name);
  if (k < 0 || (size_t)k >= n) fail_msg("path %s/%s is longer than %zu bytes", dir, name, n - 1);
  return out;
}

void tf_dir_make(tf_dir *d) { tf_mkdtemp(d->path, sizeof d->path); }

void tf_dir_remove(const tf_dir *d) { tf_remove_tree(d->path); }

int tf_count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot list %s: %s", dir, strerror(errno));
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
  closedir(d);
  return n;
}

bool tf_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

void tf_write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) fail_msg("cannot create %s: %s", path, strerror(errno));
  assert_int_equal(fwrite(data, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

void tf_write_text(const char *path, const char *text) { tf_write_bytes(path, text, strlen(text)); }

char *tf_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot read %s: %s", path, strerror(errno));
  size_t cap = 65536, used = 0, got;
  char *buf = malloc(cap);
  assert_non_null(buf);
  while ((got = fread(buf + used, 1, cap - used - 1, f)) > 0) {
    used += got;
    if (cap - used == 1) {
      cap *= 2;
      buf = realloc(buf, cap);
      assert_non_null(buf);
    }
  }
  fclose(f);
  buf[used] = '\0';
  if (len) *len = used;
  return buf;
}

void tf_write_npy(const char *path, cs_npy_dtype dtype, int ndim, const size_t *shape, const void *data) {
  cs_err e;
  if (cs_npy_write(path, dtype, ndim, shape, data, &e) != CS_OK) fail_msg("%s", e.msg);
}

void tf_read_npy(const char *path, cs_npy *a) {
  cs_err e;
  memset(a, 0, sizeof *a);
  if (cs_npy_read(path, a, &e) != CS_OK) fail_msg("%s", e.msg);
}
