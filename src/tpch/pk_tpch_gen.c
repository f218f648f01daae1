/*
 * pk_tpch_gen.c: the TPC-H row generators (dbgen 2.17.3's build.c, rnd.c,
 * text.c and bm_utils.c re-derived: same streams, same draws, same
 * arithmetic), the text pool, and the .tbl formatter.
 */
#define _DEFAULT_SOURCE /* madvise */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "../common/pk_common.h" /* pk_populate_write */
#include "pk_tpch.h"
#include "pk_tpch_rng.h"

/* ---- allocation and errors ----------------------------------------------- */

static void *default_realloc(void *opaque, void *ptr, size_t old_size, size_t new_size) {
    (void)opaque;
    (void)old_size;
    return realloc(ptr, new_size);
}
static void default_free(void *opaque, void *ptr, size_t size) {
    (void)opaque;
    (void)size;
    free(ptr);
}

void *pk_tpch_alloc(const plank_allocator *a, size_t n) {
    return n ? a->reallocate(a->opaque, NULL, 0, n) : NULL;
}
void pk_tpch_free(const plank_allocator *a, void *p, size_t n) {
    if (p) a->free(a->opaque, p, n);
}

plank_status pk_tpch_fail(plank_error *err, plank_status code, const char *fmt, ...) {
    if (err) {
        plank_error_init(err);
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---- the random streams (rnd.c, speed_seed.c) ------------------------------ */

/* Seed of each dbgen stream and the draws one row takes from it (rnd.h). */
static const int64_t stream_seed[48] = {
    1,          46831694,   1841581359, 1193163244, 727633698,  933588178,  804159733,
    1671059989, 1051288424, 1961692154, 1227283347, 1171034773, 276090261,  1066728069,
    209208115,  554590007,  721958466,  1371272478, 675466456,  1808217256, 2095021727,
    1769349045, 904914315,  373135028,  717419739,  1095462486, 881155353,  1489529863,
    1521138112, 298370230,  1140279430, 1335826707, 706178559,  110356601,  884434366,
    962338209,  1341315363, 709314158,  591449447,  431918286,  851767375,  606179079,
    1500869201, 1434868289, 263032577,  753643799,  202794285,  715851524,
};
static const int16_t stream_boundary[48] = {
    1, 1, 1, 1, 1, 1, 2,            /* part: mfgr brand type size container (text) comment */
    4, 4, 8,                        /* partsupp: qty cost comment (4 rows per part) */
    1, 1, 2, 1,                     /* orders: (unused) clerk comment date */
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 14, /* lineitem, 7 lines per order */
    9, 1, 3, 1, 1, 2,               /* customer: address nation phone balance segment comment */
    9, 1, 3, 1, 2,                  /* supplier: address nation phone balance comment */
    92, 1, 1, 1, 2, 2, 1,           /* part name, order priority, (unused), custkey, nation
                                       and region comments, line count */
    1, 1, 1, 1,                     /* supplier "Customer ... Complaints" injection */
};

enum {
    S_P_MFG = 0, S_P_BRND = 1, S_P_TYPE = 2, S_P_SIZE = 3, S_P_CNTR = 4, S_TEXT = 5,
    S_P_CMNT = 6, S_PS_QTY = 7, S_PS_SCST = 8, S_PS_CMNT = 9, S_O_CLRK = 11, S_O_CMNT = 12,
    S_O_ODATE = 13, S_L_QTY = 14, S_L_DCNT = 15, S_L_TAX = 16, S_L_SHIP = 17, S_L_SMODE = 18,
    S_L_PKEY = 19, S_L_SKEY = 20, S_L_SDTE = 21, S_L_CDTE = 22, S_L_RDTE = 23, S_L_RFLG = 24,
    S_L_CMNT = 25, S_C_ADDR = 26, S_C_NTRG = 27, S_C_PHNE = 28, S_C_ABAL = 29, S_C_MSEG = 30,
    S_C_CMNT = 31, S_S_ADDR = 32, S_S_NTRG = 33, S_S_PHNE = 34, S_S_ABAL = 35, S_S_CMNT = 36,
    S_P_NAME = 37, S_O_PRIO = 38, S_O_CKEY = 40, S_N_CMNT = 41, S_R_CMNT = 42, S_O_LCNT = 43,
    S_BBB_JNK = 44, S_BBB_TYPE = 45, S_BBB_CMNT = 46, S_BBB_OFFSET = 47
};

/* One stream positioned in a chunk: `cur` is drawn from, `start` is the
 * state at the start of the current row, `mult` advances it one row. */
typedef struct pk_stream {
    int64_t cur, start, mult;
} pk_stream;

static void stream_at(pk_stream *s, int id, int64_t row) {
    s->mult = pk_pow16807(stream_boundary[id]);
    s->start = pk_mulmod(stream_seed[id], pk_pow16807(row * stream_boundary[id]));
    s->cur = s->start;
}
static inline void stream_next_row(pk_stream *s) {
    s->start = pk_mulmod(s->start, s->mult);
    s->cur = s->start;
}

/* A generator's streams: ids[i] positioned at `row` into st[i]. */
static void streams_at(pk_stream *st, const int *ids, int n, int64_t row) {
    for (int i = 0; i < n; i++) stream_at(&st[i], ids[i], row);
}
/* Every stream of st to the start of the next row, whatever the row drew.
 * A stream that every row draws from exactly `boundary` times is at the
 * next row's start already: the generators list those first and advance
 * only the others. */
static inline void streams_next_row(pk_stream *st, int n) {
    for (int i = 0; i < n; i++) stream_next_row(&st[i]);
}

/* dbgen's UnifInt: the draw scaled in double precision, truncated. */
static inline int64_t unif(pk_stream *s, int64_t lo, int64_t hi) {
    s->cur = pk_next(s->cur);
    return pk_scale(s->cur, lo, hi);
}

/* UnifInt(0, MAX_LONG): dbgen computes this range in 32-bit arithmetic,
 * where MAX_LONG - 0 + 1 wraps to -2^31, so the result is negative. a_rnd
 * takes its characters from the low bits of that negative number. */
static inline int64_t unif_maxlong(pk_stream *s) {
    s->cur = pk_next(s->cur);
    return (int64_t)(((double)s->cur / 2147483647.0) * -2147483648.0);
}

/* ---- distributions, words and text ---------------------------------------- */

static inline int pick(const pk_tpch_dist *d, pk_stream *s) {
    return d->lut[unif(s, 1, d->max)];
}

static inline char *put_word(char *dst, const pk_tpch_member *m) {
    memcpy(dst, m->text, m->len);
    return dst + m->len;
}

/* A word of a text distribution: a fixed 16-byte copy from the padded
 * table (the destination has slack), advanced by the word's length. */
static inline char *put_word16(char *dst, const pk_tpch_dist *d, int k) {
    memcpy(dst, d->pad[k], 16);
    return dst + d->m[k].len;
}

/* The text stream's draws, made ahead in a buffer: eight interleaved
 * chains (each step multiplies by 16807^8) instead of one serial chain, so
 * the pool's parse is not bound by the latency of one modular multiply per
 * word. The values are exactly the stream's, in order. */
#define PK_DRAWS 4096
typedef struct pk_draws {
    int64_t v[PK_DRAWS];
    int pos;
    int64_t base; /* the stream's draw number of v[0] */
    int64_t last; /* the stream's state after v[PK_DRAWS - 1] */
    int64_t m8;
} pk_draws;

static void draws_refill(pk_draws *dr) {
    int keep = PK_DRAWS - dr->pos;
    dr->base += dr->pos;
    memmove(dr->v, dr->v + dr->pos, (size_t)keep * sizeof dr->v[0]);
    int64_t x = dr->last;
    int k = keep;
    for (; k < keep + 8; k++) dr->v[k] = x = pk_next(x);
    for (; k < PK_DRAWS; k++) dr->v[k] = pk_mulmod(dr->v[k - 8], dr->m8);
    dr->last = dr->v[PK_DRAWS - 1];
    dr->pos = 0;
}

static inline int pick_d(const pk_tpch_dist *d, pk_draws *dr) {
    return d->lut[pk_scale_int(dr->v[dr->pos++], 1, d->max)];
}

/* A noun or verb phrase (txt_np / txt_vp): the picked form's parts of
 * speech, each word followed by its punctuation (np forms only) and a
 * space. */
static inline char *phrase(const plank_tpch *g, pk_draws *dr, char *d, int which) {
    const pk_tpch_form *f = &g->forms[which][pick_d(&g->dist[which ? PK_D_VP : PK_D_NP], dr)];
    for (int i = 0; i < f->n; i++) {
        const pk_tpch_dist *w = &g->dist[f->dist[i]];
        d = put_word16(d, w, pick_d(w, dr));
        *d = f->punct[i];
        d += f->punct[i] != 0;
        *d++ = ' ';
    }
    return d;
}

/* One sentence (txt_sentence) at d; returns its length. Phrases end in a
 * space, which the terminator replaces. */
static inline size_t sentence(const plank_tpch *g, pk_draws *dr, char *d0) {
    char *d = d0;
    const pk_tpch_member *form = &g->dist[PK_D_GRAMMAR].m[pick_d(&g->dist[PK_D_GRAMMAR], dr)];
    for (unsigned i = 0; i < form->len; i += 2) { /* "N V P T": letters at even offsets */
        switch (form->text[i]) {
        case 'V': d = phrase(g, dr, d, 1); break;
        case 'N': d = phrase(g, dr, d, 0); break;
        case 'P': {
            const pk_tpch_dist *p = &g->dist[PK_D_PREPOSITIONS];
            d = put_word16(d, p, pick_d(p, dr));
            memcpy(d, " the ", 5);
            d = phrase(g, dr, d + 5, 0);
            break;
        }
        default: { /* 'T' */
            const pk_tpch_dist *t = &g->dist[PK_D_TERMINATORS];
            d = put_word16(d - 1, t, pick_d(t, dr));
            break;
        }
        }
    }
    return (size_t)(d - d0);
}

/* Positions dr at draw number k of the text stream (0: the first). */
static void draws_at(pk_draws *dr, int64_t k) {
    dr->m8 = pk_pow16807(8);
    dr->last = pk_mulmod(stream_seed[S_TEXT], pk_pow16807(k));
    dr->pos = PK_DRAWS;
    dr->base = k - PK_DRAWS;
    draws_refill(dr);
}

/* dbg_text's pool from pool[p] on, whose first sentence starts at draw
 * number k: sentences separated by one space until 300 MiB, the last one
 * cut to fit. A sentence takes at most 27 draws (dbgen's RNG_PER_SENT) and
 * 256 bytes. */
static void fill_pool(plank_tpch *g, pk_draws *dr, int64_t k, size_t p0) {
    draws_at(dr, k);
    char *p = g->pool + p0, *end = g->pool + PK_TPCH_POOL_SIZE;
    while (p < end) {
        if (dr->pos > PK_DRAWS - 32) draws_refill(dr);
        size_t len = sentence(g, dr, p);
        size_t room = (size_t)(end - p);
        if (room >= len + 1) {
            p += len;
            *p++ = ' ';
        } else {
            p += room;
        }
    }
    *p = '\0';
}

/* The pool on several threads. The pool is the text of one stream parsed
 * sentence by sentence, so a parse can start only at a sentence start, and
 * where those are is known only by parsing from the beginning. Segment t
 * parses from draw D_t = t/N of the pool's draws as if a sentence started
 * there, into its own buffer, and records where its first sentences start
 * (head) and, once past D_{t+1}, where they start (tail). A parse begun at
 * the wrong draw meets the true one at the first sentence both start at
 * the same draw (after a few sentences: they are 5-27 draws long), and
 * from there on they are the same text: so segment t's text is true from
 * the first draw its head shares with segment t-1's tail, and the pool is
 * the segments' text joined at those draws. Where two never meet within
 * the recorded sentences, or a segment falls short, the rest is parsed
 * serially from the last true sentence start: the result is the serial
 * pool in every case.
 * Each segment writes into its own region of the pool itself (the pool has
 * PK_TPCH_POOL_EXTRA bytes beyond its size, so a region holds a share plus
 * a margin). So every page of the pool is first written (zeroed by the
 * kernel, which costs as much as writing the text on these machines) by
 * the thread that fills it, and no other buffer is faulted in. The
 * segments stay where they are: a text is read from the segment its
 * offset falls in (plank_tpch.pool_shift; one that runs past the next
 * segment's start from the text this segment parsed on past it), so there
 * may be more segments than threads, taken from a queue, at no cost; only
 * where two parses never meet are they joined, each segment's true text
 * moved left onto the end of the one before. A segment followed by another
 * stops once it has recorded its tail. */
#define PK_POOL_DRAWS 63888645 /* draws that make the 300 MiB pool (counted once) */
#define PK_REC 4096

typedef struct pk_seg {
    const plank_tpch *g;
    int64_t start, tail_from;
    int rec;             /* sentence starts to record at each end, <= PK_REC */
    char *buf; /* this segment's region of the pool */
    size_t cap, len;
    int64_t end_draw;
    int nhead, ntail;
    int64_t head_draw[PK_REC], tail_draw[PK_REC];
    size_t head_off[PK_REC], tail_off[PK_REC];
    pk_draws dr;
} pk_seg;

static void seg_run(pk_seg *s) {
    draws_at(&s->dr, s->start);
    size_t p = 0;
    while (p < s->cap) {
        if (s->dr.pos > PK_DRAWS - 32) draws_refill(&s->dr);
        int64_t at = s->dr.base + s->dr.pos;
        if (s->nhead < s->rec) {
            s->head_draw[s->nhead] = at;
            s->head_off[s->nhead++] = p;
        }
        if (at >= s->tail_from && s->ntail < s->rec) {
            s->tail_draw[s->ntail] = at;
            s->tail_off[s->ntail++] = p;
        }
        if (s->ntail == s->rec) break; /* the next segment takes over from here */
        p += sentence(s->g, &s->dr, s->buf + p);
        s->buf[p++] = ' ';
    }
    s->len = p;
    s->end_draw = s->dr.base + s->dr.pos;
}

/* The segments handed out to the threads that build them: each takes the
 * next one not yet taken, so a thread whose pages cost more to touch first
 * (the guest's zeroing of fresh memory varies from page to page on this
 * project's virtual machines) builds fewer of them. */
typedef struct pk_seg_queue {
    pk_seg *seg;
    size_t nseg;
    atomic_size_t next;
} pk_seg_queue;

static void *seg_main(void *arg) {
    pk_seg_queue *q = arg;
    for (size_t t; (t = atomic_fetch_add(&q->next, 1)) < q->nseg;) seg_run(&q->seg[t]);
    return NULL;
}

static void advise_huge(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* read or written at random: 2 MiB pages spare a TLB miss per access */
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

/* Whether segment s's parse meets the next one's, n's: at the first
 * sentence start both recorded (s's tail entry *i, n's head entry *j). */
static bool seg_meet(const pk_seg *s, const pk_seg *n, int *i, int *j) {
    *i = *j = 0;
    while (*i < s->ntail && *j < n->nhead) {
        if (s->tail_draw[*i] == n->head_draw[*j]) return true;
        if (s->tail_draw[*i] < n->head_draw[*j]) ++*i;
        else ++*j;
    }
    return false;
}

/* Segments per thread of a pool built on several, taken from a queue so
 * that the threads finish together; the segments are not moved together
 * afterwards (plank_tpch.pool_shift), so their number costs nothing. */
#define PK_SEGS_PER_THREAD 4
/* Bytes a segment's parse must have run on past the start of the next
 * segment's text for the pool to be read in place: more than any text
 * drawn from it (the longest, ps_comment, 1.6 x 124 bytes) plus the 32-byte
 * blocks text_finish copies. */
#define PK_POOL_OVERLAP 512

/* Builds the pool on `threads` threads (the caller's included), recording
 * `rec` sentence starts at each end of a segment; false when out of
 * memory. */
static bool build_pool(plank_tpch *g, int threads, int rec) {
    const plank_allocator *a = &g->alloc;
    if (threads > PK_TPCH_MAX_SEGS) threads = PK_TPCH_MAX_SEGS;
    pk_seg *seg = NULL;
    size_t nseg = threads > 1 ? (size_t)threads * PK_SEGS_PER_THREAD : 1;
    if (nseg > PK_TPCH_MAX_SEGS) nseg = PK_TPCH_MAX_SEGS;
    g->pool_segs = 1;
    g->pool_from[0] = g->pool_shift[0] = 0;
    seg = pk_tpch_alloc(a, sizeof *seg * nseg);
    if (!seg) return false;
    memset(seg, 0, sizeof *seg * nseg);
    /* regions of a share plus a margin; a sentence may end up to 257
     * bytes past a segment's cap, so the cap stays 512 bytes inside */
    size_t region = (PK_TPCH_POOL_SIZE + PK_TPCH_POOL_EXTRA) / nseg;
    for (size_t t = 0; t < nseg && nseg > 1; t++) {
        pk_seg *s = &seg[t];
        s->g = g;
        s->rec = rec < 1 ? 1 : rec > PK_REC ? PK_REC : rec;
        s->start = PK_POOL_DRAWS / (int64_t)nseg * (int64_t)t;
        s->tail_from = t + 1 < nseg ? PK_POOL_DRAWS / (int64_t)nseg * (int64_t)(t + 1) : INT64_MAX;
        s->buf = g->pool + region * t;
        s->cap = region - 512;
    }
    size_t pos = 0;
    int64_t draw = 0;
    if (nseg > 1) {
        pthread_t th[PK_TPCH_MAX_SEGS];
        pk_seg_queue q = {seg, nseg, 0};
        int started = 1;
        for (; started < threads; started++)
            if (pthread_create(&th[started], NULL, seg_main, &q) != 0) break;
        seg_main(&q); /* the caller's share (all of it, if no thread started) */
        for (int t = 1; t < started; t++) pthread_join(th[t], NULL);
        /* Where each parse meets the next: read in place when every one
         * meets it and runs on PK_POOL_OVERLAP bytes past, and the last
         * reaches the pool's end; else joined below. */
        {
            int64_t from = 0;
            size_t at = 0; /* the current segment's text starts at its buf + at */
            bool ok = true;
            for (size_t t = 0; t < nseg && ok; t++) {
                pk_seg *s = &seg[t];
                g->pool_from[t] = from;
                g->pool_shift[t] = (int64_t)(s->buf - g->pool) + (int64_t)at - from;
                if (t + 1 == nseg) {
                    ok = from + (int64_t)(s->len - at) >= (int64_t)PK_TPCH_POOL_SIZE;
                    break;
                }
                const pk_seg *n = &seg[t + 1];
                int i, j;
                ok = seg_meet(s, n, &i, &j) && s->len >= s->tail_off[i] + PK_POOL_OVERLAP &&
                     s->tail_off[i] >= at;
                if (ok) {
                    from += (int64_t)(s->tail_off[i] - at);
                    at = n->head_off[j];
                }
            }
            if (ok && from < (int64_t)PK_TPCH_POOL_SIZE) {
                g->pool_segs = (int)nseg;
                pk_tpch_free(a, seg, sizeof *seg * nseg);
                return true;
            }
            g->pool_segs = 1;
            g->pool_shift[0] = 0;
        }
        /* join the segments where each parse meets the next */
        size_t entry = 0;
        for (size_t t = 0;; t++) {
            pk_seg *s = &seg[t];
            size_t exit_off = s->len;
            int64_t exit_draw = s->end_draw;
            size_t next_entry = 0;
            bool met = false;
            if (t + 1 < nseg) {
                const pk_seg *n = &seg[t + 1];
                int i, j;
                met = seg_meet(s, n, &i, &j);
                if (met) {
                    exit_off = s->tail_off[i];
                    exit_draw = s->tail_draw[i];
                    next_entry = n->head_off[j];
                }
            }
            size_t n = exit_off - entry;
            if (n > PK_TPCH_POOL_SIZE - pos) n = PK_TPCH_POOL_SIZE - pos;
            /* left, or not at all (segment 0): the segments before ended
             * inside their regions, which lie before this one's */
            if (t > 0) memmove(g->pool + pos, s->buf + entry, n);
            pos += n;
            draw = exit_draw;
            if (!met || pos == PK_TPCH_POOL_SIZE) break;
            entry = next_entry;
        }
    }
    /* the rest (all of it on one thread) serially */
    if (pos < PK_TPCH_POOL_SIZE) fill_pool(g, &seg[0].dr, draw, pos);
    g->pool[PK_TPCH_POOL_SIZE] = '\0';
    pk_tpch_free(a, seg, sizeof *seg * nseg);
    return true;
}

/* Parses the np and vp forms once ("J, J N": adjective with a comma,
 * adjective, noun) and checks the shapes the fast paths assume. */
static bool build_forms(plank_tpch *g) {
    for (int which = 0; which < 2; which++) {
        const pk_tpch_dist *fd = &g->dist[which ? PK_D_VP : PK_D_NP];
        if (fd->count > 8) return false;
        for (int k = 0; k < fd->count; k++) {
            pk_tpch_form *f = &g->forms[which][k];
            const char *c = fd->m[k].text, *end = c + fd->m[k].len;
            memset(f, 0, sizeof *f);
            while (c < end) {
                if (*c == ' ') {
                    c++;
                    continue;
                }
                if (f->n == 4) return false;
                int src;
                switch (*c) {
                case 'A': src = PK_D_ARTICLES; break;
                case 'J': src = PK_D_ADJECTIVES; break;
                case 'D': src = PK_D_ADVERBS; break;
                case 'N': src = PK_D_NOUNS; break;
                case 'V': src = PK_D_VERBS; break;
                case 'X': src = PK_D_AUXILLARIES; break;
                default: return false;
                }
                /* dbgen's verb phrases would mangle punctuation; none has any */
                if (which && c + 1 < end && c[1] != ' ') return false;
                f->dist[f->n] = (uint8_t)src;
                f->punct[f->n] = c + 1 < end && c[1] != ' ' ? c[1] : 0;
                f->n++;
                while (c < end && *c != ' ') c++;
            }
        }
    }
    const pk_tpch_dist *gr = &g->dist[PK_D_GRAMMAR];
    for (int k = 0; k < gr->count; k++) {
        const pk_tpch_member *m = &gr->m[k];
        for (unsigned i = 0; i < m->len; i++)
            if ((i % 2 == 0) != (m->text[i] != ' ') || (i % 2 == 0 && !strchr("VNPT", m->text[i])))
                return false;
        if (m->text[m->len - 1] != 'T') return false;
    }
    return true;
}

/* dbg_text: a slice of the pool, offset then length drawn. */
static inline size_t text(const plank_tpch *g, pk_stream *s, int lo, int hi, uint8_t *dst) {
    int64_t off = unif(s, 0, (int64_t)PK_TPCH_POOL_SIZE - hi);
    int64_t len = unif(s, lo, hi);
    memcpy(dst, pk_tpch_pool_at(g, off), (size_t)len);
    return (size_t)len;
}

/* dbg_text's draws for row `row` of a batch, the copy left to text_finish
 * (toff: where in g->pool the text is, pk_tpch_pool_at): the pool is read
 * at random offsets, 300 MiB apart, so the copies are made in a second pass
 * that prefetches a few rows ahead (one miss at a time would cost a DRAM
 * round trip per row). */
#define TDEFER(s, lo, hi)                                                              \
    do {                                                                               \
        int64_t off_ = unif(s, 0, (int64_t)PK_TPCH_POOL_SIZE - (hi));                  \
        b->toff[row] = pk_tpch_pool_at(b->g, off_) - b->g->pool;                       \
        b->tlen[row] = (int32_t)unif(s, lo, hi);                                       \
    } while (0)

#define PK_PREFETCH_ROWS 16

/* Every cache line of pool[at, at + len): a text that starts late in a
 * line ends in the next one. */
static inline void prefetch_text(const char *pool, int64_t at, int32_t len) {
    uintptr_t p = (uintptr_t)(pool + at) & ~(uintptr_t)63, end = (uintptr_t)(pool + at + len);
    for (; p < end; p += 64) __builtin_prefetch((const void *)p);
}

static void text_finish(plank_tpch_batch *b, int c) {
    const char *pool = b->g->pool;
    int64_t *off = b->col[c].offsets;
    uint8_t *d = b->col[c].data;
    const int64_t *to = b->toff;
    const int32_t *tl = b->tlen;
    int64_t n = b->rows, pos = 0;
    for (int64_t r = 0; r < n && r < PK_PREFETCH_ROWS; r++) prefetch_text(pool, to[r], tl[r]);
    for (int64_t r = 0; r < n; r++) {
        int64_t ahead = r + PK_PREFETCH_ROWS;
        if (ahead < n) prefetch_text(pool, to[ahead], tl[ahead]);
        /* 32-byte blocks: the pool and the column have slack past their ends */
        const char *src = pool + to[r];
        for (int32_t k = 0; k < tl[r]; k += 32) memcpy(d + pos + k, src + k, 32);
        pos += tl[r];
        off[r + 1] = pos;
    }
}

/* dbgen's TEXT(avg) and V_STR(avg) bounds: avg * 0.4 and avg * 1.6, truncated. */
#define LO(avg) ((int)((avg) * 0.4))
#define HI(avg) ((int)((avg) * 1.6))

static const char alpha_num[65] =
    "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,";

/* a_rnd: a random length, then one draw per five characters, six bits each. */
static size_t vstr(pk_stream *s, int lo, int hi, uint8_t *dst) {
    int64_t len = unif(s, lo, hi), bits = 0;
    for (int64_t i = 0; i < len; i++) {
        if (i % 5 == 0) bits = unif_maxlong(s);
        dst[i] = (uint8_t)alpha_num[bits & 63];
        bits >>= 6; /* arithmetic on the negative draw, as dbgen's long shift */
    }
    return (size_t)len;
}

/* ---- small formatters -------------------------------------------------------- */

/* Decimal digits of v >= 0, zero-padded to at least `width`. */
static inline size_t put_uint(char *dst, uint64_t v, int width) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < width) tmp[n++] = '0';
    for (int i = 0; i < n; i++) dst[i] = tmp[n - 1 - i];
    return (size_t)n;
}
static inline size_t put_int(char *dst, int64_t v) {
    if (v < 0) {
        dst[0] = '-';
        return 1 + put_uint(dst + 1, (uint64_t)0 - (uint64_t)v, 1);
    }
    return put_uint(dst, (uint64_t)v, 1);
}
/* PR_MONEY: "-" for negatives, dollars, two digits of cents. */
static inline size_t put_money(char *dst, int64_t cents) {
    size_t n = 0;
    uint64_t c = (uint64_t)cents;
    if (cents < 0) {
        dst[n++] = '-';
        c = (uint64_t)0 - (uint64_t)cents;
    }
    n += put_uint(dst + n, c / 100, 1);
    dst[n++] = '.';
    dst[n++] = (char)('0' + (c % 100) / 10);
    dst[n++] = (char)('0' + c % 10);
    return n;
}
/* "<tag><key zero-padded to 9>" (Customer#000000001, Clerk#000000951, ...) */
static inline size_t put_tagged(uint8_t *dst, const char *tag, size_t tag_len, int64_t key,
                                int width) {
    memcpy(dst, tag, tag_len);
    return tag_len + put_uint((char *)dst + tag_len, (uint64_t)key, width);
}

/* ---- tables -------------------------------------------------------------------- */

#define STR(n, len, ft) {n, PK_K_STR, len, ft}
#define NUM(n, k) {n, k, 0, false}

static const pk_tpch_coldef part_cols[] = {
    NUM("p_partkey", PK_K_I64),  STR("p_name", 55, true),   STR("p_mfgr", 25, false),
    STR("p_brand", 10, false),   STR("p_type", 25, false),  NUM("p_size", PK_K_I32),
    STR("p_container", 10, false), NUM("p_retailprice", PK_K_MONEY), STR("p_comment", 23, true),
};
static const pk_tpch_coldef partsupp_cols[] = {
    NUM("ps_partkey", PK_K_I64), NUM("ps_suppkey", PK_K_I64), NUM("ps_availqty", PK_K_I32),
    NUM("ps_supplycost", PK_K_MONEY), STR("ps_comment", 199, true),
};
static const pk_tpch_coldef supplier_cols[] = {
    NUM("s_suppkey", PK_K_I64), STR("s_name", 32, false),   STR("s_address", 40, true),
    NUM("s_nationkey", PK_K_I64), STR("s_phone", 15, false), NUM("s_acctbal", PK_K_MONEY),
    STR("s_comment", 101, true),
};
static const pk_tpch_coldef customer_cols[] = {
    NUM("c_custkey", PK_K_I64),  STR("c_name", 32, false),  STR("c_address", 40, true),
    NUM("c_nationkey", PK_K_I64), STR("c_phone", 15, false), NUM("c_acctbal", PK_K_MONEY),
    STR("c_mktsegment", 10, false), STR("c_comment", 117, true),
};
static const pk_tpch_coldef orders_cols[] = {
    NUM("o_orderkey", PK_K_I64), NUM("o_custkey", PK_K_I64), STR("o_orderstatus", 1, false),
    NUM("o_totalprice", PK_K_MONEY), NUM("o_orderdate", PK_K_DATE),
    STR("o_orderpriority", 15, false), STR("o_clerk", 32, false),
    NUM("o_shippriority", PK_K_I32), STR("o_comment", 79, true),
};
static const pk_tpch_coldef lineitem_cols[] = {
    NUM("l_orderkey", PK_K_I64),   NUM("l_partkey", PK_K_I64),    NUM("l_suppkey", PK_K_I64),
    NUM("l_linenumber", PK_K_I32), NUM("l_quantity", PK_K_QTY),   NUM("l_extendedprice", PK_K_MONEY),
    NUM("l_discount", PK_K_MONEY), NUM("l_tax", PK_K_MONEY),      STR("l_returnflag", 1, false),
    STR("l_linestatus", 1, false), NUM("l_shipdate", PK_K_DATE),  NUM("l_commitdate", PK_K_DATE),
    NUM("l_receiptdate", PK_K_DATE), STR("l_shipinstruct", 25, false),
    STR("l_shipmode", 10, false),  STR("l_comment", 44, true),
};
static const pk_tpch_coldef nation_cols[] = {
    NUM("n_nationkey", PK_K_I64), STR("n_name", 25, false), NUM("n_regionkey", PK_K_I64),
    STR("n_comment", 152, true),
};
static const pk_tpch_coldef region_cols[] = {
    NUM("r_regionkey", PK_K_I64), STR("r_name", 25, false), STR("r_comment", 152, true),
};

#define TABLE(n, c, per) {n, (int32_t)(sizeof c / sizeof c[0]), per, c}
const pk_tpch_tabledef pk_tpch_tables[PLANK_TPCH_NUM_TABLES] = {
    TABLE("part", part_cols, 1),         TABLE("partsupp", partsupp_cols, 4),
    TABLE("supplier", supplier_cols, 1), TABLE("customer", customer_cols, 1),
    TABLE("orders", orders_cols, 1),     TABLE("lineitem", lineitem_cols, 7),
    TABLE("nation", nation_cols, 1),     TABLE("region", region_cols, 1),
};

const char *plank_tpch_table_name(plank_tpch_table t) {
    return (unsigned)t < PLANK_TPCH_NUM_TABLES ? pk_tpch_tables[t].name : NULL;
}

int plank_tpch_table_from_name(const char *name) {
    for (int t = 0; name && t < PLANK_TPCH_NUM_TABLES; t++)
        if (strcmp(name, pk_tpch_tables[t].name) == 0) return t;
    return -1;
}

int64_t plank_tpch_units(const plank_tpch *g, plank_tpch_table t) {
    switch (t) {
    case PLANK_TPCH_PART:
    case PLANK_TPCH_PARTSUPP: return g->nparts;
    case PLANK_TPCH_SUPPLIER: return g->nsupp;
    case PLANK_TPCH_CUSTOMER: return g->ncust;
    case PLANK_TPCH_ORDERS:
    case PLANK_TPCH_LINEITEM: return g->norders;
    case PLANK_TPCH_NATION: return g->dist[PK_D_NATIONS].count;
    case PLANK_TPCH_REGION: return g->dist[PK_D_REGIONS].count;
    default: return 0;
    }
}

const plank_schema_field *plank_tpch_schema(const plank_tpch *g, plank_tpch_table t,
                                           int32_t *num_fields) {
    if ((unsigned)t >= PLANK_TPCH_NUM_TABLES) return NULL;
    if (num_fields) *num_fields = pk_tpch_tables[t].num_cols + 1;
    return g->schema[t];
}

static void build_schema(plank_tpch *g) {
    for (int t = 0; t < PLANK_TPCH_NUM_TABLES; t++) {
        const pk_tpch_tabledef *td = &pk_tpch_tables[t];
        plank_schema_field *f = g->schema[t];
        plank_schema_field_init(&f[0]);
        f[0].name = "schema";
        f[0].num_children = td->num_cols;
        for (int c = 0; c < td->num_cols; c++) {
            plank_schema_field *x = &f[c + 1];
            plank_schema_field_init(x);
            x->name = td->cols[c].name;
            switch (td->cols[c].kind) {
            case PK_K_I64: x->physical_type = PLANK_INT64; break;
            case PK_K_I32: x->physical_type = PLANK_INT32; break;
            case PK_K_MONEY:
            case PK_K_QTY:
                x->physical_type = PLANK_INT64;
                x->logical.kind = PLANK_LOGICAL_DECIMAL;
                x->logical.precision = 15;
                x->logical.scale = 2;
                break;
            case PK_K_DATE:
                x->physical_type = PLANK_INT32;
                x->logical.kind = PLANK_LOGICAL_DATE;
                break;
            case PK_K_STR:
                x->physical_type = PLANK_BYTE_ARRAY;
                x->logical.kind = PLANK_LOGICAL_STRING;
                break;
            }
        }
    }
}

/* ---- the generator handle --------------------------------------------------- */

static void civil(int64_t days, int *y, int *m, int *d) {
    /* days since 1970-01-01 to the proleptic Gregorian calendar */
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

plank_status plank_tpch_open(plank_tpch **out, double sf, int32_t threads,
                             const plank_allocator *a, plank_error *err) {
    static const plank_allocator dflt = {default_realloc, default_free, NULL};
    plank_error_init(err);
    if (!out) return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: out is NULL");
    *out = NULL;
    if (!(sf > 0) || sf >= 30000)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT,
                            "tpch: scale factor %g outside (0, 30000)", sf);
    if (sf >= 1 && sf != (double)(int64_t)sf)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT,
                            "tpch: scale factor %g: dbgen takes fractions only below 1 "
                            "(above, it would truncate to %lld)",
                            sf, (long long)sf);
    bool caller_alloc = a != NULL;
    if (!a) a = &dflt;
    plank_tpch *g = pk_tpch_alloc(a, sizeof *g);
    if (!g) return pk_tpch_fail(err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory");
    memset(g, 0, sizeof *g);
    g->alloc = *a;
    g->caller_alloc = caller_alloc;
    g->sf = sf;
    /* Table sizes as dbgen's option parsing computes them: below SF 1 the
     * base counts are scaled by whole thousandths and the scale is 1. */
    int64_t base_part = 200000, base_supp = 10000, base_cust = 150000, base_ord = 1500000;
    if (sf < 1) {
        int64_t k = (int64_t)(int)(1000 * sf);
        base_part = k * base_part / 1000;
        base_supp = k * base_supp / 1000;
        base_cust = k * base_cust / 1000;
        base_ord = k * base_ord / 1000;
        if (base_part < 1) base_part = 1;
        if (base_supp < 1) base_supp = 1;
        if (base_cust < 1) base_cust = 1;
        if (base_ord < 1) base_ord = 1;
        g->scale = 1;
    } else {
        g->scale = (int64_t)sf;
    }
    g->nparts = base_part * g->scale;
    g->nsupp = base_supp * g->scale;
    g->ncust = base_cust * g->scale;
    g->norders = base_ord * g->scale;
    g->nclerks = g->scale * 1000 > 1000 ? g->scale * 1000 : 1000;

    size_t lut_total = 0, npad = 0;
    bool shape_ok = true;
    for (int i = 0; i < PK_D_COUNT; i++) {
        pk_tpch_dist *d = &g->dist[i];
        d->m = pk_tpch_dist_defs[i].members;
        d->count = pk_tpch_dist_defs[i].count;
        d->max = d->m[d->count - 1].cum;
        if (npad + (size_t)d->count > PK_TPCH_MAX_MEMBERS) {
            shape_ok = false;
            break;
        }
        d->pad = (const char(*)[16])g->pad[npad];
        for (int k = 0; k < d->count; k++, npad++) {
            memcpy(g->pad[npad], d->m[k].text, d->m[k].len < 16 ? d->m[k].len : 16);
            /* text words must fit the padded copy */
            if (i >= PK_D_NOUNS && d->m[k].len > 16) shape_ok = false;
        }
        if (i != PK_D_NATIONS && i != PK_D_REGIONS && i != PK_D_COLORS)
            lut_total += (size_t)d->max + 1;
    }
    if (!shape_ok || !build_forms(g)) {
        plank_tpch_close(g);
        return pk_tpch_fail(err, PLANK_ERR_UNSUPPORTED,
                            "tpch: the distribution tables have a shape the generator does not "
                            "take (regenerate src/tpch/pk_tpch_dists.h from the kit's dists.dss)");
    }
    g->luts = pk_tpch_alloc(a, lut_total);
    g->luts_size = lut_total;
    g->pool = pk_tpch_alloc(a, PK_TPCH_POOL_ALLOC);
    if (!g->luts || !g->pool) {
        plank_tpch_close(g);
        return pk_tpch_fail(err, PLANK_ERR_OUT_OF_MEMORY,
                            "tpch: out of memory for the %u MiB text pool",
                            PK_TPCH_POOL_SIZE >> 20);
    }
    advise_huge(g->pool, PK_TPCH_POOL_ALLOC);
    uint8_t *l = g->luts;
    for (int i = 0; i < PK_D_COUNT; i++) {
        pk_tpch_dist *d = &g->dist[i];
        if (i == PK_D_NATIONS || i == PK_D_REGIONS || i == PK_D_COLORS) continue;
        /* pick_str: the first member whose running total is >= the draw */
        int k = 0;
        for (int64_t j = 0; j <= d->max; j++) {
            while (d->m[k].cum < j) k++;
            l[j] = (uint8_t)k;
        }
        d->lut = l;
        l += d->max + 1;
    }
    for (int i = 0; i < PK_TPCH_NUM_DATES; i++) {
        int y, m, dd;
        civil(PK_TPCH_EPOCH_DAY + i, &y, &m, &dd);
        char tmp[40]; /* room for any int, so no compiler sees a truncation */
        snprintf(tmp, sizeof tmp, "%04d-%02d-%02d", y, m, dd);
        memcpy(g->dates[i], tmp, 10);
    }
    build_schema(g);
    if (!build_pool(g, threads, PK_REC)) {
        plank_tpch_close(g);
        return pk_tpch_fail(err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory for the text pool");
    }
    *out = g;
    return PLANK_OK;
}

bool pk_tpch_rebuild_pool(plank_tpch *g, int threads, int rec) {
    return build_pool(g, threads, rec);
}

void plank_tpch_close(plank_tpch *g) {
    if (!g) return;
    plank_allocator a = g->alloc;
    pk_tpch_free(&a, g->pool, PK_TPCH_POOL_ALLOC);
    pk_tpch_free(&a, g->luts, g->luts_size);
    pk_tpch_free(&a, g, sizeof *g);
}

/* ---- batches ------------------------------------------------------------------- */

static void batch_release(plank_tpch_batch *b) {
    const plank_allocator *a = &b->g->alloc;
    const pk_tpch_tabledef *td = &pk_tpch_tables[b->table];
    for (int c = 0; c < td->num_cols; c++) {
        pk_tpch_col *col = &b->col[c];
        if (td->cols[c].kind == PK_K_STR) {
            pk_tpch_free(a, col->offsets, (size_t)(b->cap_rows + 1) * sizeof(int64_t));
            pk_tpch_free(a, col->data, col->data_cap);
        } else {
            size_t w = td->cols[c].kind == PK_K_I32 || td->cols[c].kind == PK_K_DATE ? 4 : 8;
            pk_tpch_free(a, col->values, (size_t)b->cap_rows * w);
        }
    }
    pk_tpch_free(a, b->tbl, b->tbl_cap);
    pk_tpch_free(a, b->toff, (size_t)b->cap_rows * sizeof(int64_t));
    pk_tpch_free(a, b->tlen, (size_t)b->cap_rows * sizeof(int32_t));
}

plank_status plank_tpch_batch_new(plank_tpch_batch **out, const plank_tpch *g, plank_tpch_table t,
                                  int64_t max_units, plank_error *err) {
    plank_error_init(err);
    if (!out) return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: out is NULL");
    *out = NULL;
    if (!g) return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: NULL generator");
    if (!g || (unsigned)t >= PLANK_TPCH_NUM_TABLES || max_units < 1 || max_units > (1 << 26))
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT,
                            "tpch: batch of %lld units of table %d", (long long)max_units, (int)t);
    const plank_allocator *a = &g->alloc;
    const pk_tpch_tabledef *td = &pk_tpch_tables[t];
    plank_tpch_batch *b = pk_tpch_alloc(a, sizeof *b);
    if (!b) return pk_tpch_fail(err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory");
    memset(b, 0, sizeof *b);
    b->g = g;
    b->table = t;
    b->cap_units = max_units;
    b->cap_rows = max_units * td->rows_per_unit;
    b->toff = pk_tpch_alloc(a, (size_t)b->cap_rows * sizeof(int64_t));
    b->tlen = pk_tpch_alloc(a, (size_t)b->cap_rows * sizeof(int32_t));
    bool ok = b->toff && b->tlen;
    size_t row_text = 0;
    for (int c = 0; c < td->num_cols; c++) {
        pk_tpch_col *col = &b->col[c];
        plank_batch *o = &b->out[c];
        o->struct_size = sizeof *o;
        if (td->cols[c].kind == PK_K_STR) {
            col->offsets = pk_tpch_alloc(a, (size_t)(b->cap_rows + 1) * sizeof(int64_t));
            col->data_cap = (size_t)b->cap_rows * (size_t)td->cols[c].max_len + 64;
            col->data = pk_tpch_alloc(a, col->data_cap);
            ok = ok && col->offsets && col->data;
            if (col->offsets) col->offsets[0] = 0;
            o->physical_type = PLANK_BYTE_ARRAY;
            row_text += (size_t)td->cols[c].max_len + 1;
        } else {
            int w = td->cols[c].kind == PK_K_I32 || td->cols[c].kind == PK_K_DATE ? 4 : 8;
            col->values = pk_tpch_alloc(a, (size_t)b->cap_rows * (size_t)w);
            ok = ok && col->values;
            o->physical_type = w == 4 ? PLANK_INT32 : PLANK_INT64;
            o->value_width = w;
            row_text += 24;
        }
    }
    b->row_text_max = row_text;
    /* Fixed-width columns and offsets are written whole by every full
     * batch: their pages are faulted in at once (the default allocator's
     * plain anonymous memory only; text buffers are sized for the longest
     * strings and are left to fault as they fill). */
    if (ok && !g->caller_alloc) {
        pk_populate_write(b->toff, (size_t)b->cap_rows * sizeof(int64_t));
        pk_populate_write(b->tlen, (size_t)b->cap_rows * sizeof(int32_t));
        for (int c = 0; c < td->num_cols; c++) {
            pk_tpch_col *col = &b->col[c];
            if (td->cols[c].kind == PK_K_STR)
                pk_populate_write(col->offsets, (size_t)(b->cap_rows + 1) * sizeof(int64_t));
            else
                pk_populate_write(col->values, (size_t)b->cap_rows * (size_t)b->out[c].value_width);
        }
    }
    if (!ok) {
        batch_release(b);
        pk_tpch_free(a, b, sizeof *b);
        return pk_tpch_fail(err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory for a batch");
    }
    *out = b;
    return PLANK_OK;
}

void plank_tpch_batch_free(plank_tpch_batch *b) {
    if (!b) return;
    const plank_allocator a = b->g->alloc;
    batch_release(b);
    pk_tpch_free(&a, b, sizeof *b);
}

int64_t plank_tpch_batch_rows(const plank_tpch_batch *b) { return b ? b->rows : 0; }

const plank_batch *plank_tpch_batch_column(const plank_tpch_batch *b, int32_t column) {
    if (!b || column < 0 || column >= pk_tpch_tables[b->table].num_cols) return NULL;
    return &b->out[column];
}

/* Column accessors for the generators. */
#define I64(c) ((int64_t *)b->col[c].values)
#define I32(c) ((int32_t *)b->col[c].values)
/* Appends a string of len bytes already written at sdata(c). */
#define SDATA(c) (b->col[c].data + b->col[c].offsets[row])
#define SEND(c, len) (b->col[c].offsets[row + 1] = b->col[c].offsets[row] + (int64_t)(len))

static inline void put_str(plank_tpch_batch *b, int c, int64_t row, const char *s, size_t len) {
    memcpy(SDATA(c), s, len);
    SEND(c, len);
}

/* PART_SUPP_BRIDGE: the supplier of part p's s-th supply, over n suppliers. */
static inline int64_t part_supp(int64_t p, int64_t s, int64_t n) {
    return (p + s * (n / 4 + (p - 1) / n)) % n + 1;
}

/* rpb_routine: the retail price of part p in cents. */
static inline int64_t retail_price(int64_t p) {
    return 90000 + (p / 10) % 20001 + (p % 1000) * 100;
}

/* gen_phone: country code from the nation, then three random groups. */
static inline size_t phone(pk_stream *s, int64_t nation, uint8_t *dst) {
    int64_t acode = unif(s, 100, 999), exchg = unif(s, 100, 999), num = unif(s, 1000, 9999);
    char *d = (char *)dst;
    put_uint(d, (uint64_t)(10 + nation % 90), 2);
    d[2] = '-';
    put_uint(d + 3, (uint64_t)acode, 3);
    d[6] = '-';
    put_uint(d + 7, (uint64_t)exchg, 3);
    d[10] = '-';
    put_uint(d + 11, (uint64_t)num, 4);
    return 15;
}

static void gen_part(plank_tpch_batch *b, int64_t first, int64_t n) {
    const plank_tpch *g = b->g;
    /* exact: all but the name's shuffle (92 draws a row, 5 made) */
    static const int ids[] = {S_P_MFG, S_P_BRND, S_P_TYPE, S_P_SIZE, S_P_CNTR, S_P_CMNT, S_P_NAME};
    pk_stream st[7];
    streams_at(st, ids, 7, first);
    pk_stream *smfg = &st[0], *sbrnd = &st[1], *stype = &st[2], *ssize = &st[3], *scntr = &st[4],
              *scmnt = &st[5], *sn = &st[6];
    const pk_tpch_dist *colors = &g->dist[PK_D_COLORS];
    for (int64_t row = 0; row < n; row++) {
        int64_t key = first + row + 1;
        I64(0)[row] = key;
        /* agg_str: the first five of a shuffle of the 92 colors (the shuffle
         * draws 92 times, but positions 0-4 are final after five swaps) */
        uint8_t perm[92];
        for (int i = 0; i < colors->count; i++) perm[i] = (uint8_t)i;
        uint8_t *d = SDATA(1), *d0 = d;
        for (int i = 0; i < 5; i++) {
            int64_t src = unif(sn, i, colors->count - 1);
            uint8_t tmp = perm[src];
            perm[src] = perm[i];
            perm[i] = tmp;
            if (i) *d++ = ' ';
            d = (uint8_t *)put_word((char *)d, &colors->m[perm[i]]);
        }
        SEND(1, d - d0);
        int64_t mfg = unif(smfg, 1, 5);
        SEND(2, put_tagged(SDATA(2), "Manufacturer#", 13, mfg, 1));
        int64_t brnd = unif(sbrnd, 1, 5);
        SEND(3, put_tagged(SDATA(3), "Brand#", 6, mfg * 10 + brnd, 2));
        const pk_tpch_member *ty = &g->dist[PK_D_P_TYPES].m[pick(&g->dist[PK_D_P_TYPES], stype)];
        put_str(b, 4, row, ty->text, ty->len);
        I32(5)[row] = (int32_t)unif(ssize, 1, 50);
        const pk_tpch_member *ct = &g->dist[PK_D_P_CNTR].m[pick(&g->dist[PK_D_P_CNTR], scntr)];
        put_str(b, 6, row, ct->text, ct->len);
        I64(7)[row] = retail_price(key);
        TDEFER(scmnt, LO(14), HI(14));
        streams_next_row(st + 6, 1);
    }
    b->rows = n;
}

static void gen_partsupp(plank_tpch_batch *b, int64_t first, int64_t n) {
    const plank_tpch *g = b->g;
    /* all exact: 4, 4 and 8 draws a part */
    static const int ids[] = {S_PS_QTY, S_PS_SCST, S_PS_CMNT};
    pk_stream st[3];
    streams_at(st, ids, 3, first);
    pk_stream *sq = &st[0], *sc = &st[1], *sm = &st[2];
    int64_t row = 0;
    for (int64_t u = 0; u < n; u++) {
        int64_t key = first + u + 1;
        for (int64_t s = 0; s < 4; s++, row++) {
            I64(0)[row] = key;
            I64(1)[row] = part_supp(key, s, g->nsupp);
            I32(2)[row] = (int32_t)unif(sq, 1, 9999);
            I64(3)[row] = unif(sc, 100, 100000);
            TDEFER(sm, LO(124), HI(124));
        }
    }
    b->rows = row;
}

/* The columns suppliers and customers share (mk_supp, mk_cust): key, tagged
 * name, a_rnd address, nation, phone and balance; st holds the nation,
 * phone and balance streams, addr the address's. */
static void party(plank_tpch_batch *b, int64_t row, int64_t key, const char *tag,
                  pk_stream *st, pk_stream *addr, int64_t nations) {
    I64(0)[row] = key;
    SEND(1, put_tagged(SDATA(1), tag, 9, key, 9));
    SEND(2, vstr(addr, LO(25), HI(25), SDATA(2)));
    int64_t nat = unif(&st[0], 0, nations - 1);
    I64(3)[row] = nat;
    SEND(4, phone(&st[1], nat, SDATA(4)));
    I64(5)[row] = unif(&st[2], -99999, 999999);
}

static void gen_supplier(plank_tpch_batch *b, int64_t first, int64_t n) {
    const plank_tpch *g = b->g;
    /* exact: all but the address (1 + one per five characters of 9) */
    static const int ids[] = {S_S_NTRG,   S_S_PHNE,  S_S_ABAL,     S_S_CMNT, S_BBB_CMNT,
                              S_BBB_TYPE, S_BBB_JNK, S_BBB_OFFSET, S_S_ADDR};
    pk_stream st[9];
    streams_at(st, ids, 9, first);
    pk_stream *sc = &st[3], *bc = &st[4], *bt = &st[5], *bj = &st[6], *bo = &st[7];
    int64_t nations = g->dist[PK_D_NATIONS].count;
    for (int64_t row = 0; row < n; row++) {
        int64_t key = first + row + 1;
        party(b, row, key, "Supplier#", st, &st[8], nations);
        uint8_t *cm = SDATA(6);
        int64_t clen = (int64_t)text(g, sc, LO(63), HI(63), cm);
        SEND(6, clen);
        /* a few comments become "Customer ... Complaints" / "... Recommends" */
        int64_t bad = unif(bc, 1, 10000), type = unif(bt, 0, 100);
        int64_t noise = unif(bj, 0, clen - 19);
        int64_t off = unif(bo, 0, clen - (19 + noise));
        if (bad <= 10) {
            memcpy(cm + off, "Customer ", 9);
            memcpy(cm + off + 9 + noise, type < 50 ? "Complaints" : "Recommends", 10);
        }
        streams_next_row(st + 8, 1);
    }
    b->rows = n;
}

static void gen_customer(plank_tpch_batch *b, int64_t first, int64_t n) {
    const plank_tpch *g = b->g;
    /* exact: all but the address */
    static const int ids[] = {S_C_NTRG, S_C_PHNE, S_C_ABAL, S_C_MSEG, S_C_CMNT, S_C_ADDR};
    pk_stream st[6];
    streams_at(st, ids, 6, first);
    pk_stream *ss = &st[3], *sc = &st[4];
    int64_t nations = g->dist[PK_D_NATIONS].count;
    const pk_tpch_dist *seg = &g->dist[PK_D_MSEGMNT];
    for (int64_t row = 0; row < n; row++) {
        int64_t key = first + row + 1;
        party(b, row, key, "Customer#", st, &st[5], nations);
        const pk_tpch_member *m = &seg->m[pick(seg, ss)];
        put_str(b, 6, row, m->text, m->len);
        TDEFER(sc, LO(73), HI(73));
        streams_next_row(st + 5, 1);
    }
    b->rows = n;
}

/* Day offsets from 1992-01-01: orders fall in the first 2406 days (so that
 * every line ships and arrives before 1998-12-31); 1995-06-17 (dbgen's
 * CURRENTDATE) is day 1263. */
#define ODATE_DAYS 2406
#define CURRENT_DAY 1263

/* Orders and their lines come from the same streams (mk_order), so both
 * tables are made in one pass when both are wanted (ob and lb; either may
 * be NULL). Each column has its own stream, so only the draws of the
 * columns wanted are made: an order needs its lines' quantities,
 * discounts, taxes, parts and ship dates (total price and status), a line
 * its order's date and line count. */

/* The streams of gen_orders, in this order: 0-5 the order's, exact (the
 * lines alone draw only the date and line count of them); 6-10 the lines'
 * that an order needs too; 11-17 those only lines need. A line stream pads
 * each order to 7 lines. */
enum { O_ODATE, O_LCNT, O_CKEY, O_PRIO, O_CLRK, O_CMNT, L_QTY, L_PKEY, L_SDTE, L_DCNT, L_TAX,
       L_SHIP, L_SMODE, L_CMNT, L_SKEY, L_CDTE, L_RDTE, L_RFLG, O_NSTREAMS };

/* An order's lines into lb from row `row`; returns the order's total price
 * and sets *shipped to the lines shipped by dbgen's current date. */
static int64_t order_lines(plank_tpch_batch *b, int64_t row, pk_stream *st, int64_t okey,
                           int64_t odate, int64_t nlines, int64_t *shipped) {
    const plank_tpch *g = b->g;
    const pk_tpch_dist *instr = &g->dist[PK_D_INSTRUCT], *smode = &g->dist[PK_D_SMODE],
                       *rflag = &g->dist[PK_D_RFLAG];
    int64_t total = 0;
    *shipped = 0;
    for (int64_t l = 0; l < nlines; l++, row++) {
        int64_t qty = unif(&st[L_QTY], 1, 50);
        int64_t pkey = unif(&st[L_PKEY], 1, g->nparts);
        int64_t sdate = odate + unif(&st[L_SDTE], 1, 121);
        int64_t cdate = odate + unif(&st[L_CDTE], 30, 90);
        int64_t rdate = sdate + unif(&st[L_RDTE], 1, 30);
        int64_t disc = unif(&st[L_DCNT], 0, 10), tax = unif(&st[L_TAX], 0, 8);
        int64_t eprice = retail_price(pkey) * qty;
        total += ((eprice * (100 - disc)) / 100) * (100 + tax) / 100;
        I64(0)[row] = okey;
        I64(1)[row] = pkey;
        I64(2)[row] = part_supp(pkey, unif(&st[L_SKEY], 0, 3), g->nsupp);
        I32(3)[row] = (int32_t)(l + 1);
        I64(4)[row] = qty * 100;
        I64(5)[row] = eprice;
        I64(6)[row] = disc;
        I64(7)[row] = tax;
        char rf = rdate <= CURRENT_DAY ? rflag->m[pick(rflag, &st[L_RFLG])].text[0] : 'N';
        char ls = sdate <= CURRENT_DAY ? 'F' : 'O';
        *shipped += sdate <= CURRENT_DAY;
        put_str(b, 8, row, &rf, 1);
        put_str(b, 9, row, &ls, 1);
        I32(10)[row] = (int32_t)(PK_TPCH_EPOCH_DAY + sdate);
        I32(11)[row] = (int32_t)(PK_TPCH_EPOCH_DAY + cdate);
        I32(12)[row] = (int32_t)(PK_TPCH_EPOCH_DAY + rdate);
        const pk_tpch_member *in = &instr->m[pick(instr, &st[L_SHIP])];
        put_str(b, 13, row, in->text, in->len);
        const pk_tpch_member *sm = &smode->m[pick(smode, &st[L_SMODE])];
        put_str(b, 14, row, sm->text, sm->len);
        TDEFER(&st[L_CMNT], LO(27), HI(27));
    }
    return total;
}

/* An order's total price and shipped lines without making its lines. */
static int64_t order_total(const plank_tpch *g, pk_stream *st, int64_t odate, int64_t nlines,
                           int64_t *shipped) {
    int64_t total = 0;
    *shipped = 0;
    for (int64_t l = 0; l < nlines; l++) {
        int64_t qty = unif(&st[L_QTY], 1, 50);
        int64_t eprice = retail_price(unif(&st[L_PKEY], 1, g->nparts)) * qty;
        *shipped += odate + unif(&st[L_SDTE], 1, 121) <= CURRENT_DAY;
        int64_t disc = unif(&st[L_DCNT], 0, 10), tax = unif(&st[L_TAX], 0, 8);
        total += ((eprice * (100 - disc)) / 100) * (100 + tax) / 100;
    }
    return total;
}

/* Order row `row` of ob. */
static void order_row(plank_tpch_batch *b, int64_t row, pk_stream *st, int64_t okey, int64_t odate,
                      int64_t nlines, int64_t total, int64_t shipped) {
    const plank_tpch *g = b->g;
    const pk_tpch_dist *prio = &g->dist[PK_D_O_OPRIO];
    int64_t cust = unif(&st[O_CKEY], 1, g->ncust), delta = 1;
    while (cust % 3 == 0) { /* a third of the customers place no orders */
        cust += delta;
        if (cust > g->ncust) cust = g->ncust;
        delta = -delta;
    }
    I64(0)[row] = okey;
    I64(1)[row] = cust;
    char os = shipped == nlines ? 'F' : shipped > 0 ? 'P' : 'O';
    put_str(b, 2, row, &os, 1);
    I64(3)[row] = total;
    I32(4)[row] = (int32_t)(PK_TPCH_EPOCH_DAY + odate);
    const pk_tpch_member *pr = &prio->m[pick(prio, &st[O_PRIO])];
    put_str(b, 5, row, pr->text, pr->len);
    SEND(6, put_tagged(SDATA(6), "Clerk#", 6, unif(&st[O_CLRK], 1, g->nclerks), 9));
    I32(7)[row] = 0;
    TDEFER(&st[O_CMNT], LO(49), HI(49));
}

static void gen_orders(plank_tpch_batch *ob, plank_tpch_batch *lb, int64_t first, int64_t n) {
    const plank_tpch *g = ob ? ob->g : lb->g;
    static const int ids[O_NSTREAMS] = {
        S_O_ODATE, S_O_LCNT, S_O_CKEY,  S_O_PRIO, S_O_CLRK, S_O_CMNT, S_L_QTY,  S_L_PKEY, S_L_SDTE,
        S_L_DCNT,  S_L_TAX,  S_L_SHIP,  S_L_SMODE, S_L_CMNT, S_L_SKEY, S_L_CDTE, S_L_RDTE, S_L_RFLG};
    pk_stream st[O_NSTREAMS];
    streams_at(st, ids, O_NSTREAMS, first);
    int64_t lrow = 0;
    for (int64_t u = 0; u < n; u++) {
        int64_t idx = first + u + 1;
        int64_t okey = ((idx >> 3) << 5) | (idx & 7); /* mk_sparse: runs of 8 keys, 32 apart */
        int64_t odate = unif(&st[O_ODATE], 0, ODATE_DAYS - 1);
        int64_t nlines = unif(&st[O_LCNT], 1, 7), shipped, total;
        if (lb) {
            total = order_lines(lb, lrow, st, okey, odate, nlines, &shipped);
            lrow += nlines;
        } else {
            total = order_total(g, st, odate, nlines, &shipped);
        }
        if (ob) order_row(ob, u, st, okey, odate, nlines, total, shipped);
        streams_next_row(st + L_QTY, lb ? O_NSTREAMS - L_QTY : L_SHIP - L_QTY);
    }
    if (ob) ob->rows = n;
    if (lb) lb->rows = lrow;
}

static void gen_nation_region(plank_tpch_batch *b, int64_t first, int64_t n, bool nation) {
    const plank_tpch *g = b->g;
    pk_stream sc;
    stream_at(&sc, nation ? S_N_CMNT : S_R_CMNT, first);
    const pk_tpch_dist *d = &g->dist[nation ? PK_D_NATIONS : PK_D_REGIONS];
    for (int64_t row = 0; row < n; row++) {
        const pk_tpch_member *m = &d->m[first + row];
        I64(0)[row] = first + row;
        put_str(b, 1, row, m->text, m->len);
        if (nation) I64(2)[row] = m->cum; /* the running total of the weights is the region */
        TDEFER(&sc, LO(72), HI(72));          /* exact: 2 draws a row */
    }
    b->rows = n;
}

static plank_status check_range(const plank_tpch_batch *b, int64_t first, int64_t count,
                                plank_error *err) {
    if (!b) return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: batch is NULL");
    int64_t units = plank_tpch_units(b->g, b->table);
    if (first < 0 || count < 0 || count > b->cap_units || first > units - count)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT,
                            "tpch: %s units %lld..%lld outside 0..%lld (batch holds %lld)",
                            pk_tpch_tables[b->table].name, (long long)first,
                            (long long)(first + count), (long long)units,
                            (long long)b->cap_units);
    return PLANK_OK;
}

/* After a generator: the comments copied, the writer batches pointed at
 * the columns. */
static void batch_finish(plank_tpch_batch *b) {
    const pk_tpch_tabledef *td = &pk_tpch_tables[b->table];
    b->tbl_len = 0;
    if (b->table != PLANK_TPCH_SUPPLIER) text_finish(b, td->num_cols - 1); /* the comment */
    for (int c = 0; c < td->num_cols; c++) {
        plank_batch *o = &b->out[c];
        o->length = b->rows;
        o->null_count = 0;
        if (td->cols[c].kind == PK_K_STR) {
            o->offsets = b->col[c].offsets;
            o->data = b->col[c].data;
        } else {
            o->values = b->col[c].values;
        }
    }
}

plank_status plank_tpch_generate(plank_tpch_batch *b, int64_t first, int64_t count,
                                 plank_error *err) {
    plank_error_init(err);
    if (!b) return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: NULL batch");
    plank_status st = check_range(b, first, count, err);
    if (st) return st;
    switch (b->table) {
    case PLANK_TPCH_PART: gen_part(b, first, count); break;
    case PLANK_TPCH_PARTSUPP: gen_partsupp(b, first, count); break;
    case PLANK_TPCH_SUPPLIER: gen_supplier(b, first, count); break;
    case PLANK_TPCH_CUSTOMER: gen_customer(b, first, count); break;
    case PLANK_TPCH_ORDERS: gen_orders(b, NULL, first, count); break;
    case PLANK_TPCH_LINEITEM: gen_orders(NULL, b, first, count); break;
    case PLANK_TPCH_NATION: gen_nation_region(b, first, count, true); break;
    case PLANK_TPCH_REGION: gen_nation_region(b, first, count, false); break;
    default: break;
    }
    batch_finish(b);
    return PLANK_OK;
}

plank_status pk_tpch_generate_orders_lines(plank_tpch_batch *orders, plank_tpch_batch *lines,
                                           int64_t first, int64_t count, plank_error *err) {
    plank_status st = check_range(orders, first, count, err);
    if (!st) st = check_range(lines, first, count, err);
    if (st) return st;
    if (orders->table != PLANK_TPCH_ORDERS || lines->table != PLANK_TPCH_LINEITEM)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: not an orders and a lineitem batch");
    gen_orders(orders, lines, first, count);
    batch_finish(orders);
    batch_finish(lines);
    return PLANK_OK;
}

/* ---- .tbl text ------------------------------------------------------------------- */

plank_status plank_tpch_batch_tbl(plank_tpch_batch *b, const char **text_out, size_t *len,
                                  plank_error *err) {
    plank_error_init(err);
    if (!b || !text_out || !len)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: NULL argument");
    if (b->tbl_len > 0) { /* made already since the last generate */
        *text_out = b->tbl;
        *len = b->tbl_len;
        return PLANK_OK;
    }
    const pk_tpch_tabledef *td = &pk_tpch_tables[b->table];
    size_t need = (size_t)b->rows * b->row_text_max + 1;
    if (need > b->tbl_cap) {
        char *t = pk_tpch_alloc(&b->g->alloc, need);
        if (!t) return pk_tpch_fail(err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory");
        pk_tpch_free(&b->g->alloc, b->tbl, b->tbl_cap);
        b->tbl = t;
        b->tbl_cap = need;
    }
    char *d = b->tbl;
    const plank_tpch *g = b->g;
    for (int64_t r = 0; r < b->rows; r++) {
        for (int c = 0; c < td->num_cols; c++) {
            const pk_tpch_col *col = &b->col[c];
            switch (td->cols[c].kind) {
            case PK_K_I64: d += put_int(d, ((const int64_t *)col->values)[r]); break;
            case PK_K_I32: d += put_int(d, ((const int32_t *)col->values)[r]); break;
            case PK_K_MONEY: d += put_money(d, ((const int64_t *)col->values)[r]); break;
            case PK_K_QTY: d += put_int(d, ((const int64_t *)col->values)[r] / 100); break;
            case PK_K_DATE:
                memcpy(d, g->dates[((const int32_t *)col->values)[r] - PK_TPCH_EPOCH_DAY], 10);
                d += 10;
                break;
            case PK_K_STR: {
                size_t n = (size_t)(col->offsets[r + 1] - col->offsets[r]);
                memcpy(d, col->data + col->offsets[r], n);
                d += n;
                break;
            }
            }
            *d++ = '|';
        }
        d[-1] = '\n';
    }
    b->tbl_len = (size_t)(d - b->tbl);
    *text_out = b->tbl;
    *len = b->tbl_len;
    return PLANK_OK;
}
