/* isa_quant_tools — whole tensors of fixpipe quant words (one uint64 per output channel): what
 * they hold, which packer made them from given scales and offsets, and what changes between two
 * of them, down to the fixpipe's outputs (docs/QUANT_OPS.md, "Tensors of quant words").
 *
 * Everything here is computed on the words' bits with isa/isa_quant.h (fields, packers) and
 * isa/isa_fixpipe.h (the per-element conversion the simulator itself applies), so a report
 * about a tensor agrees bit for bit with what a simulated kernel would compute from it.
 */
#ifndef ISA_QUANT_TOOLS_H
#define ISA_QUANT_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "isa/isa_quant.h"

/* ---- The packer variants cubesim knows ----
 *
 * Every combination of a scale rounding and an offset rounding of isa_qw_pack, named
 * "<scale rounding>/<offset rounding>" as `cubesim quant pack` spells the options, with who
 * packs so (docs/DESIGN.md §5.1; the public sources are listed in docs/QUANT_OPS.md). The order is
 * the order of the reports, and it breaks ties: the documented formula first.
 *
 * id, name, scale rounding, offset rounding, who packs words so */
#define ISA_QW_VARIANT_TABLE(X)                                                                \
  X(DOCUMENTED, "trunc/half-away", TRUNC, HALF_AWAY,                                         \
    "documented formula (SetQuantScalar, aclnnTransQuantParam docs)")                        \
  X(DEVICE_TRUNC, "trunc/half-even", TRUNC, HALF_EVEN,                                       \
    "TransQuantParamV2 device kernel, round_mode 0")                                         \
  X(DEVICE_RNE, "rne/half-even", RNE, HALF_EVEN,                                             \
    "TransQuantParamV2 device kernel, round_mode 1")                                         \
  X(HOST_CODE, "none/half-away", NONE, HALF_AWAY,                                            \
    "aclnnTransQuantParam host code (scale bits 12..0 kept)")                                \
  X(RNE_AWAY, "rne/half-away", RNE, HALF_AWAY, "no public packer known")                     \
  X(NONE_EVEN, "none/half-even", NONE, HALF_EVEN, "no public packer known")

typedef enum isa_qw_variant {
#define ISA_QW_VARIANT_ENUM(id, name, sr, orr, source) ISA_QW_VARIANT_##id,
  ISA_QW_VARIANT_TABLE(ISA_QW_VARIANT_ENUM)
#undef ISA_QW_VARIANT_ENUM
  ISA_QW_VARIANT_COUNT
} isa_qw_variant;

const char *isa_qw_variant_name(isa_qw_variant v);
const char *isa_qw_variant_source(isa_qw_variant v);
/* The packing options of variant v, with REQ8's N and MCB as given. */
isa_qw_pack_opts isa_qw_variant_opts(isa_qw_variant v, unsigned n, unsigned mcb);

/* ---- Parts of a word, as differences are reported ----
 *
 * The scale is one part (bits 31..13: the fp19 value the fixpipe applies) and its ignored low
 * bits another; the other parts are the fields of isa_qw_field.
 *
 * id, name, mask, what it is */
#define ISA_QW_PART_TABLE(X)                                                                \
  X(SCALE, "scale", UINT64_C(0x00000000FFFFE000), "the fp19 scale M1 (bits 31..13)")       \
  X(SCALE_LOW, "scale-low", UINT64_C(0x0000000000001FFF),                                 \
    "scale bits 12..0 (ignored by the hardware)")                                         \
  X(N, "n", ISA_QW_N_MASK, "N, REQ8's right shift (bits 35..32)")                         \
  X(MCB, "mcb", ISA_QW_MCB_MASK, "MCB, REQ8's pre-shift switch (bit 36)")                 \
  X(OFFSET, "offset", ISA_QW_OFFSET_MASK, "the offset (bits 45..37)")                     \
  X(S, "s", ISA_QW_S_MASK, "S, signed or unsigned 8-bit output (bit 46)")                 \
  X(IGNORED, "ignored", ISA_QW_IGNORED_MASK, "bits 63..47 (ignored by the hardware)")

