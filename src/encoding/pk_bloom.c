/*
 * pk_bloom.c: split-block bloom filters (see pk_bloom.h and the format's
 * BloomFilter.md).
 *
 * The bitset is a sequence of 32-byte blocks, each eight little-endian
 * 32-bit words. The upper 32 bits of a value's hash pick the block
 * (multiply-shift: ((hash >> 32) * blocks) >> 32, so any number of blocks
 * works); the lower 32 bits, multiplied by eight odd SALT constants, pick
 * one bit in each word (the top 5 bits of each product).
 *
 * The hash is XXH64 with seed 0. With libxxhash (PLANK_HAVE_XXHASH) it is
 * the library's; without it, pk_bloom_xxh64 below, written from the xxHash
 * specification. The fallback is compiled in every build so the tests can
 * compare it with the library, and bloom filters never depend on a build
 * option: a build without libxxhash reads and writes them just the same.
 */
#include "pk_bloom.h"

#include <math.h>

#ifdef PLANK_HAVE_XXHASH
#include <xxhash.h>
#endif

/* ---- XXH64 ------------------------------------------------------------------- */

#define PK_XXH_P1 0x9E3779B185EBCA87ull
#define PK_XXH_P2 0xC2B2AE3D27D4EB4Full
#define PK_XXH_P3 0x165667B19E3779F9ull
#define PK_XXH_P4 0x85EBCA77C2B2AE63ull
#define PK_XXH_P5 0x27D4EB2F165667C5ull

static inline uint64_t pk_rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* One 8-byte lane folded into an accumulator. */
static inline uint64_t pk_xxh_round(uint64_t acc, uint64_t lane) {
    acc += lane * PK_XXH_P2;
    return pk_rotl64(acc, 31) * PK_XXH_P1;
}

static inline uint64_t pk_xxh_merge(uint64_t acc, uint64_t v) {
    acc ^= pk_xxh_round(0, v);
    return acc * PK_XXH_P1 + PK_XXH_P4;
}

/* Reads the input as little-endian lanes: the x86-64 result the format
 * asks for (plank assumes a little-endian host throughout). */
uint64_t pk_bloom_xxh64(const void *data, size_t len) {
    static const uint8_t empty[1] = {0};
    const uint8_t *p = data ? data : empty;
    const uint8_t *end = p + len;
    uint64_t h;
    if (len >= 32) {
        /* Four accumulators over 32-byte stripes. */
        uint64_t v1 = PK_XXH_P1 + PK_XXH_P2, v2 = PK_XXH_P2, v3 = 0, v4 = 0 - PK_XXH_P1;
        const uint8_t *last_stripe = end - 32;
        do {
            v1 = pk_xxh_round(v1, pk_load_u64(p));
            v2 = pk_xxh_round(v2, pk_load_u64(p + 8));
            v3 = pk_xxh_round(v3, pk_load_u64(p + 16));
            v4 = pk_xxh_round(v4, pk_load_u64(p + 24));
            p += 32;
        } while (p <= last_stripe);
        h = pk_rotl64(v1, 1) + pk_rotl64(v2, 7) + pk_rotl64(v3, 12) + pk_rotl64(v4, 18);
        h = pk_xxh_merge(h, v1);
        h = pk_xxh_merge(h, v2);
        h = pk_xxh_merge(h, v3);
        h = pk_xxh_merge(h, v4);
    } else {
        h = PK_XXH_P5;
    }
    h += (uint64_t)len;
    /* The tail: 8-byte lanes, then at most one 4-byte lane, then bytes. */
    for (; end - p >= 8; p += 8) {
        h ^= pk_xxh_round(0, pk_load_u64(p));
        h = pk_rotl64(h, 27) * PK_XXH_P1 + PK_XXH_P4;
    }
    if (end - p >= 4) {
        h ^= (uint64_t)pk_load_u32(p) * PK_XXH_P1;
        h = pk_rotl64(h, 23) * PK_XXH_P2 + PK_XXH_P3;
        p += 4;
    }
    for (; p < end; p++) {
        h ^= (uint64_t)*p * PK_XXH_P5;
        h = pk_rotl64(h, 11) * PK_XXH_P1;
    }
    /* Avalanche. */
    h ^= h >> 33;
    h *= PK_XXH_P2;
    h ^= h >> 29;
    h *= PK_XXH_P3;
    h ^= h >> 32;
    return h;
}

uint64_t pk_bloom_hash(const void *data, size_t len) {
#ifdef PLANK_HAVE_XXHASH
    /* Empty values may come with data == NULL. */
    static const uint8_t empty[1] = {0};
    return (uint64_t)XXH64(data ? data : empty, len, 0);
#else
    return pk_bloom_xxh64(data, len);
#endif
}

/* ---- sizing -------------------------------------------------------------------- */

uint32_t pk_bloom_optimal_bytes(uint64_t ndv, double fpp) {
    /* Out-of-range rates are clamped rather than rejected: a rate of 1 or
     * more asks for nothing (the smallest filter), 0, a negative rate or NaN
     * for certainty (the largest). */
    if (!(fpp > 0.0)) return PK_BLOOM_MAX_BYTES;
    if (fpp >= 1.0) return PK_BLOOM_MIN_BYTES;
    /* BloomFilter.md: bits per distinct value for eight bits per lookup,
     * c = -8 / log(1 - p^(1/8)); log1p keeps tiny rates from rounding the
     * logarithm to 0. */
    double bits_per_value = -8.0 / log1p(-pow(fpp, 1.0 / 8.0));
    if (ndv == 0) return PK_BLOOM_MIN_BYTES;
    double bytes = ceil((double)ndv * bits_per_value / 8.0);
    /* Also catches an infinite or NaN size. */
    if (!(bytes < (double)PK_BLOOM_MAX_BYTES)) return PK_BLOOM_MAX_BYTES;
    uint32_t n = PK_BLOOM_MIN_BYTES;
    while (n < (uint32_t)bytes) n <<= 1; /* stops at PK_BLOOM_MAX_BYTES at the latest */
    return n;
}

/* ---- insert and check -------------------------------------------------------- */

static const uint32_t pk_bloom_salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                          0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

static inline size_t pk_bloom_block(uint32_t num_bytes, uint64_t hash) {
    uint64_t blocks = num_bytes / 32u;
    return (size_t)(((hash >> 32) * blocks) >> 32) * 32u;
}

void pk_bloom_insert(uint8_t *bits, uint32_t num_bytes, uint64_t hash) {
    if (num_bytes < 32) return; /* no block to set (a caller bug; harmless) */
    uint8_t *block = bits + pk_bloom_block(num_bytes, hash);
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) {
        uint32_t word = pk_load_u32(block + 4 * i);
        word |= UINT32_C(1) << ((key * pk_bloom_salt[i]) >> 27);
        pk_store_u32(block + 4 * i, word);
    }
}

bool pk_bloom_check(const uint8_t *bits, uint32_t num_bytes, uint64_t hash) {
    /* Without a block nothing can be ruled out. */
    if (num_bytes < 32) return true;
    const uint8_t *block = bits + pk_bloom_block(num_bytes, hash);
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) {
        uint32_t bit = UINT32_C(1) << ((key * pk_bloom_salt[i]) >> 27);
        if ((pk_load_u32(block + 4 * i) & bit) == 0) return false;
    }
    return true;
}
