/* Tests of `cubesim run` and `cubesim kernels` for the quantization operators: .npy inputs written
 * here, outputs read back, the fixpipe note in --json, generated inputs checked against the host
 * references, the operator list, and invalid inputs (exit status 2, one error line, no output). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cs_npy.h"
#include "support/cli_run.h"
#include "base/cs_jsonr.h"
#include "support/json_expect.h"
#include "support/tmp_files.h"

/* ---- running the command ---- */

/* An argument list under construction (argv[0] = "cubesim"). */
typedef struct args {
  int argc;
  char *argv[64];
  char store[64][320];
} args;

static args *args_new(const char *cmd) {
  args *a = calloc(1, sizeof *a);
  assert_non_null(a);
  snprintf(a->store[0], sizeof a->store[0], "cubesim");
  snprintf(a->store[1], sizeof a->store[1], "%s", cmd);
  a->argv[0] = a->store[0];
  a->argv[1] = a->store[1];
  a->argc = 2;
  return a;
}

static void add(args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(args *a, const char *fmt, ...) {
  assert_true(a->argc < 63);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a->store[a->argc], sizeof a->store[a->argc], fmt, ap);
  va_end(ap);
  a->argv[a->argc] = a->store[a->argc];
  a->argc++;
  a->argv[a->argc] = NULL;
}

/* Runs the command through cli_main and frees the argument list. */
static cr_result run(args *a) {
  cr_result r = cr_runv(a->argc, a->argv);
  free(a);
  return r;
}

/* ---- files ---- */

/* Bits of a binary16 value that is exact (these tests use a few small ones). */
static uint16_t f16_exact(double v) {
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  if (v < 0) v = -v;
  int e = 0;
  while (v >= 2) v /= 2, e++;
  while (v < 1) v *= 2, e--;
  return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)((v - 1) * 1024));
}

/* Writes dir/NAME.npy of the given type from doubles (ndim 0: a scalar). */
static void npy(const tf_dir *d, const char *name, cs_npy_dtype t, int ndim, const size_t *shape, const double *v) {
  size_t count = 1;
  for (int i = 0; i < ndim; i++) count *= shape[i];
  size_t eb = cs_npy_dtype_bytes(t);
  uint8_t *buf = calloc(count + 1, eb);
  assert_non_null(buf);
  for (size_t i = 0; i < count; i++) {
    switch (t) {
      case CS_NPY_I8: ((int8_t *)buf)[i] = (int8_t)v[i]; break;
      case CS_NPY_U8: ((uint8_t *)buf)[i] = (uint8_t)v[i]; break;
      case CS_NPY_I32: ((int32_t *)buf)[i] = (int32_t)v[i]; break;
      case CS_NPY_F16: ((uint16_t *)buf)[i] = f16_exact(v[i]); break;
      case CS_NPY_F32: ((float *)buf)[i] = (float)v[i]; break;
      default: fail_msg("unused dtype");
    }
  }
  char file[64], p[256];
  snprintf(file, sizeof file, "%s.npy", name);
  tf_write_npy(tf_join(p, sizeof p, d->path, file), t, ndim, shape, buf);
  free(buf);
}

static void read_back(const tf_dir *d, const char *file, cs_npy_dtype t, int ndim, const size_t *shape,
                      const int64_t *want) {
  char p[256];
  cs_npy a;
  tf_read_npy(tf_join(p, sizeof p, d->path, file), &a);
  assert_int_equal(a.dtype, t);
  assert_int_equal(a.ndim, ndim);
  for (int i = 0; i < ndim; i++) assert_int_equal(a.shape[i], shape[i]);
  for (size_t i = 0; i < a.count; i++) {
    int64_t g = t == CS_NPY_I8 ? ((int8_t *)a.data)[i] : t == CS_NPY_U8 ? ((uint8_t *)a.data)[i] : ((int32_t *)a.data)[i];
    if (g != want[i]) fail_msg("%s[%zu]: got %lld, want %lld", file, i, (long long)g, (long long)want[i]);
  }
  cs_npy_free(&a);
}

/* ---- a QLinearMatMul from files ---- */

/* onnx/backend/test/case/node/qlinearmatmul.py, the 2-D uint8 case: published outputs. */
static void write_onnx_example(const tf_dir *d) {
  const size_t as[2] = {2, 4}, bs[2] = {4, 3}, one[1] = {1};
  const double a[8] = {208, 236, 0, 238, 3, 214, 255, 29}, b[12] = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247};
  const double sa = 0.0066, za = 113, sb = 0.00705, zb = 114, sy = 0.0107, zy = 118;
  npy(d, "a", CS_NPY_U8, 2, as, a);
  npy(d, "a_scale", CS_NPY_F32, 1, one, &sa);
  npy(d, "a_zero_point", CS_NPY_U8, 1, one, &za);
  npy(d, "b", CS_NPY_U8, 2, bs, b);
  npy(d, "b_scale", CS_NPY_F32, 1, one, &sb);
  npy(d, "b_zero_point", CS_NPY_U8, 1, one, &zb);
  npy(d, "y_scale", CS_NPY_F32, 1, one, &sy);
  npy(d, "y_zero_point", CS_NPY_U8, 1, one, &zy);
}

