/*
 * pk_kernels.c: one static const kernel table per dispatch level (two at
 * AVX-512, by the CPU's vendor: PK_AVX512_TABLE). A level without its own
 * version of a kernel takes the next lower one. To add a kernel: a field in
 * pk_kernels.h and one line per table here (the AVX-512 ones share
 * PK_AVX512_TABLE's).
 */
#include "pk_kernels.h"

static const pk_kernels pk_kernels_scalar = {
    .level = PK_SIMD_SCALAR,
    .unpack8 = pk_unpack8_scalar,
    .unpack16 = pk_unpack16_scalar,
    .unpack32 = pk_unpack32_scalar,
    .unpack64 = pk_unpack64_scalar,
    .count_eq16 = pk_count_eq16_scalar,
    .sum01_16 = pk_sum01_16_scalar,
    .levels_in_range = pk_levels_in_range_scalar,
    .def_to_bitmap = pk_def_to_bitmap_scalar,
    .level_hist16 = pk_level_hist16_scalar,
    /* DELTA, dictionary and BYTE_STREAM_SPLIT kernels (pk_delta_*.c, pk_dict_*.c, pk_bss_*.c) */
    .delta_i32 = pk_delta_i32_scalar,
    .delta_i64 = pk_delta_i64_scalar,
    .delta_sum = pk_delta_sum_scalar,
    .dict_gather32 = pk_dict_gather32_scalar,
    .dict_gather64 = pk_dict_gather64_scalar,
    .bss_decode = pk_bss_decode_scalar,
    .bss_encode = pk_bss_encode,
    /* byte-array lengths (pk_length_kernels.c) */
    .sum_u32 = pk_sum_u32_scalar,
    .dba_chain = pk_dba_chain_scalar,
    .offsets_bad = pk_offsets_bad_scalar,
    /* bitmaps and null spreading (pk_bits_*.c) */
    .copy_bits = pk_copy_bits_scalar,
    .count_bits = pk_count_bits_scalar,
    .count_runs = pk_count_runs_scalar,
    .spread_bits = pk_spread_bits_scalar,
    .spread_fixed = pk_spread_fixed_scalar,
    .compact_fixed = pk_compact_fixed_scalar,
    .compact_bits = pk_compact_bits_scalar,
    /* filters of the pushdown scan (pk_filter_kernels.c) */
    .filter_i32 = pk_filter_i32_scalar,
    .filter_i64 = pk_filter_i64_scalar,
    .filter_f32 = pk_filter_f32_scalar,
    .filter_f64 = pk_filter_f64_scalar,
    .filter_codes = pk_filter_codes_scalar,
    .compare_i32 = pk_compare_i32_scalar,
    .compare_i64 = pk_compare_i64_scalar,
    /* the writer's encoders (pk_encode_kernels.c) */
    .pack32 = pk_pack32_scalar,
    .pack64 = pk_pack64_scalar,
    .rle_scan32 = pk_rle_scan32_scalar,
    .minmax_i32 = pk_minmax_i32_scalar,
    .minmax_i64 = pk_minmax_i64_scalar,
    .minmax_f32 = pk_minmax_f32_scalar,
    .minmax_f64 = pk_minmax_f64_scalar,
    .delta_block64 = pk_delta_block64_scalar,
    .delta_block32 = pk_delta_block32_scalar,
    .hash_fixed32 = pk_hash_fixed32_scalar,
    .hash_fixed64 = pk_hash_fixed64_scalar,
    .hash_short = pk_hash_short_scalar,
};

