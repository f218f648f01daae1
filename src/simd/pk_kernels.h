/*
 * pk_kernels.h: the table of kernels chosen once per reader or writer.
 *
 * pk_kernels_for(level) returns a static const table whose function pointers
 * are the fastest kernels of that level (or of the highest lower level that
 * has one). A reader calls pk_cpu_detect once at open and keeps the table;
 * decoders receive the pointer and never detect anything themselves. There
 * is no mutable global state.
 *
 * Every kernel has a scalar version that builds everywhere; the x86 versions
 * are compiled with function target attributes (never -march), so the default
 * build runs on any x86-64, and are left out on other architectures. The
 * AVX-512 table uses F, BW, VL and DQ only: it is chosen from the level alone,
 * and VBMI (pk_cpu.avx512vbmi) is not part of the level.
 *
 * Hostile-input contract of every kernel: it reads only in[0..avail) (or the
 * n levels given) and writes only the n outputs asked for; widths and counts
 * are validated by the caller (the decoders), the kernels trust them.
 *
 * Depends on: common, simd (pk_simd.h).
 */
#ifndef PK_KERNELS_H
#define PK_KERNELS_H

#include "pk_simd.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define PK_KERNELS_X86 1
#endif

/* Unpacks n values of bw bits from the Parquet LSB-first bit-packed layout
 * (value i occupies bits [i*bw, (i+1)*bw) of the little-endian bit stream).
 * in[0..avail) is readable and avail >= ceil(n*bw/8); a kernel may read any
 * of those bytes (so a caller that passes more than the packed bytes, e.g.
 * up to the end of the page, lets the vector loop run to the last group).
 * bw 0 writes n zeros. */
typedef void (*pk_unpack8_fn)(const uint8_t *in, size_t avail, uint8_t *out, size_t n, int bw);
typedef void (*pk_unpack16_fn)(const uint8_t *in, size_t avail, uint16_t *out, size_t n, int bw);
typedef void (*pk_unpack32_fn)(const uint8_t *in, size_t avail, uint32_t *out, size_t n, int bw);
typedef void (*pk_unpack64_fn)(const uint8_t *in, size_t avail, uint64_t *out, size_t n, int bw);