static void add_inputs(args *a, const tf_dir *d, const char *const *names, int n) {
  for (int i = 0; i < n; i++) {
    add(a, "--in");
    add(a, "%s=%s/%s.npy", names[i], d->path, names[i]);
  }
}

static const char *const qlm_names[8] = {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale",
                                         "y_zero_point"};

static void test_cli_run_quant_qlinear_from_files(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  write_onnx_example(&d);
  args *a = args_new("run");
  add(a, "onnx_qlinear_matmul");
  add_inputs(a, &d, qlm_names, 8);
  add(a, "--out");
  add(a, "y=%s/y.npy", d.path);
  add(a, "--check");
  add(a, "--set");
  add(a, "chip.aic_cores=2");
  cr_result r = run(a);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "onnx_qlinear_matmul: ONNX QLinearMatMul: quantized matrix product, requantized to int8/uint8\n");
  cr_assert_contains(r.out, "  out  y            uint8   [2, 3]\n");
  cr_assert_contains(r.out, "check against the host reference: every output bit-exact\n");
  /* the zero points' corrections run on the AIVs: the 2 AI cores' 4 AIVs join the summary */
  cr_assert_contains(r.out, "cubesim summary: ascend910b, 6 cores at 1850 MHz\n");
  cr_assert_contains(r.out, "(24 MACs;"); /* 2 x 3 x 4 */
  cr_free(&r);
  const size_t ys[2] = {2, 3};
  const int64_t want[6] = {168, 115, 255, 1, 66, 151};
  read_back(&d, "y.npy", CS_NPY_U8, 2, ys, want);
  assert_int_equal(tf_count_entries(d.path), 9);

  /* The same through the built binary, end to end. */
  char cmd[2048];
  int used = snprintf(cmd, sizeof cmd, "%s run onnx_qlinear_matmul --json --out y=%s/y2.npy", CUBESIM_BINARY, d.path);
  for (int i = 0; i < 8; i++)
    used += snprintf(cmd + used, sizeof cmd - (size_t)used, " --in %s=%s/%s.npy", qlm_names[i], d.path, qlm_names[i]);
  int status;
  char *buf = cr_shell(cmd, &status);
  assert_int_equal(status, 0);
  cs_jdoc *doc = je_parse(buf, strlen(buf));
  assert_string_equal(cs_jget_string(cs_jroot(doc), "kernel"), "onnx_qlinear_matmul");
  assert_string_equal(cs_jget_string(cs_jroot(doc), "outputs.y.dtype"), "uint8");
  uint64_t macs = 0, cycles = 0;
  assert_true(cs_jget_u64(cs_jroot(doc), "macs", &macs));
  assert_int_equal(macs, 24);
  assert_true(cs_jget_u64(cs_jroot(doc), "total_cycles", &cycles));
  assert_true(cycles > 0);
  assert_int_equal(cs_jcount(cs_jget(cs_jroot(doc), "notes")), 1); /* b's zero point leaves a row part */
  assert_string_equal(cs_jget_string(cs_jroot(doc), "notes[0]"),
                      "note: the zero-point corrections run on the AIVs (a MIX launch): the row and column sums and "
                      "the correction of each int32 tile; the requantization (a double-precision product) runs on "
                      "the host");
  cs_jfree(doc);
  free(buf);
  read_back(&d, "y2.npy", CS_NPY_U8, 2, ys, want);
  tf_dir_remove(&d);
}

/* The fp19 truncation by hand (tests/kernels/test_qmatmul_sim.c derives it): a = 1..8 (K = 1),
 * b = 1, multiplier a_scale = 0.5 + 2^-14, whose fp19 is 0.5. Exact: 1 1 2 2 3 3 4 4; fixpipe:
 * 0 1 2 2 2 3 4 4. */
static void write_fp19_case(const tf_dir *d) {
  const size_t as[2] = {8, 1}, bs[2] = {1, 1};
  const double a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b = 1, m = 0.5 + 1.0 / 16384, one = 1, zero = 0;
  npy(d, "a", CS_NPY_I8, 2, as, a);
  npy(d, "a_scale", CS_NPY_F32, 0, NULL, &m);
  npy(d, "a_zero_point", CS_NPY_I8, 0, NULL, &zero);
  npy(d, "b", CS_NPY_I8, 2, bs, &b);
  npy(d, "b_scale", CS_NPY_F32, 0, NULL, &one);
  npy(d, "b_zero_point", CS_NPY_I8, 0, NULL, &zero);
  npy(d, "y_scale", CS_NPY_F32, 0, NULL, &one);
  npy(d, "y_zero_point", CS_NPY_I8, 0, NULL, &zero);
}