#ifdef PK_KERNELS_X86
static const pk_kernels pk_kernels_avx2 = {
    .level = PK_SIMD_AVX2,
    .unpack8 = pk_unpack8_avx2,
    .unpack16 = pk_unpack16_avx2,
    .unpack32 = pk_unpack32_avx2,
    .unpack64 = pk_unpack64_avx2,
    .count_eq16 = pk_count_eq16_avx2,
    .sum01_16 = pk_sum01_16_avx2,
    .levels_in_range = pk_levels_in_range_avx2,
    .def_to_bitmap = pk_def_to_bitmap_avx2,
    .level_hist16 = pk_level_hist16_avx2,
    /* DELTA, dictionary and BYTE_STREAM_SPLIT kernels (pk_delta_*.c, pk_dict_*.c, pk_bss_*.c) */
    .delta_i32 = pk_delta_i32_avx2,
    .delta_i64 = pk_delta_i64_avx2,
    .delta_sum = pk_delta_sum_avx2,
    .dict_gather32 = pk_dict_gather32_avx2,
    .dict_gather64 = pk_dict_gather64_avx2,
    .bss_decode = pk_bss_decode_avx2,
    .bss_encode = pk_bss_encode_avx2,
    /* byte-array lengths (pk_length_kernels.c) */
    .sum_u32 = pk_sum_u32_avx2,
    .dba_chain = pk_dba_chain_avx2,
    .offsets_bad = pk_offsets_bad_avx2,
    /* bitmaps and null spreading (pk_bits_*.c) */
    .copy_bits = pk_copy_bits_avx2,
    .count_bits = pk_count_bits_avx2,
    .count_runs = pk_count_runs_avx2,
    .spread_bits = pk_spread_bits_avx2,
    .spread_fixed = pk_spread_fixed_avx2,
    .compact_fixed = pk_compact_fixed_avx2,
    .compact_bits = pk_compact_bits_avx2,
    /* filters of the pushdown scan (pk_filter_kernels.c) */
    .filter_i32 = pk_filter_i32_avx2,
    .filter_i64 = pk_filter_i64_avx2,
    .filter_f32 = pk_filter_f32_avx2,
    .filter_f64 = pk_filter_f64_avx2,
    .filter_codes = pk_filter_codes_avx2,
    .compare_i32 = pk_compare_i32_avx2,
    .compare_i64 = pk_compare_i64_avx2,
    /* the writer's encoders (pk_encode_kernels.c) */
    .pack32 = pk_pack32_avx2,
    /* AVX2: the scalar loop (pk_encode_kernels.c) */
    .pack64 = pk_pack64_scalar,
    .rle_scan32 = pk_rle_scan32_avx2,
    .minmax_i32 = pk_minmax_i32_avx2,
    .minmax_i64 = pk_minmax_i64_avx2,
    .minmax_f32 = pk_minmax_f32_avx2,
    .minmax_f64 = pk_minmax_f64_avx2,
    .delta_block64 = pk_delta_block64_avx2,
    .delta_block32 = pk_delta_block32_avx2,
    .hash_fixed32 = pk_hash_fixed32_avx2,
    .hash_fixed64 = pk_hash_fixed64_avx2,
    .hash_short = pk_hash_short_avx2,
};

/* AVX-512 F, BW, VL, DQ where it measured at least as fast as AVX2 on the AVX-512
 * machine of bench/README.md ("AVX-512 kernels", an Intel Xeon); the other fields are
 * the AVX2 ones. Two tables: the one above, and one for AMD's cores (pk_cpu.amd_core)
 * that differs in two families of kernels, each measured on an AMD EPYC (Zen 5):
 * - dictionary gathers beyond two registers by scalar loads instead of vpgatherdd /
 *   vpgatherdq, which are microcoded there (the loads: 1.5x; bench/README.md,
 *   "Dictionary gathers on AMD");
 * - DELTA_BINARY_PACKED decoding and sums by the AVX2 kernels: the AVX-512 ones,
 *   1.06-1.36x AVX2 on the Xeon, were 0.80-0.90x there through the stream
 *   (bench/README.md, "DELTA kernels on AMD"). */
