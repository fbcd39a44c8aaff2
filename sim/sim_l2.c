/* sim_l2 — set-associative LRU tag store with dirty lines. */
#include "sim/sim_l2.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Lines whose sets are fetched from host memory ahead of their lookup (the tag store is far
 * larger than the host's nearer caches); a power of two. */
#define L2_AHEAD 32
#define HOST_LINE 64
/* Host cache lines of a set fetched ahead. */
#define L2_PREFETCH_LINES 8
/* The ways of the sets whose tags are compared all at once (the 910B's 16). */
#define L2_WAYS_FAST 16

cs_status sim_l2_init(sim_l2 *l2, uint64_t bytes, uint64_t line_bytes, uint64_t ways, uint64_t gm_bytes,
                      cs_err *err) {
  memset(l2, 0, sizeof *l2);
  l2->line_bytes = line_bytes;
  l2->ways = ways;
  l2->sets = bytes / (line_bytes * ways);
  if ((line_bytes & (line_bytes - 1)) == 0)
    while ((UINT64_C(1) << l2->line_shift) < line_bytes) l2->line_shift++;
  l2->set_mask = (l2->sets & (l2->sets - 1)) == 0 ? l2->sets - 1 : 0;
  if (!l2->set_mask && l2->sets) {
    while (!((l2->sets >> l2->set_shift) & 1)) l2->set_shift++;
    l2->set_odd = l2->sets >> l2->set_shift;
#if defined(__SIZEOF_INT128__)
    l2->set_magic = ~(unsigned __int128)0 / l2->set_odd + 1;
#endif
  }
  l2->wide = gm_bytes / line_bytes + 1 >= (UINT64_C(1) << 31);
  l2->stamp_limit = UINT32_MAX;
  uint64_t per = ways * ((l2->wide ? sizeof(uint64_t) : sizeof(uint32_t)) + sizeof(uint32_t));
  l2->set_bytes = (size_t)((per + HOST_LINE - 1) / HOST_LINE * HOST_LINE);
  uint64_t total = l2->sets * l2->set_bytes;
  l2->sets_mem = total > SIZE_MAX - HOST_LINE ? NULL : aligned_alloc(HOST_LINE, (size_t)total);
  if (!l2->sets_mem) {
    sim_l2_free(l2);
    return cs_err_set(err, CS_ENOMEM, "L2: no host memory for %" PRIu64 " tags", bytes / line_bytes);
  }
  memset(l2->sets_mem, 0, (size_t)total);
  return CS_OK;
}

void sim_l2_free(sim_l2 *l2) {
  free(l2->sets_mem);
  memset(l2, 0, sizeof *l2);
}

/* The set of a line: its address hashed (as large caches spread addresses over their slices and
 * sets), so that strides of a power of two do not crowd a few sets. */
static inline uint64_t set_of(const sim_l2 *l2, uint64_t line) {
  uint64_t x = line;
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  x ^= x >> 33;
  if (l2->set_mask) return x & l2->set_mask;
#if defined(__SIZEOF_INT128__)
  /* x % sets without a division (the 910B's 24576 sets are 3 << 13; a 64-bit division per line
   * was a twelfth of a timing-only run): x = h << set_shift | low, and x % sets is
   * (h % set_odd) << set_shift | low. h % set_odd is the high 64 bits of the fraction
   * (set_magic * h mod 2^128) times set_odd, set_magic being ceil(2^128 / set_odd): exact for every
   * 64-bit h (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019). */
  uint64_t low = x & ((UINT64_C(1) << l2->set_shift) - 1), h = x >> l2->set_shift;
  unsigned __int128 frac = l2->set_magic * h;
  unsigned __int128 top = (frac >> 64) * l2->set_odd, bottom = ((unsigned __int128)(uint64_t)frac * l2->set_odd) >> 64;
  return (uint64_t)((top + bottom) >> 64) << l2->set_shift | low;
#else
  return x % l2->sets;
#endif
}

uint64_t sim_l2_set_of(const sim_l2 *l2, uint64_t line) { return set_of(l2, line); }

static uint32_t *stamps_of(const sim_l2 *l2, unsigned char *set) {
  return (uint32_t *)(set + l2->ways * (l2->wide ? sizeof(uint64_t) : sizeof(uint32_t)));
}

/* The clock reached the stamps' limit: every set's stamps become their ranks (1 for its least
 * recently used way; an empty way keeps 0), which keeps each set's order, the only one LRU
 * compares, and the clock restarts above them all. */