typedef struct pk_kernels {
    pk_simd_level level;     /* the level whose kernels the table holds */

    /* ---- bit unpacking (pk_unpack_*.c) ---- */
    pk_unpack8_fn unpack8;   /* bw 0..8 */
    pk_unpack16_fn unpack16; /* bw 0..16 */
    pk_unpack32_fn unpack32; /* bw 0..32 */
    pk_unpack64_fn unpack64; /* bw 0..64 */

    /* ---- levels (pk_levels_*.c) ---- */
    /* Number of lv[0..n) equal to value. */
    int64_t (*count_eq16)(const int16_t *lv, size_t n, int16_t value);
    /* Number of lv[0..n) that are 1, for levels known to be 0 or 1 (summing
     * them; the bench measures it against count_eq16). */
    int64_t (*sum01_16)(const int16_t *lv, size_t n);
    /* True when every lv[0..n) is in 0..max. */
    bool (*levels_in_range)(const int16_t *lv, size_t n, int16_t max);
    /* Writes bit (bit_offset + i) of bits = (def[i] == max_def) for i < n and
     * returns how many are set. Bits below bit_offset in its byte are kept;
     * the bits after the last one, up to the end of its byte, are cleared. */
    int64_t (*def_to_bitmap)(const int16_t *def, size_t n, int16_t max_def, uint8_t *bits,
                             int64_t bit_offset);
    /* The writer's level histogram (max >= 0): hist[l] += the number of lv[0..n) equal to
     * l for 1 <= l <= max, and hist[0] += the rest (level 0 and anything outside 0..max),
     * so the counts always add up to n. Writes hist[0..max] only. */
    void (*level_hist16)(const int16_t *lv, size_t n, int16_t max, int64_t *hist);

    /* DELTA, dictionary and BYTE_STREAM_SPLIT kernels (pk_delta_*.c, pk_dict_*.c, pk_bss_*.c) */
    /* Contracts in pk_decode_kernels.h. DELTA: `minis` miniblocks (widths[m] of 0..64 bits,
     * `groups` groups of 32 values each) fused with the running sum, returning the last
     * value; may read PK_DELTA_KERNEL_SLACK bytes past the last group. */
    uint32_t (*delta_i32)(const uint8_t *in, const uint8_t *widths, size_t minis, size_t groups,
                          uint32_t min_delta, uint32_t last, uint8_t *out);
    uint64_t (*delta_i64)(const uint8_t *in, const uint8_t *widths, size_t minis, size_t groups,
                          uint64_t min_delta, uint64_t last, uint8_t *out);
    /* The sum of the miniblocks' packed values, no running sum, nothing written. */
    uint64_t (*delta_sum)(const uint8_t *in, const uint8_t *widths, size_t minis, size_t groups);
    /* out[i] = dict[idx[i]] (4 / 8 bytes); false if an index is >= count (nothing read). */
    bool (*dict_gather32)(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                          uint8_t *out);
    bool (*dict_gather64)(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                          uint8_t *out);
    /* BYTE_STREAM_SPLIT: out[i*width + b] = src[b*stride + i]. */
    void (*bss_decode)(const uint8_t *src, size_t stride, size_t width, size_t n, uint8_t *out);
    /* The writer's inverse: out[b*stride + i] = src[i*width + b] (stride >= n). */
    void (*bss_encode)(const uint8_t *src, size_t width, size_t n, size_t stride, uint8_t *out);

    /* ---- byte-array lengths (pk_length_kernels.c) ---- */
    /* The sum of v[0..n) in 64 bits and, in *ors, their bitwise OR (above INT32_MAX:
     * some length is negative as the format's INT32). */
    uint64_t (*sum_u32)(const uint32_t *v, size_t n, uint32_t *ors);
    /* A DELTA_BYTE_ARRAY page's prefix chain of n values (pre: prefix lengths, len:
     * suffix lengths): 0 when pre[0] == 0, pre[i + 1] <= pre[i] + len[i], every
     * pre[i] + len[i] <= lim (== lim when exact) and no length is above INT32_MAX;
     * nonzero otherwise (the caller finds where, value by value). With 0, *sum is the
     * suffix lengths' sum and *longest the longest value's length. Always writes
     * offs[0..n] (n + 1 entries): offs[i] the sum of len[0..i) modulo 2^32, where
     * value i's suffix starts in the bytes section once the sum fits in 32 bits. */
    uint32_t (*dba_chain)(const uint32_t *pre, const uint32_t *len, size_t n, uint32_t lim,
                          bool exact, uint32_t *offs, uint64_t *sum, uint32_t *longest);
    /* The n values' byte-array offsets off[0..n] (n + 1 entries): 0 when off[0] >= 0 and
     * every length off[i + 1] - off[i] is in 0..INT32_MAX, nonzero otherwise (the
     * caller then finds the culprit, value by value). */
    uint64_t (*offsets_bad)(const int64_t *off, size_t n);

    /* ---- bitmaps and null spreading (pk_bits_*.c) ---- */
    /* Copies n bits: bit (dst_bit + i) of dst = bit (src_bit + i) of src. Reads only the
     * bytes of src holding bits [src_bit, src_bit + n); bits of dst outside
     * [dst_bit, dst_bit + n) are kept. Booleans: bit-packed runs of width 1 and PLAIN
     * pages are bitmaps already. */
    void (*copy_bits)(const uint8_t *src, int64_t src_bit, uint8_t *dst, int64_t dst_bit,
                      size_t n);
    /* For i < n: bit (off + i) of dst = the next of the nn dense bits (from bit 0 of
     * dense) when bit (off + i) of valid is set, else 0. nn must be the number of set
     * validity bits in the range; reads dense[0..ceil(nn/8)) and the validity bytes of
     * the range only; bits of dst outside the range are kept. */
    void (*spread_bits)(const uint8_t *dense, size_t nn, const uint8_t *valid, uint8_t *dst,
                        int64_t off, size_t n);
    /* The set bits of bits[from, to) (from <= to); reads only the bytes holding them. */
    int64_t (*count_bits)(const uint8_t *bits, int64_t from, int64_t to);
    /* The runs of set bits in bits[0, n) (a set bit whose predecessor is clear or absent
     * starts one); reads only the bytes holding those bits. */
    int64_t (*count_runs)(const uint8_t *bits, int64_t n);
    /* In place: vals[0..nn*w) holds nn dense values of w bytes and vals[0..n*w) is
     * writable; afterwards slot i < n holds the next dense value when bit (off + i) of
     * valid is set, else w zero bytes. nn must be the number of set validity bits in the
     * range. Stamped for w = 4 and 8 (vectorised) and generic. */
    void (*spread_fixed)(uint8_t *vals, size_t w, size_t n, size_t nn, const uint8_t *valid,
                         int64_t off);
    /* Compaction, the inverse of spreading: the values i < n of src (w bytes each) whose
     * bit i of keep is set go, in order, to dst[0 .. k*w); returns k. dst may be src
     * (compaction in place); otherwise dst[0 .. n*w) is writable and does not overlap
     * src. dst[k*w .. n*w) may be written with anything; nothing past it is. Reads
     * src[0 .. n*w) and keep[0 .. ceil(n/8)). Stamped for w = 4, 8, 16 (vectorised) and
     * generic. The scan's projections compact each batch by its bitmap of surviving rows. */
    int64_t (*compact_fixed)(uint8_t *dst, const uint8_t *src, size_t w, const uint8_t *keep,
                             size_t n);
    /* The same for bits: bits i < n of src whose keep bit is set go, in order, to dst
     * bits [0, k); writes dst[0 .. ceil(k/8)) only, the bits past k in its last byte
     * cleared; dst may be src. Returns the number of set bits written (validity: k minus
     * the nulls). */
    int64_t (*compact_bits)(uint8_t *dst, const uint8_t *src, const uint8_t *keep, size_t n);

    /* ---- filters of the pushdown scan (pk_filter_kernels.c) ---- */
    /* Filter kernels: for i < n, bit i of out (LSB first) is the predicate on v[i];
     * out[0 .. ceil(n/8)) is written whole (bits past n in the last byte are 0), nothing
     * after it; returns the number of set bits. Neither out nor v need be aligned; v is
     * read only in [0, n). */
    /* lo <= (int32_t)(v[i] ^ flip) <= hi. flip 0: signed order; 0x80000000: unsigned
     * order, the caller passing the unsigned bounds biased the same way
     * (lo = (int32_t)(ulo ^ 0x80000000)). Other flips are allowed (the predicate as
     * written). lo > hi is the empty range. */
    int64_t (*filter_i32)(const int32_t *v, size_t n, int32_t lo, int32_t hi, uint32_t flip,
                          uint8_t *out);
    /* As filter_i32 in 64 bits: lo <= (int64_t)(v[i] ^ flip) <= hi (unsigned order:
     * flip 0x8000000000000000). */
    int64_t (*filter_i64)(const int64_t *v, size_t n, int64_t lo, int64_t hi, uint64_t flip,
                          uint8_t *out);
    /* (lo <= x, or lo < x with PK_FILTER_LO_OPEN) and (x <= hi, or x < hi with
     * PK_FILTER_HI_OPEN), IEEE comparisons (NaN fails them, -0.0 == 0.0, denormals
     * compared as they are), or isnan(x) when PK_FILTER_NAN is set. lo may be -INFINITY
     * and hi +INFINITY; a NaN bound fails every comparison (only NaN values can pass).
     * Other bits of flags are ignored. */
    int64_t (*filter_f32)(const float *v, size_t n, float lo, float hi, unsigned flags,
                          uint8_t *out);
    int64_t (*filter_f64)(const double *v, size_t n, double lo, double hi, unsigned flags,
                          uint8_t *out);
    /* Dictionary codes through a bitmap of the entries that pass: bit i = 0 <= codes[i] <
     * npass and bit codes[i] of pass (LSB first) is set. Codes come from the page: -1, any
     * negative value or one >= npass gives 0, and pass is read only in
     * [0, ceil(npass/8)) (not at all when npass <= 0: pass may be NULL then); bits of
     * pass past npass are ignored. */
    int64_t (*filter_codes)(const int32_t *codes, size_t n, const uint8_t *pass, int64_t npass,
                            uint8_t *out);
    /* Two columns of one row each: bit i = a[i] op b[i], signed, op one of PK_CMP_* below
     * (any other compares as PK_CMP_GE); out[0 .. ceil(n/8)) written, the bits past n
     * zero. a and b need not be aligned. Returns the bits set. */
    int64_t (*compare_i32)(const int32_t *a, const int32_t *b, size_t n, unsigned op,
                           uint8_t *out);
    int64_t (*compare_i64)(const int64_t *a, const int64_t *b, size_t n, unsigned op,
                           uint8_t *out);

    /* ---- the writer's encoders (pk_encode_kernels.c) ---- */
    /* Bit-packs in[0..n) (n a multiple of 8, every value below 2^bw, bw 0..32) LSB-first
     * into out[0 .. n/8*bw); may store zeros in the 8 bytes after those. */
    void (*pack32)(const uint32_t *in, size_t n, int bw, uint8_t *out);
    /* The same for 64-bit values, bw 0..64 (DELTA miniblocks wider than 32 bits). */
    void (*pack64)(const uint64_t *in, size_t n, int bw, uint8_t *out);
    /* The index of the first of the n/8 whole groups of 8 values (group g: v[8g .. 8g+8))
     * whose values are all equal, or n/8 when there is none; ORs into *any every value of
     * the groups before it and of that group (all n/8 groups when there is none). */
    size_t (*rle_scan32)(const uint32_t *v, size_t n, uint32_t *any);
    /* The smallest and largest of v[0..n) (n >= 1) compared as (intN_t)(v[i] ^ flip):
     * flip 0 for signed order, the sign bit alone for unsigned; returned as stored (not
     * flipped). v need not be aligned. */
    void (*minmax_i32)(const int32_t *v, size_t n, uint32_t flip, int32_t *mn, int32_t *mx);
    void (*minmax_i64)(const int64_t *v, size_t n, uint64_t flip, int64_t *mn, int64_t *mx);
    /* The smallest and largest non-NaN of v[0..n) in IEEE order, a zero min as -0.0 and a
     * zero max as +0.0 (as the statistics store them); false, *mn and *mx untouched, when
     * there is none. v need not be aligned. */
    bool (*minmax_f32)(const float *v, size_t n, float *mn, float *mx);
    bool (*minmax_f64)(const double *v, size_t n, double *mn, double *mx);
    /* One DELTA_BINARY_PACKED block of k (1..PK_DELTA_BLOCK) INT64 (block64: v holds k * 8
     * bytes) or INT32 (block32: k * 4 bytes, each value sign-extended) values following
     * prev (for block32 a sign-extended value): delta j = v[j] - v[j-1] (v[-1] = prev) in
     * 64-bit wrapping arithmetic, for block32 the sign-extended 32-bit wrapping difference;
     * *min = the smallest delta (as signed); d[j] = delta j - *min for j < k and 0 up to
     * PK_DELTA_BLOCK; ors[m] = the OR of d over miniblock m (32 values, 4 miniblocks).
     * Returns the last value (v[k-1], sign-extended for block32). v need not be aligned. */
    uint64_t (*delta_block64)(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,
                              uint64_t *min, uint64_t *ors);
    uint64_t (*delta_block32)(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,
                              uint64_t *min, uint64_t *ors);

    /* ---- the dictionary builder's hashes (pk_hash_kernels.c) ---- */
    /* out[i] = pk_hash_fixed(value i) of n values of 4 bytes (zero-extended) or 8; v need
     * not be aligned. */
    void (*hash_fixed32)(const uint8_t *v, size_t n, uint64_t *out);
    void (*hash_fixed64)(const uint8_t *v, size_t n, uint64_t *out);
    /* Byte strings i < n, len = off[i + 1] - off[i]: wa[i] and wb[i] = the string's first
     * 16 bytes as two little-endian words, zero past its end, and out[i] =
     * pk_hash_words(wa[i], wb[i], len), for every string of at most 16 bytes (for
     * longer ones all three are unspecified). Reads 16 bytes from data + off[i] for
     * every i: the caller guarantees them readable (padded values). */
    void (*hash_short)(const uint8_t *data, const int64_t *off, size_t n, uint64_t *wa,
                       uint64_t *wb, uint64_t *out);
} pk_kernels;

