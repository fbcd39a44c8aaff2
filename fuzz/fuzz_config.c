/* fuzz_config — the YAML configuration loader (sim/sim_config.c over libyaml): any bytes as a
 * configuration file over the defaults.
 *
 * Promises checked beyond "no crash, no leak": a refused file leaves the configuration as it
 * was and says where ("fuzz.yaml:LINE:COLUMN: ..."); an accepted one is written back as YAML
 * (what traces and reports embed), and that text loads over the defaults to the same
 * configuration; a valid one derives and prints as JSON. */
#include "fuzz/fuzz.h"

#include "base/cs_json.h"
#include "sim/sim_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sim_config c, before;
  sim_config_defaults(&c);
  before = c;
  cs_err err;
  cs_status st = sim_config_load_string(&c, (const char *)data, size, "fuzz.yaml", &err);
  if (st != CS_OK) {
    FZ_CHECK(sim_config_equal(&c, &before), "a refused file changed the configuration");
    FZ_CHECK(err.code == st, "the error record holds %d, the call returned %d", err.code, st);
    if (st != CS_ENOMEM)
      FZ_CHECK(strncmp(err.msg, "fuzz.yaml:", 10) == 0, "the message names no place: %s", err.msg);
    return 0;
  }
  /* the round trip through the writer */
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return 0;
  sim_config_write_yaml(&c, m);
  if (fclose(m) != 0) {
    free(text);
    return 0;
  }
  sim_config back;
  sim_config_defaults(&back);
  st = sim_config_load_string(&back, text, len, "written.yaml", &err);
  FZ_CHECK(st == CS_OK, "the written configuration does not load: %s", err.msg);
  FZ_CHECK(sim_config_equal(&c, &back), "the written configuration loads to another one");
  free(text);
  if (sim_config_validate(&c, &err) == CS_OK) {
    sim_config_derived d;
    sim_config_derive(&c, &d);
    cs_json j;
    cs_json_init(&j, fz_devnull(), false);
    cs_json_arr_begin(&j);
    sim_config_write_json(&c, &j);
    sim_config_write_derived_json(&d, &j);
    cs_json_arr_end(&j);
  } else {
    FZ_CHECK(err.msg[0] != '\0', "a validation error without a message");
  }
  return 0;
}
