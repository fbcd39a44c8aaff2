/* tmp_files — the files a test writes and reads back: fresh directories under /tmp, removed with
 * everything in them; whole text and binary files; .npy files through base/cs_npy. Every
 * function fails the running test when the file system says no. */
#ifndef TESTS_TMP_FILES_H
#define TESTS_TMP_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/cs_npy.h"

/* A fresh, empty directory /tmp/cubesim_test_XXXXXX; its path into dir (n >= 32). */
void tf_mkdtemp(char *dir, size_t n);
/* Removes path and, when it is a directory, everything below it. */
void tf_remove_tree(const char *path);
/* dir/name into out (failing the test when it does not fit); returns out. */
const char *tf_join(char *out, size_t n, const char *dir, const char *name);

/* The same as a struct, for tests that pass the directory around. */
typedef struct tf_dir {
  char path[64];
} tf_dir;
void tf_dir_make(tf_dir *d);
void tf_dir_remove(const tf_dir *d);

/* Entries of a directory, without . and .. */
int tf_count_entries(const char *dir);
bool tf_exists(const char *path);

void tf_write_text(const char *path, const char *text);
void tf_write_bytes(const char *path, const void *data, size_t n);
/* The whole file, NUL-terminated (malloc'd; the caller frees it); its length into *len (len may
 * be NULL). */
char *tf_read(const char *path, size_t *len);

/* cs_npy_write / cs_npy_read, failing the test with the library's message. tf_read_npy's *a is
 * freed with cs_npy_free. */
void tf_write_npy(const char *path, cs_npy_dtype dtype, int ndim, const size_t *shape, const void *data);
void tf_read_npy(const char *path, cs_npy *a);

#endif