/* The dictionary builder's hash functions (what hash_fixed* and hash_short compute):
 * a 64-bit xor-shift-multiply finalizer over the value, or over the two words of a
 * short string and its length. */
#define PK_HASH_K1 UINT64_C(0x9E3779B97F4A7C15)
#define PK_HASH_K2 UINT64_C(0xC2B2AE3D27D4EB4F)

static inline uint64_t pk_hash_finish(uint64_t h) {
    h ^= h >> 31;
    h *= PK_HASH_K2;
    h ^= h >> 29;
    h *= PK_HASH_K1;
    return h ^ (h >> 32);
}

static inline uint64_t pk_hash_fixed(uint64_t x) { return pk_hash_finish(x + PK_HASH_K1); }

static inline uint64_t pk_hash_words(uint64_t a, uint64_t b, uint64_t len) {
    uint64_t t = b + len * PK_HASH_K2;
    return pk_hash_finish(((a ^ PK_HASH_K2) * PK_HASH_K1) ^ ((t << 29) | (t >> 35)));
}

/* Values per DELTA_BINARY_PACKED block of the writer (4 miniblocks of 32). */
#define PK_DELTA_BLOCK 128

/* compare_i32 / compare_i64 operators. */
enum { PK_CMP_EQ = 0, PK_CMP_NE, PK_CMP_LT, PK_CMP_LE, PK_CMP_GT, PK_CMP_GE };

