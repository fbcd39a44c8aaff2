/* fuzz_npy — the .npy reader (base/cs_npy.c): any bytes as a .npy image in memory
 * (cs_npy_parse) and as a file (cs_npy_read_max, which reads the header first and the data only
 * then: another code path).
 *
 * Promises checked beyond "no crash, no leak": a refused image leaves no data and a message;
 * the file reader agrees with the parser (the same status and array); an accepted image
 * is self-consistent (count = product of the shape, data_bytes = count x item size) and written
 * back by cs_npy_fwrite it reads to the same dtype, shape and bytes. */
#include <unistd.h>

#include "fuzz/fuzz.h"

#include "base/cs_npy.h"

/* The file the input is written to for the file reader: one per process, in memory when the
 * machine has /dev/shm. */
static const char *file_path(void) {
  static char path[64];
  if (!path[0])
    snprintf(path, sizeof path, "%s/cubesim-fuzz-npy-%ld", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
             (long)getpid());
  return path;
}

/* cs_npy_read_max on the input written to a file: the same outcome as cs_npy_parse's. */
static void check_file_reader(const uint8_t *data, size_t size, cs_status st, const cs_npy *a) {
  const char *path = file_path();
  FILE *f = fopen(path, "wb");
  if (!f) return;
  bool written = fwrite(data, 1, size, f) == size;
  if (fclose(f) != 0 || !written) return;
  cs_npy b;
  cs_err e;
  cs_status fst = cs_npy_read_max(path, UINT64_MAX, &b, &e);
  unlink(path);
  FZ_CHECK(fst == st, "the file reader says %s, the parser %s", cs_status_name(fst), cs_status_name(st));
  if (st != CS_OK) {
    /* a message of its own: the file reader checks the header's length before it reads it */
    FZ_CHECK(strncmp(e.msg, path, strlen(path)) == 0, "the message names another file: %s", e.msg);
  } else {
    FZ_CHECK(b.dtype == a->dtype && b.ndim == a->ndim && b.data_bytes == a->data_bytes &&
                 memcmp(b.shape, a->shape, sizeof b.shape) == 0 &&
                 (a->data_bytes == 0 || memcmp(b.data, a->data, a->data_bytes) == 0),
             "the file reader reads another array");
  }
  cs_npy_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cs_npy a;
  cs_err err;
  cs_status st = cs_npy_parse(data, size, "fuzz.npy", &a, &err);
  check_file_reader(data, size, st, &a);
  if (st != CS_OK) {
    FZ_CHECK(a.data == NULL, "a refused image left data");
    FZ_CHECK(err.code == st && err.msg[0], "a refusal without its message");
    cs_npy_free(&a);
    return 0;
  }
  FZ_CHECK(a.ndim >= 0 && a.ndim <= CS_NPY_MAX_DIMS, "ndim %d", a.ndim);
  size_t count = 1;
  for (int i = 0; i < a.ndim; i++) count *= a.shape[i];
  FZ_CHECK(count == a.count, "count %zu, the shape gives %zu", a.count, count);
  FZ_CHECK(a.item_bytes == cs_npy_dtype_bytes(a.dtype), "item_bytes %zu", a.item_bytes);
  FZ_CHECK(a.data_bytes == a.count * a.item_bytes, "data_bytes %zu", a.data_bytes);
  FZ_CHECK(a.data_bytes <= size, "%zu bytes of data from a %zu-byte image", a.data_bytes, size);

  char *img = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&img, &len);
  if (!m) {
    cs_npy_free(&a);
    return 0;
  }
  st = cs_npy_fwrite(m, "written.npy", a.dtype, a.ndim, a.shape, a.data, &err);
  if (fclose(m) != 0 || st != CS_OK) {
    free(img);
    cs_npy_free(&a);
    return 0;
  }
  cs_npy b;
  st = cs_npy_parse(img, len, "written.npy", &b, &err);
  FZ_CHECK(st == CS_OK, "the written image does not read: %s", err.msg);
  FZ_CHECK(b.dtype == a.dtype && b.ndim == a.ndim, "dtype or rank changed");
  FZ_CHECK(memcmp(b.shape, a.shape, sizeof a.shape[0] * (size_t)a.ndim) == 0, "the shape changed");
  FZ_CHECK(b.data_bytes == a.data_bytes &&
               (a.data_bytes == 0 || memcmp(b.data, a.data, a.data_bytes) == 0),
           "the data changed");
  cs_npy_free(&b);
  free(img);
  cs_npy_free(&a);
  return 0;
}
