/* cli_config — `cubesim config show`: the configuration as text, JSON, YAML or Markdown. */
#include <inttypes.h>
#include <string.h>

#include "base/cs_json.h"
#include "cli/cli.h"
#include "sim/sim_config.h"

static const char config_help[] =
    "usage: cubesim config show [FILE] [--json | --yaml | --markdown] [--set KEY=VALUE]...\n"
    "\n"
    "Prints the chip configuration: the built-in defaults (the documented Ascend 910B values\n"
    "and cubesim's assumptions), or the YAML FILE over them, then the --set overrides, checked\n"
    "and with the values derived from it. Every parameter is shown with its unit and\n"
    "description; values that are assumptions rather than documented figures are marked.\n"
    "\n"
    "  FILE             a YAML configuration (configs/*.yaml); keys left out keep the defaults\n"
    "  --json           the configuration, derived values and parameter table as JSON\n"
    "  --yaml           a complete commented YAML that loads back to this configuration\n"
    "  --markdown       the configuration reference (docs/CONFIG.md is this output)\n"
    "  --set KEY=VALUE  override one parameter, e.g. --set chip.aic_cores=4 (repeatable)\n"
    "\n"
    "An invalid file or value exits with status 2 and one line naming the file, line, column,\n"
    "key, value and limit.\n";

typedef enum show_format { SHOW_TEXT, SHOW_JSON, SHOW_YAML, SHOW_MARKDOWN } show_format;

/* "524288 (512 KiB)" for byte counts that are a whole number of KiB, MiB or GiB. */
static void pretty_value(const sim_config *c, size_t i, char *out, size_t out_bytes) {
  const sim_param_info *p = sim_config_param(i);
  char v[80];
  sim_config_param_value_text(c, i, v, sizeof v);
  if (p->type == SIM_TYPE_U64 && strcmp(p->unit, "bytes") == 0) {
    uint64_t b = *(const uint64_t *)(const void *)((const char *)c + p->offset);
    static const char *const names[] = {"GiB", "MiB", "KiB"};
    static const unsigned shifts[] = {30, 20, 10};
    for (int k = 0; k < 3; k++) {
      uint64_t unit = (uint64_t)1 << shifts[k];
      if (b >= unit && b % unit == 0) {
        snprintf(out, out_bytes, "%s (%" PRIu64 " %s)", v, b / unit, names[k]);
        return;
      }
    }
  }
  snprintf(out, out_bytes, "%s", v);
}

static void show_text(FILE *f, const sim_config *c, const sim_config_derived *d,
                      const char *file, const sim_config *dflt) {
  fprintf(f, "cubesim configuration \"%s\": %s%s\n", c->chip_name,
          file ? file : "built-in defaults", file ? " over the built-in defaults" : "");
  for (int s = 0; s < SIM_SECTION_COUNT; s++) {
    fprintf(f, "\n%s: %s\n", sim_config_section_name((sim_section_id)s),
            sim_config_section_description((sim_section_id)s));
    for (size_t i = 0; i < sim_config_param_count(); i++) {
      const sim_param_info *p = sim_config_param(i);
      if ((int)p->section_id != s) continue;
      char v[112], def[80];
      pretty_value(c, i, v, sizeof v);
      fprintf(f, "  %-28s %-22s %-15s %s%s", p->path, v, p->unit,
              p->assumption ? "[assumption] " : "", p->description);
      if (!sim_config_param_equal(c, dflt, i)) {
        sim_config_param_default_text(i, def, sizeof def);
        fprintf(f, " (default %s)", def);
      }
      fputc('\n', f);
    }
  }
  fprintf(f, "\nderived: computed once from the values above\n");
  for (size_t i = 0; i < sim_config_derived_count(); i++) {
    const sim_derived_info *di = sim_config_derived_info(i);
    char v[64];
    sim_config_derived_value_text(d, i, v, sizeof v);
    fprintf(f, "  %-28s %-22s %-15s %s\n", di->name, v, di->unit, di->formula);
  }
}

static const char *type_name(sim_param_type t) {
  switch (t) {
    case SIM_TYPE_U64: return "u64";
    case SIM_TYPE_F64: return "f64";
    case SIM_TYPE_BOOL: return "bool";
    case SIM_TYPE_STR: return "str";
  }
  return "?";
}

