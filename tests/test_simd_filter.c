/*
 * test_simd_filter.c: the filter kernels of the pushdown scan at every dispatch level
 * this machine has, each against the scalar reference and against the predicates of the
 * contract written out here (plain C, value by value): lengths 0..300 and a stride up to
 * 4096, values and bitmask at byte offsets 0..7, random and edge values and bounds
 * (INT32/INT64 MIN and MAX, empty and one-value ranges, unsigned order through flip,
 * NaN, -0.0, infinities, denormals, every flag combination, NaN bounds), dictionary
 * codes -1, past npass and at the bitmap's last dword, npass 0 and bitmaps around the
 * register and gather boundaries. The count returned must be the popcount, the bytes
 * after ceil(n/8) and before the bitmask untouched. Values and codes are copied into
 * exact-size allocations so that AddressSanitizer sees any read past them; the bitmaps
 * end where a PROT_NONE page starts, so a read past one faults even where
 * AddressSanitizer does not look (vector gathers).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <float.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "enc_ref.h"
#include "tharness.h"

#include "simd_sets.h"

static const pk_kernels *sets[PK_SIMD_AVX512 + 1];
static int nsets;
static ref_rng rng = {0xF117E5};

/* ---- a query and its plain predicate --------------------------------------------------- */

typedef enum kind { K_I32, K_I64, K_F32, K_F64, K_CODES } kind;
static const char *const kind_name[] = {"i32", "i64", "f32", "f64", "codes"};
static const size_t kind_width[] = {4, 8, 4, 8, 4};

typedef struct query {
    kind k;
    int64_t lo, hi; /* integers: the kernel's bounds */
    uint64_t flip;
    bool is_unsigned;  /* flip is the sign bit and the bounds are ulo, uhi biased */
    uint64_t ulo, uhi;
    double flo, fhi; /* floats */
    unsigned flags;
    const uint8_t *pass; /* codes */
    int64_t npass;
} query;

/* The predicate on value i of vals (aligned), written from the contract. */
static bool want(const query *q, const void *vals, size_t i) {
    switch (q->k) {
    case K_I32: {
        uint32_t u = ((const uint32_t *)vals)[i];
        if (q->is_unsigned) return q->ulo <= u && u <= q->uhi;
        int64_t x = (int32_t)(u ^ (uint32_t)q->flip);
        return q->lo <= x && x <= q->hi;
    }
    case K_I64: {
        uint64_t u = ((const uint64_t *)vals)[i];
        if (q->is_unsigned) return q->ulo <= u && u <= q->uhi;
        int64_t x = (int64_t)(u ^ q->flip);
        return q->lo <= x && x <= q->hi;
    }
    case K_F32:
    case K_F64: {
        double x = q->k == K_F32 ? ((const float *)vals)[i] : ((const double *)vals)[i];
        if (isnan(x)) return (q->flags & PK_FILTER_NAN) != 0;
        if (isnan(q->flo) || isnan(q->fhi)) return false;
        bool lo_ok = (q->flags & PK_FILTER_LO_OPEN) ? x > q->flo : x >= q->flo;
        bool hi_ok = (q->flags & PK_FILTER_HI_OPEN) ? x < q->fhi : x <= q->fhi;
        return lo_ok && hi_ok;
    }
    case K_CODES: {
        int32_t c = ((const int32_t *)vals)[i];
        if (c < 0 || c >= q->npass) return false;
        return (q->pass[c / 8] >> (c % 8)) & 1;
    }
    }
    return false;
}

static int64_t run(const pk_kernels *k, const query *q, const void *v, size_t n, uint8_t *out) {
    switch (q->k) {
    case K_I32: return k->filter_i32(v, n, (int32_t)q->lo, (int32_t)q->hi, (uint32_t)q->flip, out);
    case K_I64: return k->filter_i64(v, n, q->lo, q->hi, q->flip, out);
    case K_F32: return k->filter_f32(v, n, (float)q->flo, (float)q->fhi, q->flags, out);
    case K_F64: return k->filter_f64(v, n, q->flo, q->fhi, q->flags, out);
    case K_CODES: return k->filter_codes(v, n, q->pass, q->npass, out);
    }
    return -1;
}

