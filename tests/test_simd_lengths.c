/* test_simd_lengths.c: the byte-array length kernels (sum_u32, dba_chain with
 * the suffix offsets it writes, offsets_bad) at
 * every dispatch level this machine has, against loops written here in 64-bit
 * arithmetic, over lengths 0..4096 and a few large ones, starts 0..3 values
 * into a buffer (unaligned for every vector width), exact-size heap copies
 * (ASan sees any access outside them), and each way a DELTA_BYTE_ARRAY prefix
 * chain can break, at every position of short arrays and at random ones of
 * long arrays. */
#include "simd/pk_kernels.h"
#include "enc_ref.h"
#include "simd_sets.h"
#include "tharness.h"

#define MAXN 4096

static uint32_t *exact32(const uint32_t *src, size_t n) {
    uint32_t *p = malloc(n ? n * sizeof *p : 1);
    if (n) memcpy(p, src, n * sizeof *p);
    return p;
}

/* The chain's verdict and, when it holds, the suffixes' sum and the longest value. */
static bool ref_chain(const uint32_t *pre, const uint32_t *len, size_t n, uint32_t lim,
                      bool exact, uint64_t *sum, uint32_t *longest) {
    int64_t prev = 0;
    uint64_t s = 0;
    uint32_t mx = 0;
    for (size_t i = 0; i < n; i++) {
        if (pre[i] > (uint32_t)INT32_MAX || len[i] > (uint32_t)INT32_MAX) return false;
        if ((int64_t)pre[i] > prev) return false;
        prev = (int64_t)pre[i] + len[i];
        if (prev > (int64_t)lim || (exact && prev != (int64_t)lim)) return false;
        s += len[i];
        if ((uint32_t)prev > mx) mx = (uint32_t)prev;
    }
    *sum = s;
    *longest = mx;
    return true;
}

/* A valid chain of n values (the first prefix 0, each later one at most the
 * previous value's length): short strings, or long ones with `big`, or all
 * of length lim with `exact`. */
static void make_chain(ref_rng *r, uint32_t *pre, uint32_t *len, size_t n, bool big,
                       bool exact, uint32_t lim) {
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t p = i == 0 ? 0 : (uint32_t)(ref_next(r) % (prev + 1));
        uint32_t total;
        if (exact) total = lim;
        else total = p + (uint32_t)(ref_next(r) % (big ? 100000 : 20));
        if (total < p) total = p;
        pre[i] = p;
        len[i] = total - p;
        prev = total;
    }
}

static int chain_case(const pk_kernels *k, const uint32_t *pre0, const uint32_t *len0, size_t n,
                      size_t start, uint32_t lim, bool exact) {
    /* start values into a fresh block, the arrays ending at the block's end */
    uint32_t *bp = malloc((start + n) * sizeof *bp + 1), *bl = malloc((start + n) * sizeof *bl + 1);
    memcpy(bp + start, pre0, n * sizeof *bp);
    memcpy(bl + start, len0, n * sizeof *bl);
    uint64_t ws = 0, gs = 0;
    uint32_t wl = 0, gl = 0;
    bool want = ref_chain(bp + start, bl + start, n, lim, exact, &ws, &wl);
    /* the offsets in an exact-size block at an unaligned start, like the lengths */
    uint32_t *ob = malloc((start + n + 1) * sizeof *ob);
    uint32_t *offs = ob + start;
    uint32_t got = k->dba_chain(bp + start, bl + start, n, lim, exact, offs, &gs, &gl);
    int bad = want != (got == 0) || (want && (gs != ws || gl != wl));
    if (bad)
        fprintf(stderr, "%s dba_chain n %zu start %zu lim %u exact %d: %u (sum %llu longest %u), "
                "want %s (sum %llu longest %u)\n", pk_simd_level_name(k->level), n, start,
                (unsigned)lim, (int)exact, (unsigned)got, (unsigned long long)gs, (unsigned)gl,
                want ? "valid" : "broken", (unsigned long long)ws, (unsigned)wl);
    /* offs[i]: the suffixes before value i, modulo 2^32, valid chain or not */
    uint32_t run = 0;
    for (size_t i = 0; i <= n && !bad; i++) {
        if (offs[i] != run) {
            fprintf(stderr, "%s dba_chain n %zu start %zu: offset %zu is %u, want %u\n",
                    pk_simd_level_name(k->level), n, start, i, (unsigned)offs[i], (unsigned)run);
            bad = 1;
        }
        if (i < n) run += bl[start + i];
    }
    free(bp), free(bl), free(ob);
    return bad;
}

