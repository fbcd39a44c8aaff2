/* Tests of sim/sim_config: defaults, the YAML loader and its errors, validation, derived values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_config.h"
#include "support/tmp_files.h"

#define CONFIGS CUBESIM_SOURCE_DIR "/configs/"

/* ---- helpers ---- */

/* Loads text (NUL-terminated) as "t.yaml" over the defaults. */
static cs_status load_text(sim_config *c, const char *text, cs_err *e) {
  sim_config_defaults(c);
  return sim_config_load_string(c, text, strlen(text), "t.yaml", e);
}

/* Asserts that text fails to load as "t.yaml" with code and exactly msg, and leaves the
 * configuration it was loaded over unchanged. */
static void expect_load_error(const char *text, cs_status code, const char *msg) {
  sim_config c, before;
  cs_err e;
  sim_config_defaults(&before);
  c = before;
  cs_status st = sim_config_load_string(&c, text, strlen(text), "t.yaml", &e);
  if (st != code || strcmp(e.msg, msg) != 0)
    print_message("input:\n%s\ngot %d: %s\nwant %d: %s\n", text, st, e.msg, code, msg);
  assert_int_equal(st, code);
  assert_string_equal(e.msg, msg);
  assert_int_equal(e.code, code);
  assert_true(sim_config_equal(&c, &before));
}

/* Field-by-field equality, each field by its own type, named in the failure. Written over the
 * table so no field is forgotten; the comparisons themselves do not use sim_config_equal. */