static void describe(const query *q, char *buf, size_t cap) {
    if (q->k == K_F32 || q->k == K_F64)
        snprintf(buf, cap, "lo %a hi %a flags %u", q->flo, q->fhi, q->flags);
    else if (q->k == K_CODES)
        snprintf(buf, cap, "npass %lld", (long long)q->npass);
    else
        snprintf(buf, cap, "lo %lld hi %lld flip %#llx%s", (long long)q->lo, (long long)q->hi,
                 (unsigned long long)q->flip, q->is_unsigned ? " (unsigned)" : "");
}

/* ---- one query over one batch at every level ------------------------------------------- */

#define GUARD 16
#define GUARD_BYTE 0xA5

/* vals (aligned, n values of the query's kind) through every level, with the values at a
 * byte offset of an exact-size allocation and the bitmask at an offset between guards. */
static void check(const query *q, const void *vals, size_t n) {
    size_t w = kind_width[q->k], nbytes = (n + 7) / 8;
    uint8_t *want_bits = calloc(nbytes + 1, 1), *ref = malloc(nbytes + 1);
    int64_t want_count = 0;
    for (size_t i = 0; i < n; i++) {
        bool p = want(q, vals, i);
        want_bits[i / 8] |= (uint8_t)(p << (i % 8));
        want_count += p;
    }
    for (int s = 0; s < nsets; s++) {
        size_t voff = ref_below(&rng, 8), ooff = ref_below(&rng, 8);
        uint8_t *vmem = malloc(voff + n * w + 1);
        memcpy(vmem + voff, vals, n * w);
        uint8_t *omem = malloc(ooff + nbytes + GUARD), *out = omem + ooff;
        memset(omem, GUARD_BYTE, ooff + nbytes + GUARD);
        int64_t count = run(sets[s], q, vmem + voff, n, out);
        size_t bad = 0, first = 0;
        for (size_t b = 0; b < nbytes; b++)
            if (out[b] != want_bits[b] && bad++ == 0) first = b;
        bool guards = true;
        for (size_t b = 0; b < ooff; b++) guards &= omem[b] == GUARD_BYTE;
        for (size_t b = 0; b < GUARD; b++) guards &= out[nbytes + b] == GUARD_BYTE;
        int64_t pop = 0;
        for (size_t b = 0; b < nbytes; b++) pop += __builtin_popcount(out[b]);
        if (s == 0) memcpy(ref, out, nbytes);
        bool same_as_ref = memcmp(ref, out, nbytes) == 0;
        char d[160] = "";
        if (bad || !guards || count != want_count || count != pop || !same_as_ref)
            describe(q, d, sizeof d);
        CHECK_MSG(bad == 0, "%s %s n %zu %s: %zu bytes differ from the predicate, first %zu: "
                  "%#x, want %#x", pk_simd_level_name(sets[s]->level), kind_name[q->k], n, d,
                  bad, first, out[first], want_bits[first]);
        CHECK_MSG(same_as_ref, "%s %s n %zu %s: differs from the scalar reference",
                  pk_simd_level_name(sets[s]->level), kind_name[q->k], n, d);
        CHECK_MSG(guards, "%s %s n %zu %s: a guard byte was written (offset %zu)",
                  pk_simd_level_name(sets[s]->level), kind_name[q->k], n, d, ooff);
        CHECK_MSG(count == want_count && count == pop, "%s %s n %zu %s: count %lld, want %lld, "
                  "popcount %lld", pk_simd_level_name(sets[s]->level), kind_name[q->k], n, d,
                  (long long)count, (long long)want_count, (long long)pop);
        free(vmem);
        free(omem);
    }
    free(want_bits);
    free(ref);
}

/* ---- integers -------------------------------------------------------------------------- */