/* Each way of breaking a chain, at value j. */
static void break_at(uint32_t *pre, uint32_t *len, size_t n, size_t j, int how, uint32_t lim) {
    switch (how) {
    case 0: /* a prefix longer than the previous value */
        if (j == 0) pre[0] = 1;
        else pre[j] = pre[j - 1] + len[j - 1] + 1;
        break;
    case 1: /* a value longer than lim */
        len[j] = lim - pre[j] + 1;
        break;
    case 2: /* a negative suffix length */
        len[j] = 0x80000000u | len[j];
        break;
    case 3: /* a negative prefix length */
        pre[j] = 0xFFFFFFF0u;
        break;
    case 4: /* a negative suffix length that wraps the value's length to 0 (a check
             * in 32 bits sees a short value, and a next prefix of 0 fits it) */
        if (pre[j] == 0 && j > 0 && pre[j - 1] + len[j - 1] > 0) pre[j] = 1;
        len[j] = pre[j] ? 0u - pre[j] : 0x80000000u;
        if (j + 1 < n) pre[j + 1] = 0;
        break;
    default: /* a value one byte shorter (breaks only an exact chain) */
        if (len[j] > 0) len[j]--;
        else if (pre[j] > 0) pre[j]--;
        break;
    }
    (void)n;
}

static void test_chain(const pk_kernels *k) {
    ref_rng r = {77};
    uint32_t *pre = malloc(300000 * sizeof *pre), *len = malloc(300000 * sizeof *len);
    uint32_t *p2 = malloc(300000 * sizeof *p2), *l2 = malloc(300000 * sizeof *l2);
    int bad = 0;
    size_t sizes[MAXN + 1 + 3];
    size_t ns = 0;
    for (size_t n = 0; n <= MAXN; n++) sizes[ns++] = n;
    sizes[ns++] = 65537;
    sizes[ns++] = 131071;
    sizes[ns++] = 300000;
    for (size_t si = 0; si < ns && bad < 5; si++) {
        size_t n = sizes[si];
        bool big = n % 3 == 1, exact = n % 7 == 3;
        uint32_t lim = exact ? 1 + (uint32_t)(n % 13) : big ? 300000 : (n % 5 == 0 ? 12 : INT32_MAX);
        make_chain(&r, pre, len, n, big, exact, lim);
        size_t start = n % 4;
        bad += chain_case(k, pre, len, n, start, lim, exact);
        if (n == 0) continue;
        /* broken at every value of short chains, at random ones of the others */
        size_t tries = n <= 64 ? n * 6 : 8;
        for (size_t t = 0; t < tries && bad < 5; t++) {
            size_t j = n <= 64 ? t / 6 : (size_t)(ref_next(&r) % n);
            int how = n <= 64 ? (int)(t % 6) : (int)(ref_next(&r) % 6);
            memcpy(p2, pre, n * sizeof *p2);
            memcpy(l2, len, n * sizeof *l2);
            break_at(p2, l2, n, j, how, lim);
            bad += chain_case(k, p2, l2, n, (start + t) % 4, lim, exact);
        }
    }
    /* Byte arrays (no exact width, the INT32 limit) whose suffixes add up to
     * more than 2^32: the kernel cannot take that sum from its 32-bit offsets. */
    for (int start = 0; start < 2 && bad < 5; start++) {
        make_chain(&r, pre, len, 300000, true, false, INT32_MAX);
        bad += chain_case(k, pre, len, 300000, (size_t)start, INT32_MAX, false);
    }
    CHECK_MSG(bad == 0, "%s: dba_chain differs from the reference", pk_simd_level_name(k->level));
    free(pre), free(len), free(p2), free(l2);
}

