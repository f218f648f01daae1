/* pk_remote.h: files read by HTTP range requests (http://, https://, s3://).
 *
 * The module sits below the reader (common -> remote -> read): it knows
 * byte ranges, not Parquet. A pk_remote is one remote file: its size and
 * identity (ETag / Last-Modified) fixed by the first response, a cache of
 * ranges fetched ahead by a background thread (pk_remote_prefetch), and
 * blocking reads (pk_remote_read) served from that cache or fetched on the
 * calling thread. Every function is thread-safe. Built without libcurl,
 * pk_remote_open fails with PLANK_ERR_UNSUPPORTED and the rest is never
 * reached. */
#ifndef PK_REMOTE_H
#define PK_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plank.h"

typedef plank_byte_range pk_byte_range;

/* Turns the ranges in[0..n) (any order; they may overlap; sorted in place)
 * into requests, in order and disjoint: ranges at most `gap` apart merge
 * while the merged request stays within `max_size` (0: no limit);
 * overlapping or adjacent ranges always merge, and such a request longer
 * than `max_size` is cut into equal pieces no longer than it. No request
 * starts or ends on a byte no range asked for. Empty ranges are dropped. Writes at most out_cap requests and
 * returns how many there are (call again with room for all of them). */
size_t pk_coalesce_ranges(pk_byte_range *in, size_t n, uint64_t gap, uint64_t max_size,
                          pk_byte_range *out, size_t out_cap);

/* A growable list of ranges to announce (allocated through a). */
typedef struct pk_range_list {
    const plank_allocator *a;
    pk_byte_range *r;
    size_t n, cap;
} pk_range_list;
/* Appends; false when out of memory (the list keeps what it had). */
bool pk_range_list_add(pk_range_list *l, uint64_t offset, uint64_t length);
void pk_range_list_free(pk_range_list *l);

typedef struct pk_remote pk_remote;

/* Opens url (plank_is_url) with options o (already defaulted), allocating
 * through a. Costs one round trip: the tail and the first bytes. */
plank_status pk_remote_open(pk_remote **out, const char *url, const plank_remote_options *o,
                            const plank_allocator *a, plank_error *err);
uint64_t pk_remote_size(const pk_remote *rm);
/* Reads exactly len bytes at offset (within the size). */
plank_status pk_remote_read(pk_remote *rm, uint64_t offset, void *buf, size_t len,
                            plank_error *err);
/* Announces ranges about to be read: fetched ahead, merged, in parallel
 * (nothing when the options turned prefetching off or the cache is full). */
void pk_remote_prefetch(pk_remote *rm, const pk_byte_range *ranges, size_t n);
void pk_remote_stats(pk_remote *rm, plank_io_stats *out);
void pk_remote_close(pk_remote *rm);

/* plank_remote_options_init's values, for callers inside plank. */
void pk_remote_options_default(plank_remote_options *o);

#endif