#define PK_AVX512_TABLE(gather32, gather64, delta32, delta64, deltasum) \
    {                                                                                    \
    .level = PK_SIMD_AVX512,                                                         \
    .unpack8 = pk_unpack8_avx512,                                                    \
    .unpack16 = pk_unpack16_avx512,                                                  \
    .unpack32 = pk_unpack32_avx512,                                                  \
    .unpack64 = pk_unpack64_avx512,                                                  \
    .count_eq16 = pk_count_eq16_avx512,                                              \
    .sum01_16 = pk_sum01_16_avx512,                                                  \
    .levels_in_range = pk_levels_in_range_avx512,                                    \
    .def_to_bitmap = pk_def_to_bitmap_avx512,                                        \
    .level_hist16 = pk_level_hist16_avx512,                                          \
    /* DELTA, dictionary and BYTE_STREAM_SPLIT kernels (pk_delta_*.c, pk_dict_*.c, pk_bss_*.c) */ \
    .delta_i32 = delta32,                                                            \
    .delta_i64 = delta64,                                                            \
    .delta_sum = deltasum,                                                           \
    .dict_gather32 = gather32,                                                       \
    .dict_gather64 = gather64,                                                       \
    .bss_decode = pk_bss_decode_avx2,                                                \
    .bss_encode = pk_bss_encode_avx2,                                                \
    /* byte-array lengths (pk_length_kernels.c) */                                   \
    .sum_u32 = pk_sum_u32_avx512,                                                    \
    .dba_chain = pk_dba_chain_avx512,                                                \
    .offsets_bad = pk_offsets_bad_avx512,                                            \
    /* bitmaps and null spreading (pk_bits_*.c) */                                   \
    .copy_bits = pk_copy_bits_avx2,                                                  \
    .count_bits = pk_count_bits_avx2,                                                \
    .count_runs = pk_count_runs_avx2,                                                \
    .spread_bits = pk_spread_bits_avx2,                                              \
    .spread_fixed = pk_spread_fixed_avx2,                                            \
    .compact_fixed = pk_compact_fixed_avx512,                                        \
    .compact_bits = pk_compact_bits_avx2,                                            \
    /* filters of the pushdown scan (pk_filter_kernels.c) */                         \
    .filter_i32 = pk_filter_i32_avx512,                                              \
    .filter_i64 = pk_filter_i64_avx512,                                              \
    .filter_f32 = pk_filter_f32_avx512,                                              \
    .filter_f64 = pk_filter_f64_avx512,                                              \
    .filter_codes = pk_filter_codes_avx512,                                          \
    .compare_i32 = pk_compare_i32_avx512,                                            \
    .compare_i64 = pk_compare_i64_avx512,                                            \
    /* the writer's encoders (pk_encode_kernels.c) */                                \
    .pack32 = pk_pack32_avx512,                                                      \
    .pack64 = pk_pack64_avx512,                                                      \
    .rle_scan32 = pk_rle_scan32_avx2,                                                \
    .minmax_i32 = pk_minmax_i32_avx512,                                              \
    .minmax_i64 = pk_minmax_i64_avx512,                                              \
    .minmax_f32 = pk_minmax_f32_avx2,                                                \
    .minmax_f64 = pk_minmax_f64_avx2,                                                \
    .delta_block64 = pk_delta_block64_avx512,                                        \
    .delta_block32 = pk_delta_block32_avx512,                                        \
    .hash_fixed32 = pk_hash_fixed32_avx512,                                          \
    .hash_fixed64 = pk_hash_fixed64_avx512,                                          \
    .hash_short = pk_hash_short_avx512,                                              \
    }
static const pk_kernels pk_kernels_avx512 =
    PK_AVX512_TABLE(pk_dict_gather32_avx512, pk_dict_gather64_avx512, pk_delta_i32_avx512,
                    pk_delta_i64_avx512, pk_delta_sum_avx512);
static const pk_kernels pk_kernels_avx512_amd =
    PK_AVX512_TABLE(pk_dict_gather32_avx512_loads, pk_dict_gather64_avx512_loads,
                    pk_delta_i32_avx2, pk_delta_i64_avx2, pk_delta_sum_avx2);
#endif

const pk_kernels *pk_kernels_for_cpu(const pk_cpu *cpu) {
#ifdef PK_KERNELS_X86
    if (cpu->level >= PK_SIMD_AVX512 && cpu->amd_core) return &pk_kernels_avx512_amd;
#endif
    return pk_kernels_for(cpu->level);
}

const pk_kernels *pk_kernels_avx512_alternate(const pk_kernels *k) {
#ifdef PK_KERNELS_X86
    if (k == &pk_kernels_avx512) return &pk_kernels_avx512_amd;
    if (k == &pk_kernels_avx512_amd) return &pk_kernels_avx512;
#endif
    (void)k;
    return NULL;
}

const pk_kernels *pk_kernels_for(pk_simd_level level) {
#ifdef PK_KERNELS_X86
    if (level >= PK_SIMD_AVX512) return &pk_kernels_avx512;
    if (level >= PK_SIMD_AVX2) return &pk_kernels_avx2;
#else
    (void)level;
#endif
    return &pk_kernels_scalar;
}

int pk_kernels_available(const pk_kernels **out) {
    int n = 0;
    for (int l = PK_SIMD_SCALAR; l <= PK_SIMD_AVX512; l++) {
        pk_cpu cpu;
        pk_cpu_detect_capped(&cpu, (pk_simd_level)l);
        const pk_kernels *k = pk_kernels_for_cpu(&cpu);
        if (n == 0 || out[n - 1] != k) out[n++] = k;
    }
    return n;
}