static void renumber(sim_l2 *l2) {
  uint64_t ways = l2->ways; /* at most 1024 (l2.ways) */
  uint32_t rank[1024];
  for (uint64_t s = 0; s < l2->sets; s++) {
    uint32_t *st = stamps_of(l2, l2->sets_mem + s * l2->set_bytes);
    for (uint64_t w = 0; w < ways && w < 1024; w++) {
      rank[w] = 0;
      if (!st[w]) continue;
      rank[w] = 1;
      for (uint64_t v = 0; v < ways; v++) rank[w] += st[v] && st[v] < st[w];
    }
    for (uint64_t w = 0; w < ways && w < 1024; w++) st[w] = rank[w];
  }
  l2->clock = ways;
}

/* Bit w set when way w of a set of 16 32-bit tags holds `want` (the dirty bit left out): every
 * way compared at once, without the early exit whose branch the host mispredicts at every
 * lookup (the way that hits is anyone's guess). */
#if defined(__SSE2__)
#define FAST(T) (sizeof(T) == sizeof(uint32_t))
#define LRU_FAST 1
static inline unsigned match16(const uint32_t *tags, uint32_t want) {
  const __m128i w = _mm_set1_epi32((int)want), keep = _mm_set1_epi32(0x7FFFFFFF);
  __m128i c[4];
  for (int i = 0; i < 4; i++)
    c[i] = _mm_cmpeq_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(tags + 4 * i)), keep), w);
  return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(c[0], c[1]), _mm_packs_epi32(c[2], c[3])));
}
/* The first of 16 ways whose stamp is the least (the LRU way, an empty one first), all compared
 * at once: the scan's compare-and-keep is a branch the host mispredicts about once a lookup.
 * SSE2 compares signed 32-bit lanes, so the stamps are compared with their top bit flipped. */
static inline unsigned lru16(const uint32_t *stamps) {
  const __m128i flip = _mm_set1_epi32((int)0x80000000u);
  __m128i v[4], m;
  for (int i = 0; i < 4; i++) v[i] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(stamps + 4 * i)), flip);
#define L2_MIN(a, b) _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi32(a, b), b), _mm_andnot_si128(_mm_cmpgt_epi32(a, b), a))
  m = L2_MIN(L2_MIN(v[0], v[1]), L2_MIN(v[2], v[3]));
  m = L2_MIN(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = L2_MIN(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
#undef L2_MIN
  __m128i c[4];
  for (int i = 0; i < 4; i++) c[i] = _mm_cmpeq_epi32(v[i], m);
  unsigned eq = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(c[0], c[1]), _mm_packs_epi32(c[2], c[3])));
  return (unsigned)__builtin_ctz(eq);
}
#else
#define FAST(T) 0
#define LRU_FAST 0
static inline unsigned match16(const uint32_t *tags, uint32_t want) {
  (void)tags, (void)want;
  return 0;
}
static inline unsigned lru16(const uint32_t *stamps) {
  (void)stamps;
  return 0;
}
#endif

/* Looks line up in its set, whose tags are of type T; on a miss the LRU way (the first of the
 * least recently used, so empty ways fill in order) is replaced, a dirty victim written back.
 * Returns 1 on a hit. */
#define L2_TOUCH(name, T)                                                                      \
  static inline __attribute__((always_inline)) int name(sim_l2 *l2, unsigned char *set, uint64_t line, int write, sim_l2_result *res) { \
    const T dirty = (T)1 << (sizeof(T) * 8 - 1), want = (T)(line + 1);                       \
    uint64_t ways = l2->ways;                                                                 \
    T *tags = (T *)(void *)set;                                                               \
    uint32_t *stamps = (uint32_t *)(void *)(tags + ways);                                     \
    if (l2->clock == l2->stamp_limit) renumber(l2);                                           \
    uint32_t now = (uint32_t)++l2->clock;                                                     \
    uint64_t hit = ways;                                                                      \
    if (FAST(T) && ways == L2_WAYS_FAST) {                                                    \
      unsigned match = match16((const uint32_t *)(const void *)tags, (uint32_t)want);         \
      if (match) hit = (uint64_t)__builtin_ctz(match);                                        \
    } else                                                                                    \
      for (uint64_t w = 0; w < ways && hit == ways; w++)                                      \
        if ((T)(tags[w] & ~dirty) == want) hit = w;                                           \
    if (hit < ways) {                                                                         \
      stamps[hit] = now;                                                                      \
      if (write && !(tags[hit] & dirty)) tags[hit] |= dirty, l2->dirty_lines++;               \
      return 1;                                                                               \
    }                                                                                         \
    uint64_t victim = 0;                                                                      \
    if (LRU_FAST && ways == L2_WAYS_FAST) victim = lru16(stamps);                             \
    else                                                                                      \
      for (uint64_t w = 1; w < ways; w++)                                                     \
        if (stamps[w] < stamps[victim]) victim = w;                                           \
    if (tags[victim] & dirty) {                                                               \
      res->writeback_lines++;                                                                 \
      l2->dirty_lines--;                                                                      \
    }                                                                                         \
    tags[victim] = (T)(want | (write ? dirty : 0));                                           \
    stamps[victim] = now;                                                                     \
    if (write) l2->dirty_lines++;                                                             \
    else res->fill_lines++;                                                                   \
    return 0;                                                                                 \
  }
