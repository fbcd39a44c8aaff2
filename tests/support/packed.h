/* packed — elements of packed arrays as the buffers hold them: int4 two to a byte (element 0 in
 * the low nibble), wider types little-endian; and little-endian integers of 1 to 8 bytes.
 * Values are raw bits (no sign extension). */
#ifndef TESTS_PACKED_H
#define TESTS_PACKED_H

#include <stdint.h>

uint64_t pk_le_get(const uint8_t *p, unsigned bytes);
void pk_le_put(uint8_t *p, uint64_t v, unsigned bytes);

/* Element i of an array of `bits`-bit elements (4, 8, 16, 32 or 64). pk_put keeps the other
 * nibble of an int4 byte. */
uint64_t pk_get(const uint8_t *p, unsigned bits, uint64_t i);
void pk_put(uint8_t *p, unsigned bits, uint64_t i, uint64_t v);

#endif
