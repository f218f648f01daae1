/* arrow_build.h: hand-built ArrowSchemas and ArrowArrays for tests, from a
 * static pool (pool_reset() between cases). S() makes a schema node, A() an
 * array with up to three buffers and children; nothing is released. Used by
 * test_arrow_import.c and test_arrow_write.c. */
#ifndef ARROW_BUILD_H
#define ARROW_BUILD_H

#include <stdint.h>
#include <string.h>

#include "plank.h"

typedef struct tsch {
    struct ArrowSchema s;
    struct ArrowSchema *kids[4];
} tsch;
typedef struct tarr {
    struct ArrowArray a;
    const void *bufs[6];
    struct ArrowArray *kids[4];
} tarr;

static tsch g_s[64];
static tarr g_a[64];
static int g_ns, g_na;

static inline void pool_reset(void) {
    memset(g_s, 0, sizeof g_s);
    memset(g_a, 0, sizeof g_a);
    g_ns = g_na = 0;
}

#define NUL ARROW_FLAG_NULLABLE

/* A schema node with up to 3 children (NULL-terminated). */
static inline struct ArrowSchema *S(const char *fmt, const char *name, int64_t flags,
                             struct ArrowSchema *c0, struct ArrowSchema *c1,
                             struct ArrowSchema *c2) {
    tsch *t = &g_s[g_ns++];
    t->s.format = fmt;
    t->s.name = name;
    t->s.flags = flags;
    struct ArrowSchema *c[3] = {c0, c1, c2};
    for (int i = 0; i < 3 && c[i]; i++) t->kids[t->s.n_children++] = c[i];
    t->s.children = t->kids;
    return &t->s;
}
#define S0(f, n, fl) S(f, n, fl, NULL, NULL, NULL)

/* An array: length, offset, null_count, n_buffers, buffers b0..b2, children. */
static inline struct ArrowArray *A(int64_t len, int64_t off, int64_t nulls, int nb, const void *b0,
                            const void *b1, const void *b2, struct ArrowArray *c0,
                            struct ArrowArray *c1, struct ArrowArray *c2) {
    tarr *t = &g_a[g_na++];
    t->a.length = len;
    t->a.offset = off;
    t->a.null_count = nulls;
    t->a.n_buffers = nb;
    t->bufs[0] = b0;
    t->bufs[1] = b1;
    t->bufs[2] = b2;
    t->a.buffers = t->bufs;
    struct ArrowArray *c[3] = {c0, c1, c2};
    for (int i = 0; i < 3 && c[i]; i++) t->kids[t->a.n_children++] = c[i];
    t->a.children = t->kids;
    return &t->a;
}
/* A struct array (validity only). */
#define STRUCT(len, off, nulls, valid, c0, c1, c2) A(len, off, nulls, 1, valid, NULL, NULL, c0, c1, c2)
#define PRIM(len, off, nulls, valid, vals) A(len, off, nulls, 2, valid, vals, NULL, NULL, NULL, NULL)

static inline uint8_t bits(const char *s) { /* "1011" -> bit i = s[i] */
    uint8_t b = 0;
    for (int i = 0; s[i]; i++)
        if (s[i] == '1') b |= (uint8_t)(1u << i);
    return b;
}

#endif
