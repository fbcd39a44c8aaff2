/* cs_npy — reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * The format (numpy.lib.format, NEP 1): the magic "\x93NUMPY", a major and a minor version byte,
 * the header length (uint16 little-endian in 1.0, uint32 in 2.0 and 3.0), then the header: a
 * Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with spaces
 * and ended by '\n' (latin-1 up to 2.0, UTF-8 in 3.0), then the raw data in C order.
 *
 * cubesim reads little-endian numeric arrays in C order and nothing else: a Fortran-order or
 * big-endian file, an unknown dtype, a data size that disagrees with the shape (truncated file,
 * or extra bytes) are CS_EFORMAT errors naming the file and the problem. Writing goes through
 * base/cs_out (a temporary file renamed over a regular target, a device or FIFO written in
 * place), so a failed write never leaves a partial file.
 */
#ifndef CS_NPY_H
#define CS_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/cs_status.h"

/* id, descr as cubesim writes it, bytes per element, name */
#define CS_NPY_DTYPE_TABLE(X)  \
  X(I8, "|i1", 1, "int8")      \
  X(U8, "|u1", 1, "uint8")     \
  X(I16, "<i2", 2, "int16")    \
  X(U16, "<u2", 2, "uint16")   \
  X(I32, "<i4", 4, "int32")    \
  X(U32, "<u4", 4, "uint32")   \
  X(I64, "<i8", 8, "int64")    \
  X(U64, "<u8", 8, "uint64")   \
  X(F16, "<f2", 2, "float16")  \
  X(F32, "<f4", 4, "float32")  \
  X(F64, "<f8", 8, "float64")

typedef enum cs_npy_dtype {
#define CS_NPY_DTYPE_ENUM(id, descr, bytes, name) CS_NPY_##id,
  CS_NPY_DTYPE_TABLE(CS_NPY_DTYPE_ENUM)
#undef CS_NPY_DTYPE_ENUM
  CS_NPY_DTYPE_COUNT
} cs_npy_dtype;

#define CS_NPY_MAX_DIMS 8

/* An array read from (or to be written to) a .npy file. */
typedef struct cs_npy {
  cs_npy_dtype dtype;
  const char *descr;             /* canonical descr of dtype ("<f4"; "|i1" also for "<i1") */
  size_t item_bytes;             /* bytes per element */
  int ndim;                      /* 0 (scalar) .. CS_NPY_MAX_DIMS */
  size_t shape[CS_NPY_MAX_DIMS]; /* elements along each dimension */
  size_t count;                  /* elements in all (1 for a scalar) */
  size_t data_bytes;             /* count * item_bytes */
  void *data;                    /* malloc'd, little-endian, C order; freed by cs_npy_free */
} cs_npy;

/* The canonical descr ("|i1", "<f4", ...), element size and name ("float32") of a dtype. */
const char *cs_npy_dtype_descr(cs_npy_dtype t);
size_t cs_npy_dtype_bytes(cs_npy_dtype t);
const char *cs_npy_dtype_name(cs_npy_dtype t);
/* Looks a descr up: the canonical forms, and '<' for '|' on one-byte types ("<i1" = "|i1").
 * Returns CS_NPY_DTYPE_COUNT when cubesim does not read it. */
cs_npy_dtype cs_npy_dtype_from_descr(const char *descr);

/* Reads path into *out (which the caller frees with cs_npy_free, also after an error). The
 * header is read first: the data is read only when the header is valid, and a file whose data
 * is not exactly what the header says is refused (a stream, such as a FIFO, that goes on past
 * it too). */
cs_status cs_npy_read(const char *path, cs_npy *out, cs_err *err);
/* The same, refusing with CS_ENOMEM before allocating when the data is larger than
 * max_data_bytes (what the run's memory limit leaves for it). */
cs_status cs_npy_read_max(const char *path, uint64_t max_data_bytes, cs_npy *out, cs_err *err);
/* Parses a whole .npy image held in memory; name is used in error messages. */
cs_status cs_npy_parse(const void *bytes, size_t n_bytes, const char *name, cs_npy *out,
                       cs_err *err);
/* Frees the data of a (and zeroes it); a may be NULL or already freed. */
void cs_npy_free(cs_npy *a);

/* Writes count = prod(shape) elements of dtype from data (may be NULL when count is 0) to path,
 * as format 1.0 (2.0 if the header does not fit 1.0), through a cs_out set of its own. */
cs_status cs_npy_write(const char *path, cs_npy_dtype dtype, int ndim, const size_t *shape,
                       const void *data, cs_err *err);
/* The same into a stream (an output of a larger cs_out set); name is used in messages. Write
 * errors the stream keeps for later are found by the set's commit. */
cs_status cs_npy_fwrite(FILE *f, const char *name, cs_npy_dtype dtype, int ndim,
                        const size_t *shape, const void *data, cs_err *err);

#endif
