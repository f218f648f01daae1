/*
 * enc_ref.h: small, deliberately naive reference ENCODERS for the encoding
 * tests (bit by bit, written from Encodings.md independently of the decoders
 * under test), plus a seeded random generator. Everything is static inline so
 * each test program uses what it needs.
 */
#ifndef ENC_REF_H
#define ENC_REF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Random ---------------------------------------------------------------- */

typedef struct { uint64_t s; } ref_rng;

static inline uint64_t ref_next(ref_rng *r) {
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
static inline uint64_t ref_below(ref_rng *r, uint64_t n) { return n ? ref_next(r) % n : 0; }
static inline uint64_t ref_mask(int bw) {
    return bw >= 64 ? UINT64_MAX : (UINT64_C(1) << bw) - 1;
}

/* ---- Byte / bit output ------------------------------------------------------ */

typedef struct {
    uint8_t *data;
    size_t size, cap;
    uint64_t bits; /* bits written in the current bit-packed section */
} ref_out;

static inline void ref_byte(ref_out *o, uint8_t b) {
    if (o->size == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->data = realloc(o->data, o->cap);
        if (!o->data) abort();
    }
    o->data[o->size++] = b;
}
static inline void ref_bytes(ref_out *o, const void *p, size_t n) {
    for (size_t i = 0; i < n; i++) ref_byte(o, ((const uint8_t *)p)[i]);
}
static inline void ref_u32le(ref_out *o, uint32_t v) {
    for (int i = 0; i < 4; i++) ref_byte(o, (uint8_t)(v >> (8 * i)));
}
static inline void ref_uleb(ref_out *o, uint64_t v) {
    while (v >= 0x80) {
        ref_byte(o, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    ref_byte(o, (uint8_t)v);
}
static inline void ref_zigzag(ref_out *o, uint64_t v) {
    ref_uleb(o, (v << 1) ^ (0 - (v >> 63)));
}
/* Starts an LSB-first bit section at the current byte. */
static inline void ref_bits_begin(ref_out *o) { o->bits = 0; }
/* One bit at a time, LSB first within each byte. */
static inline void ref_bits_lsb(ref_out *o, uint64_t v, int bw) {
    for (int i = 0; i < bw; i++) {
        if (o->bits % 8 == 0) ref_byte(o, 0);
        if ((v >> i) & 1) o->data[o->size - 1] |= (uint8_t)(1u << (o->bits % 8));
        o->bits++;
    }
}
/* MSB-first (deprecated BIT_PACKED levels). */
static inline void ref_bits_msb(ref_out *o, uint64_t v, int bw) {
    for (int i = bw - 1; i >= 0; i--) {
        if (o->bits % 8 == 0) ref_byte(o, 0);
        if ((v >> i) & 1) o->data[o->size - 1] |= (uint8_t)(0x80u >> (o->bits % 8));
        o->bits++;
    }
}

/* ---- RLE / bit-packed hybrid -------------------------------------------------- */

/* Encodes n values of bw bits as a random mix of RLE runs (always for long
 * equal stretches when rle_ok, split at random points) and bit-packed runs of
 * 1..4 groups; the padding of the last group is random bits. */
static inline void ref_hybrid(ref_out *o, const uint32_t *v, size_t n, int bw, ref_rng *r) {
    size_t i = 0;
    while (i < n) {
        size_t run = 1;
        while (i + run < n && v[i + run] == v[i]) run++;
        if (run >= 8 || (run >= 2 && ref_below(r, 4) == 0)) {
            size_t take = run;
            if (take > 9 && ref_below(r, 3) == 0) take = 1 + ref_below(r, take - 1);
            ref_uleb(o, (uint64_t)take << 1);
            for (int b = 0; b < (bw + 7) / 8; b++) ref_byte(o, (uint8_t)(v[i] >> (8 * b)));
            i += take;
        } else {
            size_t groups = 1 + ref_below(r, 4);
            ref_uleb(o, ((uint64_t)groups << 1) | 1);
            ref_bits_begin(o);
            for (size_t j = 0; j < groups * 8; j++) {
                uint64_t x = i + j < n ? v[i + j] : ref_next(r) & ref_mask(bw);
                ref_bits_lsb(o, x, bw);
            }
            i += groups * 8;
        }
    }
}

/* Random values of bw bits with runs of repeats of random lengths. */
static inline void ref_fill_runs(uint32_t *v, size_t n, int bw, ref_rng *r) {
    size_t i = 0;
    while (i < n) {
        uint32_t x = (uint32_t)(ref_next(r) & ref_mask(bw));
        size_t len = ref_below(r, 2) ? 1 : 1 + ref_below(r, 40);
        for (size_t j = 0; j < len && i < n; j++, i++) v[i] = ref_below(r, 8) ? x : (uint32_t)(ref_next(r) & ref_mask(bw));
    }
}

/* ---- DELTA_BINARY_PACKED ------------------------------------------------------- */

typedef struct {
    unsigned block, minis;
    bool delta64;          /* INT32 only: deltas of sign-extended values in 64 bits
                              (up to 33-bit widths), else in 32-bit arithmetic */
    bool is64;             /* INT64 values */
    int min_bw;            /* miniblock widths are at least this (if the miniblock has values) */
    bool garbage_widths;   /* widths of unused trailing miniblocks are 0xEE */
    bool truncate_last;    /* omit the padding bytes of the last miniblock */
    bool garbage_padding;  /* padding values of the last miniblock are random */
} ref_delta_opts;

static inline bool ref_slt(uint64_t a, uint64_t b) {
    return (a ^ (UINT64_C(1) << 63)) < (b ^ (UINT64_C(1) << 63));
}
static inline int ref_width(uint64_t v) {
    int w = 0;
    while (v) {
        w++;
        v >>= 1;
    }
    return w;
}

/* v holds INT64 bit patterns, or INT32 values sign-extended. */
static inline void ref_delta(ref_out *o, const uint64_t *v, size_t n, const ref_delta_opts *op,
                             ref_rng *r) {
    uint64_t m32 = op->is64 || op->delta64 ? UINT64_MAX : 0xFFFFFFFFu;
    ref_uleb(o, op->block);
    ref_uleb(o, op->minis);
    ref_uleb(o, n);
    uint64_t first = n ? v[0] : 0;
    if (!op->is64) first = (uint64_t)(int64_t)(int32_t)(uint32_t)first;
    ref_zigzag(o, first);
    unsigned vpm = op->block / op->minis;
    uint64_t *rel = malloc(sizeof(uint64_t) * op->block);
    if (!rel) abort();
    for (size_t i = 1; i < n; i += op->block) {
        size_t cnt = n - i < op->block ? n - i : op->block;
        uint64_t mn = 0;
        for (size_t j = 0; j < cnt; j++) {
            uint64_t d = (v[i + j] - v[i + j - 1]) & m32;
            if (!op->is64 && !op->delta64) d = (uint64_t)(int64_t)(int32_t)(uint32_t)d;
            rel[j] = d;
            if (j == 0 || ref_slt(d, mn)) mn = d;
        }
        ref_zigzag(o, mn);
        int widths[64];
        unsigned used = (unsigned)((cnt + vpm - 1) / vpm);
        for (unsigned m = 0; m < op->minis; m++) {
            int w = 0;
            for (size_t j = (size_t)m * vpm; j < (size_t)(m + 1) * vpm && j < cnt; j++) {
                uint64_t x = (rel[j] - mn) & m32;
                if (!op->is64 && !op->delta64) x &= 0xFFFFFFFFu;
                if (ref_width(x) > w) w = ref_width(x);
            }
            if (m < used && w < op->min_bw) w = op->min_bw;
            widths[m] = m < used ? w : (op->garbage_widths ? 0xEE : 0);
            ref_byte(o, (uint8_t)widths[m]);
        }
        for (unsigned m = 0; m < used; m++) {
            ref_bits_begin(o);
            for (size_t j = (size_t)m * vpm; j < (size_t)(m + 1) * vpm; j++) {
                if (j < cnt) {
                    uint64_t x = (rel[j] - mn) & m32;
                    if (!op->is64 && !op->delta64) x &= 0xFFFFFFFFu;
                    ref_bits_lsb(o, x, widths[m]);
                } else if (op->truncate_last) {
                    break;
                } else {
                    ref_bits_lsb(o, op->garbage_padding ? ref_next(r) : 0, widths[m]);
                }
            }
        }
    }
    free(rel);
}

/* DELTA_LENGTH_BYTE_ARRAY of n strings (lengths as INT32 deltas). */
static inline void ref_delta_length(ref_out *o, const char *const *s, const size_t *len, size_t n,
                                    ref_rng *r) {
    uint64_t *l = calloc(n ? n : 1, sizeof(uint64_t));
    if (!l) abort();
    for (size_t i = 0; i < n; i++) l[i] = len[i];
    ref_delta_opts op = {128, 4, false, false, 0, false, false, false};
    ref_delta(o, l, n, &op, r);
    for (size_t i = 0; i < n; i++) ref_bytes(o, s[i], len[i]);
    free(l);
}

/* DELTA_BYTE_ARRAY: prefix lengths shared with the previous string, then the
 * suffixes as DELTA_LENGTH_BYTE_ARRAY. */
static inline void ref_delta_byte_array(ref_out *o, const char *const *s, const size_t *len,
                                        size_t n, ref_rng *r) {
    uint64_t *pre = calloc(n ? n : 1, sizeof(uint64_t));
    const char **suf = malloc(sizeof(char *) * (n ? n : 1));
    size_t *suflen = malloc(sizeof(size_t) * (n ? n : 1));
    if (!pre || !suf || !suflen) abort();
    for (size_t i = 0; i < n; i++) {
        size_t p = 0;
        if (i > 0)
            while (p < len[i] && p < len[i - 1] && s[i][p] == s[i - 1][p]) p++;
        pre[i] = p;
        suf[i] = s[i] + p;
        suflen[i] = len[i] - p;
    }
    ref_delta_opts op = {128, 4, false, false, 0, false, false, false};
    ref_delta(o, pre, n, &op, r);
    ref_delta_length(o, suf, suflen, n, r);
    free(pre);
    free(suf);
    free(suflen);
}

#endif /* ENC_REF_H */
