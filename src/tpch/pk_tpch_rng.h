/*
 * pk_tpch_rng.h: dbgen's random streams (rnd.c), inline for the generators
 * and the tests. A stream is Park and Miller's x' = 16807 x mod 2^31-1.
 */
#ifndef PK_TPCH_RNG_H
#define PK_TPCH_RNG_H

#include <stdint.h>

#define PK_M 2147483647LL

/* x * y mod 2^31-1 for 0 <= x, y < 2^31: the product splits into 31-bit
 * halves whose sum is congruent to it (2^31 = 1 mod M). */
static inline int64_t pk_mulmod(int64_t x, int64_t y) {
    uint64_t p = (uint64_t)x * (uint64_t)y;
    uint64_t r = (p & (uint64_t)PK_M) + (p >> 31);
    r = (r & (uint64_t)PK_M) + (r >> 31);
    return r >= (uint64_t)PK_M ? (int64_t)(r - (uint64_t)PK_M) : (int64_t)r;
}

/* One step of a stream, 16807 x mod M: the product is below 2^46, so one
 * fold of its high bits and one conditional subtraction reduce it. */
static inline int64_t pk_next(int64_t x) {
    uint64_t p = (uint64_t)x * 16807u;
    uint64_t r = (p & (uint64_t)PK_M) + (p >> 31); /* < 2^31 + 2^15 */
    return (int64_t)(r >= (uint64_t)PK_M ? r - (uint64_t)PK_M : r);
}

/* 16807^n mod M: the multiplier that advances a stream n draws. */
static inline int64_t pk_pow16807(int64_t n) {
    int64_t z = 1, m = 16807;
    while (n > 0) {
        if (n & 1) z = pk_mulmod(z, m);
        m = pk_mulmod(m, m);
        n >>= 1;
    }
    return z;
}

/* dbgen's UnifInt for a draw x in 1..M-1: lo + (long)((double)x / M * range),
 * in double precision exactly as the reference rounds it. */
static inline int64_t pk_scale_double(int64_t x, int64_t lo, int64_t range) {
    return lo + (int64_t)(((double)x / 2147483647.0) * (double)range);
}

/* The same value without a division, for range <= 2^20: floor(x * range / M).
 * It equals the double computation because the two roundings move x/M*range
 * by at most range * 2^-52 < 2^-32, while x * range / M, never an integer
 * (M is prime and both factors are below it), lies at least 1/M > 2^-31
 * from the next integer: truncation cannot cross one. Checked over every
 * boundary draw by tests/test_tpch.c. */
#define PK_SCALE_INT_MAX_RANGE (1 << 20)
static inline int64_t pk_scale_int(int64_t x, int64_t lo, int64_t range) {
    uint64_t p = (uint64_t)x * (uint64_t)range; /* < 2^51 */
    uint64_t q = p >> 31, t = q + (p & (uint64_t)PK_M); /* p = q*M + t, t < 2M */
    return lo + (int64_t)(q + (t >= (uint64_t)PK_M));
}

static inline int64_t pk_scale(int64_t x, int64_t lo, int64_t hi) {
    int64_t range = hi - lo + 1;
    return range <= PK_SCALE_INT_MAX_RANGE ? pk_scale_int(x, lo, range)
                                           : pk_scale_double(x, lo, range);
}

#endif