/* filter_f32 / filter_f64 flags: open bounds, and NaN values passing. */
#define PK_FILTER_LO_OPEN 1u
#define PK_FILTER_HI_OPEN 2u
#define PK_FILTER_NAN 4u

/* count_eq16 through the table, with inputs under 16 levels counted in
 * place: for them the call costs more than the count (bench/README.md,
 * "Level counting"). */
static inline int64_t pk_count_eq16(const pk_kernels *k, const int16_t *lv, size_t n,
                                    int16_t value) {
    if (n < 16) {
        int64_t c = 0;
        for (size_t i = 0; i < n; i++) c += lv[i] == value;
        return c;
    }
    return k->count_eq16(lv, n, value);
}

/* The LSB-first bit stream every packer writes (Parquet's bit-packed layout): values of
 * bw bits (each below 2^bw, bw 1..64) appended to a 64-bit accumulator, whole words
 * stored as they fill. With bw a constant (the packers' stamped loops) the shifts are
 * constants too. */
typedef struct pk_bitw {
    uint64_t acc;
    int nb; /* bits in acc */
    uint8_t *o;
} pk_bitw;

static inline void pk_bitw_put(pk_bitw *w, uint64_t x, int bw) {
    w->acc |= x << w->nb;
    w->nb += bw;
    if (w->nb >= 64) {
        pk_store_u64(w->o, w->acc);
        w->o += 8;
        w->nb -= 64;
        w->acc = w->nb ? x >> (bw - w->nb) : 0;
    }
}