/* A value of 64 bits: random, small, or an edge (of `bits` 32 or 64, sign-extended
 * edges of 32 bits are truncated by the caller). */
static uint64_t int_value(int profile, int bits) {
    const uint64_t smin = UINT64_C(1) << (bits - 1), umax = bits == 64 ? UINT64_MAX : UINT32_MAX;
    const uint64_t edges[] = {smin, smin + 1, smin - 1, smin - 2, umax, umax - 1, 0, 1, 2};
    switch (profile) {
    case 0: return ref_next(&rng);
    case 1: return (uint64_t)((int64_t)ref_below(&rng, 101) - 50);
    default:
        return ref_below(&rng, 3) ? edges[ref_below(&rng, sizeof edges / sizeof *edges)]
                                  : ref_next(&rng);
    }
}

static void ints(kind k, size_t n) {
    const int bits = k == K_I32 ? 32 : 64;
    const uint64_t umask = bits == 64 ? UINT64_MAX : UINT32_MAX, sign = UINT64_C(1) << (bits - 1);
    const int64_t smin = bits == 64 ? INT64_MIN : INT32_MIN;
    const int64_t smax = bits == 64 ? INT64_MAX : INT32_MAX;
    int profile = (int)(n % 3);
    uint64_t *u = malloc(8 * (n + 1));
    uint32_t *u32 = malloc(4 * (n + 1));
    for (size_t i = 0; i < n; i++) {
        u[i] = int_value(profile, bits) & umask;
        u32[i] = (uint32_t)u[i];
    }
    const void *vals = bits == 32 ? (const void *)u32 : (const void *)u;
    /* A value of the batch as the kernel's signed type. */
#define SIGNED_AT(i) (bits == 32 ? (int64_t)(int32_t)u32[i] : (int64_t)u[i])
    int64_t x = n ? SIGNED_AT(ref_below(&rng, n)) : 0, y = n ? SIGNED_AT(ref_below(&rng, n)) : 7;
    int64_t a = x < y ? x : y, b = x < y ? y : x;
    const int64_t signed_bounds[][2] = {
        {a, b}, {b, a}, {a, a}, {b, b}, {smin, smax}, {smin, smin}, {smax, smax},
        {smin, 0}, {0, smax}, {-1, -1}, {-50, 50}, {-3, 7}, {smax, smin}, {1, 0},
    };
    for (size_t j = 0; j < sizeof signed_bounds / sizeof *signed_bounds; j++) {
        query q = {.k = k, .lo = signed_bounds[j][0], .hi = signed_bounds[j][1]};
        check(&q, vals, n);
    }
    /* Any flip, bounds of the batch. */
    query qf = {.k = k, .lo = a, .hi = b, .flip = ref_next(&rng) & umask};
    check(&qf, vals, n);
    /* Unsigned order: the bounds biased by the sign bit. */
    uint64_t ux = n ? u[ref_below(&rng, n)] : 3, uy = n ? u[ref_below(&rng, n)] : 9;
    uint64_t ua = ux < uy ? ux : uy, ub = ux < uy ? uy : ux;
    const uint64_t unsigned_bounds[][2] = {
        {ua, ub}, {0, 0}, {0, 1}, {0, umask}, {umask, umask}, {1, umask - 1},
        {sign - 1, sign}, {sign, umask}, {0, sign - 1}, {ua, ua},
    };
    for (size_t j = 0; j < sizeof unsigned_bounds / sizeof *unsigned_bounds; j++) {
        uint64_t lo = unsigned_bounds[j][0], hi = unsigned_bounds[j][1];
        query q = {.k = k, .flip = sign, .is_unsigned = true, .ulo = lo, .uhi = hi};
        q.lo = bits == 32 ? (int32_t)(uint32_t)(lo ^ sign) : (int64_t)(lo ^ sign);
        q.hi = bits == 32 ? (int32_t)(uint32_t)(hi ^ sign) : (int64_t)(hi ^ sign);
        check(&q, vals, n);
    }
#undef SIGNED_AT
    free(u);
    free(u32);
}

