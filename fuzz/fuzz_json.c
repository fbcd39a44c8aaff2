/* fuzz_json — the JSON reader (base/cs_jsonr.c) and what reads user JSON with it: a TCubeTiling
 * file (--tiling, runtime/rt_tiling.c), a run's JSON for `cubesim report` (traces/trc_report.c)
 * and for `cubesim compare` (traces/trc_compare.c).
 *
 * Promises checked beyond "no crash, no leak": a refusal says where (a line and column inside
 * the text); an accepted document written back with base/cs_json reads to the same tree (for
 * documents the writer can express: at most CS_JSON_MAX_DEPTH deep, no NUL in a string); the
 * readers of tilings, reports and comparisons accept or refuse it with a message. */
#include <math.h>

#include "fuzz/fuzz.h"

#include "base/cs_json.h"
#include "base/cs_jsonr.h"
#include "runtime/rt_tiling.h"
#include "traces/trc_compare.h"
#include "traces/trc_report.h"

/* Whether cs_json can write v back exactly. */
static bool writable(const cs_jvalue *v, unsigned depth) {
  switch (cs_jtype_of(v)) {
    case CS_JSTRING: return strlen(cs_jstring(v)) == cs_jstring_len(v);
    case CS_JARRAY:
    case CS_JOBJECT:
      if (depth + 1 >= CS_JSON_MAX_DEPTH) return false;
      for (size_t i = 0; i < cs_jcount(v); i++)
        if (!writable(cs_jat(v, i), depth + 1)) return false;
      return true;
    default: return true;
  }
}

static void write_value(cs_json *j, const cs_jvalue *v) {
  bool b;
  switch (cs_jtype_of(v)) {
    case CS_JNULL: cs_json_null(j); break;
    case CS_JBOOL: cs_jbool(v, &b), cs_json_bool(j, b); break;
    case CS_JNUMBER: cs_json_raw(j, cs_jnumber_text(v)); break;
    case CS_JSTRING: cs_json_str(j, cs_jstring(v)); break;
    case CS_JARRAY:
      cs_json_arr_begin(j);
      for (size_t i = 0; i < cs_jcount(v); i++) write_value(j, cs_jat(v, i));
      cs_json_arr_end(j);
      break;
    case CS_JOBJECT:
      cs_json_obj_begin(j);
      for (size_t i = 0; i < cs_jcount(v); i++) {
        cs_json_key(j, cs_jkey_at(v, i));
        write_value(j, cs_jat(v, i));
      }
      cs_json_obj_end(j);
      break;
  }
}

static bool same(const cs_jvalue *a, const cs_jvalue *b) {
  if (cs_jtype_of(a) != cs_jtype_of(b)) return false;
  bool x, y;
  double p, q;
  switch (cs_jtype_of(a)) {
    case CS_JNULL: return true;
    case CS_JBOOL: return cs_jbool(a, &x) && cs_jbool(b, &y) && x == y;
    case CS_JNUMBER:
      return cs_jnumber(a, &p) && cs_jnumber(b, &q) && (p == q || (isnan(p) && isnan(q))) &&
             strcmp(cs_jnumber_text(a), cs_jnumber_text(b)) == 0;
    case CS_JSTRING:
      return cs_jstring_len(a) == cs_jstring_len(b) &&
             memcmp(cs_jstring(a), cs_jstring(b), cs_jstring_len(a)) == 0;
    case CS_JARRAY:
    case CS_JOBJECT:
      if (cs_jcount(a) != cs_jcount(b)) return false;
      for (size_t i = 0; i < cs_jcount(a); i++) {
        if (cs_jtype_of(a) == CS_JOBJECT && strcmp(cs_jkey_at(a, i), cs_jkey_at(b, i)) != 0) return false;
        if (!same(cs_jat(a, i), cs_jat(b, i))) return false;
      }
      return true;
  }
  return false;
}

static void round_trip(const cs_jvalue *root) {
  if (!writable(root, 0)) return;
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return;
  cs_json j;
  cs_json_init(&j, m, (cs_jcount(root) & 1) != 0);
  write_value(&j, root);
  if (fclose(m) != 0) {
    free(text);
    return;
  }
  cs_jerror je;
  cs_jdoc *back = cs_jparse(text, len, &je);
  FZ_CHECK(back != NULL, "the written document does not parse: %u:%u: %s", je.line, je.column, je.msg);
  FZ_CHECK(same(root, cs_jroot(back)), "the written document reads to another tree: %s", text);
  cs_jfree(back);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  cs_jerror je;
  cs_jdoc *doc = cs_jparse(text, size, &je);
  if (!doc) {
    FZ_CHECK(je.msg[0] != '\0', "a refusal without a message");
    FZ_CHECK(je.offset <= size && je.line >= 1 && je.column >= 1, "error at offset %zu, %u:%u of %zu bytes",
             je.offset, je.line, je.column, size);
  } else {
    const cs_jvalue *root = cs_jroot(doc);
    round_trip(root);
    cs_err err;
    if (trc_report_html(root, fz_devnull(), &err) != CS_OK)
      FZ_CHECK(err.msg[0] != '\0', "a refused report without a message");
    trc_cmp_row rows[TRC_CMP_MAX_ROWS];
    size_t n = 0;
    if (trc_compare_rows(root, root, rows, &n, &err) == CS_OK) {
      FZ_CHECK(n <= TRC_CMP_MAX_ROWS, "%zu rows", n);
      trc_compare_text(rows, n, "A", "B", fz_devnull());
      trc_compare_html(rows, n, "A", "B", fz_devnull());
      cs_json j;
      cs_json_init(&j, fz_devnull(), true);
      trc_compare_json(rows, n, "A", "B", &j);
    } else {
      FZ_CHECK(err.msg[0] != '\0', "a refused comparison without a message");
    }
    cs_jfree(doc);
  }
  rt_tiling t;
  rt_tiling_mask found;
  char ignored[256];
  cs_err err;
  if (rt_tiling_read_json(text, size, "fuzz.json", &t, &found, ignored, sizeof ignored, &err) != CS_OK)
    FZ_CHECK(strncmp(err.msg, "fuzz.json", 9) == 0, "the message names no place: %s", err.msg);
  return 0;
}
