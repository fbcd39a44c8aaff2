/* cubesim.h — the whole public API of libcubesim in one include (docs/API.md). */
#ifndef CUBESIM_H
#define CUBESIM_H

#include "base/cs_status.h"
#include "isa/isa_num.h"
#include "isa/isa_quant.h"
#include "kernels/kn_op.h"
#include "kernels/kn_plugin.h"
#include "runtime/rt.h"
#include "runtime/rt_host.h"
#include "runtime/rt_intrin.h"
#include "runtime/rt_matmul.h"
#include "sim/sim.h"
#include "sim/sim_config.h"
#include "sim/sim_trace.h"
#include "traces/trc_summary.h"

#endif
