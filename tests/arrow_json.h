/* arrow_json.h: an independent walker over exported Arrow arrays that writes
 * one row as JSON the way DuckDB's getRowsJson does (BIGINT as strings,
 * INTEGER/DOUBLE as numbers, structs as objects, lists as arrays, maps as
 * arrays of {"key","value"}). It reads only the Arrow C Data Interface
 * structs, so it checks the export, not plank's internals. Used by
 * test_nested.c and test_arrow.c. */
#ifndef ARROW_JSON_H
#define ARROW_JSON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plank.h"

typedef struct aj_buf {
    char *p;
    size_t n, cap;
} aj_buf;

static void aj_put(aj_buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->n + n + 1) cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) abort();
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void aj_str(aj_buf *b, const char *s) { aj_put(b, s, strlen(s)); }
static void aj_fmt(aj_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void aj_fmt(aj_buf *b, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    aj_put(b, tmp, (size_t)k);
}

static void aj_quoted(aj_buf *b, const unsigned char *s, int64_t n) {
    aj_str(b, "\"");
    for (int64_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') aj_fmt(b, "\\%c", c);
        else if (c < 0x20) aj_fmt(b, "\\u%04x", c);
        else aj_put(b, (const char *)&c, 1);
    }
    aj_str(b, "\"");
}

static int aj_valid(const struct ArrowArray *a, int64_t i) {
    if (a->n_buffers == 0) return 0; /* null type */
    const unsigned char *v = a->buffers[0];
    if (!v || a->null_count == 0) return 1;
    return (v[i >> 3] >> (i & 7)) & 1;
}

static void aj_value(aj_buf *b, const struct ArrowSchema *s, const struct ArrowArray *a,
                     int64_t i) {
    i += a->offset;
    const char *f = s->format;
    if (!aj_valid(a, i)) {
        aj_str(b, "null");
        return;
    }
    if (s->dictionary) {
        /* A dictionary-encoded array: the entry its int32 index names. */
        int32_t ix = ((const int32_t *)a->buffers[1])[i];
        if (ix < 0 || ix >= a->dictionary->length) {
            aj_fmt(b, "\"<index %d of %lld>\"", (int)ix, (long long)a->dictionary->length);
            return;
        }
        aj_value(b, s->dictionary, a->dictionary, ix);
        return;
    }
    if (f[0] == '+' && f[1] == 's') {
        aj_str(b, "{");
        for (int64_t k = 0; k < s->n_children; k++) {
            if (k) aj_str(b, ",");
            aj_quoted(b, (const unsigned char *)s->children[k]->name,
                      (int64_t)strlen(s->children[k]->name));
            aj_str(b, ":");
            aj_value(b, s->children[k], a->children[k], i);
        }
        aj_str(b, "}");
        return;
    }
    if (f[0] == '+' && (f[1] == 'l' || f[1] == 'm')) {
        const int32_t *o = a->buffers[1];
        aj_str(b, "[");
        for (int32_t j = o[i]; j < o[i + 1]; j++) {
            if (j > o[i]) aj_str(b, ",");
            aj_value(b, s->children[0], a->children[0], j);
        }
        aj_str(b, "]");
        return;
    }
    if (f[0] == '+' && (f[1] == 'L' || f[1] == 'w')) { /* large and fixed-size lists */
        int64_t from, to;
        if (f[1] == 'L') {
            from = ((const int64_t *)a->buffers[1])[i];
            to = ((const int64_t *)a->buffers[1])[i + 1];
        } else {
            int64_t n = atoll(f + 3);
            from = i * n;
            to = from + n;
        }
        aj_str(b, "[");
        for (int64_t j = from; j < to; j++) {
            if (j > from) aj_str(b, ",");
            aj_value(b, s->children[0], a->children[0], j);
        }
        aj_str(b, "]");
        return;
    }
    const void *d = a->buffers[1];
    /* Types DuckDB's JSON has no say in: large strings as strings, times as
     * integers, fixed-width binaries, float16 and decimals as hex bytes. */
    int hex = f[0] == 'w' ? atoi(f + 2) : f[0] == 'e' ? 2 : f[0] == 'd' ? (strstr(f, ",256") ? 32 : 16) : 0;
    if (hex) {
        const unsigned char *p = (const unsigned char *)d + i * hex;
        aj_str(b, "\"");
        for (int k = 0; k < hex; k++) aj_fmt(b, "%02x", p[k]);
        aj_str(b, "\"");
        return;
    }
    if (!strcmp(f, "U") || !strcmp(f, "Z")) {
        const int64_t *o = d;
        aj_quoted(b, (const unsigned char *)a->buffers[2] + o[i], o[i + 1] - o[i]);
        return;
    }
    if (!strcmp(f, "ttm")) {
        aj_fmt(b, "%d", ((const int32_t *)d)[i]);
        return;
    }
    if (!strcmp(f, "ttu") || !strcmp(f, "ttn")) {
        aj_fmt(b, "\"%lld\"", (long long)((const int64_t *)d)[i]);
        return;
    }
    if (!strcmp(f, "b")) aj_str(b, (((const unsigned char *)d)[i >> 3] >> (i & 7)) & 1 ? "true" : "false");
    else if (!strcmp(f, "c")) aj_fmt(b, "%d", ((const int8_t *)d)[i]);
    else if (!strcmp(f, "C")) aj_fmt(b, "%u", ((const uint8_t *)d)[i]);
    else if (!strcmp(f, "s")) aj_fmt(b, "%d", ((const int16_t *)d)[i]);
    else if (!strcmp(f, "S")) aj_fmt(b, "%u", ((const uint16_t *)d)[i]);
    else if (!strcmp(f, "i") || !strcmp(f, "tdD")) aj_fmt(b, "%d", ((const int32_t *)d)[i]);
    else if (!strcmp(f, "I")) aj_fmt(b, "%u", ((const uint32_t *)d)[i]);
    else if (!strcmp(f, "l") || !strncmp(f, "ts", 2)) aj_fmt(b, "\"%lld\"", (long long)((const int64_t *)d)[i]);
    else if (!strcmp(f, "L")) aj_fmt(b, "\"%llu\"", (unsigned long long)((const uint64_t *)d)[i]);
    else if (!strcmp(f, "f")) aj_fmt(b, "%.9g", (double)((const float *)d)[i]);
    else if (!strcmp(f, "g")) {
        double x = ((const double *)d)[i];
        char tmp[40];
        snprintf(tmp, sizeof tmp, "%.15g", x);
        if (strtod(tmp, NULL) != x) snprintf(tmp, sizeof tmp, "%.17g", x);
        aj_str(b, tmp);
    } else if (!strcmp(f, "u") || !strcmp(f, "z")) {
        const int32_t *o = a->buffers[1];
        const unsigned char *data = a->buffers[2];
        aj_quoted(b, data + o[i], o[i + 1] - o[i]);
    } else {
        aj_fmt(b, "\"<%s>\"", f);
    }
}

/* Row i of a top-level struct array as a JSON array of its columns. */
static void aj_row(aj_buf *b, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i) {
    aj_str(b, "[");
    for (int64_t k = 0; k < s->n_children; k++) {
        if (k) aj_str(b, ",");
        aj_value(b, s->children[k], a->children[k], i);
    }
    aj_str(b, "]");
}

#endif
