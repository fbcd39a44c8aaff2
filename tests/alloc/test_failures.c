/* Allocation failures (docs/RELIABILITY.md, "Allocation failures"): every create, parse and run
 * path of cubesim — configurations, programs, .npy files, JSON, a kernel through the runtime with
 * a trace, and the commands through cli_main — is run again and again with its Nth allocation
 * failing, N = 1, 2, ... until it runs without reaching N. Each time:
 *   - it neither crashes nor leaks: every block and FILE it got is given back (counted here, and
 *     by LeakSanitizer at exit in the ASan build);
 *   - it fails as a host resource: CS_ENOMEM with "host memory" in the message, or for a command
 *     exit status 3 and a last line "cubesim CMD: error: ... host memory ...";
 *   - a path that writes files leaves none behind: its output directory is as empty as it was;
 *   - or it does without the memory it did not get, and gives the very same results (status,
 *     stdout and the bytes of every file it writes).
 *
 * How the Nth allocation fails: this executable is linked with --wrap for malloc, calloc,
 * realloc, free, strdup, aligned_alloc, fopen, fdopen, fclose, open_memstream and realpath
 * (tests/CMakeLists.txt), so every call the library makes to them comes here first; libyaml is
 * linked in statically for its allocations to come here too. The library itself is unchanged
 * and keeps no state for this. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cs_jsonr.h"
#include "base/cs_npy.h"
#include "cli/cli.h"
#include "runtime/rt_host.h"
#include "runtime/rt_tiling.h"
#include "sim/sim_config.h"
#include "sim/sim_program.h"
#include "sim/sim_trace.h"
#include "support/rt_copy.h"
#include "support/tmp_files.h"

/* ---- the wrappers ---------------------------------------------------------------------------- */

/* While armed, the allocations are counted and the fail_at-th one fails; what the path gets is
 * kept in a set of live pointers, which must be empty again when it returns. */
typedef struct af_state {
  bool armed;
  unsigned long fail_at; /* 1-based; 0: none */
  unsigned long count;
  bool failed;
  const char *failed_fn;
  size_t live;
} af_state;
static af_state af;

#define AF_SET_BITS 17
#define AF_SET_ENTRIES (1u << AF_SET_BITS) /* room in the live set */
#define AF_EMPTY ((uintptr_t)0)
#define AF_GONE ((uintptr_t)1)
static uintptr_t af_set[AF_SET_ENTRIES];

/* Fibonacci hashing: the top bits of the product. */
static size_t af_slot(uintptr_t p) { return (size_t)(((uint64_t)p * 0x9E3779B97F4A7C15ull) >> (64 - AF_SET_BITS)); }

static void af_keep(const void *ptr) {
  uintptr_t p = (uintptr_t)ptr;
  for (size_t i = af_slot(p), k = 0; k < AF_SET_ENTRIES; i = (i + 1) & (AF_SET_ENTRIES - 1), k++)
    if (af_set[i] == AF_EMPTY || af_set[i] == AF_GONE) {
      af_set[i] = p;
      af.live++;
      return;
    }
  fputs("test_failures: more live blocks than the set holds (AF_SET_BITS)\n", stderr);
  abort();
}

/* Forgets ptr if it is kept (a block from before the path was armed is not). */
static void af_drop(const void *ptr) {
  uintptr_t p = (uintptr_t)ptr;
  if (!p || !af.live) return;
  for (size_t i = af_slot(p), k = 0; k < AF_SET_ENTRIES && af_set[i] != AF_EMPTY;
       i = (i + 1) & (AF_SET_ENTRIES - 1), k++)
    if (af_set[i] == p) {
      af_set[i] = AF_GONE;
      af.live--;
      return;
    }
}

/* The sanitizers' stack printer, when the build has one (weak: NULL otherwise). */
void __sanitizer_print_stack_trace(void) __attribute__((weak));

/* Whether this allocation is the one to fail. With CUBESIM_ALLOC_STACK=N in the environment,
 * where allocation N is made is printed when it fails (symbolized in the ASan build), to find
 * what a path did with it. */