static void show_json(FILE *f, const sim_config *c, const sim_config_derived *d,
                      const char *file) {
  cs_json j;
  cs_json_init(&j, f, true);
  cs_json_obj_begin(&j);
  cs_json_key(&j, "source");
  cs_json_str(&j, file ? file : "built-in defaults");
  cs_json_key(&j, "config");
  sim_config_write_json(c, &j);
  cs_json_key(&j, "derived");
  sim_config_write_derived_json(d, &j);
  cs_json_key(&j, "parameters");
  cs_json_arr_begin(&j);
  for (size_t i = 0; i < sim_config_param_count(); i++) {
    const sim_param_info *p = sim_config_param(i);
    char range[96];
    sim_config_param_range_text(i, range, sizeof range);
    cs_json_obj_begin(&j);
    cs_json_key(&j, "key");
    cs_json_str(&j, p->path);
    cs_json_key(&j, "type");
    cs_json_str(&j, type_name(p->type));
    cs_json_key(&j, "unit");
    cs_json_str(&j, p->unit);
    cs_json_key(&j, "default");
    switch (p->type) {
      case SIM_TYPE_U64: cs_json_uint(&j, p->def_u64); break;
      case SIM_TYPE_F64: cs_json_double(&j, p->def_f64); break;
      case SIM_TYPE_BOOL: cs_json_bool(&j, p->def_u64 != 0); break;
      case SIM_TYPE_STR: cs_json_str(&j, p->def_str); break;
    }
    cs_json_key(&j, "allowed");
    cs_json_str(&j, range);
    cs_json_key(&j, "assumption");
    cs_json_bool(&j, p->assumption);
    cs_json_key(&j, "source");
    cs_json_str(&j, p->source);
    cs_json_key(&j, "description");
    cs_json_str(&j, p->description);
    cs_json_obj_end(&j);
  }
  cs_json_arr_end(&j);
  cs_json_obj_end(&j);
}

/* Bad inputs whose real messages the reference shows (produced live, so never stale). */
static const struct {
  const char *what;
  const char *yaml;
} error_samples[] = {
    {"an unknown key (the closest known one is suggested)", "chip:\n  coers: 4\n"},
    {"a key under the wrong section", "chip:\n  l1_bytes: 262144\n"},
    {"an unknown section", "cache:\n  ways: 8\n"},
    {"a value out of range", "l2:\n  ways: 0\n"},
    {"a value of the wrong type", "chip:\n  aic_cores: 1.5\n"},
    {"a quoted string where a number is expected", "chip:\n  aic_cores: \"24\"\n"},
    {"a YAML 1.1 boolean", "chip:\n  fixpipe_saturation: yes\n"},
    {"an integer that does not fit in 64 bits", "buffers:\n  l1_bytes: 18446744073709551616\n"},
    {"a rule of the table", "buffers:\n  l0a_align_bytes: 384\n"},
    {"a duplicate key", "chip:\n  aic_cores: 4\n  aic_cores: 8\n"},
    {"a list where a value is expected", "chip:\n  aic_cores: [1, 2]\n"},
    {"a top level that is not a mapping", "- chip\n- l2\n"},
    {"malformed YAML", "chip:\n  aic_cores: 4\n   clock_mhz: 1000\n"},
};

