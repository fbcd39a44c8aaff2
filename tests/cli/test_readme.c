/* README.md's examples run: every `build/cubesim ...` command of its ```sh blocks (lines joined
 * at their trailing backslash, comments dropped, the part after `&&` when a line first sets up
 * and builds) is run by the shell with the built binary, in a fresh directory that has the
 * worked example's .npy files the README describes, a small SWEEP.yaml and the repository's
 * docs/; each must exit with status 0, and the worked example's output is the one the README
 * states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cs_npy.h"
#include "isa/isa_num.h"
#include "support/cli_run.h"
#include "support/tmp_files.h"

/* The whole README. */
static char *read_readme(void) {
  FILE *f = fopen(CUBESIM_SOURCE_DIR "/README.md", "rb");
  assert_non_null(f);
  char *text = calloc(1, 1 << 20);
  size_t n = fread(text, 1, (1 << 20) - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

/* The cubesim commands of the sh blocks, each a malloc'd line (without `build/cubesim`). */
static size_t commands(const char *readme, char **out, size_t max) {
  size_t n = 0;
  const char *p = readme;
  while ((p = strstr(p, "```sh\n")) != NULL) {
    p += 6;
    const char *end = strstr(p, "```");
    assert_non_null(end);
    char logical[4096] = "";
    for (const char *line = p; line < end;) {
      const char *nl = memchr(line, '\n', (size_t)(end - line));
      size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
      char buf[1024];
      snprintf(buf, sizeof buf, "%.*s", (int)len, line);
      char *hash = strchr(buf, '#');
      if (hash) *hash = '\0';
      size_t bl = strlen(buf);
      while (bl && buf[bl - 1] == ' ') buf[--bl] = '\0';
      bool more = bl && buf[bl - 1] == '\\';
      if (more) buf[--bl] = '\0';
      strncat(logical, buf, sizeof logical - strlen(logical) - 1);
      if (!more && logical[0]) {
        /* the cubesim part of a line that first sets up and builds */
        const char *cmd = strstr(logical, "build/cubesim ");
        if (cmd && n < max) out[n++] = strdup(cmd + strlen("build/cubesim "));
        logical[0] = '\0';
      }
      line = nl ? nl + 1 : end;
    }
    p = end + 3;
  }
  return n;
}

static void write_seed_inputs(const char *dir) {
  char path[256];
  const int8_t x[4] = {1, 2, 3, 4}, w[6] = {1, 2, 3, 4, 5, 6};
  const int32_t bias[3] = {1, 2, 3};
  const float scale[3] = {1, 2, 3};
  size_t s22[2] = {2, 2}, s23[2] = {2, 3}, s3[1] = {3};
  tf_write_npy(tf_join(path, sizeof path, dir, "x.npy"), CS_NPY_I8, 2, s22, x);
  tf_write_npy(tf_join(path, sizeof path, dir, "w.npy"), CS_NPY_I8, 2, s23, w);
  tf_write_npy(tf_join(path, sizeof path, dir, "b.npy"), CS_NPY_I32, 1, s3, bias);
  tf_write_npy(tf_join(path, sizeof path, dir, "s.npy"), CS_NPY_F32, 1, s3, scale);
}

static void test_readme_examples_run(void **state) {
  (void)state;
  char *readme = read_readme();
  char *cmds[32];
  size_t n = commands(readme, cmds, 32);
  /* at least: the main job, the worked example, NZ, two quant words, two timing-only runs, the
   * tile search */
  assert_true(n >= 8);
  assert_non_null(strstr(cmds[0], "run linear --attr m=512 --attr n=4096 --attr k=4096 --trace linear_trace.json"));
  bool tiling_file = false, tile = false;
  for (size_t i = 0; i < n; i++) {
    tiling_file = tiling_file || strstr(cmds[i], "--tiling docs/tilings/a1_c5.json") != NULL;
    tile = tile || strncmp(cmds[i], "tile matmul ", 12) == 0;
  }
  assert_true(tiling_file && tile);
  tf_dir dir;
  tf_dir_make(&dir);
  write_seed_inputs(dir.path);
  /* the sweep the README runs: a small grid of its own */
  char sweep[256];
  tf_write_text(tf_join(sweep, sizeof sweep, dir.path, "SWEEP.yaml"),
                "kernel: matmul\nattrs: {m: 256, n: 256, k: 256}\noptions: [--timing-only]\ngrid:\n  base_m: [64, 128]\n");
  char docs[256];
  assert_int_equal(symlink(CUBESIM_SOURCE_DIR "/docs", tf_join(docs, sizeof docs, dir.path, "docs")), 0);
  for (size_t i = 0; i < n; i++) {
    char sh[4600];
    snprintf(sh, sizeof sh, "cd '%s' && '%s' %s >/dev/null", dir.path, CUBESIM_BINARY, cmds[i]);
    int status = -1;
    free(cr_shell(sh, &status));
    if (status != 0) fail_msg("README example %zu (build/cubesim %s) exited with %d", i, cmds[i], status);
    free(cmds[i]);
  }
  /* the worked example's output, as the README says: [[10, 28, 54], [20, 56, 108]] in fp16 */
  char out[256];
  cs_npy a;
  cs_err err;
  memset(&a, 0, sizeof a);
  assert_int_equal(cs_npy_read(tf_join(out, sizeof out, dir.path, "out.npy"), &a, &err), CS_OK);
  assert_int_equal(a.dtype, CS_NPY_F16);
  const float want[6] = {10, 28, 54, 20, 56, 108};
  for (int i = 0; i < 6; i++) assert_true(isa_f16_to_f32(((const uint16_t *)a.data)[i]) == want[i]);
  cs_npy_free(&a);
  assert_true(tf_exists(tf_join(out, sizeof out, dir.path, "linear_trace.json")));
  tf_dir_remove(&dir);
  free(readme);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_readme_examples_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
