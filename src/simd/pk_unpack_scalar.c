/*
 * pk_unpack_scalar.c: portable bit-unpacking kernels (LSB-first, the Parquet
 * bit-packed layout) for 8-, 16-, 32- and 64-bit outputs. They build on every
 * architecture and are the fallback of the vector kernels for groups too
 * close to the end of the readable input.
 *
 * One body (unpack_body) is stamped per output type and per bit width: the
 * switch in each entry point calls it with a constant width, so shifts and
 * masks are immediates and the 8-value group loop unrolls.
 */
#include "pk_kernels.h"

/* The bw-bit value at bit `bit` of in[0..avail), reading only bytes that
 * exist (bytes past avail read as zero; callers only ask for present bits). */
PK_INLINE uint64_t bits_at_checked(const uint8_t *in, size_t avail, uint64_t bit, int bw) {
    size_t byte = (size_t)(bit >> 3);
    unsigned s = (unsigned)(bit & 7);
    uint8_t tmp[16] = {0};
    size_t have = byte < avail ? avail - byte : 0;
    if (have > 9) have = 9;
    if (have) memcpy(tmp, in + byte, have);
    uint64_t v = pk_load_u64(tmp) >> s;
    if (s && (unsigned)bw + s > 64) v |= (uint64_t)tmp[8] << (64 - s);
    return bw == 64 ? v : v & ((UINT64_C(1) << bw) - 1);
}

/* Group fast path: value j of the group starting at p, for a group whose
 * bytes plus 9 more are readable. */
PK_INLINE uint64_t bits_at_fast(const uint8_t *p, unsigned bit, int bw) {
    unsigned s = bit & 7;
    uint64_t v = pk_load_u64(p + (bit >> 3)) >> s;
    if (bw + (int)s > 64) v |= (uint64_t)p[(bit >> 3) + 8] << (64 - s);
    return bw == 64 ? v : v & ((UINT64_C(1) << bw) - 1);
}

#define PK_UNPACK_BODY(T)                                                                    \
    PK_INLINE void unpack_body_##T(const uint8_t *in, size_t avail, T *out, size_t n,        \
                                   int bw) {                                                 \
        size_t groups = n / 8, g = 0;                                                        \
        /* A group reads bytes [g*bw, g*bw + 7*bw/8 + 9): keep 9 + bw bytes of margin. */   \
        size_t margin = (size_t)bw + 9;                                                      \
        size_t fast = avail >= margin ? (avail - margin) / (size_t)bw + 1 : 0;               \
        if (fast > groups) fast = groups;                                                    \
        const uint8_t *p = in;                                                               \
        for (; g < fast; g++, p += bw, out += 8)                                             \
            for (unsigned j = 0; j < 8; j++) out[j] = (T)bits_at_fast(p, j * (unsigned)bw, bw); \
        for (size_t i = g * 8; i < n; i++)                                                   \
            *out++ = (T)bits_at_checked(in, avail, (uint64_t)i * (uint64_t)bw, bw);          \
    }

PK_UNPACK_BODY(uint8_t)
PK_UNPACK_BODY(uint16_t)
PK_UNPACK_BODY(uint32_t)
PK_UNPACK_BODY(uint64_t)

#define PK_W8(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8)
#define PK_W16(X) PK_W8(X) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
#define PK_W32(X)                                                                  \
    PK_W16(X) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) \
    X(29) X(30) X(31) X(32)
#define PK_W64(X)                                                                   \
    PK_W32(X) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) \
    X(45) X(46) X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57)     \
    X(58) X(59) X(60) X(61) X(62) X(63) X(64)

#define PK_UNPACK_ENTRY(T, NAME, WIDTHS)                                                 \
    void NAME(const uint8_t *in, size_t avail, T *out, size_t n, int bw) {               \
        switch (bw) {                                                                    \
            WIDTHS(PK_UNPACK_CASE_##T)                                                   \
        default:                                                                         \
            if (n) memset(out, 0, n * sizeof(T));                                        \
        }                                                                                \
    }
#define PK_UNPACK_CASE_uint8_t(W) case W: unpack_body_uint8_t(in, avail, out, n, W); break;
#define PK_UNPACK_CASE_uint16_t(W) case W: unpack_body_uint16_t(in, avail, out, n, W); break;
#define PK_UNPACK_CASE_uint32_t(W) case W: unpack_body_uint32_t(in, avail, out, n, W); break;
#define PK_UNPACK_CASE_uint64_t(W) case W: unpack_body_uint64_t(in, avail, out, n, W); break;

PK_UNPACK_ENTRY(uint8_t, pk_unpack8_scalar, PK_W8)
PK_UNPACK_ENTRY(uint16_t, pk_unpack16_scalar, PK_W16)
PK_UNPACK_ENTRY(uint32_t, pk_unpack32_scalar, PK_W32)
PK_UNPACK_ENTRY(uint64_t, pk_unpack64_scalar, PK_W64)