typedef enum isa_qw_part {
#define ISA_QW_PART_ENUM(id, name, mask, desc) ISA_QW_PART_##id,
  ISA_QW_PART_TABLE(ISA_QW_PART_ENUM)
#undef ISA_QW_PART_ENUM
  ISA_QW_PART_COUNT
} isa_qw_part;

const char *isa_qw_part_name(isa_qw_part p);
uint64_t isa_qw_part_mask(isa_qw_part p);
/* Bit (1 << part) of every part in which words a and b differ. */
unsigned isa_qw_parts_differing(uint64_t a, uint64_t b);

/* One difference, in words, and the fixpipe modes whose output it changes (bit 1 << isa_qw_mode
 * per mode; 0: no output changes, e.g. ignored bits). */
#define ISA_QW_DIFF_TEXT_BYTES 400
typedef struct isa_qw_difference {
  isa_qw_part part;
  unsigned modes;
  char text[ISA_QW_DIFF_TEXT_BYTES];
} isa_qw_difference;

/* ---- A summary of a tensor of words ---- */

typedef struct isa_qw_summary {
  size_t channels;
  size_t warning_channels[ISA_QW_WARN_COUNT]; /* channels carrying each warning */
  size_t channels_warned;                     /* channels with at least one warning */
  size_t finite_scales;                       /* channels whose effective scale is finite */
  float scale_min, scale_max;                 /* the smallest and largest finite effective scale */
  size_t scale_min_channel, scale_max_channel;
  int offset_min, offset_max;
  size_t s_set;                               /* channels with S = 1 */
  size_t mcb_set;                             /* channels with MCB = 1 */
  size_t n_channels[ISA_QW_N_MAX + 1];        /* channels per value of N */
} isa_qw_summary;

void isa_qw_summarize(const uint64_t *words, size_t n, isa_qw_summary *out);

/* ---- Which packer made these words? ---- */

/* What the packers are checked against: per-channel scales, and offsets (NULL with n_offsets 0:
 * none; one, broadcast; or one per channel); the N and MCB every word should carry (0 and 0 for
 * the public packers, which never write them); the names errors give the two arrays (NULL:
 * "scales", "offsets"). */
typedef struct isa_qw_check_in {
  const float *scales;
  size_t n;
  const float *offsets;
  size_t n_offsets;
  unsigned n_shift;
  unsigned mcb;
  const char *scales_name, *offsets_name;
} isa_qw_check_in;

typedef struct isa_qw_check {
  size_t channels;
  size_t matches[ISA_QW_VARIANT_COUNT];       /* channels whose word each variant reproduces */
  unsigned same_words[ISA_QW_VARIANT_COUNT];  /* variants packing these inputs into the very same
                                                 words as variant v (bit mask, v included) */
  unsigned explaining;                        /* variants that reproduce every word (0: none) */
  unsigned closest;                           /* the variants with the most matches */
  size_t closest_matches;
  isa_qw_variant reference; /* the first closest variant: differences are explained against it */
  size_t differing;         /* channels whose word differs from the reference's */
  size_t unmatched;         /* channels no variant reproduces */
  /* Why variants can pack alike: channels whose scale has bits 12..0 set (trunc and none
   * differ), whose scale rne rounds up (trunc and rne differ), whose offset rounds differently
   * half away and half to even (after the clamp). */
  size_t scale_low_set, scale_rounds_up, offset_ties;
} isa_qw_check;

/* Packs the inputs with every variant and counts the words each reproduces. Scales must be
 * finite (zero and subnormal scales are packed as the public packers pack them) and offsets
 * finite; n_offsets is 0, 1 or n; n_shift <= 15 and mcb <= 1. Errors (CS_EINVAL) name the array
 * and the element: "s.npy: channel 3: scale nan is not finite: ...". */
cs_status isa_qw_check_words(const isa_qw_check_in *in, const uint64_t *words,
                             isa_qw_check *out, cs_err *err);
/* The word variant v packs for channel i of in. */
uint64_t isa_qw_check_expected(const isa_qw_check_in *in, isa_qw_variant v, size_t i);
/* Why the variants in mask (bits 1 << isa_qw_variant) pack the checked inputs alike, in one
 * sentence ("every scale is exact in fp19 (bits 12..0 clear) ..."). */
