/* Tests of tests/support/isa_testmach: the fake machine the isa tests run instructions on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "support/isa_testmach.h"
#include "support/insn_build.h"

static void test_testmach_sizes_and_zeroed_memories(void **state) {
  (void)state;
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = 100;
  sizes[ISA_MEM_L1] = 64;
  isa_testmach *t = itm_create(sizes);
  assert_non_null(t);
  assert_int_equal(itm_size(t, ISA_MEM_GM), 100);
  assert_int_equal(itm_size(t, ISA_MEM_L1), 64);
  assert_int_equal(itm_size(t, ISA_MEM_UB), 0);
  for (int i = 0; i < 100; i++) assert_int_equal(itm_mem(t, ISA_MEM_GM)[i], 0);
  isa_mach m = itm_mach(t, (isa_env){false});
  assert_ptr_equal(m.ptr(m.ctx, ISA_MEM_L1, 10, 54), itm_mem(t, ISA_MEM_L1) + 10);
  assert_false(m.env.fixpipe_saturation);
  itm_destroy(t);
}

static void test_testmach_run_executes_and_refuses_out_of_bounds(void **state) {
  (void)state;
  uint64_t sizes[ISA_MEM_COUNT] = {0};
  sizes[ISA_MEM_GM] = 64;
  sizes[ISA_MEM_L1] = 64;
  isa_testmach *t = itm_create(sizes);
  for (int i = 0; i < 64; i++) itm_mem(t, ISA_MEM_GM)[i] = (uint8_t)(i + 1);
  isa_insn in = ib_copy_bursts(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 32, ISA_MEM_GM, 8, 2, 4, 4, 0);
  isa_fault f;
  assert_true(itm_run(t, &in, &f));
  const uint8_t want[8] = {9, 10, 11, 12, 17, 18, 19, 20};
  assert_memory_equal(itm_mem(t, ISA_MEM_L1) + 32, want, 8);
  assert_int_equal(itm_mem(t, ISA_MEM_L1)[31], 0);
  assert_int_equal(itm_mem(t, ISA_MEM_L1)[40], 0);

  /* last byte written: 60 + 4 = 64 fits; 61 + 4 = 65 does not */
  in = ib_copy_bursts(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 60, ISA_MEM_GM, 0, 1, 4, 0, 0);
  assert_true(itm_run(t, &in, &f));
  in = ib_copy_bursts(ISA_OP_COPY_GM_L1, ISA_MEM_L1, 61, ISA_MEM_GM, 0, 1, 4, 0, 0);
  memset(&f, 0, sizeof f);
  assert_false(itm_run(t, &in, &f));
  assert_int_equal(f.cause, ISA_FAULT_OUT_OF_BOUNDS);
  assert_string_equal(f.operand, "dst");
  assert_int_equal(f.value, 65);
  assert_int_equal(f.limit, 64);
  assert_string_equal(f.msg, "copy_gm_l1: write range [61, 65) of L1 is beyond its 64 bytes");
  itm_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_testmach_sizes_and_zeroed_memories),
      cmocka_unit_test(test_testmach_run_executes_and_refuses_out_of_bounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
