/* fuzz_program — the assembler and the program loader (isa/isa_text.c, sim/sim_program.c): any
 * bytes as a text program, then, when it parses, linked, issued and replayed as `cubesim exec`
 * would run it.
 *
 * Promises checked beyond "no crash, no leak": a refusal says where ("fuzz.s:LINE:COLUMN: ...");
 * every parsed instruction has a canonical text that assembles back to the same bits and the same
 * text; a run either completes or stops with a status and a message (a kernel fault, a hazard, a
 * deadlock, host memory), never anything else. Small programs run with data (every instruction's
 * functional effect), larger ones timing-only, all under a 64 MiB host-memory limit, and the
 * replay writes a JSON or Perfetto trace to /dev/null. */
#include "fuzz/fuzz.h"

#include "isa/isa_text.h"
#include "sim/sim.h"
#include "sim/sim_config.h"
#include "sim/sim_program.h"
#include "sim/sim_trace.h"

#define FUNCTIONAL_MAX_INSNS 64  /* a functional mmad can take 0.1 s */
#define RUN_MAX_INSNS 4096
#define RUN_MAX_CORES 8
#define RUN_MAX_HOST_BYTES (64u << 20)

/* Every instruction's text reads back to the same record and the same text. */
static void check_round_trip(const sim_program *p) {
  char text[ISA_TEXT_LINE_BYTES], again[ISA_TEXT_LINE_BYTES];
  for (size_t i = 0; i < p->ninsns; i++) {
    const isa_insn *in = &p->insns[i].insn;
    size_t n = isa_disasm(in, text, sizeof text);
    FZ_CHECK(n < sizeof text, "line %u: a %zu-character disassembly", p->insns[i].line, n);
    isa_insn back;
    cs_err err;
    cs_status st = isa_asm_line(text, &back, &err);
    FZ_CHECK(st == CS_OK, "line %u: [%s] does not assemble: %s", p->insns[i].line, text, err.msg);
    FZ_CHECK(memcmp(&back, in, sizeof back) == 0, "line %u: [%s] assembles to other bits",
             p->insns[i].line, text);
    isa_disasm(&back, again, sizeof again);
    FZ_CHECK(strcmp(text, again) == 0, "line %u: [%s] disassembles again as [%s]", p->insns[i].line,
             text, again);
  }
}

static unsigned cores_of(const sim_program *p) {
  unsigned n = 1;
  for (size_t i = 0; i < p->ncore_dirs; i++)
    if (p->core_dirs[i].core >= n) n = p->core_dirs[i].core + 1;
  return n;
}

/* What a run may end with: success or one of the statuses a program can cause. */
static void run(const sim_program *cp, size_t size) {
  sim_program *p = (sim_program *)cp;
  unsigned cores = cores_of(p);
  if (cores > RUN_MAX_CORES || p->ninsns > RUN_MAX_INSNS) return;
  sim_config cfg;
  sim_config_defaults(&cfg);
  cfg.chip_aic_cores = cores;
  sim_options so = {.timing_only = p->ninsns > FUNCTIONAL_MAX_INSNS,
                    .max_host_bytes = RUN_MAX_HOST_BYTES};
  sim *s = NULL;
  cs_err err;
  cs_status st = sim_create(&cfg, &so, &s, &err);
  if (st == CS_OK) st = sim_program_link(p, s, &err);
  if (st == CS_OK) st = sim_program_issue(p, s, &err);
  if (st == CS_OK) {
    sim_trace_options to;
    sim_trace_options_init(&to);
    to.format = size & 1 ? SIM_TRACE_PERFETTO : SIM_TRACE_JSON;
    sim_trace *tr = NULL;
    st = sim_trace_open_with("/dev/null", &cfg, &to, &tr, &err);
    if (st == CS_OK) {
      sim_run_options ro = {.trace = tr, .allow_hazards = (size & 2) != 0};
      sim_result res;
      st = sim_run(s, &ro, &res, &err);
      cs_err e2;
      (void)sim_trace_close(tr, st == CS_OK, &e2);
      sim_result_free(&res);
    }
  }
  FZ_CHECK(st == CS_OK || st == CS_EINVAL || st == CS_EFAULT || st == CS_EHAZARD ||
               st == CS_EDEADLOCK || st == CS_ENOMEM,
           "a run ended with status %s: %s", cs_status_name(st), err.msg);
  if (st != CS_OK) FZ_CHECK(err.code == st && err.msg[0], "status %s without its message", cs_status_name(st));
  sim_destroy(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sim_program *p = NULL;
  cs_err err;
  cs_status st = sim_program_parse((const char *)data, size, "fuzz.s", &p, &err);
  if (st != CS_OK) {
    FZ_CHECK(p == NULL, "a refused program was kept");
    if (st != CS_ENOMEM)
      FZ_CHECK(strncmp(err.msg, "fuzz.s:", 7) == 0, "the message names no place: %s", err.msg);
    return 0;
  }
  check_round_trip(p);
  run(p, size);
  sim_program_free(p);
  return 0;
}
