/*
 * pk_unpack_avx512.c: AVX-512 (F, BW, VL, DQ) bit-unpacking into 8-, 16-, 32- and
 * 64-bit outputs, with the field extraction of pk_unpack_avx512.h:
 *
 *   8-bit,  bw 1..7:   64 values per register (8 groups), two per 16-bit lane;
 *   16-bit, bw 1..15:  32 values per register (4 groups) in 16-bit lanes;
 *   32-bit, bw 1..30:  16 values per register (2 groups) in 32-bit lanes;
 *   64-bit, bw 1..30:  the 32-bit values widened (vpmovzxdq); 32 widens the words;
 *           bw 33..62: 8 values per register (1 group) in 64-bit lanes.
 * Width 31 (to 32- and 64-bit outputs) does not fit the vpermw windows
 * (pk_unpack_avx512.h) and runs the AVX2 kernel, which loads each 128-bit lane on its
 * own.
 *
 * Loads near the end of the input are masked to in[0..avail) (masked-out bytes do not
 * fault) and the last, partial step is a masked store, so nothing outside the
 * readable input or out[0..n) is touched and no scalar tail runs (64-bit widths
 * 33..62 load 16 bytes per lane and leave the groups whose loads would pass `avail`
 * to the scalar kernel; 63 is scalar). Full-width outputs (8, 16, 32, 64) are copies.
 *
 * Compiled with target attributes: the file builds with the default flags and its
 * functions are only called when the CPU has the AVX-512 level (pk_cpu.c).
 */
#include "pk_kernels.h"

#ifdef PK_KERNELS_X86
#include "pk_unpack_avx512.h"

/* The body of every output size: steps of `per` values (per*bw/8 bytes), the last one
 * partial. LOAD(p, left) gives the bytes of the step at p reading only p[0..left), and
 * reads `reach` bytes when that many are readable: the first loop runs the steps that
 * have them with that constant (no test or mask per step), the second the few after.
 * GET(x) extracts a step's values; STORE(ptr, mask, v) stores the values of v that the
 * lane mask selects. */
#define PK_UNPACK_STEPS(T, per, reach, LOAD, GET, STORE)                                  \
    do {                                                                                  \
        const size_t bytes_ = (size_t)(per) * (size_t)bw / 8;                             \
        size_t full_ = n / (per), fast_ = avail >= (reach) ? (avail - (reach)) / bytes_ + 1 : 0; \
        if (fast_ > full_) fast_ = full_;                                                 \
        size_t i_ = 0, left_ = avail - fast_ * bytes_;                                    \
        for (; i_ < fast_ * (per); i_ += (per), in += bytes_)                             \
            STORE((T *)out + i_, ~UINT64_C(0), GET(LOAD(in, (size_t)(reach))));           \
        for (; i_ + (per) <= n; i_ += (per), in += bytes_, left_ -= bytes_)               \
            STORE((T *)out + i_, ~UINT64_C(0), GET(LOAD(in, left_)));                     \
        if (i_ < n) STORE((T *)out + i_, pk_low_bits(n - i_), GET(LOAD(in, left_)));      \
    } while (0)

#define PK_STORE32(p, m, v) _mm512_mask_storeu_epi32((p), (__mmask16)(m), (v))
#define PK_STORE16(p, m, v) _mm512_mask_storeu_epi16((p), _cvtu32_mask32((uint32_t)(m)), (v))
#define PK_STORE8(p, m, v) _mm512_mask_storeu_epi8((p), _cvtu64_mask64(m), (v))

/* 64-bit outputs of the 16 values of a 32-bit step: two widened halves. */
PK_AVX512_INLINE void store_widened(uint64_t *p, uint64_t m, __m512i v) {
    _mm512_mask_storeu_epi64(p, (__mmask8)m, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v)));
    _mm512_mask_storeu_epi64(p + 8, (__mmask8)(m >> 8),
                             _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(v, 1)));
}
#define PK_STORE64W(p, m, v) store_widened((p), (m), (v))

PK_AVX512_INLINE void unpack32_body(const uint8_t *in, size_t avail, void *out, size_t n,
                                    const int bw, const int widen) {
    const pk_f32 f = pk_f32_setup(bw);
#define PK_LOAD32(p, left) pk_f32_load((p), (left), bw, PK_F32_PERMUTE(bw))
#define PK_GET32(x) pk_f32_get(&f, (x), PK_F32_PERMUTE(bw), PK_F32_FIFTH(bw))
    const size_t reach = PK_F32_PERMUTE(bw) ? 64 : (size_t)bw + 16;
    if (widen) PK_UNPACK_STEPS(uint64_t, 16, reach, PK_LOAD32, PK_GET32, PK_STORE64W);
    else PK_UNPACK_STEPS(uint32_t, 16, reach, PK_LOAD32, PK_GET32, PK_STORE32);
#undef PK_GET32
#undef PK_LOAD32
}

