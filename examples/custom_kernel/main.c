/* matmul_relu_demo — runs the fused matmul + ReLU on a simulated Ascend 910B and checks it against
 * the host reference, bit for bit; prints the run's summary.
 *
 *   matmul_relu_demo [M N K [CORES]]       (default: 200 300 96 on 8 cores, bias included)
 *
 * Exit status: 0 when every element matches, 1 when some differ, 2 on an error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "matmul_relu.h"

/* Deterministic values in [lo, hi] (a 64-bit LCG's high bits). */
static int32_t next_value(uint64_t *state, int32_t lo, int32_t hi) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (int32_t)((*state >> 33) % (uint64_t)(hi - lo + 1));
}

static int fail(const char *what, const cs_err *err) {
  fprintf(stderr, "matmul_relu_demo: %s: %s\n", what, err->msg);
  return 2;
}

int main(int argc, char **argv) {
  unsigned long dims[4] = {200, 300, 96, 8};
  if (argc != 1 && argc != 4 && argc != 5) {
    fprintf(stderr, "usage: %s [M N K [CORES]]\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    char *end;
    dims[i - 1] = strtoul(argv[i], &end, 10);
    if (*end || dims[i - 1] == 0 || dims[i - 1] > 4096) {
      fprintf(stderr, "matmul_relu_demo: '%s' is not a size in [1, 4096]\n", argv[i]);
      return 2;
    }
  }
  printf("libcubesim %s\n", cs_version());
  uint32_t m = (uint32_t)dims[0], n = (uint32_t)dims[1], k = (uint32_t)dims[2];
  int8_t *a = malloc((size_t)m * k), *b = malloc((size_t)k * n);
  int32_t *bias = malloc(sizeof *bias * n), *got = malloc(sizeof *got * m * n), *want = malloc(sizeof *want * m * n);
  if (!a || !b || !bias || !got || !want) {
    fprintf(stderr, "matmul_relu_demo: out of memory\n");
    return 2;
  }
  uint64_t seed = 12345;
  for (size_t i = 0; i < (size_t)m * k; i++) a[i] = (int8_t)next_value(&seed, -128, 127);
  for (size_t i = 0; i < (size_t)k * n; i++) b[i] = (int8_t)next_value(&seed, -128, 127);
  for (uint32_t j = 0; j < n; j++) bias[j] = next_value(&seed, -20000, 20000);
  mr_problem p = {m, n, k, true, a, b, bias};

  /* the chip: the built-in Ascend 910B, with the cores asked for */
  sim_config cfg;
  sim_config_derived derived;
  cs_err err;
  char cores[16];
  snprintf(cores, sizeof cores, "%lu", dims[3]);
  if (sim_config_resolve(NULL, &cfg, &derived, &err) != CS_OK || sim_config_set(&cfg, "chip.cores", cores, &err) != CS_OK)
    return fail("configuration", &err);

  rt_device *dev;
  if (rt_device_create(&cfg, NULL, &dev, &err) != CS_OK) return fail("device", &err);
  rt_gtensor c;
  int rc = 2;
  if (mr_launch(dev, &p, &c, &err) != CS_OK) fail("launch", &err);
  else if (rt_device_run(dev, NULL, &err) != CS_OK) fail("run", &err);
  else if (rt_gm_read(dev, c, got, &err) != CS_OK) fail("read C", &err);
  else {
    mr_reference(&p, want);
    size_t bad = 0, zeros = 0;
    for (size_t i = 0; i < (size_t)m * n; i++) {
      if (got[i] != want[i] && bad++ == 0)
        fprintf(stderr, "C[%zu, %zu] = %" PRId32 ", the reference says %" PRId32 "\n", i / n, i % n, got[i], want[i]);
      zeros += want[i] == 0;
    }
    const sim_result *r = rt_device_result(dev);
    printf("matmul + ReLU %" PRIu32 " x %" PRIu32 " x %" PRIu32 " on %lu cores: %" PRIu64 " cycles, %.2f us; "
           "%zu of %zu outputs clipped to 0\n",
           m, n, k, dims[3], r->total_cycles, r->time_us, zeros, (size_t)m * n);
    trc_summary_text(rt_device_sim(dev), r, stdout);
    printf("%s\n", bad ? "MISMATCH against the host reference" : "bit-exact against the host reference");
    rc = bad ? 1 : 0;
  }
  rt_device_destroy(dev);
  free(a);
  free(b);
  free(bias);
  free(got);
  free(want);
  return rc;
}