/* ---- floats ---------------------------------------------------------------------------- */

/* A value: random bits (every class, NaN payloads included), a small number with ties,
 * or a special. */
static double float_value(bool single, int profile) {
    const double specials[] = {
        NAN, -NAN, 0.0, -0.0, INFINITY, -INFINITY, 1.0, -1.0, 0.5,
        single ? FLT_TRUE_MIN : DBL_TRUE_MIN, single ? -FLT_TRUE_MIN : -DBL_TRUE_MIN,
        single ? FLT_MIN : DBL_MIN, single ? FLT_MAX : DBL_MAX, single ? -FLT_MAX : -DBL_MAX,
        single ? 3 * FLT_TRUE_MIN : 3 * DBL_TRUE_MIN,
    };
    uint64_t r = ref_next(&rng);
    if (profile == 0 || (profile == 2 && r % 3 == 0)) {
        if (single) {
            float f;
            uint32_t b = (uint32_t)(r >> 16);
            memcpy(&f, &b, 4);
            return f;
        }
        double d;
        memcpy(&d, &r, 8);
        return d;
    }
    if (profile == 1) return (double)((int)(r % 41) - 20) / 4;
    return specials[(r >> 8) % (sizeof specials / sizeof *specials)];
}

static void floats(kind k, size_t n) {
    const bool single = k == K_F32;
    int profile = (int)(n % 3);
    double *d = malloc(8 * (n + 1));
    float *f = malloc(4 * (n + 1));
    for (size_t i = 0; i < n; i++) {
        double x = float_value(single, profile);
        f[i] = (float)x;
        d[i] = single ? (double)f[i] : x;
    }
    const void *vals = single ? (const void *)f : (const void *)d;
    /* Two values of the batch in order (when one is NaN: as drawn). */
    double x = n ? d[ref_below(&rng, n)] : 1.0, y = n ? d[ref_below(&rng, n)] : 2.0;
    double a = y < x ? y : x, b = y < x ? x : y;
    const double tiny = single ? FLT_TRUE_MIN : DBL_TRUE_MIN, small = single ? FLT_MIN : DBL_MIN;
    const double bounds[][2] = {
        {a, b}, {b, a}, {a, a}, {-INFINITY, INFINITY}, {-0.0, 0.0}, {0.0, -0.0}, {0.0, 0.0},
        {-0.0, -0.0}, {tiny, small}, {-tiny, tiny}, {NAN, 1.0}, {-1.0, NAN}, {NAN, NAN},
        {INFINITY, INFINITY}, {-INFINITY, -INFINITY}, {2.0, 1.0}, {-0.5, 0.5}, {-1.0, 1.0},
        {-INFINITY, 0.0}, {0.0, INFINITY},
    };
    const size_t nb = sizeof bounds / sizeof *bounds;
    /* Every flag combination with a rotating choice of bounds, so that over the lengths
     * every pair meets every combination; bit 3 (ignored) set now and then. */
    for (unsigned flags = 0; flags < 8; flags++) {
        for (size_t j = 0; j < 4; j++) {
            size_t bi = (n * 7 + flags * 3 + j * 5) % nb;
            query q = {.k = k, .flo = bounds[bi][0], .fhi = bounds[bi][1],
                       .flags = flags | (j == 3 ? 8u : 0u)};
            check(&q, vals, n);
        }
    }
    free(d);
    free(f);
}

/* ---- dictionary codes ------------------------------------------------------------------- */

/* nbytes (> 0) that end at a PROT_NONE page; fence_free unmaps them. */
typedef struct fence {
    uint8_t *map;
    size_t len;
} fence;

static uint8_t *fence_alloc(fence *f, size_t nbytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (nbytes + page - 1) / page * page;
    f->len = data + page;
    void *m = mmap(NULL, f->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) TEST_SKIP("mmap failed");
    f->map = m;
    CHECK(mprotect(f->map + data, page, PROT_NONE) == 0);
    return f->map + data - nbytes;
}

static void fence_free(fence *f) {
    if (f->map) munmap(f->map, f->len);
}