static void test_cli_run_quant_fixpipe_note_in_json(void **state) {
  (void)state;
  tf_dir d;
  tf_dir_make(&d);
  write_fp19_case(&d);
  const size_t ys[2] = {8, 1};
  for (int fix = 0; fix < 2; fix++) {
    args *a = args_new("run");
    add(a, "onnx_qlinear_matmul");
    add_inputs(a, &d, qlm_names, 8);
    if (fix) add(a, "--attr=precision=fixpipe");
    add(a, "--json");
    add(a, "--check");
    add(a, "--out");
    add(a, "y=%s/y%d.npy", d.path, fix);
    cr_result r = run(a);
    cr_assert_ok(&r);
    cs_jdoc *doc = je_parse(r.out, strlen(r.out));
    const cs_jvalue *root = cs_jroot(doc);
    uint64_t v = 1;
    assert_true(cs_jget_u64(root, "check.mismatches", &v));
    assert_int_equal(v, 0);
    assert_true(cs_jget_u64(root, "macs", &v));
    assert_int_equal(v, 8);
    if (fix) {
      assert_int_equal(cs_jcount(cs_jget(root, "notes")), 1);
      assert_string_equal(cs_jget_string(root, "notes[0]"),
                          "precision=fixpipe: 2 of 8 elements (25.000%) differ from the exact requantization, by at "
                          "most 1 (-1: 2); causes: the fp19 multiplier (truncated) and the fp32 product (the int32 "
                          "accumulator rounded to fp32 first)");
    } else {
      assert_int_equal(cs_jcount(cs_jget(root, "notes")), 0);
    }
    cs_jfree(doc);
    cr_free(&r);
  }
  const int64_t exact[8] = {1, 1, 2, 2, 3, 3, 4, 4}, fix[8] = {0, 1, 2, 2, 2, 3, 4, 4};
  read_back(&d, "y0.npy", CS_NPY_I8, 2, ys, exact);
  read_back(&d, "y1.npy", CS_NPY_I8, 2, ys, fix);
  /* the text form carries the same note */
  args *a = args_new("run");
  add(a, "onnx_qlinear_matmul");
  add_inputs(a, &d, qlm_names, 8);
  add(a, "--attr");
  add(a, "precision=fixpipe");
  cr_result r = run(a);
  cr_assert_ok(&r);
  cr_assert_contains(r.out, "\nprecision=fixpipe: 2 of 8 elements (25.000%) differ from the exact requantization, by at most "
                         "1 (-1: 2); causes: ");
  cr_free(&r);
  tf_dir_remove(&d);
}

/* ---- generated inputs, checked against the host references ---- */

static void generated(const char *op, const char *precision, const char *m, const char *n, const char *k,
                      const char *a_t, const char *b_t) {
  args *a = args_new("run");
  add(a, "%s", op);
  add(a, "--attr=m=%s", m);
  add(a, "--attr=n=%s", n);
  add(a, "--attr=k=%s", k);
  add(a, "--attr=a_dtype=%s", a_t);
  add(a, "--attr=b_dtype=%s", b_t);
  if (precision) add(a, "--attr=precision=%s", precision);
  add(a, "--check");
  add(a, "--json");
  add(a, "--set=chip.aic_cores=3");
  cr_result r = run(a);
  if (r.status != 0) fail_msg("%s %s %s/%s: exit %d: %s", op, precision ? precision : "", a_t, b_t, r.status, r.err);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  uint64_t v = 1, cmp = 0;
  assert_true(cs_jget_u64(root, "check.mismatches", &v));
  assert_int_equal(v, 0);
  bool mmi = strcmp(op, "onnx_matmul_integer") == 0, qlm = strcmp(op, "onnx_qlinear_matmul") == 0;
  const char *out = mmi ? "Y" : qlm ? "y" : "OutputTensor";
  char path[64];
  snprintf(path, sizeof path, "check.%s.compared", out);
  assert_true(cs_jget_u64(root, path, &cmp));
  assert_int_equal(cmp, strtoull(m, NULL, 10) * strtoull(n, NULL, 10));
  assert_true(cs_jget_u64(root, "macs", &v));
  assert_int_equal(v, cmp * strtoull(k, NULL, 10));
  snprintf(path, sizeof path, "inputs.%s.dtype", qlm ? "a" : mmi ? "A" : "ATensor");
  assert_string_equal(cs_jget_string(root, path), a_t);
  bool note = false;
  for (size_t i = 0; i < cs_jcount(cs_jget(root, "notes")); i++)
    note = note || strncmp(cs_jstring(cs_jat(cs_jget(root, "notes"), i)), "precision=fixpipe: ", 19) == 0;
  assert_true(note == (precision && strcmp(precision, "fixpipe") == 0));
  cs_jfree(doc);
  cr_free(&r);
}

