/*
 * pk_unpack_avx512.h: AVX-512 bit-field extraction shared by the unpack kernels
 * (pk_unpack_avx512.c) and the DELTA kernels (pk_delta_kernels.c). Internal to
 * src/simd; include it only inside `#ifdef PK_KERNELS_X86` (or PK_HAVE_X86_KERNELS).
 *
 * Instruction sets: AVX-512 F, BW, VL and DQ only, the PK_SIMD_AVX512 level. VBMI
 * (vpermb, vpmultishiftqb) would save one shuffle per register, but the level does
 * not imply it and the readers choose their table from the level alone
 * (pk_kernels_for), so it is not used.
 *
 * The values of a step (16 in 32-bit lanes, 32 in 16-bit lanes, 64 as bytes) come
 * from one 64-byte load, or two 16-byte ones, masked near the end of the readable
 * input: the mask suppresses the bytes (and faults) past it, so the last, partial
 * step is vectorised too. Then, per 128-bit lane:
 *   - vpermw moves to the lane 16 bytes from the (even) byte where the lane's first
 *     value starts (byte granularity would need VBMI's vpermb; starting one byte early
 *     still leaves room for every width these helpers take, 32-bit lanes up to 30:
 *     width 31 needs 17 bytes in the second lane);
 *   - vpshufb puts each value's first bytes in its own lane element, a variable right
 *     shift drops the bits below the value, and a mask the bits above it;
 *   - values that span one byte more than an element holds (32-bit lanes: widths 27,
 *     29..31) take that byte with a second vpshufb and a left shift.
 * The controls depend on bw only and are computed with a few vector instructions
 * rather than loaded from generated tables: with bw a constant (the kernels are
 * stamped per width) the compiler folds most of them.
 */
#ifndef PK_UNPACK_AVX512_H
#define PK_UNPACK_AVX512_H

#include <immintrin.h>

#include "pk_kernels.h"

#define PK_AVX512_ISA "avx512f,avx512bw,avx512vl,avx512dq,bmi2,popcnt"
/* BMI2 and POPCNT come with every CPU of the level: detection requires AVX2 + BMI2
 * below AVX-512 (pk_cpu.c). */
#define PK_AVX512 __attribute__((target(PK_AVX512_ISA)))
#define PK_AVX512_INLINE static inline __attribute__((always_inline, target(PK_AVX512_ISA)))

/* The low `bits` bits set (bits may be 0..64). */
PK_AVX512_INLINE uint64_t pk_low_bits(size_t bits) {
    return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

/* 64 bytes at p, of which only p[0..left) are read (zeros after them; masked bytes do
 * not fault). The branch keeps the mask, and the kmov it costs on the shuffle port,
 * out of all but the last steps. */
PK_AVX512_INLINE __m512i pk_load_upto(const uint8_t *p, size_t left) {
    if (left >= 64) return _mm512_loadu_si512((const void *)p);
    return _mm512_maskz_loadu_epi8(_cvtu64_mask64(pk_low_bits(left)), p);
}

/* True when some value of width bw, at any bit offset of a group (multiples of bw
 * modulo 8), spans more than `lane` bits from the start of its first byte. */
PK_AVX512_INLINE int pk_needs_fifth(int bw, int lane) {
    for (int j = 0; j < 8; j++)
        if (((j * bw) & 7) + bw > lane) return 1;
    return 0;
}

/* ---- 16 values of bw 1..30 bits (2*bw bytes) in 32-bit lanes ------------------------ */

/* Widths up to 16 skip the vpermw: a group (8 values) is at most 16 bytes, so lanes 0-1
 * take group 0 and lanes 2-3 group 1 from two 16-byte broadcast loads at the groups'
 * starts (load ports, no shuffle), and vpshufb indexes from there. Wider groups need
 * windows inside them: vpermw over one load of the step. */
typedef struct pk_f32 {
    __m512i perm;     /* vpermw (bw > 16): lane k gets 8 words from its first value's */
    __m512i lo, hi;   /* vpshufb: each value's 4 bytes; its 5th byte (then zeros) */
    __m512i shr, shl; /* the value's bit offset in its first byte; 32 - that */
    __m512i mask;
} pk_f32;

/* Byte b of every 4 (8) in each lane: vpshufb controls that spread the low byte, or
 * the low word, of every 32-bit (64-bit) element over the element. The setups use
 * them and 16-bit multiplies (all their products fit 16 bits) where a 32- or 64-bit
 * multiply would add 10-15 cycles of latency before a kernel's first step. */
#define PK_SPREAD_BYTE32 _mm512_set4_epi64(0x0C0C0C0C08080808, 0x0404040400000000, \
                                          0x0C0C0C0C08080808, 0x0404040400000000)