/* Stores the partial word (8 bytes: zeros past its bits) and returns the end of the
 * stream's bytes. */
static inline uint8_t *pk_bitw_end(pk_bitw *w) {
    pk_store_u64(w->o, w->acc);
    return w->o + (w->nb + 7) / 8;
}

/* The kernels to use at `level` (never NULL): at AVX-512, the table with
 * hardware gathers. */
const pk_kernels *pk_kernels_for(pk_simd_level level);
/* The kernels to use on `cpu` (pk_cpu_detect): pk_kernels_for(cpu->level),
 * except that an AMD core with AVX-512 (pk_cpu.amd_core) gets the AMD table:
 * dictionary gathers by entry loads, DELTA by the AVX2 kernels. What readers
 * and writers use. */
const pk_kernels *pk_kernels_for_cpu(const pk_cpu *cpu);
/* The other AVX-512 table (Intel's or AMD's) for an AVX-512 table, else NULL:
 * tests run the bodies this CPU does not use too. */
const pk_kernels *pk_kernels_avx512_alternate(const pk_kernels *k);
/* The distinct tables this machine can run under the current caps, lowest
 * level first (scalar always; pk_kernels_for_cpu's at each level); for tests
 * and benchmarks that sweep levels. out must hold PK_SIMD_AVX512 + 1
 * entries. Returns how many. */
