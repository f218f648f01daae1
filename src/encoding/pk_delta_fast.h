/*
 * pk_delta_fast.h: batched DELTA_BINARY_PACKED reads through the kernel table
 * (src/simd/pk_kernels.h). The per-value pk_delta_get of pk_encoding.h stays
 * the scalar reference these are tested against.
 *
 * Hostile-input contract: as pk_delta_get (every block header and miniblock
 * is checked before use; bad input gives PLANK_ERR_CORRUPT). The kernels may
 * read a few bytes past a group of 32 values; these functions let them do so
 * only when the bytes are inside the buffer given to pk_delta_init, and
 * otherwise hand them a padded copy of the group, so no padding after the
 * page is assumed.
 */
#ifndef PK_DELTA_FAST_H
#define PK_DELTA_FAST_H

#include "pk_encoding.h"

struct pk_kernels;

/* Decodes n values of an INT32 stream (_i32: 4 bytes each) or an INT64
 * stream (_i64: 8 bytes each) to out, which may be unaligned. k NULL uses the
 * scalar reference. Reading an INT64 stream with _i32 or the reverse is
 * PLANK_ERR_INVALID_ARGUMENT. */
plank_status pk_delta_read_i32(pk_delta_decoder *d, const struct pk_kernels *k, uint8_t *out,
                               int64_t n, plank_error *err);
plank_status pk_delta_read_i64(pk_delta_decoder *d, const struct pk_kernels *k, uint8_t *out,
                               int64_t n, plank_error *err);
/* As pk_delta_read_i32/_i64 (4 or 8 bytes per value as the stream's type),
 * for a caller that drops every value outside [bound->lo, bound->hi]: a run
 * whose range (from the value before it, the min delta and the bit width)
 * lies outside is not decoded, only its packed values summed to carry the
 * last value on, and its slots get a value of that range instead of their
 * own (also outside the interval). Runs are whole blocks, checked as the
 * read reaches them, and the groups of a miniblock read in a piece (a
 * block partly inside is checked miniblock by miniblock once a run of this
 * bound has been passed over: bound->runs). The other values are exact.
 * k NULL: the scalar reference, every value decoded. */
plank_status pk_delta_read_bounded(pk_delta_decoder *d, const struct pk_kernels *k,
                                   uint8_t *out, int64_t n, pk_delta_bound *bound,
                                   plank_error *err);
/* As pk_delta_read_bounded (bound may be NULL), for a caller that needs
 * only the values whose bit (bit + i) of live is set: a whole block
 * without one is not decoded, only its packed values summed, and its slots
 * get 0. live must be readable 8 bytes past its last bit. k NULL: the
 * scalar reference, every value decoded. */
plank_status pk_delta_read_live(pk_delta_decoder *d, const struct pk_kernels *k, uint8_t *out,
                                int64_t n, pk_delta_bound *bound, const uint8_t *live,
                                int64_t bit, plank_error *err);
/* Passes over n values through the kernels: whole blocks and groups are
 * summed (the delta_sum kernel), not decoded. */
plank_status pk_delta_skip_k(pk_delta_decoder *d, const struct pk_kernels *k, int64_t n,
                             plank_error *err);

#endif /* PK_DELTA_FAST_H */