#define PK_SPREAD_WORD32 _mm512_set4_epi64(0x0D0C0D0C09080908, 0x0504050401000100, \
                                          0x0D0C0D0C09080908, 0x0504050401000100)
#define PK_SPREAD_BYTE64 _mm512_set4_epi64(0x0808080808080808, 0, 0x0808080808080808, 0)

PK_AVX512_INLINE pk_f32 pk_f32_setup(int bw) {
    pk_f32 f;
    __m512i bit = _mm512_mullo_epi16(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(bw));
    __m512i byte = _mm512_srli_epi32(bit, 3);
    /* The first byte of the lane's window: its group's (bw <= 16), or its first value's
     * rounded down to a word. */
    __m512i start = bw <= 16
        ? _mm512_maskz_mov_epi32(0xFF00, _mm512_set1_epi32(bw))
        : _mm512_and_si512(_mm512_shuffle_epi32(byte, 0), _mm512_set1_epi32(~1));
    __m512i rel = _mm512_sub_epi32(byte, start);
    /* Dword 4k+i takes words start/2 + 2i and + 2i + 1. */
    f.perm = _mm512_add_epi32(
        _mm512_shuffle_epi8(_mm512_srli_epi32(start, 1), PK_SPREAD_WORD32),
        _mm512_setr_epi32(0x10000, 0x30002, 0x50004, 0x70006, 0x10000, 0x30002, 0x50004,
                          0x70006, 0x10000, 0x30002, 0x50004, 0x70006, 0x10000, 0x30002,
                          0x50004, 0x70006));
    f.lo = _mm512_add_epi32(_mm512_shuffle_epi8(rel, PK_SPREAD_BYTE32),
                            _mm512_set1_epi32(0x03020100));
    f.hi = _mm512_add_epi32(rel, _mm512_set1_epi32((int)0x80808004));
    f.shr = _mm512_and_si512(bit, _mm512_set1_epi32(7));
    f.shl = _mm512_sub_epi32(_mm512_set1_epi32(32), f.shr);
    f.mask = _mm512_set1_epi32((int)((UINT32_C(1) << bw) - 1));
    return f;
}

/* The 16 bytes at p and at p + bw as lanes 0-1 and 2-3. Kept apart from the masked
 * version so that the loads fold into the broadcasts (vbroadcasti32x4 from memory
 * runs on the load ports; from a register it is a shuffle). */
PK_AVX512_INLINE __m512i pk_groups2(const uint8_t *p, int bw) {
    __m512i x = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm512_mask_broadcast_i32x4(x, 0xFF00,
                                       _mm_loadu_si128((const __m128i *)(const void *)(p + bw)));
}

/* pk_f32_get's `permute` for width bw, and its `fifth`. The kernels pass them as
 * constants: stamped per width (unpack), or one call per combination (DELTA, whose
 * width changes from one miniblock to the next). */
#define PK_F32_PERMUTE(bw) ((bw) > 16)
#define PK_F32_FIFTH(bw) pk_needs_fifth((bw), 32)

/* The bytes of the step at p for pk_f32_get, reading only p[0..left). */
PK_AVX512_INLINE __m512i pk_f32_load(const uint8_t *p, size_t left, int bw, const int permute) {
    if (permute) return pk_load_upto(p, left);
    if (left >= (size_t)bw + 16) return pk_groups2(p, bw);
    __mmask16 m0 = (__mmask16)pk_low_bits(left < 16 ? left : 16);
    __mmask16 m1 = (__mmask16)pk_low_bits(left <= (size_t)bw ? 0 : left - (size_t)bw);
    __m512i x = _mm512_broadcast_i32x4(_mm_maskz_loadu_epi8(m0, p));
    /* m1 == 0 (nothing readable there) loads nothing; p + bw is still inside the
     * step's group 0, or one past it. */
    return _mm512_mask_broadcast_i32x4(x, 0xFF00, _mm_maskz_loadu_epi8(m1, p + bw));
}