PK_AVX512_INLINE void unpack16_body(const uint8_t *in, size_t avail, uint16_t *out, size_t n,
                                    const int bw) {
    const pk_f16 f = pk_f16_setup(bw);
#define PK_GET16(x) pk_f16_get(&f, (x), bw)
    PK_UNPACK_STEPS(uint16_t, 32, 64, pk_load_upto, PK_GET16, PK_STORE16);
#undef PK_GET16
}

PK_AVX512_INLINE void unpack8_body(const uint8_t *in, size_t avail, uint8_t *out, size_t n,
                                   const int bw) {
    const pk_f8 f = pk_f8_setup(bw);
#define PK_GET8(x) pk_f8_get(&f, (x))
    PK_UNPACK_STEPS(uint8_t, 64, 64, pk_load_upto, PK_GET8, PK_STORE8);
#undef PK_GET8
}

#define PK_W7(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define PK_W15(X) PK_W7(X) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define PK_W30(X)                                                                          \
    PK_W15(X) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) \
    X(29) X(30)
#define PK_W33_62(X)                                                                      \
    X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46)   \
    X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60)   \
    X(61) X(62)

#define PK_CASE8(W) case W: unpack8_body(in, avail, out, n, W); break;
#define PK_CASE16(W) case W: unpack16_body(in, avail, out, n, W); break;
#define PK_CASE32(W) case W: unpack32_body(in, avail, out, n, W, 0); break;

PK_AVX512 void pk_unpack8_avx512(const uint8_t *in, size_t avail, uint8_t *out, size_t n,
                                 int bw) {
    if (n == 0) return;
    switch (bw) {
        PK_W7(PK_CASE8)
    case 8: memcpy(out, in, n); break;
    default: memset(out, 0, n);
    }
}

PK_AVX512 void pk_unpack16_avx512(const uint8_t *in, size_t avail, uint16_t *out, size_t n,
                                  int bw) {
    if (n == 0) return;
    switch (bw) {
        PK_W15(PK_CASE16)
    case 16: memcpy(out, in, n * 2); break;
    default: memset(out, 0, n * 2);
    }
}

PK_AVX512 void pk_unpack32_avx512(const uint8_t *in, size_t avail, uint32_t *out, size_t n,
                                  int bw) {
    if (n == 0) return;
    switch (bw) {
        PK_W30(PK_CASE32)
    case 31: pk_unpack32_avx2(in, avail, out, n, bw); break;
    case 32: memcpy(out, in, n * 4); break;
    default: memset(out, 0, n * 4);
    }
}

/* Width 32 to 64-bit outputs: the words widened, 8 per step. */
PK_AVX512_INLINE void widen32(const uint8_t *in, uint64_t *out, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8, in += 32)
        _mm512_storeu_si512(out + i, _mm512_cvtepu32_epi64(
                                         _mm256_loadu_si256((const __m256i *)(const void *)in)));
    if (i < n) {
        __mmask8 m = (__mmask8)pk_low_bits(n - i);
        _mm512_mask_storeu_epi64(out + i, m,
                                 _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(m, in)));
    }
}

/* Widths 33..62: one group per step while its lane loads stay inside in[0..avail). */
PK_AVX512_INLINE void unpack64_wide_body(const uint8_t *in, size_t avail, uint64_t *out,
                                         size_t n, const int bw) {
    const pk_f64 f = pk_f64_setup(bw);
    const int ninth = pk_needs_fifth(bw, 64);
    size_t reach = f.off[3] + 16;
    size_t fast = avail >= reach ? (avail - reach) / (size_t)bw + 1 : 0;
    if (fast > n / 8) fast = n / 8;
    for (size_t g = 0; g < fast; g++, in += bw, out += 8)
        _mm512_storeu_si512(out, pk_f64_get(&f, in, ninth));
    if (fast * 8 < n) pk_unpack64_scalar(in, avail - fast * (size_t)bw, out, n - fast * 8, bw);
}

#define PK_CASE64(W) case W: unpack32_body(in, avail, out, n, W, 1); break;
#define PK_CASE64W(W) case W: unpack64_wide_body(in, avail, out, n, W); break;

PK_AVX512 void pk_unpack64_avx512(const uint8_t *in, size_t avail, uint64_t *out, size_t n,
                                  int bw) {
    if (n == 0) return;
    switch (bw) {
        PK_W30(PK_CASE64)
    case 31: pk_unpack64_avx2(in, avail, out, n, bw); break;
    case 32: widen32(in, out, n); break;
        PK_W33_62(PK_CASE64W)
    case 64: memcpy(out, in, n * 8); break;
    default:
        /* 0 (zeros) and 63 (see pk_f64): the scalar stamp. */
        pk_unpack64_scalar(in, avail, out, n, bw);
    }
}

#endif /* PK_KERNELS_X86 */
