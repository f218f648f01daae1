/*
 * pk_decode_kernels.h: value-decoding kernels for DELTA_BINARY_PACKED,
 * dictionary gathers and BYTE_STREAM_SPLIT, one scalar and one AVX2 version
 * of each, and AVX-512 versions of the DELTA and gather kernels (the vector ones
 * exist only on x86 builds; PK_HAVE_X86_KERNELS says so). The dispatch table
 * in pk_kernels.h points at them; the scalar decoders in src/encoding/ stay
 * the reference they are tested against.
 *
 * Contracts (all kernels): inputs are trusted to have been bounds-checked by
 * the caller as each function states; outputs are written unaligned, so `out`
 * may have any alignment. Nothing is allocated.
 *
 * Depends on: common.
 */
#ifndef PK_DECODE_KERNELS_H
#define PK_DECODE_KERNELS_H

#include "../common/pk_common.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define PK_HAVE_X86_KERNELS 1
#endif

/* ---- DELTA_BINARY_PACKED miniblock groups ------------------------------------------ */

/* The delta kernels decode `minis` consecutive miniblocks of `groups` groups
 * of 32 values each; miniblock m has widths[m] bits per value (0..64,
 * checked by the caller) and is packed LSB-first in groups*4*widths[m] bytes
 * right after the previous one (a group is exactly 4*bw bytes). The values
 * are running sums: value = previous + min_delta + packed delta, starting
 * from `last`; they return the last value written. _i32 wraps at 32 bits
 * (the low 32 bits of each packed delta are used, so widths 33..64 of INT32
 * columns decode as the reference does), _i64 at 64 bits.
 * They may read up to PK_DELTA_KERNEL_SLACK bytes past the last group: the
 * caller guarantees those bytes are inside its buffer (or copies the group). */
#define PK_DELTA_KERNEL_SLACK 16
#define PK_DELTA_GROUP 32

typedef uint32_t (*pk_delta_i32_fn)(const uint8_t *in, const uint8_t *widths, size_t minis,
                                    size_t groups, uint32_t min_delta, uint32_t last,
                                    uint8_t *out);
typedef uint64_t (*pk_delta_i64_fn)(const uint8_t *in, const uint8_t *widths, size_t minis,
                                    size_t groups, uint64_t min_delta, uint64_t last,
                                    uint8_t *out);

/* The sum, wrapping at 64 bits, of the packed values of the miniblocks (as
 * the delta kernels take them, with the same slack past the last group):
 * the running value after them is the value before plus their count times
 * min_delta plus this sum, so a reader that passes over the run needs no
 * prefix sum and writes nothing. */
typedef uint64_t (*pk_delta_sum_fn)(const uint8_t *in, const uint8_t *widths, size_t minis,
                                    size_t groups);

uint64_t pk_delta_sum_scalar(const uint8_t *in, const uint8_t *widths, size_t minis,
                             size_t groups);
uint32_t pk_delta_i32_scalar(const uint8_t *in, const uint8_t *widths, size_t minis,
                             size_t groups, uint32_t min_delta, uint32_t last, uint8_t *out);
uint64_t pk_delta_i64_scalar(const uint8_t *in, const uint8_t *widths, size_t minis,
                             size_t groups, uint64_t min_delta, uint64_t last, uint8_t *out);
#ifdef PK_HAVE_X86_KERNELS
uint32_t pk_delta_i32_avx2(const uint8_t *in, const uint8_t *widths, size_t minis,
                           size_t groups, uint32_t min_delta, uint32_t last, uint8_t *out);
uint64_t pk_delta_i64_avx2(const uint8_t *in, const uint8_t *widths, size_t minis,
                           size_t groups, uint64_t min_delta, uint64_t last, uint8_t *out);
uint64_t pk_delta_sum_avx2(const uint8_t *in, const uint8_t *widths, size_t minis,
                           size_t groups);
uint64_t pk_delta_sum_avx512(const uint8_t *in, const uint8_t *widths, size_t minis,
                             size_t groups);
uint32_t pk_delta_i32_avx512(const uint8_t *in, const uint8_t *widths, size_t minis,
                             size_t groups, uint32_t min_delta, uint32_t last, uint8_t *out);
uint64_t pk_delta_i64_avx512(const uint8_t *in, const uint8_t *widths, size_t minis,
                             size_t groups, uint64_t min_delta, uint64_t last, uint8_t *out);
#endif

/* ---- Dictionary gather ------------------------------------------------------------- */

/* out[i] = dict[idx[i]] for n values of 4 (gather32) or 8 (gather64) bytes.
 * Returns false, with out unspecified, if any idx[i] >= count (the caller
 * finds the culprit for its message); dict is never read out of range. */
typedef bool (*pk_dict_gather_fn)(const uint8_t *dict, int64_t count, const uint32_t *idx,
                                  size_t n, uint8_t *out);

bool pk_dict_gather32_scalar(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                             uint8_t *out);
bool pk_dict_gather64_scalar(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                             uint8_t *out);
#ifdef PK_HAVE_X86_KERNELS
bool pk_dict_gather32_avx2(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                           uint8_t *out);
bool pk_dict_gather64_avx2(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                           uint8_t *out);
bool pk_dict_gather32_avx512(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                             uint8_t *out);
bool pk_dict_gather64_avx512(const uint8_t *dict, int64_t count, const uint32_t *idx, size_t n,
                             uint8_t *out);
/* The same, with scalar loads instead of vpgatherdd / vpgatherdq for dictionaries
 * beyond two registers (CPUs with slow gathers: AMD's, pk_cpu.amd_core). */
bool pk_dict_gather32_avx512_loads(const uint8_t *dict, int64_t count, const uint32_t *idx,
                                   size_t n, uint8_t *out);
bool pk_dict_gather64_avx512_loads(const uint8_t *dict, int64_t count, const uint32_t *idx,
                                   size_t n, uint8_t *out);
#endif

/* ---- BYTE_STREAM_SPLIT ------------------------------------------------------------- */

/* Decode: value i, byte b is src[b * stride + i], for i < n, b < width;
 * writes n * width bytes to out. The caller guarantees
 * (width - 1) * stride + n bytes at src. */
typedef void (*pk_bss_decode_fn)(const uint8_t *src, size_t stride, size_t width, size_t n,
                                 uint8_t *out);
void pk_bss_decode_scalar(const uint8_t *src, size_t stride, size_t width, size_t n,
                          uint8_t *out);
#ifdef PK_HAVE_X86_KERNELS
void pk_bss_decode_avx2(const uint8_t *src, size_t stride, size_t width, size_t n, uint8_t *out);
#endif
/* Encode (for the writer): the inverse, n values of width bytes from src
 * into width streams of stride (>= n) bytes at out. */
void pk_bss_encode(const uint8_t *src, size_t width, size_t n, size_t stride, uint8_t *out);
#ifdef PK_HAVE_X86_KERNELS
void pk_bss_encode_avx2(const uint8_t *src, size_t width, size_t n, size_t stride,
                        uint8_t *out);
#endif

#endif /* PK_DECODE_KERNELS_H */