int pk_kernels_available(const pk_kernels **out);

/* ---- implementations (named <kernel>_<isa>), referenced by pk_kernels.c ---- */

/* The unpack and level kernels of one instruction set (pk_unpack_<isa>.c,
 * pk_levels_<isa>.c): the same signatures at every level. */
#define PK_UNPACK_LEVEL_KERNELS(isa)                                                        \
    void pk_unpack8_##isa(const uint8_t *in, size_t avail, uint8_t *out, size_t n, int bw);   \
    void pk_unpack16_##isa(const uint8_t *in, size_t avail, uint16_t *out, size_t n, int bw); \
    void pk_unpack32_##isa(const uint8_t *in, size_t avail, uint32_t *out, size_t n, int bw); \
    void pk_unpack64_##isa(const uint8_t *in, size_t avail, uint64_t *out, size_t n, int bw); \
    int64_t pk_count_eq16_##isa(const int16_t *lv, size_t n, int16_t value);                 \
    int64_t pk_sum01_16_##isa(const int16_t *lv, size_t n);                                  \
    bool pk_levels_in_range_##isa(const int16_t *lv, size_t n, int16_t max);                 \
    int64_t pk_def_to_bitmap_##isa(const int16_t *def, size_t n, int16_t max_def,            \
                                   uint8_t *bits, int64_t bit_offset);                       \
    void pk_level_hist16_##isa(const int16_t *lv, size_t n, int16_t max, int64_t *hist);

/* The bitmap kernels of one instruction set (pk_bits_<isa>.c). */
#define PK_BITS_KERNELS(isa)                                                                \
    void pk_copy_bits_##isa(const uint8_t *src, int64_t src_bit, uint8_t *dst,               \
                            int64_t dst_bit, size_t n);                                      \
    void pk_spread_bits_##isa(const uint8_t *dense, size_t nn, const uint8_t *valid,         \
                              uint8_t *dst, int64_t off, size_t n);                          \
    void pk_spread_fixed_##isa(uint8_t *vals, size_t w, size_t n, size_t nn,                 \
                               const uint8_t *valid, int64_t off);                           \
    int64_t pk_count_bits_##isa(const uint8_t *bits, int64_t from, int64_t to);               \
    int64_t pk_count_runs_##isa(const uint8_t *bits, int64_t n);                              \
    int64_t pk_compact_fixed_##isa(uint8_t *dst, const uint8_t *src, size_t w,               \
                                   const uint8_t *keep, size_t n);                           \
    int64_t pk_compact_bits_##isa(uint8_t *dst, const uint8_t *src, const uint8_t *keep,      \
                                  size_t n);