static bool af_fail(const char *fn) {
  if (!af.armed) return false;
  if (++af.count != af.fail_at) return false;
  af.failed = true;
  af.failed_fn = fn;
  const char *show = getenv("CUBESIM_ALLOC_STACK");
  if (show && strtoul(show, NULL, 10) == af.count) {
    fprintf(stderr, "allocation %lu (%s) fails here:\n", af.count, fn);
    if (__sanitizer_print_stack_trace) __sanitizer_print_stack_trace();
  }
  errno = ENOMEM;
  return true;
}

static void *af_kept(void *p) {
  if (p && af.armed) af_keep(p);
  return p;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
void *__real_aligned_alloc(size_t align, size_t n);
FILE *__real_fopen(const char *path, const char *mode);
FILE *__real_fdopen(int fd, const char *mode);
int __real_fclose(FILE *f);
FILE *__real_open_memstream(char **buf, size_t *len);
char *__real_realpath(const char *path, char *resolved);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
void *__wrap_aligned_alloc(size_t align, size_t n);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__wrap_fdopen(int fd, const char *mode);
int __wrap_fclose(FILE *f);
FILE *__wrap_open_memstream(char **buf, size_t *len);
char *__wrap_realpath(const char *path, char *resolved);

void *__wrap_malloc(size_t n) { return af_fail("malloc") ? NULL : af_kept(__real_malloc(n)); }
void *__wrap_calloc(size_t n, size_t size) { return af_fail("calloc") ? NULL : af_kept(__real_calloc(n, size)); }
void *__wrap_realloc(void *p, size_t n) {
  if (af_fail("realloc")) return NULL; /* p stays the caller's */
  uintptr_t old = (uintptr_t)p;
  size_t live = af.live;
  af_drop(p);
  bool was_kept = af.live != live;
  void *q = __real_realloc(p, n);
  if (!q && was_kept) af_keep(p);
  else if (q && (was_kept || (af.armed && !old))) af_keep(q);
  return q;
}
void __wrap_free(void *p) {
  af_drop(p);
  __real_free(p);
}
char *__wrap_strdup(const char *s) { return af_fail("strdup") ? NULL : af_kept(__real_strdup(s)); }
void *__wrap_aligned_alloc(size_t align, size_t n) {
  return af_fail("aligned_alloc") ? NULL : af_kept(__real_aligned_alloc(align, n));
}
/* Files under /proc and /sys are the host's figures (cs_host.c: a cgroup's memory limit), read
 * when they are there and done without when not: opening them is not failed. */
FILE *__wrap_fopen(const char *path, const char *mode) {
  bool probe = strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/sys/", 5) == 0;
  return !probe && af_fail("fopen") ? NULL : af_kept(__real_fopen(path, mode));
}
FILE *__wrap_fdopen(int fd, const char *mode) { return af_fail("fdopen") ? NULL : af_kept(__real_fdopen(fd, mode)); }
int __wrap_fclose(FILE *f) {
  af_drop(f);
  return __real_fclose(f);
}
FILE *__wrap_open_memstream(char **buf, size_t *len) {
  return af_fail("open_memstream") ? NULL : af_kept(__real_open_memstream(buf, len));
}
char *__wrap_realpath(const char *path, char *resolved) {
  if (af_fail("realpath")) return NULL;
  char *r = __real_realpath(path, resolved);
  return resolved ? r : af_kept(r);
}

/* Counts and keeps the allocations from now on, failing the nth (0: none). */
static void af_arm(unsigned long n) {
  memset(af_set, 0, sizeof af_set);
  af = (af_state){.armed = true, .fail_at = n};
}

static void af_disarm(void) { af.armed = false; }

/* ---- running a path with each allocation failing --------------------------------------------- */

/* What one run of a path gave: its status (a cs_status, or a command's exit status), its message
 * when it failed (a command's stderr) and a command's stdout (malloc'd). */
typedef struct af_outcome {
  int status;
  char msg[8192];
  char *out;
} af_outcome;

/* A path: arms the wrappers with af_arm(n) around what it tests (n = 0: nothing fails) and
 * disarms them before it returns. */
typedef struct af_path af_path;
struct af_path {
  const char *name;
  bool command;    /* a command: status, msg and out as above */
  int want;        /* the status when nothing fails */
  const char *dir; /* where a command writes: emptied before each run (NULL: none) */
  void (*run)(const af_path *p, unsigned long n, af_outcome *o);
  const char *const *argv; /* a command's arguments after "cubesim", NULL-terminated */
};

/* The number of entries of dir. */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static void empty_dir(const char *dir) {
  tf_remove_tree(dir);
  assert_int_equal(mkdir(dir, 0700), 0);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

/* Every file of dir, by name, with its bytes: "NAME\nLENGTH\nBYTES..." (malloc'd; NULL: no dir). */
static char *snapshot(const char *dir, size_t *len) {
  *len = 0;
  if (!dir) return NULL;
  struct dirent **names;
  int n = scandir(dir, &names, NULL, by_name);
  assert_true(n >= 0);
  char *all = NULL;
  FILE *m = open_memstream(&all, len);
  assert_non_null(m);
  for (int i = 0; i < n; i++) {
    if (names[i]->d_name[0] != '.') {
      char path[512];
      size_t flen;
      char *bytes = tf_read(tf_join(path, sizeof path, dir, names[i]->d_name), &flen);
      fprintf(m, "%s\n%zu\n", names[i]->d_name, flen);
      fwrite(bytes, 1, flen, m);
      free(bytes);
    }
    free(names[i]);
  }
  free(names);
  assert_int_equal(fclose(m), 0);
  return all;
}

/* The last line of a command's stderr. */
static const char *last_line(const char *text) {
  size_t n = strlen(text);
  if (n && text[n - 1] == '\n') n--;
  while (n && text[n - 1] != '\n') n--;
  return text + n;
}

/* A message about host memory: cubesim's own ("no host memory ...", "host memory: ... over the
 * limit"), or the system's reason for a call that could not allocate (strerror(ENOMEM)). */
static bool about_memory(const char *msg) { return strstr(msg, "host memory") || strstr(msg, strerror(ENOMEM)); }

/* How a path went over every allocation. */
#define AF_SHOWN 6
typedef struct af_tally {
  unsigned long allocations; /* made by the path when nothing fails */
  unsigned long absorbed;    /* failures the path did without, with the very same results */
  unsigned long which[AF_SHOWN]; /* the first of them */
} af_tally;

/* Runs p with allocation 1, 2, ... failing until it runs through. A failure is either reported as
 * a host resource, or done without: then the status and a command's stdout are those of the run
 * where nothing fails (mmad's scratch, for one, has a path that needs none). */
static af_tally each_allocation(const af_path *p) {
  af_tally t = {0, 0, {0}};
  af_outcome ref = {0};
  if (p->dir) empty_dir(p->dir);
  p->run(p, 0, &ref);
  if (ref.status != p->want) fail_msg("%s: status %d, want %d: %s", p->name, ref.status, p->want, ref.msg);
  size_t ref_len, files_len;
  char *ref_files = snapshot(p->dir, &ref_len);
  for (unsigned long n = 1;; n++) {
    if (p->dir) empty_dir(p->dir);
    af_outcome o = {0};
    p->run(p, n, &o);
    assert_false(af.armed);
    const char *fn = af.failed ? af.failed_fn : "none";
    if (af.live)
      fail_msg("%s, allocation %lu (%s) failing: %zu blocks or files are not given back", p->name, n, fn,
               af.live);
    if (!af.failed) { /* it ran through */
      if (o.status != p->want) fail_msg("%s: status %d without a failure, want %d: %s", p->name, o.status, p->want, o.msg);
      free(o.out);
      t.allocations = n - 1;
      break;
    }
    if (o.status == p->want) {
      if (p->command && strcmp(o.out, ref.out) != 0)
        fail_msg("%s, allocation %lu (%s) failing: done without, but stdout differs:\n%s", p->name, n, fn, o.out);
      char *files = snapshot(p->dir, &files_len);
      if (files_len != ref_len || (ref_len && memcmp(files, ref_files, ref_len) != 0))
        fail_msg("%s, allocation %lu (%s) failing: done without, but the files it wrote differ", p->name, n, fn);
      free(files);
      if (t.absorbed < AF_SHOWN) t.which[t.absorbed] = n;
      t.absorbed++;
    } else if (p->command) {
      if (o.status != 3)
        fail_msg("%s, allocation %lu (%s) failing: exit status %d, want 3; stderr:\n%s", p->name, n, fn, o.status, o.msg);
      const char *line = last_line(o.msg);
      if (strncmp(line, "cubesim ", 8) != 0 || !strstr(line, ": error: ") || !about_memory(line))
        fail_msg("%s, allocation %lu (%s) failing: the error line is [%s]", p->name, n, fn, line);
    } else {
      if (o.status != CS_ENOMEM)
        fail_msg("%s, allocation %lu (%s) failing: status %s, want nomem: %s", p->name, n, fn,
                 cs_status_name((cs_status)o.status), o.msg);
      if (!about_memory(o.msg))
        fail_msg("%s, allocation %lu (%s) failing: the message is [%s]", p->name, n, fn, o.msg);
    }
    if (o.status != p->want && p->dir && entries(p->dir) != 0)
      fail_msg("%s, allocation %lu (%s) failing: %d files left in %s", p->name, n, fn, entries(p->dir), p->dir);
    free(o.out);
  }
  free(ref.out);
  free(ref_files);
  return t;
}

/* A command through cli_main, its stdout and stderr in memory (opened before arming). */
static void run_command(const af_path *p, unsigned long n, af_outcome *o) {
  char *argv[64];
  int argc = 0;
  argv[argc++] = "cubesim";
  for (const char *const *a = p->argv; *a; a++) argv[argc++] = (char *)*a;
  argv[argc] = NULL;
  char *out = NULL, *err = NULL;
  size_t out_len = 0, err_len = 0;
  cli_io io = {open_memstream(&out, &out_len), open_memstream(&err, &err_len)};
  assert_non_null(io.out);
  assert_non_null(io.err);
  af_arm(n);
  o->status = cli_main(&io, argc, argv);
  af_disarm();
  assert_int_equal(fclose(io.out), 0);
  assert_int_equal(fclose(io.err), 0);
  snprintf(o->msg, sizeof o->msg, "%s", err);
  o->out = out;
  free(err);
}

/* ---- the fixtures: files every path reads, in one directory -------------------------------- */

static char fx_dir[64];
static char fx_paths[16][160];
static int fx_count;

/* fx_dir/name, kept until the end. */
static const char *fx(const char *name) {
  assert_true(fx_count < 16);
  return tf_join(fx_paths[fx_count++], sizeof fx_paths[0], fx_dir, name);
}

static const char *fx_prog, *fx_a, *fx_c, *fx_scales, *fx_words, *fx_words2, *fx_run, *fx_out;

/* The two-core program of docs/PROGRAM.md: core 0 copies A to B through UB, core 1 moves half
 * of C. */
static const char program_text[] =
    ".gm A int8 [4,64] in\n"
    ".gm B int8 [4,64] out\n"
    ".gm C fp32 [16] inout\n"
    "copy_gm_ub dst=UB:0x0 src=GM:A block_count=1 block_len_bytes=256\n"
    "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
    "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=0\n"
    "copy_ub_gm dst=GM:B src=UB:0x0 block_count=1 block_len_bytes=256\n"
    ".core 1\n"
    "copy_gm_ub dst=UB:0x100 src=GM:C block_count=2 block_len_bytes=32 src_gap_bytes=0 dst_gap_bytes=32\n"
    "set_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=3\n"
    "wait_flag src_pipe=MTE2 dst_pipe=MTE3 event_id=3\n"
    "copy_ub_gm dst=GM:C+0x20 src=UB:0x100 block_count=1 block_len_bytes=32\n";

/* A command run unarmed, for the files the fixtures need from cubesim itself. */
static void make_with(const char *const *args) {
  af_path p = {.name = "fixture", .command = true, .run = run_command, .argv = args};
  af_outcome o = {0};
  run_command(&p, 0, &o);
  if (o.status != 0) fail_msg("fixture %s %s: %s", args[0], args[1], o.msg);
  free(o.out);
}

static int setup(void **state) {
  (void)state;
  tf_mkdtemp(fx_dir, sizeof fx_dir);
  fx_prog = fx("copy.s");
  tf_write_text(fx_prog, program_text);
  int8_t a[4 * 64];
  for (int i = 0; i < 4 * 64; i++) a[i] = (int8_t)(i * 7 - 100);
  float c[16], s[8];
  for (int i = 0; i < 16; i++) c[i] = (float)i * 0.5f;
  for (int i = 0; i < 8; i++) s[i] = 0.001f * (float)(i + 1);
  fx_a = fx("a.npy");
  tf_write_npy(fx_a, CS_NPY_I8, 2, (size_t[]){4, 64}, a);
  fx_c = fx("c.npy");
  tf_write_npy(fx_c, CS_NPY_F32, 1, (size_t[]){16}, c);
  fx_scales = fx("s.npy");
  tf_write_npy(fx_scales, CS_NPY_F32, 1, (size_t[]){8}, s);
  fx_words = fx("w.npy");
  fx_words2 = fx("w2.npy");
  fx_run = fx("run.json");
  make_with((const char *[]){"quant", "pack", "--scale-file", fx_scales, "--out", fx_words, NULL});
  make_with((const char *[]){"quant", "pack", "--scale-file", fx_scales, "--scale-rounding", "rne", "--offset",
                             "2.5", "--out", fx_words2, NULL});
  make_with((const char *[]){"run", "matmul", "--quiet", "--cores", "2", "--attr", "m=32", "--attr", "n=32",
                             "--attr", "k=32", "--json-file", fx_run, NULL});
  fx_out = fx("out");
  assert_int_equal(mkdir(fx_out, 0700), 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tf_remove_tree(fx_dir);
  return 0;
}

/* fx_out/name (for a command's arguments; the buffers live as long as the test). */
static const char *out_file(char *buf, size_t n, const char *name) { return tf_join(buf, n, fx_out, name); }

/* ---- library paths ----------------------------------------------------------------------------- */

static void outcome(af_outcome *o, cs_status st, const cs_err *err) {
  o->status = (int)st;
  if (st != CS_OK) snprintf(o->msg, sizeof o->msg, "%s", err->msg);
}

static void config_load(const af_path *p, unsigned long n, af_outcome *o) {
  (void)p;
  sim_config c;
  sim_config_derived d;
  cs_err err;
  af_arm(n);
  cs_status st = sim_config_resolve(CUBESIM_SOURCE_DIR "/configs/teaching.yaml", &c, &d, &err);
  af_disarm();
  outcome(o, st, &err);
}

/* A key misspelt: the refusal with its suggestion. */
static void config_refusal(const af_path *p, unsigned long n, af_outcome *o) {
  (void)p;
  static const char text[] = "chip:\n  aic_core: 4\nl2:\n  ways: 16\n";
  sim_config c;
  sim_config_defaults(&c);
  cs_err err;
  af_arm(n);
  cs_status st = sim_config_load_string(&c, text, sizeof text - 1, "bad.yaml", &err);
  af_disarm();
  outcome(o, st, &err);
}

/* Read, link, issue and replay a program with a JSON trace. */
static void program_run(const af_path *p, unsigned long n, af_outcome *o) {
  (void)p;
  char trace[160];
  out_file(trace, sizeof trace, "p.json");
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = 2;
  sim_program *prog = NULL;
  sim *s = NULL;
  sim_trace *tr = NULL;
  cs_err err;
  af_arm(n);
  cs_status st = sim_program_read(fx_prog, &prog, &err);
  if (st == CS_OK) st = sim_create(&cfg, NULL, &s, &err);
  if (st == CS_OK) st = sim_program_link(prog, s, &err);
  if (st == CS_OK) st = sim_program_issue(prog, s, &err);
  if (st == CS_OK) st = sim_trace_open(trace, &cfg, &tr, &err);
  if (st == CS_OK) {
    sim_run_options ro = {.trace = tr};
    sim_result res;
    st = sim_run(s, &ro, &res, &err);
    cs_err e2;
    cs_status st2 = sim_trace_close(tr, st == CS_OK, &e2);
    if (st == CS_OK && st2 != CS_OK) st = st2, err = e2;
    sim_result_free(&res);
  }
  sim_destroy(s);
  sim_program_free(prog);
  af_disarm();
  outcome(o, st, &err);
}

static void npy_read_write(const af_path *p, unsigned long n, af_outcome *o) {
  (void)p;
  char path[160];
  out_file(path, sizeof path, "x.npy");
  cs_npy a;
  cs_err err;
  af_arm(n);
  cs_status st = cs_npy_read(fx_a, &a, &err);
  if (st == CS_OK) st = cs_npy_write(path, a.dtype, a.ndim, a.shape, a.data, &err);
  cs_npy_free(&a);
  af_disarm();
  outcome(o, st, &err);
}

static void json_read(const af_path *p, unsigned long n, af_outcome *o) {
  (void)p;
  size_t len;
  char *text = tf_read(CUBESIM_SOURCE_DIR "/docs/tilings/a1_c5.json", &len);
  rt_tiling t;
  rt_tiling_mask found;
  cs_err err;
  cs_jerror je;
  af_arm(n);
  cs_status st = rt_tiling_read_json(text, len, "a1_c5.json", &t, &found, NULL, 0, &err);
  if (st == CS_OK) {
    cs_jdoc *doc = cs_jparse_file(fx_run, &je);
    if (!doc) st = cs_err_set(&err, je.status, "%s", je.msg);
    cs_jfree(doc);
  }
  af_disarm();
  free(text);
  outcome(o, st, &err);
}

/* The host API: a device, GM tensors, a kernel launched on 3 cores that copies through UB, the
 * replay with a trace in the format of p->argv[0] ("json" or "perfetto"). */
enum { CORES = 3, SLICE = 64 };

static void runtime_kernel(const af_path *p, unsigned long n, af_outcome *o) {
  char trace[160];
  out_file(trace, sizeof trace, strcmp(p->argv[0], "json") == 0 ? "k.json" : "k.perfetto-trace");
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = CORES;
  int32_t in[CORES * SLICE], out[CORES * SLICE];
  for (int i = 0; i < CORES * SLICE; i++) in[i] = i * 3 - 7;
  rt_device *dev = NULL;
  sim_trace *tr = NULL;
  rc_copy_job j = {.slice = SLICE};
  cs_err err;
  af_arm(n);
  cs_status st = rt_device_create(&cfg, NULL, &dev, &err);
  if (st == CS_OK) st = rt_gm_alloc(dev, "src", ISA_INT32, CORES * SLICE, &j.src, &err);
  if (st == CS_OK) st = rt_gm_alloc(dev, "dst", ISA_INT32, CORES * SLICE, &j.dst, &err);
  if (st == CS_OK) st = rt_gm_write(dev, j.src, in, &err);
  if (st == CS_OK) st = rt_launch(dev, CORES, rc_slice_copy, &j, &err);
  if (st == CS_OK) st = sim_trace_open(trace, &cfg, &tr, &err);
  if (st == CS_OK) {
    sim_run_options ro = {.trace = tr};
    st = rt_device_run(dev, &ro, &err);
    cs_err e2;
    cs_status st2 = sim_trace_close(tr, st == CS_OK, &e2);
    if (st == CS_OK && st2 != CS_OK) st = st2, err = e2;
  }
  if (st == CS_OK) st = rt_gm_read(dev, j.dst, out, &err);
  rt_device_destroy(dev);
  af_disarm();
  if (st == CS_OK) assert_memory_equal(out, in, sizeof in);
  outcome(o, st, &err);
}

/* ---- the tests --------------------------------------------------------------------------------- */

/* Every path, or with CUBESIM_ALLOC_PATH=TEXT in the environment those whose name has TEXT. */
static void run_paths(const af_path *paths, size_t n) {
  const char *only = getenv("CUBESIM_ALLOC_PATH");
  for (size_t i = 0; i < n; i++) {
    if (only && !strstr(paths[i].name, only)) continue;
    af_tally t = each_allocation(&paths[i]);
    char which[128] = "";
    for (unsigned long k = 0, used = 0; k < t.absorbed && k < AF_SHOWN; k++)
      used += (size_t)snprintf(which + used, sizeof which - used, "%s%lu", k ? ", " : " (", t.which[k]);
    if (t.absorbed) strcat(which, t.absorbed > AF_SHOWN ? ", ...)" : ")");
    print_message("%-46s %6lu allocations, each failed once; %lu done without%s\n", paths[i].name, t.allocations,
                  t.absorbed, which);
  }
}

static void test_alloc_library_paths(void **state) {
  (void)state;
  static const char *const json[] = {"json", NULL}, *const perfetto[] = {"perfetto", NULL};
  const af_path paths[] = {
      {"sim_config_resolve teaching.yaml", false, CS_OK, NULL, config_load, NULL},
      {"sim_config_load_string (a misspelt key)", false, CS_ECONFIG, NULL, config_refusal, NULL},
      {"sim_program_read, link, issue, run, trace", false, CS_OK, fx_out, program_run, NULL},
      {"cs_npy_read, cs_npy_write", false, CS_OK, fx_out, npy_read_write, NULL},
      {"rt_tiling_read_json, cs_jparse_file", false, CS_OK, NULL, json_read, NULL},
      {"rt_device: a kernel on 3 cores, JSON trace", false, CS_OK, fx_out, runtime_kernel, json},
      {"rt_device: a kernel on 3 cores, Perfetto trace", false, CS_OK, fx_out, runtime_kernel, perfetto},
  };
  run_paths(paths, sizeof paths / sizeof paths[0]);
}

#define CMD(name, want, dir, ...) {name, true, want, dir, run_command, (const char *const[]){__VA_ARGS__, NULL}}

static void test_alloc_commands(void **state) {
  (void)state;
  char trace[160], npy[160], csv[160], json[160], dump[160], html[160], pf[160], words[160];
  out_file(trace, sizeof trace, "t.json");
  out_file(npy, sizeof npy, "c.npy");
  out_file(csv, sizeof csv, "s.csv");
  out_file(json, sizeof json, "r.json");
  out_file(dump, sizeof dump, "d.s");
  out_file(html, sizeof html, "r.html");
  out_file(pf, sizeof pf, "t.perfetto-trace");
  out_file(words, sizeof words, "w.npy");
  char in_a[200], out_b[200], in_c[200];
  snprintf(in_a, sizeof in_a, "A=%s", fx_a);
  snprintf(in_c, sizeof in_c, "C=%s", fx_c);
  snprintf(out_b, sizeof out_b, "B=%s", npy);
  char out_c[200];
  snprintf(out_c, sizeof out_c, "c=%s", npy);
  const af_path paths[] = {
      CMD("config show", 0, NULL, "config", "show"),
      CMD("config show teaching.yaml --json", 0, NULL, "config", "show", CUBESIM_SOURCE_DIR "/configs/teaching.yaml",
          "--json"),
      CMD("config show --yaml --set", 0, NULL, "config", "show", "--yaml", "--set", "chip.aic_cores=4"),
      CMD("kernels", 0, NULL, "kernels"),
      CMD("run matmul, every output, --check", 0, fx_out, "run", "matmul", "--quiet", "--cores", "1", "--attr",
          "m=16", "--attr", "n=16", "--attr", "k=32", "--check", "--trace", trace, "--out", out_c, "--csv", csv,
          "--json-file", json, "--dump-stream", dump, "--report", html),
      CMD("run linear --timing-only, Perfetto trace", 0, fx_out, "run", "linear", "--quiet", "--cores", "2",
          "--timing-only", "--attr", "m=32", "--attr", "n=32", "--attr", "k=64", "--trace", pf, "--json"),
      CMD("run (an unknown attribute)", 2, NULL, "run", "matmul", "--quiet", "--attr", "m=16", "--attr", "nn=16"),
      CMD("exec copy.s, --in, --out, trace, CSV, dump", 0, fx_out, "exec", fx_prog, "--quiet", "--in", in_a, "--in",
          in_c, "--out", out_b, "--trace", trace, "--csv", csv, "--dump-stream", dump),
      CMD("quant pack --json", 0, NULL, "quant", "pack", "--scale", "0.1", "--offset", "-3", "--json"),
      CMD("quant unpack", 0, NULL, "quant", "unpack", "0x3dcccccd"),
      CMD("quant pack --scale-file --out", 0, fx_out, "quant", "pack", "--scale-file", fx_scales, "--out", words),
      CMD("quant unpack --word-file", 0, NULL, "quant", "unpack", "--word-file", fx_words),
      CMD("quant check (no variant explains them)", 1, NULL, "quant", "check", "--scale-file", fx_scales, "--word-file", fx_words2),
      CMD("quant diff (the words differ)", 1, NULL, "quant", "diff", fx_words, fx_words2),
      CMD("report", 0, fx_out, "report", fx_run, "-o", html),
      CMD("compare --json", 0, NULL, "compare", fx_run, fx_run, "--json"),
      CMD("tile matmul", 0, NULL, "tile", "matmul", "--attr", "m=64", "--attr", "n=64", "--attr", "k=64", "--top", "2"),
  };
  run_paths(paths, sizeof paths / sizeof paths[0]);
}

int main(void) {
  /* one host thread: the n-th allocation must be the same one every run (the hazard check on a
   * thread of its own would interleave its allocations with the replay's) */
  setenv("CUBESIM_THREADS", "1", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alloc_library_paths),
      cmocka_unit_test(test_alloc_commands),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