size_t isa_qw_check_tie_text(const isa_qw_check *c, const isa_qw_check_in *in, unsigned mask,
                             char *buf, size_t buf_bytes);
/* How word `actual` of channel i differs from what variant v packs for it, part by part, with
 * the likely cause ("scale low bits 0x0ccd not masked ...", "offset 2.5 rounded to 2
 * (half-even) where half-away gives 3", "bit 46 clear: uint8 output ..."). Writes at most
 * ISA_QW_PART_COUNT items into out; returns how many. */
size_t isa_qw_explain_mismatch(const isa_qw_check_in *in, size_t i, isa_qw_variant v,
                               uint64_t actual, isa_qw_difference *out);

/* ---- What changes between two tensors of words ---- */

/* The largest difference of two words' outputs over int32 accumulators in [lo, hi], for a mode
 * that reads an int32 accumulator: DEQF16 (fp16 values) or REQ8 (int8/uint8 values, each word
 * read with its own S), with saturation on (the hardware default) and no ReLU. Exact: every
 * output is a monotone function of the accumulator, so a bisection that drops every interval
 * whose ends bound the difference below the best found so far visits only what can matter. */
typedef struct isa_qw_output_diff {
  double max_abs;          /* largest |out_b - out_a|; 0 when the outputs agree everywhere */
  int32_t acc;             /* an accumulator where it occurs (lo when max_abs is 0) */
  uint32_t bits_a, bits_b; /* the two outputs there: fp16 bits, or the 8-bit byte */
  double value_a, value_b;
  uint64_t evaluations;    /* accumulators evaluated (each for both words) */
} isa_qw_output_diff;

cs_status isa_qw_output_diff_range(isa_qw_mode mode, uint64_t a, uint64_t b, int32_t lo,
                                   int32_t hi, isa_qw_output_diff *out, cs_err *err);

/* (M1(b) - M1(a)) / |M1(a)| of the effective scales, in double: 0 when equal; ±Inf from a zero
 * scale to a non-zero one; NaN when either is Inf or NaN. */
double isa_qw_scale_relative_change(uint64_t a, uint64_t b);
/* How far M1(b) lies from M1(a) in steps of fp19 values (each step one unit of bit 13 in the
 * sign-magnitude order; positive toward +Inf). Meaningless (0) when either is NaN. */
int64_t isa_qw_scale_steps(uint64_t a, uint64_t b);
/* Part p of a -> b in words ("offset 3 -> 2", "S 1 -> 0: int8 -> uint8 output", ...). */
size_t isa_qw_part_change_text(isa_qw_part p, uint64_t a, uint64_t b, char *buf,
                               size_t buf_bytes);

/* One channel of a diff. */
typedef struct isa_qw_diff_channel {
  unsigned parts;            /* isa_qw_parts_differing */
  double scale_relative;     /* isa_qw_scale_relative_change */
  bool deqf16_computed;      /* the scale differs: DEQF16 outputs may differ */
  bool req8_computed;        /* a part REQ8 reads differs */
  isa_qw_output_diff deqf16, req8;
} isa_qw_diff_channel;

typedef struct isa_qw_diff {
  size_t channels, differing;
  size_t part_channels[ISA_QW_PART_COUNT]; /* channels in which each part differs */
  int32_t acc_lo, acc_hi;
  size_t scale_changed;        /* channels whose effective scale differs */
  double max_scale_relative;   /* the largest |relative change| (NaN-free; 0 when none) */
  size_t max_scale_channel;
  isa_qw_output_diff deqf16, req8; /* the largest over the channels (max_abs 0: none) */
  size_t deqf16_channel, req8_channel;
} isa_qw_diff;

/* Compares a and b channel by channel (n words each) over accumulators [lo, hi]; per (NULL or n
 * entries) receives every channel. */
cs_status isa_qw_diff_words(const uint64_t *a, const uint64_t *b, size_t n, int32_t lo,
                            int32_t hi, isa_qw_diff_channel *per, isa_qw_diff *out, cs_err *err);

#endif