static void test_cli_run_quant_generated_inputs_check(void **state) {
  (void)state;
  const char *types[2] = {"int8", "uint8"};
  for (int at = 0; at < 2; at++)
    for (int bt = 0; bt < 2; bt++) {
      generated("onnx_matmul_integer", NULL, "7", "45", "70", types[at], types[bt]);
      for (int p = 0; p < 3; p++) {
        const char *prec = p == 0 ? NULL : p == 1 ? "exact" : "fixpipe";
        generated("onnx_qlinear_matmul", prec, at ? "1" : "19", bt ? "300" : "33", "45", types[at], types[bt]);
        generated("dml_quantized_linear_matmul", prec, "20", "17", at ? "100" : "31", types[at], types[bt]);
      }
    }
  /* MatMulInteger does not requantize: precision is not one of its attributes */
  args *a = args_new("run");
  add(a, "onnx_matmul_integer");
  add(a, "--attr");
  add(a, "precision=fixpipe");
  cr_result r = run(a);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.out, "");
  assert_string_equal(r.err, "cubesim run: error: onnx_matmul_integer has no attribute 'precision' (it has: m, n, k, "
                             "a_dtype, b_dtype, cross_sync, used_core_num, single_core_m, single_core_n, single_core_k, base_m, base_n, "
                             "base_k, depth_a1, depth_b1, step_m, step_n, step_ka, step_kb, iterate_order, db_l0a, db_l0b, "
                             "db_l0c, l2_split, unit_flag, core_split, const_tiling, api, step_k, tiling)\n");
  cr_free(&r);
  /* a precision that is neither */
  a = args_new("run");
  add(a, "onnx_qlinear_matmul");
  add(a, "--attr");
  add(a, "precision=fast");
  r = run(a);
  assert_int_equal(r.status, 2);
  assert_string_equal(r.err, "cubesim run: error: attribute precision: 'fast' is not one of exact,fixpipe\n");
  cr_free(&r);
}

/* ---- the list of operators ---- */

typedef struct op_expect {
  const char *name;
  bool simulated;
  const char *inputs;       /* every input, in order, comma-separated */
  const char *optional;     /* the optional ones */
  const char *attrs;        /* every attribute, in order (exact), or the ones that must be there */
  bool attrs_exact;
  const char *outputs;
} op_expect;

static const op_expect expected_ops[] = {
    {"add", true, "x,y", "", "m,n,blocks,tile_len,buffer_num,l2_bypass,ub_layout", true, "z"},
    {"data_copy", true, "x", "", "path,m,n,tile_m,tile_n,pattern,passes,splits,l2_bypass", true, ""},
    {"dml_quantized_linear_matmul", true,
     "ATensor,AScaleTensor,AZeroPointTensor,BTensor,BScaleTensor,BZeroPointTensor,OutputScaleTensor,OutputZeroPointTensor",
     "AZeroPointTensor,BZeroPointTensor,OutputZeroPointTensor",
     "OutputDataType,precision,m,n,k,a_dtype,b_dtype,per_channel,used_core_num,base_m,step_ka,tiling", false, "OutputTensor"},
    {"gelu", true, "x", "", "m,n,blocks,tile_len,buffer_num,l2_bypass,ub_layout", true, "y"},
    {"linear", true, "x,weight,bias,deq_scale", "bias", "transpose_a,transpose_b,weight_format,out_dtype,m,n,k", false,
     "output"},
    {"matmul", true, "a,b,bias", "bias", "in_dtype,out_dtype,transpose_a,transpose_b,relu,m,n,k", false, "c"},
    {"matmul_gelu", true, "a,b,bias", "bias", "in_dtype,cross_sync,transpose_a,transpose_b,relu,m,n,k", false, "c"},
    {"matmul_quant", true, "a,b,bias,quant,scale,offset", "bias,quant,scale,offset", "in_dtype,out_dtype,m,n,k", false, "c"},
    {"matmul_requant", true, "a,b,bias,quant,scale,offset", "bias,quant,scale,offset", "out_dtype,m,n,k", false, "c"},
    {"nd2nz", true, "x", "", "m,n,tile_h,tile_w,row_splits,col_splits,c0_stride", true, "z"},
    {"onnx_dequantize_linear", false, "x,x_scale,x_zero_point", "x_zero_point", "axis,block_size", true, "y"},
    {"onnx_matmul_integer", true, "A,B,a_zero_point,b_zero_point", "a_zero_point,b_zero_point",
     "m,n,k,a_dtype,b_dtype,used_core_num,base_m,step_ka,tiling", false, "Y"},
    {"onnx_qlinear_matmul", true, "a,a_scale,a_zero_point,b,b_scale,b_zero_point,y_scale,y_zero_point", "",
     "precision,m,n,k,a_dtype,b_dtype,per_channel,used_core_num,base_m,step_ka,tiling", false, "y"},
    {"onnx_quantize_linear", false, "x,y_scale,y_zero_point", "y_zero_point", "axis,saturate,block_size,output_dtype", true,
     "y"},
    {"tf_dequantize", false, "input,min_range,max_range", "", "T,mode,narrow_range,axis,dtype", true, "output"},
    {"tf_quantize_v2", false, "input,min_range,max_range", "", "T,mode,round_mode,narrow_range,axis,ensure_minimum_range",
     true, "output,output_min,output_max"},
};

/* The names of a JSON array of {name: ...} objects, comma-separated. */
static void names_of(const cs_jvalue *arr, char *out, size_t n, const char *only_optional) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < cs_jcount(arr); i++) {
    const cs_jvalue *e = cs_jat(arr, i);
    bool opt = false;
    if (only_optional && (!cs_jbool(cs_jget(e, "optional"), &opt) || !opt)) continue;
    used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "," : "", cs_jget_string(e, "name"));
  }
}