static void codes(size_t n) {
    /* Around the one- and two-register lookups (256 / 512 entries of AVX2, 1024 of
     * AVX-512), AVX-512's four register pairs (up to 4096: each pair's edges, and
     * TPC-H's 2,526 dates), the gathers' last partial dword (npass % 32), and none. */
    static const int64_t npasses[] = {0,    -5,   1,    7,    8,    9,    31,   32,   33,
                                      255,  256,  257,  500,  511,  512,  513,  600,  1000,
                                      1023, 1024, 1025, 1033, 1057, 2047, 2048, 2049, 2526,
                                      3071, 3073, 4095, 4096, 4097, 4101, 70000};
    const size_t np = sizeof npasses / sizeof *npasses;
    int32_t *c = malloc(4 * (n + 1));
    for (size_t j = 0; j < 5; j++) {
        int64_t npass = npasses[(n * 3 + j * 11) % np];
        if (j == 0 && n % 7 == 0) npass = 0;
        size_t nbytes = npass > 0 ? (size_t)(npass + 7) / 8 : 0;
        /* A fenced bitmap, its bits past npass set too (they must be ignored); NULL when
         * there is none. */
        fence f = {0};
        uint8_t *pass = nbytes ? fence_alloc(&f, nbytes) : NULL;
        unsigned density = (unsigned)ref_below(&rng, 4); /* 0: sparse .. 3: dense */
        for (size_t b = 0; b < nbytes; b++) {
            uint8_t x = (uint8_t)ref_next(&rng), y = (uint8_t)ref_next(&rng);
            pass[b] = density == 0 ? x & y : density == 3 ? x | y : x;
        }
        if (nbytes && npass % 8) pass[nbytes - 1] |= (uint8_t)(0xFF << (npass % 8));
        const int64_t top = npass > 0 ? npass : 1;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = ref_below(&rng, 16);
            int64_t x = r < 11 ? (int64_t)ref_below(&rng, (uint64_t)top)
                      : r == 11 ? -1
                      : r == 12 ? top + (int64_t)ref_below(&rng, 40)
                      : r == 13 ? top - 1 - (int64_t)ref_below(&rng, 40) /* the last dword */
                      : r == 14 ? (ref_below(&rng, 2) ? INT32_MAX : INT32_MIN)
                                : (int64_t)(int32_t)ref_next(&rng);
            c[i] = (int32_t)(x < INT32_MIN ? INT32_MIN : x > INT32_MAX ? INT32_MAX : x);
        }
        query q = {.k = K_CODES, .pass = pass, .npass = npass};
        check(&q, c, n);
        fence_free(&f);
    }
    free(c);
}

/* ---- column comparisons ------------------------------------------------------------------ */

static bool op_holds(unsigned op, int64_t x, int64_t y) {
    switch (op) {
    case PK_CMP_EQ: return x == y;
    case PK_CMP_NE: return x != y;
    case PK_CMP_LT: return x < y;
    case PK_CMP_LE: return x <= y;
    case PK_CMP_GT: return x > y;
    default: return x >= y;
    }
}

/* a op b for every operator and both widths at every level, the columns at random byte
 * offsets, the bitmask between guards, against the operator applied here. Values
 * repeat often (equal pairs) and take the edges of the signed range. */