static void assert_configs_equal(const sim_config *a, const sim_config *b) {
#define CMP_U64(f) assert_true(a->f == b->f)
#define CMP_BOOL(f) assert_true(a->f == b->f)
#define CMP_F64(f) assert_true(a->f == b->f)
#define CMP_STR(f) assert_string_equal(a->f, b->f)
#define CMP_FIELD(sec, key, ty, ...)                                       \
  do {                                                                     \
    if (!(CMP_QUIET_##ty(a->sec##_##key, b->sec##_##key)))                 \
      print_message("field %s.%s differs\n", #sec, #key);                   \
    CMP_##ty(sec##_##key);                                                 \
  } while (0);
#define CMP_QUIET_U64(x, y) ((x) == (y))
#define CMP_QUIET_BOOL(x, y) ((x) == (y))
#define CMP_QUIET_F64(x, y) ((x) == (y))
#define CMP_QUIET_STR(x, y) (strcmp((x), (y)) == 0)
  SIM_CONFIG_TABLE(CMP_FIELD)
#undef CMP_FIELD
}

/* ---- defaults ---- */

static void test_sim_config_defaults_are_the_documented_910b_values(void **state) {
  (void)state;
  sim_config c;
  cs_err e;
  sim_config_defaults(&c);
  assert_int_equal(sim_config_validate(&c, &e), CS_OK);
  assert_int_equal(e.code, CS_OK);
  /* docs/DESIGN.md §6: 24 cores at 1.85 GHz; L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB, UB 192 KiB,
   * BT 1 KiB, FB 2 KiB; HBM 1.8 TB/s; L2 192 MB, 512 B lines, 5 TB/s. */
  assert_string_equal(c.chip_name, "ascend910b");
  assert_true(c.chip_aic_cores == 24);
  assert_true(c.chip_clock_mhz == 1850);
  assert_true(c.chip_fixpipe_saturation);
  assert_true(c.buffers_l1_bytes == 512 * 1024);
  assert_true(c.buffers_l0a_bytes == 64 * 1024);
  assert_true(c.buffers_l0b_bytes == 64 * 1024);
  assert_true(c.buffers_l0c_bytes == 128 * 1024);
  assert_true(c.buffers_ub_bytes == 192 * 1024);
  assert_true(c.buffers_bt_bytes == 1024);
  assert_true(c.buffers_fb_bytes == 2048);
  /* docs/DESIGN.md §4: L1 and UB 32 B, L0A/L0B 512 B, L0C 1 KiB. */
  assert_true(c.buffers_l1_align_bytes == 32);
  assert_true(c.buffers_l0a_align_bytes == 512);
  assert_true(c.buffers_l0b_align_bytes == 512);
  assert_true(c.buffers_l0c_align_bytes == 1024);
  assert_true(c.buffers_ub_align_bytes == 32);
  assert_true(c.buffers_gm_capacity_bytes == 64ull * 1024 * 1024 * 1024);
  /* 16x16x16 fp16/bf16, 16x16x32 int8, 16x16x64 int4 per cycle. */
  assert_true(c.cube_macs_per_cycle_fp16 == 16 * 16 * 16);
  assert_true(c.cube_macs_per_cycle_bf16 == 16 * 16 * 16);
  assert_true(c.cube_macs_per_cycle_int8 == 16 * 16 * 32);
  assert_true(c.cube_macs_per_cycle_int4 == 16 * 16 * 64);
  assert_true(c.mte1_l0a_bytes_per_cycle == 256);
  assert_true(c.mte1_l0b_bytes_per_cycle == 128);
  assert_true(c.mte1_bt_bytes_per_cycle == 32);
  assert_true(c.mte1_fb_bytes_per_cycle == 32);
  assert_true(c.fixpipe_elements_per_cycle == 64);
  assert_true(c.gm_hbm_gb_per_s == 1800.0);
  assert_true(c.l2_enabled);
  assert_true(c.l2_bytes == 192ull * 1024 * 1024);
  assert_true(c.l2_line_bytes == 512);
  assert_true(c.l2_gb_per_s == 5000.0);
}

static void test_sim_config_table_is_complete_and_consistent(void **state) {
  (void)state;
  /* One row per field: the rows' sizes add up to the struct (fields are 8-byte or 64-byte,
   * bools padded), and every row is findable by its path, which is section.key. */
  assert_int_equal(sim_config_param_count(), SIM_PARAM_COUNT);
  assert_null(sim_config_param(SIM_PARAM_COUNT));
  sim_config dflt;
  sim_config_defaults(&dflt);
  for (size_t i = 0; i < sim_config_param_count(); i++) {
    const sim_param_info *p = sim_config_param(i);
    char path[160];
    snprintf(path, sizeof path, "%s.%s", p->section, p->key);
    assert_string_equal(p->path, path);
    assert_string_equal(p->section, sim_config_section_name(p->section_id));
    assert_int_equal(sim_config_param_find(path), (int)i);
    assert_true(strlen(p->description) > 10);
    assert_true(strlen(p->source) > 10);
    assert_true(p->offset < sizeof(sim_config));
    if (p->type == SIM_TYPE_U64) assert_true(p->min_u64 <= p->def_u64 && p->def_u64 <= p->max_u64);
    if (p->type == SIM_TYPE_F64) assert_true(p->min_f64 <= p->def_f64 && p->def_f64 <= p->max_f64);
    /* Names carry their unit (a convention of the parameter table). */
    if (strcmp(p->unit, "bytes") == 0) assert_non_null(strstr(p->key, "bytes"));
    if (strcmp(p->unit, "cycles") == 0) assert_non_null(strstr(p->key, "cycles"));
    if (strcmp(p->unit, "B/cycle") == 0) assert_non_null(strstr(p->key, "bytes_per_cycle"));
  }
  assert_int_equal(sim_config_param_find("chip.aic_cores"), SIM_PARAM_chip_aic_cores);
  assert_int_equal(sim_config_param_find("l2.line_bytes"), SIM_PARAM_l2_line_bytes);
  assert_int_equal(sim_config_param_find("chip.coers"), -1);
  assert_int_equal(sim_config_param_find("cores"), -1);
  /* The documented/assumption split of a few rows, as docs/DESIGN.md §6 has it. */
  assert_false(sim_config_param(SIM_PARAM_chip_aic_cores)->assumption);
  assert_false(sim_config_param(SIM_PARAM_mte1_l0b_bytes_per_cycle)->assumption);
  assert_true(sim_config_param(SIM_PARAM_scalar_dispatch_cycles)->assumption);
  assert_true(sim_config_param(SIM_PARAM_l2_ways)->assumption);
  assert_true(sim_config_param(SIM_PARAM_l2_miss_latency_cycles)->assumption);
}

static void test_sim_config_introspection_texts(void **state) {
  (void)state;
  sim_config c;
  char t[128];
  sim_config_defaults(&c);
  sim_config_param_value_text(&c, SIM_PARAM_chip_aic_cores, t, sizeof t);
  assert_string_equal(t, "24");
  sim_config_param_value_text(&c, SIM_PARAM_gm_hbm_gb_per_s, t, sizeof t);
  assert_string_equal(t, "1800");
  sim_config_param_value_text(&c, SIM_PARAM_l2_enabled, t, sizeof t);
  assert_string_equal(t, "true");
  sim_config_param_value_text(&c, SIM_PARAM_chip_name, t, sizeof t);
  assert_string_equal(t, "ascend910b");
  c.gm_hbm_gb_per_s = 1638.4;
  sim_config_param_value_text(&c, SIM_PARAM_gm_hbm_gb_per_s, t, sizeof t);
  assert_string_equal(t, "1638.4");
  sim_config_param_default_text(SIM_PARAM_buffers_gm_capacity_bytes, t, sizeof t);
  assert_string_equal(t, "68719476736");
  sim_config_param_range_text(SIM_PARAM_chip_aic_cores, t, sizeof t);
  assert_string_equal(t, "1 to 1024");
  sim_config_param_range_text(SIM_PARAM_l2_line_bytes, t, sizeof t);
  assert_string_equal(t, "32 to 65536, a power of two");
  sim_config_param_range_text(SIM_PARAM_cube_macs_per_cycle_int8, t, sizeof t);
  assert_string_equal(t, "256 to 1048576, a multiple of 256");
  sim_config_param_range_text(SIM_PARAM_chip_name, t, sizeof t);
  assert_string_equal(t, "1 to 63 characters");
  sim_config_param_range_text(SIM_PARAM_l2_enabled, t, sizeof t);
  assert_string_equal(t, "true or false");
  sim_config_param_range_text(SIM_PARAM_gm_hbm_gb_per_s, t, sizeof t);
  assert_string_equal(t, "1 to 1000000");
}

/* ---- the two shipped files ---- */

static void test_sim_config_910b_file_equals_defaults(void **state) {
  (void)state;
  sim_config c, dflt;
  cs_err e;
  /* Loaded over an all-zero configuration: every field must come from the file itself (no
   * default is zero, so a key missing from the file shows up as a difference). */
  memset(&c, 0, sizeof c);
  sim_config_defaults(&dflt);
  assert_int_equal(sim_config_load_file(&c, CONFIGS "ascend910b.yaml", &e), CS_OK);
  assert_configs_equal(&c, &dflt);
  assert_true(sim_config_equal(&c, &dflt));
  for (size_t i = 0; i < SIM_PARAM_COUNT; i++) {
    const sim_param_info *p = sim_config_param(i);
    if (p->type == SIM_TYPE_U64) assert_true(p->def_u64 != 0);
  }
}

static void test_sim_config_910b_file_marks_every_assumption(void **state) {
  (void)state;
  size_t len;
  char *text = tf_read(CONFIGS "ascend910b.yaml", &len);
  /* Each key line is preceded by "# assumption: <why>" or "# documented: <source>", as the
   * table says. */
  for (size_t i = 0; i < SIM_PARAM_COUNT; i++) {
    const sim_param_info *p = sim_config_param(i);
    char want[512];
    snprintf(want, sizeof want, "  # %s: %s\n", p->assumption ? "assumption" : "documented",
             p->source);
    char *at = strstr(text, want);
    if (!at) print_message("missing for %s: %s", p->path, want);
    assert_non_null(at);
    /* Between the provenance line and the key's line: only comment lines. */
    char key[80];
    snprintf(key, sizeof key, "  %s: ", p->key);
    const char *line = at + strlen(want);
    while (strncmp(line, "  #", 3) == 0) line = strchr(line, '\n') + 1;
    assert_memory_equal(line, key, strlen(key));
  }
  free(text);
}

static void test_sim_config_teaching_file_loads_with_its_values(void **state) {
  (void)state;
  sim_config c;
  sim_config_derived d;
  cs_err e;
  assert_int_equal(sim_config_resolve(CONFIGS "teaching.yaml", &c, &d, &e), CS_OK);
  assert_string_equal(c.chip_name, "teaching");
  assert_true(c.chip_aic_cores == 2);
  assert_true(c.chip_clock_mhz == 1000);
  assert_true(c.buffers_l1_bytes == 65536);
  assert_true(c.buffers_l0a_bytes == 16384);
  assert_true(c.buffers_l0b_bytes == 16384);
  assert_true(c.buffers_l0c_bytes == 32768);
  assert_true(c.buffers_ub_bytes == 32768);
  assert_true(c.buffers_gm_capacity_bytes == 1024ull * 1024 * 1024);
  assert_true(c.scalar_dispatch_cycles == 1);
  assert_true(c.mte2_queue_depth == 4);
  assert_true(c.mte1_queue_depth == 4);
  assert_true(c.cube_queue_depth == 32); /* not in the file: the default */
  assert_true(c.mte2_gm_bytes_per_cycle == 64);
  assert_true(c.mte2_latency_cycles == 10);
  assert_true(c.mte1_l0a_bytes_per_cycle == 64);
  assert_true(c.mte1_l0b_bytes_per_cycle == 64);
  assert_true(c.mte1_bt_bytes_per_cycle == 64);
  assert_true(c.mte1_fb_bytes_per_cycle == 64);
  assert_true(c.mte1_latency_cycles == 10);
  assert_true(c.cube_head_cycles == 0);
  assert_true(c.cube_latency_cycles == 10);
  assert_true(c.fixpipe_elements_per_cycle == 16);
  assert_true(c.fixpipe_latency_cycles == 10);
  assert_true(c.mte3_gm_bytes_per_cycle == 64);
  assert_true(c.mte3_latency_cycles == 10);
  assert_true(c.vector_bytes_per_cycle == 64);
  assert_true(c.vector_latency_cycles == 10);
  assert_true(c.gm_hbm_gb_per_s == 64.0);
  assert_true(c.l2_enabled);
  assert_true(c.l2_bytes == 262144);
  assert_true(c.l2_line_bytes == 512);
  assert_true(c.l2_ways == 4);
  assert_true(c.l2_gb_per_s == 128.0);
  assert_true(c.l2_hit_latency_cycles == 20);
  assert_true(c.l2_miss_latency_cycles == 100);
  /* Keys the file leaves out keep the defaults. */
  assert_true(c.buffers_bt_bytes == 1024);
  assert_true(c.cube_macs_per_cycle_int8 == 8192);
  /* Round numbers, as the file promises: at 1000 MHz, 1 GB/s is 1 B/cycle. */
  assert_true(d.clock_period_ns == 1.0);
  assert_true(d.hbm_bytes_per_cycle == 64.0);
  assert_true(d.l2_bytes_per_cycle == 128.0);
  assert_true(d.l2_sets == 128);
  assert_true(fabs(d.peak_fp16_tflops - 16.384) < 1e-12); /* 2 x 4096 x 2 cores x 1e9 Hz */
}

/* ---- the YAML writer ---- */

static void round_trip(const sim_config *orig) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  sim_config_write_yaml(orig, f);
  fclose(f);
  sim_config back;
  cs_err e;
  memset(&back, 0, sizeof back);
  cs_status st = sim_config_load_string(&back, buf, len, "written.yaml", &e);
  if (st != CS_OK) print_message("%s\n%s\n", e.msg, buf);
  assert_int_equal(st, CS_OK);
  assert_configs_equal(&back, orig);
  free(buf);
}

static void test_sim_config_write_yaml_round_trips(void **state) {
  (void)state;
  sim_config c;
  cs_err e;
  sim_config_defaults(&c);
  round_trip(&c);
  assert_int_equal(sim_config_load_file(&c, CONFIGS "teaching.yaml", &e), CS_OK);
  round_trip(&c);
  /* Values that are hard to write: a double with no short decimal form, the extremes of the
   * ranges, a name that looks like a number or a boolean. */
  sim_config_defaults(&c);
  c.gm_hbm_gb_per_s = 1.0 / 3.0 + 1.0;
  c.l2_gb_per_s = 1e6;
  c.buffers_gm_capacity_bytes = 281474976710656ull;
  c.chip_fixpipe_saturation = false;
  c.l2_enabled = false;
  snprintf(c.chip_name, sizeof c.chip_name, "true");
  assert_int_equal(sim_config_validate(&c, &e), CS_OK);
  round_trip(&c);
  snprintf(c.chip_name, sizeof c.chip_name, "0x10");
  round_trip(&c);
  snprintf(c.chip_name, sizeof c.chip_name, "%s",
           "a23456789.123456789_123456789-123456789012345678901234567890123");
  assert_int_equal(strlen(c.chip_name), 63);
  round_trip(&c);
}

static void test_sim_config_write_yaml_notes_values_off_default(void **state) {
  (void)state;
  sim_config c;
  sim_config_defaults(&c);
  c.chip_aic_cores = 4;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sim_config_write_yaml(&c, f);
  fclose(f);
  assert_non_null(strstr(buf, "  # (not the built-in default, which is 24)\n  aic_cores: 4\n"));
  assert_null(strstr(buf, "which is 1850"));
  free(buf);
}

static void test_sim_config_write_json(void **state) {
  (void)state;
  sim_config c;
  sim_config_derived d;
  cs_err e;
  assert_int_equal(sim_config_resolve(CONFIGS "teaching.yaml", &c, &d, &e), CS_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cs_json j;
  cs_json_init(&j, f, false);
  sim_config_write_json(&c, &j);
  fclose(f);
  assert_non_null(strstr(buf, "{\"chip\":{\"name\":\"teaching\",\"aic_cores\":2,\"aiv_per_aic\":2,\"clock_mhz\":1000,"
                              "\"fixpipe_saturation\":true,\"launch_us\":0,\"core_start_skew_cycles\":0},"
                              "\"buffers\":{\"l1_bytes\":65536,"));
  assert_non_null(strstr(buf, "\"gm\":{\"hbm_gb_per_s\":64,\"hbm_burst_bytes\":1,\"hbm_efficiency\":1,"));
  assert_true(buf[len - 1] == '}');
  free(buf);
  buf = NULL;
  f = open_memstream(&buf, &len);
  cs_json_init(&j, f, false);
  sim_config_write_derived_json(&d, &j);
  fclose(f);
  assert_string_equal(buf,
                      "{\"clock_period_ns\":1,\"cycles_per_us\":1000,\"hbm_bytes_per_cycle\":64,"
                      "\"hbm_sustained_bytes_per_cycle\":64,\"same_line_bytes_per_cycle\":128,"
                      "\"launch_cycles\":0,\"l2_bytes_per_cycle\":128,\"l2_lines\":512,\"l2_sets\":128,"
                      "\"cube_k0_fp16\":16,\"cube_k0_bf16\":16,\"cube_k0_int8\":32,"
                      "\"cube_k0_int4\":64,\"peak_fp16_tflops\":16.384}");
  free(buf);
}

/* ---- accepted inputs ---- */

static void test_sim_config_load_accepts_empty_and_null(void **state) {
  (void)state;
  static const char *const same[] = {
      "", "# only a comment\n\n", "---\n", "---\n...\n", "~\n", "chip:\n", "l2: ~\n",
      "chip:\n  # cores: 4\nl2: null\n",
  };
  sim_config c, dflt;
  cs_err e;
  sim_config_defaults(&dflt);
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
    assert_int_equal(load_text(&c, same[i], &e), CS_OK);
    assert_true(sim_config_equal(&c, &dflt));
  }
  /* A NULL text of length 0 is an empty file too. */
  assert_int_equal(sim_config_load_string(&c, NULL, 0, "t.yaml", &e), CS_OK);
  assert_true(sim_config_equal(&c, &dflt));
}

static void test_sim_config_load_accepts_value_forms(void **state) {
  (void)state;
  sim_config c;
  cs_err e;
  /* Keys may be quoted: the second one here is a duplicate of the first. */
  assert_int_equal(load_text(&c,
                             "chip:\n"
                             "  cores: 0x18   # hex\n"
                             "  name: 'quoted-name'\n"
                             "  fixpipe_saturation: False\n"
                             "l2: {enabled: TRUE, ways: 8}\n"
                             "gm:\n"
                             "  hbm_gb_per_s: 1.6384e3\n"
                             "  \"hbm_gb_per_s\": 1\n",
                             &e),
                   CS_ECONFIG);
  assert_string_equal(e.msg, "t.yaml:8:3: duplicate key 'gm.hbm_gb_per_s' (first at line 7, "
                             "column 3)");
  assert_int_equal(load_text(&c,
                             "chip:\n"
                             "  cores: 0x18   # hex\n"
                             "  name: 'quoted-name'\n"
                             "  fixpipe_saturation: False\n"
                             "l2: {enabled: TRUE, ways: 8}\n"
                             "gm:\n"
                             "  hbm_gb_per_s: 1.6384e3\n"
                             "mte2:\n"
                             "  latency_cycles: 0\n",
                             &e),
                   CS_OK);
  assert_true(c.chip_aic_cores == 24);
  assert_string_equal(c.chip_name, "quoted-name");
  assert_false(c.chip_fixpipe_saturation);
  assert_true(c.l2_enabled);
  assert_true(c.l2_ways == 8);
  assert_true(c.gm_hbm_gb_per_s == 1638.4);
  assert_true(c.mte2_latency_cycles == 0);
  assert_int_equal(sim_config_validate(&c, &e), CS_OK);
  /* A number is a fine string: names are text, whatever they look like. */
  assert_int_equal(load_text(&c, "chip:\n  name: 910\n", &e), CS_OK);
  assert_string_equal(c.chip_name, "910");
  /* Integers are numbers too where a double is expected. */
  assert_int_equal(load_text(&c, "l2:\n  gb_per_s: 4096\n", &e), CS_OK);
  assert_true(c.l2_gb_per_s == 4096.0);
}

static void test_sim_config_load_is_over_the_given_config(void **state) {
  (void)state;
  sim_config c;
  cs_err e;
  sim_config_defaults(&c);
  const char *a = "chip:\n  cores: 4\n";
  const char *b = "chip:\n  clock_mhz: 1000\n";
  assert_int_equal(sim_config_load_string(&c, a, strlen(a), "a.yaml", &e), CS_OK);
  assert_int_equal(sim_config_load_string(&c, b, strlen(b), "b.yaml", &e), CS_OK);
  assert_true(c.chip_aic_cores == 4);
  assert_true(c.chip_clock_mhz == 1000);
  /* len is honoured: the text need not end at a NUL. */
  const char *c3 = "chip:\n  cores: 3\n  cores: 9\n";
  assert_int_equal(sim_config_load_string(&c, c3, 17, "c.yaml", &e), CS_OK);
  assert_true(c.chip_aic_cores == 3);
}

/* ---- error classes: code and exact message ---- */

static void test_sim_config_error_unknown_section(void **state) {
  (void)state;
  expect_load_error("chp:\n  cores: 1\n", CS_ECONFIG,
                    "t.yaml:1:1: unknown section 'chp' (did you mean 'chip'?)");
  expect_load_error("chip:\n  cores: 2\nbufers:\n  l1_bytes: 1024\n", CS_ECONFIG,
                    "t.yaml:3:1: unknown section 'bufers' (did you mean 'buffers'?)");
  expect_load_error("cache:\n  ways: 8\n", CS_ECONFIG,
                    "t.yaml:1:1: unknown section 'cache' (the sections are: chip, buffers, "
                    "scalar, mte2, mte1, cube, fixpipe, mte3, vector, aiv, gm, l2)");
  /* Two letters off a two-letter name is not "close". */
  expect_load_error("xy:\n", CS_ECONFIG,
                    "t.yaml:1:1: unknown section 'xy' (the sections are: chip, buffers, "
                    "scalar, mte2, mte1, cube, fixpipe, mte3, vector, aiv, gm, l2)");
}

static void test_sim_config_error_unknown_key(void **state) {
  (void)state;
  expect_load_error("chip:\n  coers: 4\n", CS_ECONFIG,
                    "t.yaml:2:3: unknown key 'chip.coers' (did you mean 'chip.aic_cores'?)");
  expect_load_error("l2:\n  line_byte: 256\n", CS_ECONFIG,
                    "t.yaml:2:3: unknown key 'l2.line_byte' (did you mean 'l2.line_bytes'?)");
  expect_load_error("chip:\n  l1_bytes: 262144\n", CS_ECONFIG,
                    "t.yaml:2:3: unknown key 'chip.l1_bytes' (did you mean "
                    "'buffers.l1_bytes'?)");
  expect_load_error("chip:\n  frequency: 1000\n", CS_ECONFIG,
                    "t.yaml:2:3: unknown key 'chip.frequency' (`cubesim config show` lists "
                    "every key)");
  expect_load_error("cube: {head_cycles: 1, haed_cycles: 2}\n", CS_ECONFIG,
                    "t.yaml:1:24: unknown key 'cube.haed_cycles' (did you mean "
                    "'cube.head_cycles'?)");
}

static void test_sim_config_error_wrong_type(void **state) {
  (void)state;
  expect_load_error("chip:\n  cores: 1.5\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: expected an unsigned integer (decimal or 0x hex), "
                    "found '1.5'");
  expect_load_error("chip:\n  cores: twenty\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: expected an unsigned integer (decimal or 0x hex), "
                    "found 'twenty'");
  expect_load_error("chip:\n  cores: \"24\"\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: expected an unsigned integer, found the quoted "
                    "string \"24\"");
  expect_load_error("chip:\n  cores: -1\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: expected an unsigned integer (decimal or 0x hex), "
                    "found the negative number '-1'");
  expect_load_error("chip:\n  cores: +4\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: expected an unsigned integer (decimal or 0x hex), "
                    "found '+4'");
  expect_load_error("chip:\n  cores: 1_000\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: expected an unsigned integer (decimal or 0x hex), "
                    "found '1_000'");
  expect_load_error("chip:\n  cores: 0x\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: expected an unsigned integer (decimal or 0x hex), "
                    "found '0x'");
  expect_load_error("chip:\n  cores: 010\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: '010' has a leading zero (octal is not accepted)");
  expect_load_error("chip:\n  cores:\n", CS_ECONFIG,
                    "t.yaml:2:9: chip.aic_cores: expected an unsigned integer, found an empty value");
  expect_load_error("chip:\n  fixpipe_saturation: yes\n", CS_ECONFIG,
                    "t.yaml:2:23: chip.fixpipe_saturation: expected true or false, found 'yes'");
  expect_load_error("l2:\n  enabled: 1\n", CS_ECONFIG,
                    "t.yaml:2:12: l2.enabled: expected true or false, found '1'");
  expect_load_error("l2:\n  enabled: \"true\"\n", CS_ECONFIG,
                    "t.yaml:2:12: l2.enabled: expected true or false, found the quoted string "
                    "\"true\"");
  expect_load_error("gm:\n  hbm_gb_per_s: fast\n", CS_ECONFIG,
                    "t.yaml:2:17: gm.hbm_gb_per_s: expected a number, found 'fast'");
  expect_load_error("gm:\n  hbm_gb_per_s: .inf\n", CS_ECONFIG,
                    "t.yaml:2:17: gm.hbm_gb_per_s: expected a number, found '.inf'");
  expect_load_error("gm:\n  hbm_gb_per_s: nan\n", CS_ECONFIG,
                    "t.yaml:2:17: gm.hbm_gb_per_s: expected a number, found 'nan'");
  expect_load_error("gm:\n  hbm_gb_per_s: 0x10\n", CS_ECONFIG,
                    "t.yaml:2:17: gm.hbm_gb_per_s: expected a number, found '0x10'");
  expect_load_error("chip:\n  name: \"a\\0b\"\n", CS_ECONFIG,
                    "t.yaml:2:9: chip.name: the value contains a NUL character");
}

static void test_sim_config_error_integer_overflow(void **state) {
  (void)state;
  sim_config c;
  cs_err e;
  /* 2^64 - 1 is read exactly (then refused by the range), 2^64 is refused as such. */
  expect_load_error("buffers:\n  gm_capacity_bytes: 18446744073709551615\n", CS_ECONFIG,
                    "t.yaml:2:22: buffers.gm_capacity_bytes = 18446744073709551615 is above the "
                    "maximum 281474976710656");
  expect_load_error("buffers:\n  gm_capacity_bytes: 18446744073709551616\n", CS_ECONFIG,
                    "t.yaml:2:22: buffers.gm_capacity_bytes: '18446744073709551616' does not "
                    "fit in 64 bits");
  expect_load_error("buffers:\n  gm_capacity_bytes: 0x10000000000000000\n", CS_ECONFIG,
                    "t.yaml:2:22: buffers.gm_capacity_bytes: '0x10000000000000000' does not fit "
                    "in 64 bits");
  expect_load_error("buffers:\n  gm_capacity_bytes: 99999999999999999999999\n", CS_ECONFIG,
                    "t.yaml:2:22: buffers.gm_capacity_bytes: '99999999999999999999999' does not "
                    "fit in 64 bits");
  expect_load_error("gm:\n  hbm_gb_per_s: 1e400\n", CS_ECONFIG,
                    "t.yaml:2:17: gm.hbm_gb_per_s: '1e400' is too large for a double");
  assert_int_equal(load_text(&c, "buffers:\n  gm_capacity_bytes: 0x1000000000000\n", &e), CS_OK);
  assert_true(c.buffers_gm_capacity_bytes == (1ull << 48));
}

static void test_sim_config_error_duplicates(void **state) {
  (void)state;
  expect_load_error("chip:\n  cores: 4\n  cores: 8\n", CS_ECONFIG,
                    "t.yaml:3:3: duplicate key 'chip.aic_cores' (first at line 2, column 3)");
  expect_load_error("chip:\n  cores: 4\nl2:\n  ways: 2\nchip:\n  clock_mhz: 1000\n", CS_ECONFIG,
                    "t.yaml:5:1: duplicate section 'chip' (first at line 1, column 1)");
  /* A section with nothing under it still counts as given. */
  expect_load_error("l2:\nl2:\n  ways: 2\n", CS_ECONFIG,
                    "t.yaml:2:1: duplicate section 'l2' (first at line 1, column 1)");
}

static void test_sim_config_error_structure(void **state) {
  (void)state;
  expect_load_error("chip:\n  cores: [1, 2]\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: expected an unsigned integer, found a sequence");
  expect_load_error("chip:\n  cores:\n    - 1\n", CS_ECONFIG,
                    "t.yaml:3:5: chip.aic_cores: expected an unsigned integer, found a sequence");
  expect_load_error("chip:\n  cores:\n    value: 4\n", CS_ECONFIG,
                    "t.yaml:3:5: chip.aic_cores: expected an unsigned integer, found a mapping");
  expect_load_error("chip:\n  name: {a: b}\n", CS_ECONFIG,
                    "t.yaml:2:9: chip.name: expected a string, found a mapping");
  expect_load_error("chip: 24\n", CS_ECONFIG,
                    "t.yaml:1:7: chip: expected a mapping of keys, found the scalar '24'");
  expect_load_error("chip:\n  - cores\n", CS_ECONFIG,
                    "t.yaml:2:3: chip: expected a mapping of keys, found a sequence");
  expect_load_error("- chip\n- l2\n", CS_ECONFIG,
                    "t.yaml:1:1: the top level must be a mapping of sections, found a sequence");
  expect_load_error("hello\n", CS_ECONFIG,
                    "t.yaml:1:1: the top level must be a mapping of sections, found a scalar");
  expect_load_error("\"\"\n", CS_ECONFIG,
                    "t.yaml:1:1: the top level must be a mapping of sections, found a scalar");
  expect_load_error("? [chip]\n: 1\n", CS_ECONFIG,
                    "t.yaml:1:3: a section name must be a scalar, found a sequence");
  expect_load_error("chip:\n  ? {a: 1}\n  : 1\n", CS_ECONFIG,
                    "t.yaml:2:5: chip: a key must be a scalar, found a mapping");
  expect_load_error("chip: &c\n  cores: 4\nl2: *c\n", CS_ECONFIG,
                    "t.yaml:3:5: l2: aliases (*c) are not supported");
  expect_load_error("chip:\n  cores: !!int 4\n", CS_ECONFIG,
                    "t.yaml:2:10: chip.aic_cores: tags (tag:yaml.org,2002:int) are not supported");
  expect_load_error("chip:\n  cores: 4\n---\nl2:\n  ways: 2\n", CS_ECONFIG,
                    "t.yaml:3:1: a second YAML document starts here; a configuration is one "
                    "document");
}

static void test_sim_config_error_malformed_yaml(void **state) {
  (void)state;
  expect_load_error("chip:\n  cores: 4\n   clock_mhz: 1000\n", CS_EFORMAT,
                    "t.yaml:3:13: malformed YAML: mapping values are not allowed in this "
                    "context");
  expect_load_error("chip:\n\tcores: 4\n", CS_EFORMAT,
                    "t.yaml:2:1: malformed YAML: found character that cannot start any token "
                    "(while scanning for the next token at line 2, column 1)");
  expect_load_error("chip:\n  cores: 4\n clock_mhz: 1000\n", CS_EFORMAT,
                    "t.yaml:3:2: malformed YAML: did not find expected key (while parsing a "
                    "block mapping at line 1, column 1)");
  expect_load_error("chip: {cores: 4\n", CS_EFORMAT,
                    "t.yaml:2:1: malformed YAML: did not find expected ',' or '}' (while "
                    "parsing a flow mapping at line 1, column 7)");
  /* A syntax error is reported as such even after a value that would be refused first. */
  expect_load_error("chip:\n  cores: 0\n  name: \"open\n", CS_EFORMAT,
                    "t.yaml:4:1: malformed YAML: found unexpected end of stream (while scanning "
                    "a quoted scalar at line 3, column 9)");
  /* The reader's errors have only a byte offset: it is turned into line and column. */
  expect_load_error("chip:\n  name: \"a\xff\"\n", CS_EFORMAT,
                    "t.yaml:2:11: malformed YAML: invalid leading UTF-8 octet (byte 0xff)");
}

static void test_sim_config_error_range_at_load_and_rules(void **state) {
  (void)state;
  expect_load_error("l2:\n  ways: 0\n", CS_ECONFIG,
                    "t.yaml:2:9: l2.ways = 0 is below the minimum 1");
  expect_load_error("buffers:\n  l0a_align_bytes: 384\n", CS_ECONFIG,
                    "t.yaml:2:20: buffers.l0a_align_bytes = 384 is not a power of two");
  expect_load_error("l2:\n  line_bytes: 96\n", CS_ECONFIG,
                    "t.yaml:2:15: l2.line_bytes = 96 is not a power of two");
  expect_load_error("cube:\n  macs_per_cycle_int8: 1000\n", CS_ECONFIG,
                    "t.yaml:2:24: cube.macs_per_cycle_int8 = 1000 is not a multiple of 256");
  expect_load_error("buffers:\n  fb_bytes: 2044\n", CS_ECONFIG,
                    "t.yaml:2:13: buffers.fb_bytes = 2044 is not a multiple of 8");
  expect_load_error("gm:\n  hbm_gb_per_s: 0.5\n", CS_ECONFIG,
                    "t.yaml:2:17: gm.hbm_gb_per_s = 0.5 is below the minimum 1");
  expect_load_error("chip:\n  name: \"\"\n", CS_ECONFIG,
                    "t.yaml:2:9: chip.name = '' has 0 characters, below the minimum 1");
  expect_load_error("chip:\n  name: my chip\n", CS_ECONFIG,
                    "t.yaml:2:9: chip.name = 'my chip' has the character ' '; only letters, "
                    "digits, '.', '_' and '-' are allowed");
  expect_load_error(
      "chip:\n  name: a234567890123456789012345678901234567890123456789012345678901234\n",
      CS_ECONFIG,
      "t.yaml:2:9: chip.name = 'a2345678901234567890...' has 64 characters, above the "
      "maximum 63");
}

static void test_sim_config_error_relations_point_into_the_file(void **state) {
  (void)state;
  expect_load_error("buffers:\n  l0a_bytes: 1000\n", CS_ECONFIG,
                    "t.yaml:2:14: buffers.l0a_bytes = 1000 is not a multiple of "
                    "buffers.l0a_align_bytes = 512");
  /* The alignment set by the file breaks the default size: the error points at it. */
  expect_load_error("buffers:\n  bt_align_bytes: 2048\n", CS_ECONFIG,
                    "t.yaml:2:19: buffers.bt_bytes = 1024 is not a multiple of "
                    "buffers.bt_align_bytes = 2048");
  expect_load_error("l2:\n  bytes: 1000000\n", CS_ECONFIG,
                    "t.yaml:2:10: l2.bytes = 1000000 is not a multiple of l2.line_bytes * "
                    "l2.ways = 8192 (a whole number of sets)");
  expect_load_error("l2:\n  ways: 5\n", CS_ECONFIG,
                    "t.yaml:2:9: l2.bytes = 201326592 is not a multiple of l2.line_bytes * "
                    "l2.ways = 2560 (a whole number of sets)");
}

static void test_sim_config_error_file(void **state) {
  (void)state;
  sim_config c;
  sim_config_derived d;
  cs_err e;
  sim_config_defaults(&c);
  assert_int_equal(sim_config_load_file(&c, CONFIGS "no-such-file.yaml", &e), CS_EIO);
  assert_string_equal(e.msg, CONFIGS "no-such-file.yaml: cannot open: No such file or directory");
  assert_int_equal(sim_config_resolve(CONFIGS "no-such-file.yaml", &c, &d, &e), CS_EIO);
  /* The error record may be NULL. */
  assert_int_equal(sim_config_load_file(&c, CONFIGS "no-such-file.yaml", NULL), CS_EIO);
  assert_int_equal(sim_config_load_string(&c, "l2: [", 5, "t.yaml", NULL), CS_EFORMAT);
  assert_int_equal(sim_config_load_string(&c, "l2: {ways: 0}", 13, "t.yaml", NULL), CS_ECONFIG);
}

/* ---- validation ---- */

static void expect_invalid(void (*spoil)(sim_config *), const char *msg) {
  sim_config c;
  cs_err e;
  sim_config_defaults(&c);
  spoil(&c);
  assert_int_equal(sim_config_validate(&c, &e), CS_ECONFIG);
  assert_string_equal(e.msg, msg);
}

static void zero_ways(sim_config *c) { c->l2_ways = 0; }
static void odd_l0c(sim_config *c) { c->buffers_l0c_bytes = 1536; }
static void many_cores(sim_config *c) { c->chip_aic_cores = 1025; }
static void nan_hbm(sim_config *c) { c->gm_hbm_gb_per_s = NAN; }
static void bad_name(sim_config *c) { snprintf(c->chip_name, sizeof c->chip_name, "a/b"); }
static void unterminated_name(sim_config *c) { memset(c->chip_name, 'x', sizeof c->chip_name); }
static void bad_l2(sim_config *c) { c->l2_bytes = 3 * 8192 + 4096; }
static void bad_gm(sim_config *c) {
  c->buffers_gm_align_bytes = 4096;
  c->buffers_gm_capacity_bytes = 4096 * 3 + 1;
}

static void test_sim_config_validate_messages(void **state) {
  (void)state;
  expect_invalid(zero_ways, "l2.ways = 0 is below the minimum 1");
  expect_invalid(odd_l0c, "buffers.l0c_bytes = 1536 is not a multiple of "
                          "buffers.l0c_align_bytes = 1024");
  expect_invalid(many_cores, "chip.aic_cores = 1025 is above the maximum 1024");
  expect_invalid(nan_hbm, "gm.hbm_gb_per_s = nan is not a finite number");
  expect_invalid(bad_name, "chip.name = 'a/b' has the character '/'; only letters, digits, '.', "
                           "'_' and '-' are allowed");
  expect_invalid(unterminated_name, "chip.name is not a terminated string");
  expect_invalid(bad_l2, "l2.bytes = 28672 is not a multiple of l2.line_bytes * l2.ways = 8192 "
                         "(a whole number of sets)");
  expect_invalid(bad_gm, "buffers.gm_capacity_bytes = 12289 is not a multiple of "
                         "buffers.gm_align_bytes = 4096");
}

static void test_sim_config_resolve_reports_file_errors_in_place(void **state) {
  (void)state;
  /* A relation the file breaks is reported at the file's value, not later by validate. */
  char path[] = "/tmp/cubesim_test_config_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("l2:\n  ways: 3\n  line_bytes: 1024\n", f);
  fclose(f);
  sim_config c;
  sim_config_derived d;
  cs_err e;
  assert_int_equal(sim_config_resolve(path, &c, &d, &e), CS_OK);
  assert_true(d.l2_sets == 201326592ull / (1024 * 3));
  f = fopen(path, "w");
  fputs("l2:\n  ways: 3\n  line_bytes: 4096\n  bytes: 0x20000\n", f);
  fclose(f);
  sim_config_defaults(&c);
  c.chip_aic_cores = 7;
  assert_int_equal(sim_config_resolve(path, &c, &d, &e), CS_ECONFIG);
  char want[256];
  snprintf(want, sizeof want,
           "%s:4:10: l2.bytes = 131072 is not a multiple of l2.line_bytes * l2.ways = 12288 (a "
           "whole number of sets)",
           path);
  assert_string_equal(e.msg, want);
  assert_true(c.chip_aic_cores == 7); /* untouched on failure */
  remove(path);
}

/* ---- boundaries: min-1 refused, min accepted, max accepted, max+1 refused ---- */

static void check_u64_boundaries(const char *section, const char *key, uint64_t lo, uint64_t hi) {
  char path[96], text[160], want[256];
  snprintf(path, sizeof path, "%s.%s", section, key);
  int i = sim_config_param_find(path);
  assert_true(i >= 0);
  assert_true(sim_config_param((size_t)i)->min_u64 == lo);
  assert_true(sim_config_param((size_t)i)->max_u64 == hi);
  sim_config c;
  cs_err e;
  uint64_t vals[4] = {lo - 1, lo, hi, hi + 1};
  for (int k = 0; k < 4; k++) {
    if (k == 0 && lo == 0) continue;
    int n = snprintf(text, sizeof text, "%s:\n  %s: %llu\n", section, key,
                     (unsigned long long)vals[k]);
    int col = 2 + (int)strlen(key) + 2 + 1; /* "  key: value", 1-based */
    cs_status st = load_text(&c, text, &e);
    if (k == 1 || k == 2) {
      assert_int_equal(st, CS_OK);
      uint64_t got = *(const uint64_t *)(const void *)((const char *)&c +
                                                        sim_config_param((size_t)i)->offset);
      assert_true(got == vals[k]);
    } else {
      assert_int_equal(st, CS_ECONFIG);
      snprintf(want, sizeof want, "t.yaml:2:%d: %s = %llu is %s %llu", col, path,
               (unsigned long long)vals[k], k == 0 ? "below the minimum" : "above the maximum",
               (unsigned long long)(k == 0 ? lo : hi));
      assert_string_equal(e.msg, want);
    }
    (void)n;
    /* The same through sim_config_set, without a position. */
    char v[32];
    snprintf(v, sizeof v, "%llu", (unsigned long long)vals[k]);
    sim_config_defaults(&c);
    st = sim_config_set(&c, path, v, &e);
    assert_int_equal(st, (k == 1 || k == 2) ? CS_OK : CS_ECONFIG);
  }
}

static void test_sim_config_range_boundaries(void **state) {
  (void)state;
  check_u64_boundaries("chip", "aic_cores", 1, 1024);
  check_u64_boundaries("mte1", "queue_depth", 1, 4096);
  check_u64_boundaries("l2", "ways", 1, 1024);
  check_u64_boundaries("mte2", "gm_bytes_per_cycle", 1, 65536);
  check_u64_boundaries("cube", "head_cycles", 0, 100000);
  /* Buffer sizes: the bounds are multiples of the default alignment (so only the range
   * decides); min-1 and max+1 are caught by the range before the alignment. */
  check_u64_boundaries("buffers", "l0c_bytes", 1024, 67108864);
  check_u64_boundaries("buffers", "l1_bytes", 512, 67108864);

  /* A double's range: 1 GB/s is accepted, just under is not; the same at the top. */
  sim_config c;
  cs_err e;
  assert_int_equal(load_text(&c, "gm:\n  hbm_gb_per_s: 0.999\n", &e), CS_ECONFIG);
  assert_string_equal(e.msg, "t.yaml:2:17: gm.hbm_gb_per_s = 0.999 is below the minimum 1");
  assert_int_equal(load_text(&c, "gm:\n  hbm_gb_per_s: 1\n", &e), CS_OK);
  assert_true(c.gm_hbm_gb_per_s == 1.0);
  assert_int_equal(load_text(&c, "gm:\n  hbm_gb_per_s: 1e6\n", &e), CS_OK);
  assert_true(c.gm_hbm_gb_per_s == 1e6);
  assert_int_equal(load_text(&c, "gm:\n  hbm_gb_per_s: 1000000.5\n", &e), CS_ECONFIG);
  assert_string_equal(e.msg,
                      "t.yaml:2:17: gm.hbm_gb_per_s = 1000000.5 is above the maximum 1000000");
  /* A string's length: 63 characters fit the 64-byte field, 64 do not. */
  char text[200];
  snprintf(text, sizeof text, "chip:\n  name: %s\n",
           "b23456789012345678901234567890123456789012345678901234567890123");
  assert_int_equal(load_text(&c, text, &e), CS_OK);
  assert_int_equal(strlen(c.chip_name), 63);
  assert_int_equal(load_text(&c, "chip:\n  name: x\n", &e), CS_OK);
  assert_string_equal(c.chip_name, "x");
}

/* ---- sim_config_set ---- */

static void test_sim_config_set(void **state) {
  (void)state;
  sim_config c;
  cs_err e;
  sim_config_defaults(&c);
  assert_int_equal(sim_config_set(&c, "chip.aic_cores", "4", &e), CS_OK);
  assert_true(c.chip_aic_cores == 4);
  assert_int_equal(sim_config_set(&c, "l2.enabled", "false", &e), CS_OK);
  assert_false(c.l2_enabled);
  assert_int_equal(sim_config_set(&c, "gm.hbm_gb_per_s", "1638.4", &e), CS_OK);
  assert_true(c.gm_hbm_gb_per_s == 1638.4);
  assert_int_equal(sim_config_set(&c, "chip.name", "mine", &e), CS_OK);
  assert_string_equal(c.chip_name, "mine");
  assert_int_equal(sim_config_set(&c, "chip.aic_cores", "0", &e), CS_ECONFIG);
  assert_string_equal(e.msg, "chip.aic_cores = 0 is below the minimum 1");
  assert_true(c.chip_aic_cores == 4);
  assert_int_equal(sim_config_set(&c, "chip.aic_cores", "", &e), CS_ECONFIG);
  assert_string_equal(e.msg, "chip.aic_cores: expected an unsigned integer, found an empty value");
  assert_int_equal(sim_config_set(&c, "chip.coers", "4", &e), CS_ECONFIG);
  assert_string_equal(e.msg, "unknown key 'chip.coers' (did you mean 'chip.aic_cores'?)");
  assert_int_equal(sim_config_set(&c, "chp.cores", "4", &e), CS_ECONFIG);
  assert_string_equal(e.msg, "unknown section 'chp' (did you mean 'chip'?)");
  assert_int_equal(sim_config_set(&c, "cores", "4", &e), CS_ECONFIG);
  assert_string_equal(e.msg, "'cores' is not a parameter (write section.key, e.g. chip.aic_cores)");
}

/* chip.cores, the name before the chip had AIV cores, still reads (files and --set) as chip.aic_cores;
 * both spellings in one file are one key given twice; written files use the current name. */
static void test_sim_config_former_name_chip_cores(void **state) {
  (void)state;
  sim_config c;
  cs_err e;
  sim_config_defaults(&c);
  assert_int_equal(load_text(&c, "chip:\n  cores: 8\n", &e), CS_OK);
  assert_true(c.chip_aic_cores == 8);
  assert_int_equal(load_text(&c, "chip:\n  aic_cores: 12\n", &e), CS_OK);
  assert_true(c.chip_aic_cores == 12);
  assert_int_equal(sim_config_set(&c, "chip.cores", "6", &e), CS_OK);
  assert_true(c.chip_aic_cores == 6);
  assert_int_equal(sim_config_set(&c, "chip.cores", "0", &e), CS_ECONFIG);
  assert_string_equal(e.msg, "chip.aic_cores = 0 is below the minimum 1");
  assert_int_equal(sim_config_param_find("chip.cores"), SIM_PARAM_chip_aic_cores);
  assert_int_equal(sim_config_param_find("l2.cores"), -1);
  expect_load_error("chip:\n  cores: 4\n  aic_cores: 8\n", CS_ECONFIG,
                    "t.yaml:3:3: duplicate key 'chip.aic_cores' (first at line 2, column 3)");
  expect_load_error("l2:\n  cores: 4\n", CS_ECONFIG, "t.yaml:2:3: unknown key 'l2.cores' (did you mean 'chip.aic_cores'?)");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  sim_config_write_yaml(&c, f);
  fclose(f);
  assert_non_null(strstr(buf, "\n  aic_cores: 6"));
  assert_null(strstr(buf, "\n  cores:"));
  free(buf);
}

/* ---- derived values ---- */

static void test_sim_config_derived_910b(void **state) {
  (void)state;
  sim_config c;
  sim_config_derived d;
  cs_err e;
  assert_int_equal(sim_config_resolve(NULL, &c, &d, &e), CS_OK);
  /* 1800 GB/s at 1850 MHz: 1800e9 / 1850e6 = 36000 / 37 = 972.97... B/cycle. */
  assert_true(fabs(d.hbm_bytes_per_cycle - 36000.0 / 37.0) < 1e-9);
  assert_true(d.hbm_bytes_per_cycle > 972.97 && d.hbm_bytes_per_cycle < 972.98);
  /* 5000 GB/s at 1850 MHz: 100000 / 37 = 2702.70... B/cycle. */
  assert_true(fabs(d.l2_bytes_per_cycle - 100000.0 / 37.0) < 1e-9);
  /* 1 / 1.85 GHz = 20/37 ns. */
  assert_true(fabs(d.clock_period_ns - 20.0 / 37.0) < 1e-15);
  assert_true(d.cycles_per_us == 1850.0);
  /* 192 MiB / (512 * 16) = 24576 sets; 192 MiB / 512 = 393216 lines. */
  assert_true(d.l2_sets == 24576);
  assert_true(d.l2_lines == 393216);
  assert_true(d.cube_k0_fp16 == 16);
  assert_true(d.cube_k0_bf16 == 16);
  assert_true(d.cube_k0_int8 == 32);
  assert_true(d.cube_k0_int4 == 64);
  /* 2 flops x 4096 MACs x 24 cores x 1.85e9 Hz = 363.7248e12. */
  assert_true(fabs(d.peak_fp16_tflops - 363.7248) < 1e-9);
  char t[64];
  sim_config_derived_value_text(&d, SIM_DERIVED_l2_sets, t, sizeof t);
  assert_string_equal(t, "24576");
  sim_config_derived_value_text(&d, SIM_DERIVED_hbm_bytes_per_cycle, t, sizeof t);
  assert_string_equal(t, "972.973");
  assert_int_equal(sim_config_derived_count(), SIM_DERIVED_COUNT);
  assert_string_equal(sim_config_derived_info(SIM_DERIVED_l2_sets)->unit, "sets");
}

/* ---- no shared state ---- */

static void test_sim_config_two_configs_are_independent(void **state) {
  (void)state;
  sim_config a, b;
  sim_config_derived da, db;
  cs_err ea, eb;
  assert_int_equal(sim_config_resolve(CONFIGS "teaching.yaml", &a, &da, &ea), CS_OK);
  assert_int_equal(sim_config_resolve(CONFIGS "ascend910b.yaml", &b, &db, &eb), CS_OK);
  /* Interleave more loads and a failure on one; the other does not move. */
  const char *more = "chip:\n  cores: 3\n";
  assert_int_equal(sim_config_load_string(&a, more, strlen(more), "more.yaml", &ea), CS_OK);
  assert_int_equal(sim_config_load_string(&b, "l2: {ways: 0}", 13, "bad.yaml", &eb), CS_ECONFIG);
  assert_string_equal(eb.msg, "bad.yaml:1:12: l2.ways = 0 is below the minimum 1");
  assert_int_equal(ea.code, CS_OK);
  assert_string_equal(ea.msg, "");
  assert_true(a.chip_aic_cores == 3);
  assert_true(b.chip_aic_cores == 24);
  assert_true(a.chip_clock_mhz == 1000);
  assert_true(b.chip_clock_mhz == 1850);
  assert_true(da.hbm_bytes_per_cycle == 64.0);
  assert_true(fabs(db.hbm_bytes_per_cycle - 36000.0 / 37.0) < 1e-9);
  sim_config dflt;
  sim_config_defaults(&dflt);
  assert_configs_equal(&b, &dflt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_config_defaults_are_the_documented_910b_values),
      cmocka_unit_test(test_sim_config_table_is_complete_and_consistent),
      cmocka_unit_test(test_sim_config_former_name_chip_cores),
      cmocka_unit_test(test_sim_config_introspection_texts),
      cmocka_unit_test(test_sim_config_910b_file_equals_defaults),
      cmocka_unit_test(test_sim_config_910b_file_marks_every_assumption),
      cmocka_unit_test(test_sim_config_teaching_file_loads_with_its_values),
      cmocka_unit_test(test_sim_config_write_yaml_round_trips),
      cmocka_unit_test(test_sim_config_write_yaml_notes_values_off_default),
      cmocka_unit_test(test_sim_config_write_json),
      cmocka_unit_test(test_sim_config_load_accepts_empty_and_null),
      cmocka_unit_test(test_sim_config_load_accepts_value_forms),
      cmocka_unit_test(test_sim_config_load_is_over_the_given_config),
      cmocka_unit_test(test_sim_config_error_unknown_section),
      cmocka_unit_test(test_sim_config_error_unknown_key),
      cmocka_unit_test(test_sim_config_error_wrong_type),
      cmocka_unit_test(test_sim_config_error_integer_overflow),
      cmocka_unit_test(test_sim_config_error_duplicates),
      cmocka_unit_test(test_sim_config_error_structure),
      cmocka_unit_test(test_sim_config_error_malformed_yaml),
      cmocka_unit_test(test_sim_config_error_range_at_load_and_rules),
      cmocka_unit_test(test_sim_config_error_relations_point_into_the_file),
      cmocka_unit_test(test_sim_config_error_file),
      cmocka_unit_test(test_sim_config_validate_messages),
      cmocka_unit_test(test_sim_config_resolve_reports_file_errors_in_place),
      cmocka_unit_test(test_sim_config_range_boundaries),
      cmocka_unit_test(test_sim_config_set),
      cmocka_unit_test(test_sim_config_derived_910b),
      cmocka_unit_test(test_sim_config_two_configs_are_independent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