static bool in_csv(const char *csv, const char *word) {
  size_t n = strlen(word);
  for (const char *p = csv; *p;) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    if (len == n && strncmp(p, word, n) == 0) return true;
    if (!c) break;
    p = c + 1;
  }
  return false;
}

static void test_cli_run_quant_kernels_lists_every_operator(void **state) {
  (void)state;
  args *a = args_new("kernels");
  add(a, "--json");
  cr_result r = run(a);
  cr_assert_ok(&r);
  cs_jdoc *doc = je_parse(r.out, strlen(r.out));
  const cs_jvalue *root = cs_jroot(doc);
  size_t nexp = sizeof expected_ops / sizeof expected_ops[0];
  assert_int_equal(cs_jcount(root), nexp);
  for (size_t i = 0; i < nexp; i++) {
    const op_expect *x = &expected_ops[i];
    const cs_jvalue *op = cs_jat(root, i);
    assert_string_equal(cs_jget_string(op, "name"), x->name);
    bool sim = !x->simulated;
    assert_true(cs_jbool(cs_jget(op, "simulated"), &sim));
    assert_int_equal(sim, x->simulated);
    assert_non_null(cs_jget_string(op, "summary"));
    assert_non_null(cs_jget_string(op, "source"));
    char got[512];
    names_of(cs_jget(op, "inputs"), got, sizeof got, NULL);
    assert_string_equal(got, x->inputs);
    names_of(cs_jget(op, "inputs"), got, sizeof got, "optional");
    assert_string_equal(got, x->optional);
    names_of(cs_jget(op, "outputs"), got, sizeof got, NULL);
    assert_string_equal(got, x->outputs);
    names_of(cs_jget(op, "attributes"), got, sizeof got, NULL);
    if (x->attrs_exact) {
      assert_string_equal(got, x->attrs);
    } else {
      char want[256];
      snprintf(want, sizeof want, "%s", x->attrs);
      for (char *tok = strtok(want, ","); tok; tok = strtok(NULL, ","))
        if (!in_csv(got, tok)) fail_msg("%s: attribute %s missing from %s", x->name, tok, got);
    }
    /* every input and attribute is described */
    const cs_jvalue *ins = cs_jget(op, "inputs");
    for (size_t k = 0; k < cs_jcount(ins); k++) {
      assert_true(strlen(cs_jget_string(cs_jat(ins, k), "dtypes")) > 0);
      assert_true(strlen(cs_jget_string(cs_jat(ins, k), "description")) > 0);
    }
  }
  /* the matmuls' precision attribute */
  assert_string_equal(cs_jget_string(root, "[12].attributes[0].name"), "precision");
  assert_string_equal(cs_jget_string(root, "[12].attributes[0].default"), "exact");
  assert_string_equal(cs_jget_string(root, "[12].attributes[0].choices"), "exact,fixpipe");
  assert_string_equal(cs_jget_string(root, "[2].attributes[1].choices"), "exact,fixpipe");
  cs_jfree(doc);
  cr_free(&r);

  /* the text listing: one block per operator, each input and attribute on its line */
  a = args_new("kernels");
  r = run(a);
  cr_assert_ok(&r);
  for (size_t i = 0; i < nexp; i++) {
    char line[128];
    snprintf(line, sizeof line, "%s%s  (%s)\n", i ? "\n" : "", expected_ops[i].name,
             expected_ops[i].simulated ? "simulated" : "host");
    cr_assert_contains(r.out, line);
  }
  cr_assert_contains(r.out, "    in     y_zero_point           int8,uint8         scalar; its type is y's\n");
  cr_assert_contains(r.out, "    attr   precision              exact,fixpipe      exact: the operator's requantization; "
                         "fixpipe: REQ8/VREQ8 words, reporting the differences (default exact)\n");
  cr_assert_contains(r.out, "    in     min_range              fp32               ");
  cr_free(&r);
}

/* ---- invalid inputs ---- */

typedef struct file_spec {
  const char *name;
  cs_npy_dtype t;
  int ndim;
  size_t shape[4];
  int nv;      /* values given in v (0: all zero) */
  double v[8]; /* the rest repeat the last one given */
} file_spec;

typedef struct bad_case {
  const char *op;
  file_spec files[8];
  const char *attrs[3];
  const char *out;  /* the output to ask for */
  const char *line; /* the expected error line, without "cubesim run: error: " and "\n" */
} bad_case;

