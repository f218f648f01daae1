/* The parts of the remote module that need no network: options, URL
 * recognition and the merging of ranges into requests. */
#include <stdlib.h>
#include <string.h>

#include "../common/pk_common.h"
#include "pk_remote.h"

void pk_remote_options_default(plank_remote_options *o) {
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->verify_tls = true;
    o->prefetch = true;
    o->max_requests = 8;
    o->coalesce_gap = (uint64_t)1 << 20;
    o->max_request_size = (uint64_t)16 << 20;
    o->footer_read = 64 << 10;
    o->max_cache = (uint64_t)256 << 20;
    o->max_retries = 4;
    o->retry_delay_ms = 100;
    o->connect_timeout_ms = 10000;
    o->stall_timeout_ms = 30000;
}

void plank_remote_options_init(plank_remote_options *opts) {
    if (opts) pk_remote_options_default(opts);
}

static bool has_prefix_ci(const char *s, const char *p) {
    for (; *p; s++, p++) {
        char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
        if (c != *p) return false;
    }
    return true;
}

bool plank_is_url(const char *path) {
    return path && (has_prefix_ci(path, "http://") || has_prefix_ci(path, "https://") ||
                    has_prefix_ci(path, "s3://"));
}

static int cmp_range(const void *a, const void *b) {
    const pk_byte_range *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->length < y->length ? -1 : x->length > y->length;
}

/* Emits [off, end) cut into equal pieces of at most max_size. */
static size_t emit(uint64_t off, uint64_t end, uint64_t max_size, pk_byte_range *out,
                   size_t out_cap, size_t k) {
    uint64_t len = end - off;
    uint64_t pieces = max_size ? (len + max_size - 1) / max_size : 1;
    if (pieces == 0) pieces = 1;
    uint64_t step = (len + pieces - 1) / pieces;
    for (uint64_t p = off; p < end; p += step) {
        if (k < out_cap) out[k] = (pk_byte_range){p, end - p < step ? end - p : step};
        k++;
    }
    return k;
}

size_t pk_coalesce_ranges(pk_byte_range *in, size_t n, uint64_t gap, uint64_t max_size,
                          pk_byte_range *out, size_t out_cap) {
    if (n == 0) return 0;
    qsort(in, n, sizeof *in, cmp_range);
    size_t k = 0;
    bool open = false, has_gap = false;
    uint64_t cur = 0, end = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t o = in[i].offset, e = o + in[i].length;
        if (in[i].length == 0 || e < o) continue;
        if (open) {
            uint64_t merged_end = e > end ? e : end;
            bool fits = max_size == 0 || merged_end - cur <= max_size;
            if (o <= end) {
                /* Overlapping or adjacent: one request, cut later if long.
                 * A run bridging gaps is never cut (it fits by construction),
                 * so a piece never holds gap bytes alone: past the limit,
                 * the new bytes start a run of their own. */
                if (!has_gap || fits) {
                    end = merged_end;
                    continue;
                }
                k = emit(cur, end, max_size, out, out_cap, k);
                cur = end;
                end = merged_end;
                has_gap = false;
                continue;
            }
            if (o - end <= gap && fits) {
                end = merged_end;
                has_gap = true;
                continue;
            }
            k = emit(cur, end, max_size, out, out_cap, k);
        }
        open = true;
        has_gap = false;
        cur = o;
        end = e;
    }
    if (open) k = emit(cur, end, max_size, out, out_cap, k);
    return k;
}

bool pk_range_list_add(pk_range_list *l, uint64_t offset, uint64_t length) {
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 32;
        pk_byte_range *p = pk_realloc(l->a, l->r, l->cap * sizeof *p, nc * sizeof *p);
        if (!p) return false;
        l->r = p;
        l->cap = nc;
    }
    l->r[l->n++] = (pk_byte_range){offset, length};
    return true;
}

void pk_range_list_free(pk_range_list *l) {
    if (l->r) pk_free(l->a, l->r, l->cap * sizeof *l->r);
    l->r = NULL;
    l->n = l->cap = 0;
}