static void show_markdown(FILE *f, const sim_config *c, const sim_config_derived *d,
                          const char *file, const sim_config *dflt) {
  fprintf(f,
          "# cubesim configuration reference\n"
          "\n"
          "<!-- Generated by `cubesim config show --markdown` from the parameter table in\n"
          "     sim/sim_config.h. Edit the table, then regenerate this file; a test checks that\n"
          "     they agree. -->\n"
          "\n"
          "A chip configuration is the built-in defaults with, optionally, a YAML file over them.\n"
          "The defaults are the Atlas A2 (910B) figures from Huawei's public documents\n"
          "([DESIGN.md §6](DESIGN.md)) and, where the documents are silent, cubesim's own\n"
          "assumptions; every parameter below says which, and why. `configs/ascend910b.yaml`\n"
          "lists every parameter at its default; `configs/teaching.yaml` is a small chip with\n"
          "round numbers.\n"
          "\n"
          "`cubesim config show [FILE] [--json | --yaml | --markdown] [--set KEY=VALUE]...`\n"
          "prints a configuration; `--yaml` writes a complete, commented file that loads back to\n"
          "the same configuration (it is also embedded in traces and reports).\n"
          "\n"
          "The pipeline is fixed: **defaults → YAML over them → validate → derive**. The timing\n"
          "model reads only the validated values and the derived ones.\n"
          "\n"
          "## File format\n"
          "\n"
          "- A mapping of sections, each a mapping of `key: value`. Comments (`#`) anywhere.\n"
          "- Keys left out keep their defaults. An empty file (or only comments) is the defaults;\n"
          "  a section with nothing under it (`l2:`) changes nothing.\n"
          "- Unsigned integers: decimal or `0x` hex. No sign, no leading zero (octal), no `_`;\n"
          "  a value that does not fit in 64 bits is an error, never wrapped.\n"
          "- Numbers (`f64`): decimal with optional fraction and exponent (`1800`, `1.8e3`); no\n"
          "  `.inf` or `.nan`.\n"
          "- Booleans: `true` or `false` (also `True`, `TRUE`, `False`, `FALSE`: the YAML 1.2\n"
          "  core schema). `yes`, `no`, `on`, `off` are refused: YAML 1.1 tools read them as\n"
          "  booleans, YAML 1.2 tools as strings.\n"
          "- Strings: plain or quoted. A quoted value is always a string: `aic_cores: \"24\"` is an\n"
          "  error, not 24.\n"
          "- Refused: unknown sections or keys (the closest known name is suggested), duplicate\n"
          "  sections or keys, a list or mapping where a value is expected, aliases, tags, more\n"
          "  than one YAML document, malformed YAML.\n"
          "- Former names still read (in files and `--set`): `chip.cores` is `chip.aic_cores`.\n"
          "  Files and reports written by cubesim use the current names.\n"
          "- Every error is one line: `file:line:column: key: what is wrong`, with the value and\n"
          "  the limit; `cubesim` exits with status 2.\n"
          "\n"
          "## Checks\n"
          "\n"
          "Each value is checked as it is read (type, range, rule), so its error has a position.\n"
          "After loading, the checks between values (`sim_config_validate`):\n"
          "\n"
          "- every buffer size is a multiple of its alignment (`buffers.X_bytes` of\n"
          "  `buffers.X_align_bytes`; `buffers.gm_capacity_bytes` of `buffers.gm_align_bytes`);\n"
          "- `l2.bytes` is a multiple of `l2.line_bytes * l2.ways` (a whole number of sets).\n"
          "\n"
          "## Parameters\n"
          "\n");
  if (file)
    fprintf(f, "Values: `%s` over the built-in defaults.\n\n", file);
  else
    fprintf(f, "Values: the built-in defaults.\n\n");
  for (int s = 0; s < SIM_SECTION_COUNT; s++) {
    fprintf(f, "### %s — %s\n\n", sim_config_section_name((sim_section_id)s),
            sim_config_section_description((sim_section_id)s));
    fprintf(f, "| key | value | unit | allowed | description | origin |\n");
    fprintf(f, "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sim_config_param_count(); i++) {
      const sim_param_info *p = sim_config_param(i);
      if ((int)p->section_id != s) continue;
      char v[112], range[96], def[80];
      pretty_value(c, i, v, sizeof v);
      sim_config_param_range_text(i, range, sizeof range);
      fprintf(f, "| `%s` | `%s`", p->path, v);
      if (!sim_config_param_equal(c, dflt, i)) {
        sim_config_param_default_text(i, def, sizeof def);
        fprintf(f, " (default `%s`)", def);
      }
      fprintf(f, " | %s | %s | %s | %s: %s |\n", p->unit[0] ? p->unit : "—", range,
              p->description, p->assumption ? "**assumption**" : "documented", p->source);
    }
    fputc('\n', f);
  }
  fprintf(f,
          "## Derived values\n"
          "\n"
          "Computed once by `sim_config_derive`; the timing model looks these up.\n"
          "\n"
          "| name | value | unit | formula |\n"
          "|---|---|---|---|\n");
  for (size_t i = 0; i < sim_config_derived_count(); i++) {
    const sim_derived_info *di = sim_config_derived_info(i);
    char v[64];
    sim_config_derived_value_text(d, i, v, sizeof v);
    fprintf(f, "| `%s` | %s | %s | `%s` |\n", di->name, v, di->unit, di->formula);
  }
  fprintf(f,
          "\n"
          "## Error messages\n"
          "\n"
          "What cubesim says about a few bad files named `t.yaml` (produced by the loader\n"
          "itself):\n");
  for (size_t i = 0; i < sizeof error_samples / sizeof error_samples[0]; i++) {
    sim_config tmp;
    cs_err e;
    sim_config_defaults(&tmp);
    cs_status st = sim_config_load_string(&tmp, error_samples[i].yaml,
                                          strlen(error_samples[i].yaml), "t.yaml", &e);
    if (st == CS_OK) st = sim_config_validate(&tmp, &e);
    fprintf(f, "\n%c%s:\n\n```yaml\n%s```\n\n", (error_samples[i].what[0] - 'a') + 'A',
            error_samples[i].what + 1, error_samples[i].yaml);
    fprintf(f, "```\n%s\n```\n", st == CS_OK ? "(accepted)" : e.msg);
  }
}

