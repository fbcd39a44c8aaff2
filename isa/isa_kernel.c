/* isa_kernel — kernel names, the CPU's features, and the per-core workspace. */
#include "isa/isa_kernel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "isa/isa_hot.h"

#if ISA_HOT_X86
#include <cpuid.h>
#endif

#define SCRATCH_ALIGN_BYTES 64u

static const char *const kernel_names[] = {
#define ISA_KERNEL_NAME(sfx, name) name,
    ISA_KERNEL_TABLE(ISA_KERNEL_NAME)
#undef ISA_KERNEL_NAME
};

const char *isa_kernel_name(isa_kernel k) { return (unsigned)k < ISA_KERNEL_COUNT ? kernel_names[k] : "?"; }

isa_kernel isa_kernel_from_name(const char *name) {
  for (int k = 0; k < ISA_KERNEL_COUNT; k++)
    if (strcasecmp(name, kernel_names[k]) == 0) return (isa_kernel)k;
  return ISA_KERNEL_COUNT;
}

#if ISA_HOT_X86
/* F16C (vcvtph2ps) has no name that every compiler's __builtin_cpu_supports knows: CPUID leaf 1,
 * ECX bit 29. */
static bool has_f16c(void) {
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1u);
}
#endif

bool isa_kernel_supported(isa_kernel k) {
  switch (k) {
    case ISA_KERNEL_AUTO:
    case ISA_KERNEL_SCALAR:
      return true;
#if ISA_HOT_X86
    /* __builtin_cpu_supports also checks that the OS saves the vector registers (XCR0) */
    case ISA_KERNEL_AVX2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c();
    case ISA_KERNEL_AVX512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             isa_kernel_supported(ISA_KERNEL_AVX2);
    case ISA_KERNEL_AVX512_VNNI:
      return __builtin_cpu_supports("avx512vnni") && isa_kernel_supported(ISA_KERNEL_AVX512);
#endif
    default:
      return false;
  }
}

isa_kernel isa_kernel_best(void) {
  for (int k = ISA_KERNEL_COUNT - 1; k > ISA_KERNEL_SCALAR; k--)
    if (isa_kernel_supported((isa_kernel)k)) return (isa_kernel)k;
  return ISA_KERNEL_SCALAR;
}

struct isa_host {
  isa_kernel kernel;
  void *scratch; /* SCRATCH_ALIGN_BYTES-aligned */
  size_t scratch_bytes;
};

cs_status isa_host_create(isa_kernel k, isa_host **out, cs_err *err) {
  *out = NULL;
  if ((unsigned)k >= ISA_KERNEL_COUNT) return cs_err_set(err, CS_EINVAL, "kernel %d does not exist", (int)k);
  if (!isa_kernel_supported(k))
    return cs_err_set(err, CS_EINVAL, "kernel %s is not supported by this host (best: %s)",
                      isa_kernel_name(k), isa_kernel_name(isa_kernel_best()));
  isa_host *h = calloc(1, sizeof *h);
  if (!h) return cs_err_set(err, CS_ENOMEM, "no host memory for a kernel workspace");
  h->kernel = k == ISA_KERNEL_AUTO ? isa_kernel_best() : k;
  *out = h;
  return CS_OK;
}

void isa_host_destroy(isa_host *h) {
  if (!h) return;
  free(h->scratch);
  free(h);
}

isa_kernel isa_host_kernel(const isa_host *h) { return h->kernel; }

void *isa_host_scratch(isa_host *h, size_t bytes) {
  if (bytes <= h->scratch_bytes) return h->scratch;
  size_t want = bytes + bytes / 2; /* grow geometrically: shapes creep up */
  want = (want + SCRATCH_ALIGN_BYTES - 1) / SCRATCH_ALIGN_BYTES * SCRATCH_ALIGN_BYTES;
  void *p = aligned_alloc(SCRATCH_ALIGN_BYTES, want);
  if (!p) return NULL;
  free(h->scratch);
  h->scratch = p;
  h->scratch_bytes = want;
  return p;
}

const isa_hot *isa_hot_for(const isa_host *h) { return isa_hot_of(h ? h->kernel : ISA_KERNEL_AUTO); }

const isa_hot *isa_hot_of(isa_kernel k) {
  if (k == ISA_KERNEL_AUTO) k = isa_kernel_best();
  switch (k) {
#if ISA_HOT_X86
    case ISA_KERNEL_AVX2:
      return &isa_hot_avx2;
    case ISA_KERNEL_AVX512:
      return &isa_hot_avx512;
    case ISA_KERNEL_AVX512_VNNI:
      return &isa_hot_avx512_vnni;
#endif
    default:
      return &isa_hot_scalar;
  }
}