/* The filter kernels of one instruction set (pk_filter_kernels.c). */
#define PK_FILTER_KERNELS(isa)                                                              \
    int64_t pk_filter_i32_##isa(const int32_t *v, size_t n, int32_t lo, int32_t hi,           \
                                uint32_t flip, uint8_t *out);                                 \
    int64_t pk_filter_i64_##isa(const int64_t *v, size_t n, int64_t lo, int64_t hi,           \
                                uint64_t flip, uint8_t *out);                                 \
    int64_t pk_filter_f32_##isa(const float *v, size_t n, float lo, float hi, unsigned flags, \
                                uint8_t *out);                                                \
    int64_t pk_filter_f64_##isa(const double *v, size_t n, double lo, double hi,              \
                                unsigned flags, uint8_t *out);                                \
    int64_t pk_filter_codes_##isa(const int32_t *codes, size_t n, const uint8_t *pass,        \
                                  int64_t npass, uint8_t *out);                               \
    int64_t pk_compare_i32_##isa(const int32_t *a, const int32_t *b, size_t n, unsigned op,   \
                                 uint8_t *out);                                               \
    int64_t pk_compare_i64_##isa(const int64_t *a, const int64_t *b, size_t n, unsigned op,   \
                                 uint8_t *out);

/* The writer's kernels of one instruction set (pk_encode_kernels.c). */
#define PK_ENCODE_KERNELS(isa)                                                              \
    void pk_pack32_##isa(const uint32_t *in, size_t n, int bw, uint8_t *out);                 \
    void pk_pack64_##isa(const uint64_t *in, size_t n, int bw, uint8_t *out);                 \
    size_t pk_rle_scan32_##isa(const uint32_t *v, size_t n, uint32_t *any);                   \
    void pk_minmax_i32_##isa(const int32_t *v, size_t n, uint32_t flip, int32_t *mn,          \
                             int32_t *mx);                                                    \
    void pk_minmax_i64_##isa(const int64_t *v, size_t n, uint64_t flip, int64_t *mn,          \
                             int64_t *mx);                                                    \
    bool pk_minmax_f32_##isa(const float *v, size_t n, float *mn, float *mx);                 \
    bool pk_minmax_f64_##isa(const double *v, size_t n, double *mn, double *mx);              \
    uint64_t pk_delta_block64_##isa(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,   \
                                    uint64_t *min, uint64_t *ors);                            \
    uint64_t pk_delta_block32_##isa(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,   \
                                    uint64_t *min, uint64_t *ors);

/* The length kernels of one instruction set (pk_length_kernels.c). */
#define PK_LENGTH_KERNELS(isa)                                                              \
    uint64_t pk_sum_u32_##isa(const uint32_t *v, size_t n, uint32_t *ors);                    \
    uint32_t pk_dba_chain_##isa(const uint32_t *pre, const uint32_t *len, size_t n,           \
                                uint32_t lim, bool exact, uint32_t *offs, uint64_t *sum,      \
                                uint32_t *longest);                                           \
    uint64_t pk_offsets_bad_##isa(const int64_t *off, size_t n);

/* The hash kernels of one instruction set (pk_hash_kernels.c). */
#define PK_HASH_KERNELS(isa)                                                                \
    void pk_hash_fixed32_##isa(const uint8_t *v, size_t n, uint64_t *out);                    \
    void pk_hash_fixed64_##isa(const uint8_t *v, size_t n, uint64_t *out);                    \
    void pk_hash_short_##isa(const uint8_t *data, const int64_t *off, size_t n, uint64_t *wa, \
                             uint64_t *wb, uint64_t *out);

PK_UNPACK_LEVEL_KERNELS(scalar)
PK_LENGTH_KERNELS(scalar)
PK_HASH_KERNELS(scalar)
PK_BITS_KERNELS(scalar)
PK_FILTER_KERNELS(scalar)
PK_ENCODE_KERNELS(scalar)