static int config_show(cli_io *io, int argc, char **argv) {
  const char *cmd = "config show";
  const char *file = NULL;
  show_format fmt = SHOW_TEXT;
  int nfmt = 0;
  cs_err err;
  for (int i = 1; i < argc; i++) {
    const char *val = NULL;
    if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
      fputs(config_help, io->out);
      return 0;
    }
    if (cli_flag(argv, i, "--json")) fmt = SHOW_JSON, nfmt++;
    else if (cli_flag(argv, i, "--yaml")) fmt = SHOW_YAML, nfmt++;
    else if (cli_flag(argv, i, "--markdown")) fmt = SHOW_MARKDOWN, nfmt++;
    else {
      int r = cli_opt(argc, argv, &i, "--set", &val, &err);
      if (r < 0) return cli_fail(io, cmd, &err);
      if (r > 0) {
        if (!strchr(val, '='))
          return cli_usage_error(io, cmd, "--set %s: expected KEY=VALUE (e.g. chip.aic_cores=4)",
                                 val);
      } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
        return cli_unknown_option(io, cmd, argv[i], config_help);
      } else if (file) {
        return cli_usage_error(io, cmd, "more than one FILE ('%s' and '%s')", file, argv[i]);
      } else {
        file = argv[i];
      }
    }
  }
  if (nfmt > 1)
    return cli_usage_error(io, cmd, "--json, --yaml and --markdown exclude each other");

  sim_config c, dflt;
  sim_config_derived d;
  sim_config_defaults(&dflt);
  c = dflt;
  if (file && sim_config_load_file(&c, file, &err) != CS_OK) return cli_fail(io, cmd, &err);
  /* --set overrides, in order, after the file. */
  int nset = 0;
  for (int i = 1; i < argc; i++) {
    const char *val = NULL;
    if (cli_opt(argc, argv, &i, "--set", &val, &err) <= 0) continue;
    nset++;
    char path[128];
    const char *eq = strchr(val, '=');
    size_t n = (size_t)(eq - val);
    if (n >= sizeof path) n = sizeof path - 1;
    memcpy(path, val, n);
    path[n] = '\0';
    if (sim_config_set(&c, path, eq + 1, &err) != CS_OK) {
      cs_err_prefix(&err, "--set %s", val);
      return cli_fail(io, cmd, &err);
    }
  }
  if (sim_config_validate(&c, &err) != CS_OK) {
    /* The file's own relations were checked as it was read: a failure here with --set
     * options comes from them, and naming the file would mislead. */
    if (file && nset == 0) cs_err_prefix(&err, "%s", file);
    return cli_fail(io, cmd, &err);
  }
  sim_config_derive(&c, &d);
  switch (fmt) {
    case SHOW_TEXT: show_text(io->out, &c, &d, file, &dflt); break;
    case SHOW_JSON: show_json(io->out, &c, &d, file); break;
    case SHOW_YAML: sim_config_write_yaml(&c, io->out); break;
    case SHOW_MARKDOWN: show_markdown(io->out, &c, &d, file, &dflt); break;
  }
  return 0;
}

int cli_cmd_config(cli_io *io, int argc, char **argv) {
  if (argc < 2) return cli_usage_error(io, "config", "missing subcommand (cubesim config show)");
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(config_help, io->out);
    return 0;
  }
  if (strcmp(argv[1], "show") == 0) return config_show(io, argc - 1, argv + 1);
  static const char *const subcommands[] = {"show", NULL};
  return cli_unknown_name(io, "config", "subcommand", argv[1], subcommands);
}