/* The 16 values of the step whose bytes pk_f32_load gave. */
PK_AVX512_INLINE __m512i pk_f32_get(const pk_f32 *f, __m512i x, const int permute,
                                    const int fifth) {
    if (permute) x = _mm512_permutexvar_epi16(f->perm, x);
    __m512i v = _mm512_srlv_epi32(_mm512_shuffle_epi8(x, f->lo), f->shr);
    if (!fifth) return _mm512_and_si512(v, f->mask);
    __m512i h = _mm512_sllv_epi32(_mm512_shuffle_epi8(x, f->hi), f->shl);
    return _mm512_ternarylogic_epi32(v, h, f->mask, 0xA8); /* (v | h) & mask */
}

/* ---- 32 values of bw 1..15 bits (4*bw bytes) in 16-bit lanes ------------------------ */

typedef struct pk_f16 {
    __m512i perm, lo, hi, shr, shl, mask; /* as pk_f32, per 16-bit lane (hi: 3rd byte) */
} pk_f16;

static const uint16_t pk_avx512_iota16[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                              11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                              22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/* Word w of a lane-start vector: the word 0 of its lane. */
PK_AVX512_INLINE __m512i pk_lane_word0(__m512i v) {
    return _mm512_shuffle_epi8(v, _mm512_set1_epi16(0x0100));
}

PK_AVX512_INLINE pk_f16 pk_f16_setup(int bw) {
    pk_f16 f;
    const __m512i iota = _mm512_loadu_si512((const void *)pk_avx512_iota16);
    __m512i bit = _mm512_mullo_epi16(iota, _mm512_set1_epi16((short)bw));
    __m512i byte = _mm512_srli_epi16(bit, 3);
    __m512i start = _mm512_and_si512(pk_lane_word0(byte), _mm512_set1_epi16(~1));
    __m512i rel = _mm512_sub_epi16(byte, start);
    f.perm = _mm512_add_epi16(_mm512_srli_epi16(start, 1),
                              _mm512_and_si512(iota, _mm512_set1_epi16(7)));
    f.lo = _mm512_add_epi16(_mm512_mullo_epi16(rel, _mm512_set1_epi16(0x0101)),
                            _mm512_set1_epi16(0x0100));
    f.hi = _mm512_add_epi16(rel, _mm512_set1_epi16((short)0x8002));
    f.shr = _mm512_and_si512(bit, _mm512_set1_epi16(7));
    f.shl = _mm512_sub_epi16(_mm512_set1_epi16(16), f.shr);
    f.mask = _mm512_set1_epi16((short)((1u << bw) - 1));
    return f;
}

/* The 32 values of the step whose bytes x holds from byte 0 (pk_load_upto). */
PK_AVX512_INLINE __m512i pk_f16_get(const pk_f16 *f, __m512i x, const int bw) {
    x = _mm512_permutexvar_epi16(f->perm, x);
    __m512i v = _mm512_srlv_epi16(_mm512_shuffle_epi8(x, f->lo), f->shr);
    if (!pk_needs_fifth(bw, 16)) return _mm512_and_si512(v, f->mask);
    __m512i h = _mm512_sllv_epi16(_mm512_shuffle_epi8(x, f->hi), f->shl);
    return _mm512_ternarylogic_epi32(v, h, f->mask, 0xA8);
}

/* ---- 64 values of bw 1..7 bits (8*bw bytes) as bytes ------------------------------ */

/* AVX-512 has no per-byte shift, so each 16-bit lane w extracts two values: value 2w
 * shifted right into its low byte and value 2w+1 shifted left into its high byte,
 * which is the output order; no pack or permute follows. A lane (16 values, 2*bw
 * bytes) starts at byte 2*k*bw, always a word. */
typedef struct pk_f8 {
    __m512i perm, lo_even, lo_odd, shr_even, shl_odd, mask_even, mask_odd;
} pk_f8;

PK_AVX512_INLINE pk_f8 pk_f8_setup(int bw) {
    pk_f8 f;
    const __m512i iota = _mm512_loadu_si512((const void *)pk_avx512_iota16);
    __m512i bit_e = _mm512_mullo_epi16(iota, _mm512_set1_epi16((short)(2 * bw)));
    __m512i bit_o = _mm512_add_epi16(bit_e, _mm512_set1_epi16((short)bw));
    __m512i start = pk_lane_word0(_mm512_srli_epi16(bit_e, 3));
    __m512i rel_e = _mm512_sub_epi16(_mm512_srli_epi16(bit_e, 3), start);
    __m512i rel_o = _mm512_sub_epi16(_mm512_srli_epi16(bit_o, 3), start);
    const __m512i spread = _mm512_set1_epi16(0x0101), next = _mm512_set1_epi16(0x0100);
    f.perm = _mm512_add_epi16(_mm512_srli_epi16(start, 1),
                              _mm512_and_si512(iota, _mm512_set1_epi16(7)));
    f.lo_even = _mm512_add_epi16(_mm512_mullo_epi16(rel_e, spread), next);
    f.lo_odd = _mm512_add_epi16(_mm512_mullo_epi16(rel_o, spread), next);
    f.shr_even = _mm512_and_si512(bit_e, _mm512_set1_epi16(7));
    f.shl_odd = _mm512_sub_epi16(_mm512_set1_epi16(8),
                                 _mm512_and_si512(bit_o, _mm512_set1_epi16(7)));
    f.mask_even = _mm512_set1_epi16((short)((1u << bw) - 1));
    f.mask_odd = _mm512_set1_epi16((short)(((1u << bw) - 1) << 8));
    return f;
}

/* The 64 values of the step whose bytes x holds from byte 0 (pk_load_upto). */
PK_AVX512_INLINE __m512i pk_f8_get(const pk_f8 *f, __m512i x) {
    x = _mm512_permutexvar_epi16(f->perm, x);
    __m512i e = _mm512_srlv_epi16(_mm512_shuffle_epi8(x, f->lo_even), f->shr_even);
    __m512i o = _mm512_sllv_epi16(_mm512_shuffle_epi8(x, f->lo_odd), f->shl_odd);
    /* (e & mask_even) | (o & mask_odd) */
    return _mm512_ternarylogic_epi32(_mm512_and_si512(e, f->mask_even), o, f->mask_odd, 0xF8);
}

/* ---- 8 values of bw 33..62 bits (one group, bw bytes) in 64-bit lanes -------------- */

/* Lane k holds values 2k and 2k+1 from its own 16-byte load at their first byte (the
 * vpermw window would start up to a byte early, which the widest of these do not
 * fit); a value that spans 9 bytes takes the 9th as pk_f32 takes the 5th. Width 63
 * can need 17 bytes in a lane and is not handled. The loads reach off[3] + 16 bytes
 * past the group's start, up to 16 bytes past its end. */
typedef struct pk_f64 {
    __m512i lo, hi, shr, shl, mask;
    size_t off[4];
} pk_f64;

PK_AVX512_INLINE pk_f64 pk_f64_setup(int bw) {
    pk_f64 f;
    __m512i bit = _mm512_mullo_epi16(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                     _mm512_set1_epi64(bw));
    __m512i byte = _mm512_srli_epi64(bit, 3);
    __m512i rel = _mm512_sub_epi64(byte, _mm512_shuffle_epi32(byte, _MM_PERM_BABA));
    f.lo = _mm512_add_epi64(_mm512_shuffle_epi8(rel, PK_SPREAD_BYTE64),
                            _mm512_set1_epi64(0x0706050403020100));
    f.hi = _mm512_add_epi64(rel, _mm512_set1_epi64((long long)0x8080808080808008));
    f.shr = _mm512_and_si512(bit, _mm512_set1_epi64(7));
    f.shl = _mm512_sub_epi64(_mm512_set1_epi64(64), f.shr);
    f.mask = _mm512_set1_epi64((long long)((UINT64_C(1) << bw) - 1));
    for (int k = 0; k < 4; k++) f.off[k] = (size_t)(2 * k * bw) >> 3;
    return f;
}

PK_AVX512_INLINE __m512i pk_f64_get(const pk_f64 *f, const uint8_t *p, const int ninth) {
    __m512i x = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)p));
    x = _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)(const void *)(p + f->off[1])), 1);
    x = _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)(const void *)(p + f->off[2])), 2);
    x = _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)(const void *)(p + f->off[3])), 3);
    __m512i v = _mm512_srlv_epi64(_mm512_shuffle_epi8(x, f->lo), f->shr);
    if (!ninth) return _mm512_and_si512(v, f->mask);
    __m512i h = _mm512_sllv_epi64(_mm512_shuffle_epi8(x, f->hi), f->shl);
    return _mm512_ternarylogic_epi64(v, h, f->mask, 0xA8);
}

#endif /* PK_UNPACK_AVX512_H */
