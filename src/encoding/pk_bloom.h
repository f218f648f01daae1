/*
 * pk_bloom.h: split-block bloom filters as the format's BloomFilter.md
 * defines them (blocks of eight 32-bit words, the SALT constants, XXH64 with
 * seed 0 of the value's PLAIN bytes; BYTE_ARRAY without the length prefix).
 *
 * Depends on: common (and libxxhash for the hash when PLANK_HAVE_XXHASH;
 * otherwise plank's own XXH64, so bloom filters work in every build).
 */
#ifndef PK_BLOOM_H
#define PK_BLOOM_H

#include "../common/pk_common.h"

#define PK_BLOOM_MIN_BYTES 32u
#define PK_BLOOM_MAX_BYTES (128u * 1024u * 1024u)

/* XXH64(data, len, seed 0); data may be NULL when len is 0. */
uint64_t pk_bloom_hash(const void *data, size_t len);
/* plank's own XXH64 (seed 0), what pk_bloom_hash uses without libxxhash;
 * always built so the tests can compare it with the library. */
uint64_t pk_bloom_xxh64(const void *data, size_t len);
/* Bitset size for ndv distinct values at false-positive rate fpp (0 < fpp <
 * 1): the format's formula, rounded up to a power of two and clamped to
 * [PK_BLOOM_MIN_BYTES, PK_BLOOM_MAX_BYTES]. */
uint32_t pk_bloom_optimal_bytes(uint64_t ndv, double fpp);
/* num_bytes must be a multiple of 32 (the format's block size); below 32
 * there is no block: insert does nothing and check answers true. */
void pk_bloom_insert(uint8_t *bits, uint32_t num_bytes, uint64_t hash);
bool pk_bloom_check(const uint8_t *bits, uint32_t num_bytes, uint64_t hash);

#endif /* PK_BLOOM_H */