#ifdef PK_KERNELS_X86
PK_UNPACK_LEVEL_KERNELS(avx2)
PK_LENGTH_KERNELS(avx2)
PK_HASH_KERNELS(avx2)
PK_BITS_KERNELS(avx2)
PK_FILTER_KERNELS(avx2)
PK_ENCODE_KERNELS(avx2)
/* AVX-512 F, BW, VL, DQ (no VBMI: the level does not imply it); the bitmap kernels of
 * that level are the AVX2 ones but for compact_fixed (vpcompressd / vpcompressq). */
PK_UNPACK_LEVEL_KERNELS(avx512)
PK_LENGTH_KERNELS(avx512)
int64_t pk_compact_fixed_avx512(uint8_t *dst, const uint8_t *src, size_t w, const uint8_t *keep,
                                size_t n);
PK_HASH_KERNELS(avx512)
PK_FILTER_KERNELS(avx512)
void pk_pack32_avx512(const uint32_t *in, size_t n, int bw, uint8_t *out);
void pk_pack64_avx512(const uint64_t *in, size_t n, int bw, uint8_t *out);
void pk_minmax_i32_avx512(const int32_t *v, size_t n, uint32_t flip, int32_t *mn, int32_t *mx);
void pk_minmax_i64_avx512(const int64_t *v, size_t n, uint64_t flip, int64_t *mn, int64_t *mx);
uint64_t pk_delta_block64_avx512(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,
                                 uint64_t *min, uint64_t *ors);
uint64_t pk_delta_block32_avx512(const uint8_t *v, size_t k, uint64_t prev, uint64_t *d,
                                 uint64_t *min, uint64_t *ors);
#endif

/* The body shared by the vector level histograms: passes of up to 8 levels through
 * PASS(lv, n, base, count, hist) (count a constant in each inlined copy), the rest of n into
 * hist[0]; inputs under 16 levels and a max above MAXL (where the passes cost more than
 * the scalar sub-histograms, bench/README.md "Writer kernels") go to the scalar kernel. */
/* Levels per pass: 8 accumulators, 8 broadcast levels and the loaded register fit the
 * 16 ymm registers. */
#define PK_LEVEL_HIST_PASS 8
#define PK_LEVEL_HIST_BODY(PASS, MAXL)                                                        \
    if (n < 16 || max > (MAXL)) {                                                             \
        pk_level_hist16_scalar(lv, n, max, hist);                                             \
        return;                                                                               \
    }                                                                                         \
    if (max <= 0) {                                                                           \
        hist[0] += (int64_t)n;                                                                \
        return;                                                                               \
    }                                                                                         \
    int64_t before = 0, after = 0;                                                            \
    for (int l = 1; l <= max; l++) before += hist[l];                                         \
    for (int base = 1; base <= max; base += PK_LEVEL_HIST_PASS) {                             \
        switch (max - base + 1 < PK_LEVEL_HIST_PASS ? max - base + 1 : PK_LEVEL_HIST_PASS) {  \
        case 1: PASS(lv, n, base, 1, hist); break;                                            \
        case 2: PASS(lv, n, base, 2, hist); break;                                            \
        case 3: PASS(lv, n, base, 3, hist); break;                                            \
        case 4: PASS(lv, n, base, 4, hist); break;                                            \
        case 5: PASS(lv, n, base, 5, hist); break;                                            \
        case 6: PASS(lv, n, base, 6, hist); break;                                            \
        case 7: PASS(lv, n, base, 7, hist); break;                                            \
        default: PASS(lv, n, base, 8, hist); break;                                           \
        }                                                                                     \
    }                                                                                         \
    for (int l = 1; l <= max; l++) after += hist[l];                                          \
    hist[0] += (int64_t)n - (after - before);

/* DELTA, dictionary and BYTE_STREAM_SPLIT implementations (pk_delta_*.c, pk_dict_*.c,
 * pk_bss_*.c) */
#include "pk_decode_kernels.h"

#endif /* PK_KERNELS_H */
