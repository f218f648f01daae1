/*
 * pk_bits_avx512.c: compact_fixed with AVX-512 (F, VL, DQ). A step loads one
 * register (16 values of 4 bytes, 8 of 8, 4 of 16), compresses the kept lanes
 * to its bottom in the register (vpcompressd / vpcompressq; 16-byte values are
 * pairs of 64-bit lanes with their keep bits doubled) and stores the register
 * whole. The register form is used rather than the compressing store, which is
 * microcoded and several times slower on AMD's Zen 4. The other bitmap kernels of
 * the level are the AVX2 ones.
 */
#include "pk_bits.h"
#include "pk_kernels.h"

#ifdef PK_KERNELS_X86
#include "pk_unpack_avx512.h"

/* PK_COMPACT_BODY's WORD: the output is never ahead of the step's input. */
PK_AVX512_INLINE size_t compact_word_avx512(uint8_t *d, const uint8_t *s, size_t W,
                                            uint64_t m) {
    size_t k = 0;
    const size_t per = 64 / W;
    for (size_t j = 0; j < 64; j += per) {
        unsigned mv = (unsigned)(m >> j) & ((1u << per) - 1);
        __m512i v = _mm512_loadu_si512((const void *)(s + j * W));
        __m512i c;
        if (W == 4) c = _mm512_maskz_compress_epi32(_cvtu32_mask16(mv), v);
        else if (W == 8) c = _mm512_maskz_compress_epi64(_cvtu32_mask8(mv), v);
        else c = _mm512_maskz_compress_epi64(_cvtu32_mask8(_pdep_u32(mv, 0x55) * 3), v);
        _mm512_storeu_si512((void *)(d + k * W), c);
        k += (size_t)_mm_popcnt_u32(mv);
    }
    return k;
}

/* Kept values per word below which the walk beats the vector steps (bench_kernels
 * bits, 4096 slots: the walk moves about 1.9 values a nanosecond, a word of vector
 * steps takes 5.5 / 11 / 22 ns at w 4 / 8 / 16). */
#define PK_SPARSE_AVX512(W) ((W) == 4 ? 10 : (W) == 8 ? 20 : 40)
PK_COMPACT_KERNEL(avx512, PK_AVX512, PK_AVX512_INLINE, compact_word_avx512, PK_SPARSE_AVX512)

#endif /* PK_KERNELS_X86 */