static void test_sum(const pk_kernels *k) {
    ref_rng r = {5};
    int bad = 0;
    uint32_t *pool = malloc((300000 + 4) * sizeof *pool);
    for (size_t n = 0; n <= MAXN + 3 && bad < 5; n++) {
        size_t len = n <= MAXN ? n : n == MAXN + 1 ? 65537 : n == MAXN + 2 ? 131071 : 300000;
        /* small lengths, huge ones (the 64-bit sum must not wrap at 32), one negative */
        int mode = (int)(n % 3);
        for (size_t i = 0; i < len; i++) {
            uint32_t v = (uint32_t)ref_next(&r);
            pool[i] = mode == 0 ? v % 40 : mode == 1 ? v & 0x7FFFFFFFu : v % 1000;
        }
        if (mode == 2 && len > 0) pool[ref_next(&r) % len] |= 0x80000000u;
        for (size_t start = 0; start < 4; start++) {
            uint32_t *v = exact32(pool, len + start);
            uint64_t want = 0;
            uint32_t wor = 0;
            for (size_t i = 0; i < len; i++) {
                want += v[start + i];
                wor |= v[start + i];
            }
            uint32_t gor = 0xDEADBEEF;
            uint64_t got = k->sum_u32(v + start, len, &gor);
            if (got != want || gor != wor) {
                bad++;
                fprintf(stderr, "%s sum_u32 n %zu start %zu: %llu / %08x, want %llu / %08x\n",
                        pk_simd_level_name(k->level), len, start, (unsigned long long)got,
                        (unsigned)gor, (unsigned long long)want, (unsigned)wor);
            }
            free(v);
        }
    }
    CHECK_MSG(bad == 0, "%s: sum_u32 differs from the reference", pk_simd_level_name(k->level));
    free(pool);
}

/* offsets_bad against a check in signed 64-bit arithmetic: arrays of valid
 * offsets (first offset 0 or past 2^31, lengths up to INT32_MAX), then each
 * fault at a random place: one decrease by 1, one length of INT32_MAX + 1, a
 * negative first offset. */
static bool ref_offsets_bad(const int64_t *off, size_t n) {
    if (off[0] < 0) return true;
    for (size_t i = 0; i < n; i++)
        if (off[i + 1] < off[i] || off[i + 1] - off[i] > INT32_MAX) return true;
    return false;
}

static void test_offsets(const pk_kernels *k) {
    ref_rng r = {11};
    int bad = 0;
    for (size_t n = 0; n <= MAXN + 3 && bad < 5; n++) {
        size_t len = n <= MAXN ? n : n == MAXN + 1 ? 65537 : n == MAXN + 2 ? 131071 : 300000;
        for (int fault = 0; fault < 5; fault++) {
            if (fault > 0 && fault < 4 && len == 0) continue;
            for (size_t start = 0; start < 4; start++) {
                int64_t *off = malloc((len + 1 + start) * sizeof *off);
                int64_t at = (n % 2) ? INT64_C(3) << 31 : 0;
                for (size_t i = 0; i <= len + start; i++) {
                    off[i] = at;
                    uint64_t x = ref_next(&r);
                    at += (x & 0xFF) == 0 ? (int64_t)INT32_MAX : (int64_t)(x % 50);
                }
                int64_t *o = off + start;
                size_t pos = len ? (size_t)(ref_next(&r) % len) : 0;
                if (fault == 1) o[pos + 1] = o[pos] - 1;                            /* decrease */
                if (fault == 2) o[pos + 1] = o[pos] + (int64_t)INT32_MAX + 1;        /* too long */
                if (fault == 3) o[pos + 1] = INT64_MIN;                             /* wraps */
                if (fault == 4) o[0] = -1 - (int64_t)(ref_next(&r) % 100);          /* negative */
                bool want = ref_offsets_bad(o, len);
                bool got = k->offsets_bad(o, len) != 0;
                if (got != want) {
                    bad++;
                    fprintf(stderr, "%s offsets_bad n %zu start %zu fault %d at %zu: %d, want %d\n",
                            pk_simd_level_name(k->level), len, start, fault, pos, got, want);
                }
                free(off);
            }
        }
    }
    CHECK_MSG(bad == 0, "%s: offsets_bad differs from the reference", pk_simd_level_name(k->level));
}

int main(void) {
    const pk_kernels *sets[4];
    int nsets = simd_sets(sets);
    for (int t = 0; t < nsets; t++) {
        CHECK(sets[t]->sum_u32 && sets[t]->dba_chain && sets[t]->offsets_bad);
        test_offsets(sets[t]);
        test_sum(sets[t]);
        test_chain(sets[t]);
    }
    TEST_END();
}