L2_TOUCH(touch_line32, uint32_t)
L2_TOUCH(touch_line64, uint64_t)
#undef L2_TOUCH

/* The lines of an access in address order, each with the bytes the range has in it and its set,
 * wait for their turn in a ring: a line's set is fetched from host memory when it joins, and the
 * line is looked up L2_AHEAD joins later (or at the end), so the fetches overlap the lookups while
 * the lookups keep the lines' order. What the loop reads of the cache is held in locals (the
 * ring's stores would otherwise make the compiler read it again for every line). */
#define L2_RING_MASK (L2_AHEAD - 1)

void sim_l2_access(sim_l2 *l2, const isa_range *r, sim_l2_result *res) {
  const uint64_t lb = l2->line_bytes;
  const unsigned shift = l2->line_shift;
  unsigned char *const mem = l2->sets_mem;
  const size_t set_bytes = l2->set_bytes;
  const size_t fetch = set_bytes > L2_PREFETCH_LINES * HOST_LINE ? L2_PREFETCH_LINES * HOST_LINE : set_bytes;
  const int write = r->write != 0, wide = l2->wide;
  uint64_t ring_line[L2_AHEAD], ring_bytes[L2_AHEAD];
  unsigned char *ring_set[L2_AHEAD];
  unsigned head = 0, n = 0;
  uint64_t hit_bytes = 0, miss_bytes = 0;
#define L2_LOOK_UP_OLDEST()                                                                          \
  do {                                                                                               \
    int hit_ = wide ? touch_line64(l2, ring_set[head], ring_line[head], write, res)                 \
                    : touch_line32(l2, ring_set[head], ring_line[head], write, res);                \
    if (hit_) hit_bytes += ring_bytes[head];                                                          \
    else miss_bytes += ring_bytes[head];                                                              \
    head = (head + 1) & L2_RING_MASK;                                                                 \
    n--;                                                                                              \
  } while (0)
  /* a line shared by consecutive runs is looked up once: its bytes join the ring's newest entry,
   * which is never looked up before the next line joins */
  uint64_t last_line = UINT64_MAX;
  for (uint64_t row = 0; row < r->rows; row++) {
    uint64_t lo = r->base + row * r->stride_bytes, hi = lo + r->row_bytes;
    for (uint64_t line = shift ? lo >> shift : lo / lb; line * lb < hi; line++) {
      uint64_t a = line * lb > lo ? line * lb : lo;
      uint64_t e = (line + 1) * lb < hi ? (line + 1) * lb : hi;
      if (line == last_line) {
        ring_bytes[(head + n - 1) & L2_RING_MASK] += e - a;
        continue;
      }
      if (n == L2_AHEAD) L2_LOOK_UP_OLDEST();
      unsigned char *set = mem + set_of(l2, line) * set_bytes;
      __builtin_prefetch(set, 1);
      for (size_t o = HOST_LINE; o < fetch; o += HOST_LINE) __builtin_prefetch(set + o, 1);
      unsigned at = (head + n++) & L2_RING_MASK;
      ring_line[at] = line;
      ring_bytes[at] = e - a;
      ring_set[at] = set;
      last_line = line;
    }
  }
  while (n) L2_LOOK_UP_OLDEST();
#undef L2_LOOK_UP_OLDEST
  res->hit_bytes += hit_bytes;
  res->miss_bytes += miss_bytes;
}