static void compares(size_t n) {
    int64_t *a = malloc(8 * (n + 1)), *b = malloc(8 * (n + 1));
    size_t nbytes = (n + 7) / 8;
    uint8_t *want_bits = malloc(nbytes + 1);
    for (int bits = 32; bits <= 64; bits += 32) {
        const int64_t smin = bits == 64 ? INT64_MIN : INT32_MIN;
        const int64_t smax = bits == 64 ? INT64_MAX : INT32_MAX;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = ref_below(&rng, 8);
            int64_t x = r < 3 ? (int64_t)ref_below(&rng, 5) - 2
                      : r == 3 ? (ref_below(&rng, 2) ? smin : smax)
                      : bits == 32 ? (int64_t)(int32_t)ref_next(&rng) : (int64_t)ref_next(&rng);
            a[i] = x;
            r = ref_below(&rng, 4);
            b[i] = r == 0 ? x : r == 1 ? (ref_below(&rng, 2) ? smin : smax)
                 : r == 2 ? (int64_t)ref_below(&rng, 5) - 2
                 : bits == 32 ? (int64_t)(int32_t)ref_next(&rng) : (int64_t)ref_next(&rng);
        }
        size_t w = (size_t)bits / 8;
        for (unsigned op = PK_CMP_EQ; op <= PK_CMP_GE; op++) {
            memset(want_bits, 0, nbytes + 1);
            int64_t want_count = 0;
            for (size_t i = 0; i < n; i++) {
                bool p = op_holds(op, a[i], b[i]);
                want_bits[i / 8] |= (uint8_t)(p << (i % 8));
                want_count += p;
            }
            for (int st = 0; st < nsets; st++) {
                size_t aoff = ref_below(&rng, 8), boff = ref_below(&rng, 8), ooff = ref_below(&rng, 8);
                uint8_t *am = malloc(aoff + n * w + 1), *bm = malloc(boff + n * w + 1);
                for (size_t i = 0; i < n; i++) {
                    int32_t a32 = (int32_t)a[i], b32 = (int32_t)b[i];
                    memcpy(am + aoff + i * w, bits == 32 ? (const void *)&a32 : (const void *)&a[i], w);
                    memcpy(bm + boff + i * w, bits == 32 ? (const void *)&b32 : (const void *)&b[i], w);
                }
                uint8_t *omem = malloc(ooff + nbytes + GUARD), *out = omem + ooff;
                memset(omem, GUARD_BYTE, ooff + nbytes + GUARD);
                int64_t count = bits == 32
                    ? sets[st]->compare_i32((const int32_t *)(void *)(am + aoff),
                                            (const int32_t *)(void *)(bm + boff), n, op, out)
                    : sets[st]->compare_i64((const int64_t *)(void *)(am + aoff),
                                            (const int64_t *)(void *)(bm + boff), n, op, out);
                bool guards = true;
                for (size_t g = 0; g < ooff; g++) guards &= omem[g] == GUARD_BYTE;
                for (size_t g = 0; g < GUARD; g++) guards &= out[nbytes + g] == GUARD_BYTE;
                CHECK_MSG(n == 0 || memcmp(out, want_bits, nbytes) == 0,
                          "%s compare_i%d op %u n %zu: bits differ",
                          pk_simd_level_name(sets[st]->level), bits, op, n);
                CHECK_MSG(count == want_count, "%s compare_i%d op %u n %zu: count %lld, want %lld",
                          pk_simd_level_name(sets[st]->level), bits, op, n, (long long)count,
                          (long long)want_count);
                CHECK_MSG(guards, "%s compare_i%d op %u n %zu: a guard byte was written",
                          pk_simd_level_name(sets[st]->level), bits, op, n);
                free(am);
                free(bm);
                free(omem);
            }
        }
    }
    free(a);
    free(b);
    free(want_bits);
}

/* ---- driver ------------------------------------------------------------------------------ */

static void test_length(size_t n) {
    ints(K_I32, n);
    ints(K_I64, n);
    floats(K_F32, n);
    floats(K_F64, n);
    codes(n);
    compares(n);
}

int main(void) {
    nsets = simd_sets(sets);
    fprintf(stderr, "filter kernels:");
    for (int s = 0; s < nsets; s++) fprintf(stderr, " %s", pk_simd_level_name(sets[s]->level));
    fprintf(stderr, "\n");
    CHECK(nsets >= 1 && sets[0]->level == PK_SIMD_SCALAR);
    for (size_t n = 0; n <= 300; n++) test_length(n);
    for (size_t n = 301; n < 4096; n += 97) test_length(n);
    test_length(1023);
    test_length(1024);
    test_length(4095);
    test_length(4096);
    TEST_END();
}