#define Z 0, {0}
static const bad_case bad_cases[] = {
    /* ONNX MatMulInteger */
    {"onnx_matmul_integer",
     {{"A", CS_NPY_I8, 2, {2, 3}, Z}, {"B", CS_NPY_I8, 2, {4, 2}, Z}},
     {NULL}, "Y", "onnx_matmul_integer: A [2, 3] and B [4, 2]: K differs (3 vs 4)"},
    {"onnx_matmul_integer",
     {{"A", CS_NPY_I8, 2, {2, 3}, Z}, {"B", CS_NPY_I8, 2, {3, 2}, Z}, {"a_zero_point", CS_NPY_U8, 1, {1}, Z}},
     {NULL}, "Y", "onnx_matmul_integer: a_zero_point is uint8 but A is int8: a zero point has its input's type"},
    {"onnx_matmul_integer",
     {{"A", CS_NPY_I8, 2, {2, 3}, Z}, {"B", CS_NPY_I8, 2, {3, 2}, Z}, {"a_zero_point", CS_NPY_I8, 1, {3}, Z}},
     {NULL}, "Y",
     "onnx_matmul_integer: a_zero_point has shape [3]; with A [2, 3] it must have one element (per tensor) or be per "
     "row: [M] or [..., M, 1]"},
    {"onnx_matmul_integer",
     {{"A", CS_NPY_I8, 3, {2, 2, 3}, Z}, {"B", CS_NPY_I8, 3, {3, 3, 2}, Z}},
     {NULL}, "Y", "onnx_matmul_integer: the batch dims of A [2, 2, 3] and B [3, 3, 2] do not broadcast (2 vs 3)"},
    {"onnx_matmul_integer",
     {{"A", CS_NPY_I32, 2, {2, 3}, Z}, {"B", CS_NPY_I8, 2, {3, 2}, Z}},
     {NULL}, "Y", "@A.npy: onnx_matmul_integer: input 'A' is int32, expected one of int8,uint8"},
    {"onnx_matmul_integer",
     {{"A", CS_NPY_I8, 0, {0}, Z}, {"B", CS_NPY_I8, 2, {3, 2}, Z}},
     {NULL}, "Y", "onnx_matmul_integer: A [] and B [3, 2]: a matrix product needs at least 1 dimension each"},
    /* ONNX QLinearMatMul */
    {"onnx_qlinear_matmul",
     {{"a", CS_NPY_U8, 2, {2, 3}, Z}, {"a_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"a_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"b", CS_NPY_U8, 2, {3, 2}, Z}, {"b_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"b_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"y_scale", CS_NPY_F32, 1, {1}, 1, {1}}},
     {NULL}, "y", "onnx_qlinear_matmul: input 'y_zero_point' is required (--in y_zero_point=FILE.npy)"},
    {"onnx_qlinear_matmul",
     {{"a", CS_NPY_U8, 2, {2, 3}, Z}, {"a_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"a_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"b", CS_NPY_U8, 2, {3, 2}, Z}, {"b_scale", CS_NPY_F16, 1, {1}, 1, {1}}, {"b_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"y_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"y_zero_point", CS_NPY_U8, 1, {1}, Z}},
     {NULL}, "y", "onnx_qlinear_matmul: b_scale is fp16 but a_scale is fp32: the three scales share one type (TS)"},
    {"onnx_qlinear_matmul",
     {{"a", CS_NPY_U8, 2, {2, 3}, Z}, {"a_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"a_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"b", CS_NPY_U8, 2, {3, 2}, Z}, {"b_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"b_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"y_scale", CS_NPY_F32, 1, {2}, 1, {1}}, {"y_zero_point", CS_NPY_U8, 1, {1}, Z}},
     {NULL}, "y", "onnx_qlinear_matmul: y_scale and y_zero_point must be per tensor (one element), got 2 and 1"},
    {"onnx_qlinear_matmul",
     {{"a", CS_NPY_U8, 2, {2, 3}, Z}, {"a_scale", CS_NPY_F32, 1, {2}, 1, {1}}, {"a_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"b", CS_NPY_U8, 2, {3, 2}, Z}, {"b_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"b_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"y_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"y_zero_point", CS_NPY_U8, 1, {1}, Z}},
     {NULL}, "y", "onnx_qlinear_matmul: a_zero_point shape [1] must match a_scale shape [2]"},
    {"onnx_qlinear_matmul",
     {{"a", CS_NPY_U8, 2, {2, 3}, Z}, {"a_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"a_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"b", CS_NPY_U8, 2, {3, 2}, Z}, {"b_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"b_zero_point", CS_NPY_I8, 1, {1}, Z},
      {"y_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"y_zero_point", CS_NPY_U8, 1, {1}, Z}},
     {NULL}, "y", "onnx_qlinear_matmul: b_zero_point is int8 but b is uint8: a zero point has its input's type"},
    {"onnx_qlinear_matmul",
     {{"a", CS_NPY_U8, 2, {2, 3}, Z}, {"a_scale", CS_NPY_I8, 1, {1}, 1, {1}}},
     {NULL}, "y", "@a_scale.npy: onnx_qlinear_matmul: input 'a_scale' is int8, expected one of fp32,fp16,bf16"},
    {"onnx_qlinear_matmul",
     {{"a", CS_NPY_U8, 2, {2, 3}, Z}, {"a_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"a_zero_point", CS_NPY_U8, 1, {1}, Z},
      {"b", CS_NPY_U8, 2, {3, 4}, Z}, {"b_scale", CS_NPY_F32, 1, {3}, 1, {1}}, {"b_zero_point", CS_NPY_U8, 1, {3}, Z},
      {"y_scale", CS_NPY_F32, 1, {1}, 1, {1}}, {"y_zero_point", CS_NPY_U8, 1, {1}, Z}},
     {NULL}, "y",
     "onnx_qlinear_matmul: b_zero_point has shape [3]; with b [3, 4] it must have one element (per tensor) or be per "
     "column: [N] or [..., 1, N]"},
    /* DirectML */
    {"dml_quantized_linear_matmul",
     {{"ATensor", CS_NPY_U8, 2, {3, 4}, Z}, {"AScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}},
      {"BTensor", CS_NPY_U8, 2, {4, 2}, Z}, {"BScaleTensor", CS_NPY_F32, 2, {1, 2}, 2, {1, 0}},
      {"OutputScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}}},
     {NULL}, "OutputTensor",
     "dml_quantized_linear_matmul: BScaleTensor[1] is 0: a zero scale is undefined behaviour in DirectML"},
    {"dml_quantized_linear_matmul",
     {{"ATensor", CS_NPY_U8, 2, {3, 4}, Z}, {"AScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}},
      {"BTensor", CS_NPY_U8, 3, {1, 4, 2}, Z}, {"BScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}},
      {"OutputScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}}},
     {NULL}, "OutputTensor",
     "dml_quantized_linear_matmul: ATensor has 2 dims and BTensor 3: both must have the same DimensionCount, 2 to 4"},
    {"dml_quantized_linear_matmul",
     {{"ATensor", CS_NPY_U8, 2, {3, 4}, Z}, {"AScaleTensor", CS_NPY_F32, 4, {1, 1, 1, 1}, 1, {1}},
      {"BTensor", CS_NPY_U8, 2, {4, 2}, Z}, {"BScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}},
      {"OutputScaleTensor", CS_NPY_F32, 4, {1, 1, 1, 1}, 1, {1}}},
     {NULL}, "OutputTensor",
     "dml_quantized_linear_matmul: BScaleTensor has 2 dims but AScaleTensor has 4: the scale and zero-point tensors "
     "must have the same DimensionCount"},
    {"dml_quantized_linear_matmul",
     {{"ATensor", CS_NPY_U8, 2, {3, 4}, Z}, {"AScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}},
      {"BTensor", CS_NPY_U8, 2, {4, 2}, Z}, {"BScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}},
      {"OutputScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}}, {"OutputZeroPointTensor", CS_NPY_I8, 2, {1, 1}, Z}},
     {"OutputDataType=uint8"}, "OutputTensor",
     "dml_quantized_linear_matmul: OutputTensor is uint8 but OutputZeroPointTensor is int8: they must have the same "
     "DataType"},
    {"dml_quantized_linear_matmul",
     {{"ATensor", CS_NPY_U8, 2, {3, 4}, Z}, {"AScaleTensor", CS_NPY_F32, 4, {2, 1, 3, 1}, 1, {1}},
      {"BTensor", CS_NPY_U8, 2, {4, 2}, Z}, {"BScaleTensor", CS_NPY_F32, 4, {1, 1, 1, 1}, 1, {1}},
      {"OutputScaleTensor", CS_NPY_F32, 4, {1, 1, 1, 1}, 1, {1}}},
     {NULL}, "OutputTensor",
     "dml_quantized_linear_matmul: AScaleTensor has shape [2, 1, 3, 1]; with ATensor [3, 4] it must have one element "
     "(per tensor) or be per row: [..., M, 1] (leading dims 1)"},
    {"dml_quantized_linear_matmul",
     {{"ATensor", CS_NPY_U8, 2, {3, 4}, Z}, {"AScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}},
      {"AZeroPointTensor", CS_NPY_I8, 2, {1, 1}, Z}, {"BTensor", CS_NPY_U8, 2, {4, 2}, Z},
      {"BScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}}, {"OutputScaleTensor", CS_NPY_F32, 2, {1, 1}, 1, {1}}},
     {NULL}, "OutputTensor",
     "dml_quantized_linear_matmul: AZeroPointTensor is int8 but ATensor is uint8: a zero point has its input's type"},
    {"dml_quantized_linear_matmul",
     {{"ATensor", CS_NPY_I8, 4, {1, 1, 3, 4}, Z}, {"AScaleTensor", CS_NPY_F32, 1, {1}, 1, {1}},
      {"BTensor", CS_NPY_I8, 4, {1, 1, 4, 2}, Z}, {"BScaleTensor", CS_NPY_F32, 1, {1}, 1, {1}},
      {"OutputScaleTensor", CS_NPY_F32, 1, {1}, 1, {0}}},
     {NULL}, "OutputTensor",
     "dml_quantized_linear_matmul: OutputScaleTensor[0] is 0: a zero scale is undefined behaviour in DirectML"},
    /* the fixpipe precision's refusals, through the command */
    {"onnx_qlinear_matmul",
     {{"a", CS_NPY_I8, 2, {2, 3}, 6, {1, 2, 3, 4, 5, 6}}, {"a_scale", CS_NPY_F32, 0, {0}, 1, {1}},
      {"a_zero_point", CS_NPY_I8, 0, {0}, Z}, {"b", CS_NPY_I8, 2, {3, 1}, 3, {1, 2, 3}},
      {"b_scale", CS_NPY_F32, 0, {0}, 1, {1}}, {"b_zero_point", CS_NPY_I8, 0, {0}, 1, {5}},
      {"y_scale", CS_NPY_F32, 0, {0}, 1, {1}}, {"y_zero_point", CS_NPY_I8, 0, {0}, Z}},
     {"precision=fixpipe"}, "y",
     "precision=fixpipe: b's zero point 5 (column 0) is 5 after re-centring int8 b to int8, so -5 x (each row's sum of "
     "a) must be added row by row; the accumulator takes per-column terms only (use precision=exact)"},
    /* the four quantize / dequantize operators */
    {"tf_quantize_v2",
     {{"input", CS_NPY_F32, 1, {2}, 2, {1, 2}}, {"min_range", CS_NPY_F32, 0, {0}, 1, {1}},
      {"max_range", CS_NPY_F32, 0, {0}, 1, {-1}}},
     {"T=qint8"}, "output", 
     "tf_quantize_v2: input_max_range must be larger than input_min_range. min_range 1, max_range -1"},
    {"tf_quantize_v2",
     {{"input", CS_NPY_F32, 1, {2}, 2, {1, 2}}, {"min_range", CS_NPY_F32, 0, {0}, 1, {-1}},
      {"max_range", CS_NPY_F32, 0, {0}, 1, {1}}},
     {"T=qint8", "round_mode=HALF_TO_EVEN"}, "output", 
     "tf_quantize_v2: Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is 'MIN_COMBINED'."},
    {"tf_dequantize",
     {{"input", CS_NPY_I8, 1, {2}, 2, {1, 2}}, {"min_range", CS_NPY_F32, 0, {0}, 1, {-1}},
      {"max_range", CS_NPY_F32, 0, {0}, 1, {1}}},
     {"axis=3"}, "output", 
     "tf_dequantize: Axis must be less than input dimension(1), got 3"},
    {"onnx_quantize_linear",
     {{"x", CS_NPY_F32, 2, {2, 3}, 1, {1}}, {"y_scale", CS_NPY_F32, 1, {3}, 1, {1}}, {"y_zero_point", CS_NPY_U8, 1, {2}, Z}},
     {NULL}, "y", 
     "onnx_quantize_linear: y_zero_point shape [2] must match y_scale shape [3]"},
    {"onnx_dequantize_linear",
     {{"x", CS_NPY_I8, 1, {3}, 1, {1}}, {"x_scale", CS_NPY_F32, 0, {0}, 1, {1}}, {"x_zero_point", CS_NPY_U8, 0, {0}, Z}},
     {NULL}, "y", 
     "onnx_dequantize_linear: Type mismatch int8 != uint8 in DequantizeLinear (x_zero_point must have x's type)"},
};

static void write_spec(const tf_dir *d, const file_spec *f) {
  size_t count = 1;
  for (int i = 0; i < f->ndim; i++) count *= f->shape[i];
  double *v = calloc(count + 1, sizeof *v);
  assert_non_null(v);
  for (size_t i = 0; i < count; i++) v[i] = f->nv == 0 ? 0 : (int)i < f->nv ? f->v[i] : f->v[f->nv - 1];
  npy(d, f->name, f->t, f->ndim, f->shape, v);
  free(v);
}

static void test_cli_run_quant_invalid_inputs(void **state) {
  (void)state;
  for (size_t c = 0; c < sizeof bad_cases / sizeof bad_cases[0]; c++) {
    const bad_case *bc = &bad_cases[c];
    tf_dir d;
    tf_dir_make(&d);
    args *a = args_new("run");
    add(a, "%s", bc->op);
    int files = 0;
    for (int i = 0; i < 8 && bc->files[i].name; i++, files++) {
      write_spec(&d, &bc->files[i]);
      add(a, "--in");
      add(a, "%s=%s/%s.npy", bc->files[i].name, d.path, bc->files[i].name);
    }
    for (int i = 0; i < 3 && bc->attrs[i]; i++) {
      add(a, "--attr");
      add(a, "%s", bc->attrs[i]);
    }
    add(a, "--out");
    add(a, "%s=%s/out.npy", bc->out, d.path);
    add(a, "--check");
    cr_result r = run(a);
    char want[1024];
    if (bc->line[0] == '@') /* the message starts with the file's path */
      snprintf(want, sizeof want, "cubesim run: error: %s/%s\n", d.path, bc->line + 1);
    else
      snprintf(want, sizeof want, "cubesim run: error: %s\n", bc->line);
    if (r.status != 2 || strcmp(r.err, want) != 0)
      fail_msg("case %zu (%s): exit %d\n got: %s want: %s", c, bc->op, r.status, r.err, want);
    assert_string_equal(r.out, "");
    assert_true(strchr(r.err, '\n') == r.err + strlen(r.err) - 1); /* one line */
    assert_int_equal(tf_count_entries(d.path), files); /* no output file */
    cr_free(&r);
    tf_dir_remove(&d);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_run_quant_qlinear_from_files),
      cmocka_unit_test(test_cli_run_quant_fixpipe_note_in_json),
      cmocka_unit_test(test_cli_run_quant_generated_inputs_check),
      cmocka_unit_test(test_cli_run_quant_kernels_lists_every_operator),
      cmocka_unit_test(test_cli_run_quant_invalid_inputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
