/* isa_kernel — which of the host's instruction sets the functional model's hot loops use, and
 * the workspace they reuse from one instruction to the next.
 *
 * The cube's arithmetic (isa/isa_sem_mmad.c) has one implementation per host instruction set: a
 * portable one in plain C that builds everywhere, and on x86-64 AVX2, AVX-512 and AVX-512 VNNI
 * ones, compiled per function (target attributes), so the build needs no -mavx2 and the choice is
 * made at run time from the CPU's features. Every kernel gives the same bits: the results are
 * defined exactly (docs/ISA.md), and tests/isa/test_mmad.c runs every kernel the host supports
 * against the portable one and an independent reference.
 *
 * An isa_host is one core's workspace: the chosen kernel and a scratch area that grows to the
 * largest instruction seen, so no instruction allocates. It is not shared between threads.
 */
#ifndef ISA_KERNEL_H
#define ISA_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/cs_status.h"

/* enum suffix, name */
#define ISA_KERNEL_TABLE(X) \
  X(AUTO, "auto")           \
  X(SCALAR, "scalar")       \
  X(AVX2, "avx2")           \
  X(AVX512, "avx512")       \
  X(AVX512_VNNI, "avx512-vnni")

typedef enum isa_kernel {
#define ISA_KERNEL_ENUM(sfx, name) ISA_KERNEL_##sfx,
  ISA_KERNEL_TABLE(ISA_KERNEL_ENUM)
#undef ISA_KERNEL_ENUM
      ISA_KERNEL_COUNT
} isa_kernel;

/* "scalar", "avx2", ...; "auto" for ISA_KERNEL_AUTO. */
const char *isa_kernel_name(isa_kernel k);
/* ISA_KERNEL_COUNT when unknown. */
isa_kernel isa_kernel_from_name(const char *name);
/* True if this build has kernel k for this architecture and the CPU (and OS) supports it.
 * The portable kernel is always supported; AUTO is too. */
bool isa_kernel_supported(isa_kernel k);
/* The fastest supported kernel. */
isa_kernel isa_kernel_best(void);

typedef struct isa_host isa_host;

/* A workspace running kernel k (AUTO: the best). CS_EINVAL naming the kernel when the host
 * does not support it. */
cs_status isa_host_create(isa_kernel k, isa_host **out, cs_err *err);
void isa_host_destroy(isa_host *h);
/* The kernel it runs (never AUTO). */
isa_kernel isa_host_kernel(const isa_host *h);
/* At least `bytes` bytes of scratch, 64-byte aligned, valid until the next call; NULL when the
 * memory cannot be had (the caller then takes a path that needs none). */
void *isa_host_scratch(isa_host *h, size_t bytes);

#endif
