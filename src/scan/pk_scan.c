/*
 * pk_scan.c: the pushdown scan (plank_scan_*).
 *
 * Per row group, cheapest first:
 *  1. the predicate over the chunks' statistics (pk_prune.c): a row group
 *     where it cannot be TRUE is not read;
 *  2. bloom filters, for = and IN terms the statistics left open;
 *  3. the page index: the rows whose pages let the predicate be TRUE
 *     (intersected for AND, united for OR) become the candidate rows;
 *  4. the filter steps: the top-level conjuncts grouped by the columns they
 *     read, single-column steps first, in the order measured cost and
 *     selectivity give; each step's columns are read only at the rows the
 *     earlier steps left (the column reader's selection: pages without such
 *     a row are passed over by their header, sparse rows gathered), and
 *     string steps are evaluated once per dictionary entry and then on the
 *     codes;
 *  5. the projected columns, through a planned Arrow stream, only at the
 *     surviving rows.
 * Every pruning decision only ever removes rows the predicate cannot
 * accept; statistics that contradict themselves are ignored (pk_prune.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "pk_scan.h"
#include "../common/pk_struct.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

typedef struct pk_step {
    pk_bnode *node;          /* what the step evaluates (an AND of its conjuncts) */
    int32_t ncols;
    int32_t *cols;           /* filter column slots it reads */
    bool multi;              /* more than one column: after the single-column steps
                                until measured */
    bool dict;               /* one column (not boolean): evaluated on dictionary codes */
    bool strings;            /* one column of byte strings read as values (estimate_steps) */
    int32_t id;              /* its place in build order: the same step in every
                                worker's scan (explain sums them) */
    /* measured: time, values evaluated and values passed (for ordering) */
    double ns, values, passed;
    double code_values;      /* of values, those evaluated on a chunk read as codes (a
                                dict step's chunk without a dictionary reads values) */
    double est;              /* the rank until measured (estimate_steps) */
} pk_step;

/* Per filter column slot: the column reader and its dictionary state. */
typedef struct pk_fstate {
    plank_column_reader *cr;
    const pk_dict *dict;     /* the dictionary the entry bitmaps belong to */
    pk_buffer dt, df;        /* TRUE / FALSE bitmaps over the dictionary's entries */
    int8_t null_result;
    pk_step *dict_step;      /* the step evaluated on this column's codes (or NULL) */
    bool codes;              /* this chunk is read as dictionary codes */
    plank_batch batch;
    /* The column's values at the rows still alive after the step that read
     * it (no null), kept for the later steps of the same row group and for
     * the projection, which take them from here instead of decoding the
     * column again (Q12's receipt date: its range, then the comparisons;
     * Q6's discount: its range, then the sum). Compact, in row order: the
     * alive rows only shrink, so every later reader wants a subset of them
     * (a later step may also ask for dead rows inside its ranges, whose
     * results it drops: they get zeros). kbits marks the rows kept and
     * krank counts them before each 64-row word, so a row's place is a
     * popcount. Storing all rows the step read, by row, copied 8 MiB per
     * row group of Q6's discount where 4% of them were ever read again; a
     * column a later step reads is still kept so (by_row). A chunk read as
     * dictionary codes keeps its codes, looked up when gathered. */
    pk_buffer kept;          /* nkept * width bytes (codes: * 4; strings: nkept *
                                (uint32 offset into kdata, uint32 length)); by_row:
                                rows * width */
    pk_buffer kdata;         /* kept string bytes (values, not codes) */
    pk_buffer kbits;         /* the rows kept: 64-bit words, one more than the rows need */
    pk_buffer krank;         /* int64 per word of kbits: the rows kept before it */
    int64_t nkept;
    bool by_row;             /* kept holds every row's slot (rank = row), not compact */
    const pk_dict *kept_dict; /* codes kept: the chunk's dictionary (else NULL) */
    int32_t kept_g;          /* the row group kept (-1: none) */
    bool keeping;            /* the running step stores its batches */
    bool from_kept;          /* the running step reads from kept */
    bool wanted;             /* the projection's stream takes the kept values */
    pk_buffer kbuf;          /* a batch gathered from kept */
    pk_buffer gbits, gsel, gtmp; /* a bitmap batch's gather: kbits of its rows, the
                                    kept values it takes, values compacted */
} pk_fstate;

struct plank_scan {
    plank_allocator alloc;
    atomic_int refs;
    plank_reader *r;
    plank_scan_options o;
    plank_arrow_options arrow;
    pk_bound b;
    bool *mask;              /* projected leaf columns */
    int32_t nproj;
    int32_t nsteps;
    pk_step *steps;
    pk_fstate *fs;           /* per filter column slot */
    pk_evalctx ev;
    pk_colbatch *cb;         /* per filter column slot, for the evaluator */
    plank_scan_stats st;
    int32_t *rgs;            /* the row groups scanned, ascending */
    int32_t nrgs;
    int32_t next_rg;         /* index into rgs */
    bool streamed, counted;
    int32_t planned_g;       /* the row group the stream's plan last returned (-1: none) */
    int64_t planned_rows;    /* and its surviving rows */
    pk_buffer alive;         /* candidate / surviving rows of the current row group */
    plank_row_range *ranges; /* of the last planned row group */
    int64_t nranges;
    pk_buffer tmp_t, tmp_f;  /* fallback values' bitmaps */
    pk_buffer live;          /* a batch's live bits when they start inside a byte */
    pk_buffer kscratch;      /* a kept segment's alive bits from bit 0 */
    /* Parallel scans (plank_arrow_options.threads): the scans of the other
     * workers, opened with the same options, each with its own column
     * readers and step measurements; the row groups are shared out as they
     * are reached (pk_par_next_unit). */
    plank_scan **sibs;
    int32_t nsibs;
    int32_t threads;         /* of the read (1: serial) */
    pk_par *par;             /* while a parallel stream runs: where units come from */
    int32_t par_w;
    pk_exec *own_exec;       /* the pool of a one-row-group stream's column fan-out */
    pk_bufpool *pool;        /* a parallel stream's workers' batches */
};

/* ---- Options and statistics ----------------------------------------------------- */

void plank_scan_options_init(plank_scan_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->use_statistics = o->use_bloom_filters = o->use_page_index = o->use_dictionaries = true;
    o->pushdown = true;
}

void plank_scan_stats_init(plank_scan_stats *s) {
    if (!s) return;
    memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
}

void plank_scan_get_stats(const plank_scan *s, plank_scan_stats *out) {
    if (!s || !out) return;
    plank_scan_stats sum = s->st;
    /* Every counter after struct_size is an int64; the workers' add up,
     * except the totals every one of them holds (row_groups, rows). */
    int64_t *d = &sum.row_groups;
    size_t n = (sizeof sum - offsetof(plank_scan_stats, row_groups)) / sizeof(int64_t);
    for (int32_t k = 0; k < s->nsibs; k++) {
        const int64_t *x = &s->sibs[k]->st.row_groups;
        for (size_t i = 0; i < n; i++) d[i] += x[i];
    }
    sum.row_groups = s->st.row_groups;
    sum.rows = s->st.rows;
    /* Only what the caller's struct holds (nothing when it holds no layout). */
    (void)pk_struct_write(out, &sum, &pk_layout_scan_stats, NULL);
}

/* ---- Steps --------------------------------------------------------------------- */

static void collect_cols(const pk_bnode *n, bool *used) {
    if (n->col >= 0) used[n->col] = true;
    if (n->col2 >= 0) used[n->col2] = true;
    for (int32_t i = 0; i < n->n; i++) collect_cols(n->kids[i], used);
}

static int32_t count_conjuncts(const pk_bnode *n) {
    if (n->kind != PK_B_AND) return 1;
    int32_t c = 0;
    for (int32_t i = 0; i < n->n; i++) c += count_conjuncts(n->kids[i]);
    return c;
}

static void flatten(pk_bnode *n, pk_bnode **out, int32_t *k) {
    if (n->kind != PK_B_AND) {
        out[(*k)++] = n;
        return;
    }
    for (int32_t i = 0; i < n->n; i++) flatten(n->kids[i], out, k);
}

static plank_status oom(plank_error *err) {
    return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
}

/* An AND of integer RANGE terms on one column as one term (the
 * intersection: x >= a AND x < b is one compare per value, not two and an
 * AND); NULL when the node is not of that shape. */
static pk_bnode *merge_ranges_node(pk_bound *b, const pk_bnode *n) {
    if (n->kind != PK_B_AND || n->n < 2) return NULL;
    int32_t col = n->kids[0]->col;
    for (int32_t i = 0; i < n->n; i++) {
        const pk_bnode *k = n->kids[i];
        if (k->kind != PK_B_TERM || k->col != col || k->term.kind != PK_T_RANGE || k->term.negate)
            return NULL;
    }
    pk_vdom dom = b->cols[col].dom;
    if (dom != PK_V_BOOL && dom != PK_V_I32 && dom != PK_V_I64) return NULL;
    pk_bnode *m = pk_arena_alloc(&b->arena, sizeof *m);
    if (!m) return NULL; /* the AND works as well */
    *m = *n->kids[0];
    m->id = b->nnodes++;
    for (int32_t i = 1; i < n->n; i++) {
        const pk_term *t = &n->kids[i]->term;
        m->term.empty |= t->empty;
        if (t->lo.i > m->term.lo.i) m->term.lo.i = t->lo.i;
        if (t->hi.i < m->term.hi.i) m->term.hi.i = t->hi.i;
    }
    if (m->term.lo.i > m->term.hi.i) m->term.empty = true;
    return m;
}

/* Splits the predicate into steps: top-level conjuncts that read one
 * column are grouped by that column; conjuncts that read several are
 * grouped with the later ones that share a column with them (so that the
 * shared column is decoded once: `a < b AND c < a` reads a, b and c
 * together); without pushdown the whole predicate is one step. */
/* Whether conjunct j joins the step of conjunct i: the same single column,
 * or (both reading several columns) a column in common. */
static bool joins(const bool *cu, int32_t ncols, const int32_t *colof, bool single, int32_t i,
                  int32_t j) {
    if (single) return colof[i] >= 0 && colof[j] == colof[i];
    if (colof[j] != -1) return false;
    for (int32_t c = 0; c < ncols; c++)
        if (cu[(size_t)i * (size_t)ncols + (size_t)c] && cu[(size_t)j * (size_t)ncols + (size_t)c])
            return true;
    return false;
}

static plank_status build_steps(plank_scan *s, plank_error *err) {
    pk_bound *b = &s->b;
    if (!b->root) return PLANK_OK;
    pk_arena *ar = &b->arena;
    int32_t nc = s->o.pushdown ? count_conjuncts(b->root) : 1;
    pk_bnode **conj = pk_arena_alloc(ar, (size_t)nc * sizeof *conj);
    int32_t *colof = pk_arena_alloc(ar, (size_t)nc * sizeof *colof);
    bool *used = pk_arena_alloc(ar, (size_t)b->ncols + 1);
    s->steps = pk_arena_alloc(ar, (size_t)nc * sizeof *s->steps);
    if (!conj || !colof || !used || !s->steps) return oom(err);
    int32_t k = 0;
    if (s->o.pushdown) flatten(b->root, conj, &k);
    else conj[k++] = b->root;
    /* cu[i * ncols + c]: conjunct i reads filter column c */
    bool *cu = pk_arena_alloc(ar, (size_t)nc * (size_t)b->ncols + 1);
    if (!cu) return oom(err);
    memset(cu, 0, (size_t)nc * (size_t)b->ncols + 1);
    for (int32_t i = 0; i < nc; i++) {
        memset(used, 0, (size_t)b->ncols + 1);
        collect_cols(conj[i], used);
        int32_t cnt = 0, last = -1;
        for (int32_t c = 0; c < b->ncols; c++)
            if (used[c]) cnt++, last = c, cu[(size_t)i * (size_t)b->ncols + (size_t)c] = true;
        colof[i] = cnt == 1 ? last : cnt == 0 ? -2 : -1;
    }
    /* Single-column (and constant) groups first, in column order of first use. */
    bool *done = pk_arena_alloc(ar, (size_t)nc);
    if (!done) return oom(err);
    memset(done, 0, (size_t)nc);
    s->nsteps = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t i = 0; i < nc; i++) {
            if (done[i]) continue;
            bool single = colof[i] >= 0 || colof[i] == -2;
            if ((pass == 0) != single) continue;
            int32_t m = 0;
            for (int32_t j = i; j < nc; j++)
                if (!done[j] && (j == i || joins(cu, b->ncols, colof, single, i, j))) m++;
            pk_bnode *node = conj[i];
            if (m > 1) {
                node = pk_arena_alloc(ar, sizeof *node);
                pk_bnode **kids = pk_arena_alloc(ar, (size_t)m * sizeof *kids);
                if (!node || !kids) return oom(err);
                memset(node, 0, sizeof *node);
                node->kind = PK_B_AND;
                node->col = node->col2 = -1;
                node->id = b->nnodes++;
                node->kids = kids;
                node->n = m;
                int32_t q = 0;
                for (int32_t j = i; j < nc; j++)
                    if (!done[j] && (j == i || joins(cu, b->ncols, colof, single, i, j))) {
                        kids[q++] = conj[j];
                        done[j] = true;
                    }
            }
            done[i] = true;
            pk_bnode *merged = merge_ranges_node(b, node);
            if (merged) node = merged;
            pk_step *st = &s->steps[s->nsteps];
            memset(st, 0, sizeof *st);
            st->id = s->nsteps++;
            st->node = node;
            memset(used, 0, (size_t)b->ncols + 1);
            collect_cols(node, used);
            for (int32_t c = 0; c < b->ncols; c++) st->ncols += used[c];
            st->cols = pk_arena_alloc(ar, (size_t)(st->ncols + 1) * sizeof *st->cols);
            if (!st->cols) return oom(err);
            int32_t q = 0;
            for (int32_t c = 0; c < b->ncols; c++)
                if (used[c]) st->cols[q++] = c;
            st->multi = st->ncols > 1;
            if (st->ncols == 1 && s->o.use_dictionaries && s->o.pushdown) {
                /* Any dictionary-encoded column but a boolean: the predicate
                 * once per entry, then a bit per code instead of the value
                 * gathered from the dictionary and compared. */
                const pk_fcol *fc = &b->cols[st->cols[0]];
                st->dict = fc->node->physical_type != PLANK_BOOLEAN && fc->dom != PK_V_BOOL;
            }
        }
    }
    /* A column evaluated on its codes is read in dictionary mode, which only
     * that step may read: other steps reading it need the values. */
    for (int32_t i = 0; i < s->nsteps; i++) {
        pk_step *st = &s->steps[i];
        if (!st->dict) continue;
        for (int32_t j = 0; j < s->nsteps; j++)
            if (j != i)
                for (int32_t c = 0; c < s->steps[j].ncols; c++)
                    if (s->steps[j].cols[c] == st->cols[0]) st->dict = false;
        if (st->dict) s->fs[st->cols[0]].dict_step = st;
    }
    return PLANK_OK;
}

/* Cheapest most selective single-column step first: by cost per value
 * over the fraction of values it removes (measured so far; unmeasured
 * steps first, in their order). Multi-column steps stay last. */
static double step_rank(const pk_step *p) {
    if (p->values <= 0) return p->est;
    return (p->ns / p->values) / (1.0 - p->passed / p->values + 1e-3);
}

/* The fraction of rows a node lets through, guessed from the chunks' bounds
 * before anything is measured: a range over a numeric column as the part of
 * [min, max] it covers (values taken as spread evenly), an AND as the
 * product of its parts, anything else one half. Only an ordering hint. */
static double est_pass(const pk_bound *b, const pk_bnode *n, const pk_colstat *cs) {
    if (n->kind == PK_B_AND) {
        double p = 1;
        for (int32_t i = 0; i < n->n; i++) p *= est_pass(b, n->kids[i], cs);
        return p;
    }
    if (n->kind != PK_B_TERM) return 0.5;
    const pk_term *t = &n->term;
    const pk_colstat *st = &cs[n->col];
    pk_vdom dom = b->cols[n->col].dom;
    if (t->kind != PK_T_RANGE || t->negate || !st->known || !st->has_minmax) return 0.5;
    if (t->empty) return 0;
    double mn, mx, lo, hi;
    if (dom == PK_V_I32 || dom == PK_V_I64) {
        mn = (double)st->min.i, mx = (double)st->max.i;
        lo = t->lo_inf ? -INFINITY : (double)t->lo.i;
        hi = t->hi_inf ? INFINITY : (double)t->hi.i;
    } else if (dom == PK_V_F32 || dom == PK_V_F64) {
        mn = st->min.d, mx = st->max.d;
        lo = t->lo_inf ? -INFINITY : t->lo.d;
        hi = t->hi_inf ? INFINITY : t->hi.d;
    } else {
        return 0.5;
    }
    if (!(mx > mn)) return 0.5;
    double a = lo > mn ? lo : mn, z = hi < mx ? hi : mx;
    return z < a ? 0 : (z - a) / (mx - mn);
}

static bool all_dictionary_pages(const plank_column_chunk_info *ci);

/* Ranks the steps not measured yet (in ns per value over the fraction
 * removed, as step_rank): a value of a fixed-width column or a dictionary
 * code costs about 1 ns to decode and compare, a byte string about 8, and
 * multi-column steps run last until measured (runs_after). */
static void estimate_steps(plank_scan *s, int32_t g, const pk_colstat *cs) {
    for (int32_t i = 0; i < s->nsteps; i++) {
        pk_step *p = &s->steps[i];
        if (p->values > 0) continue;
        double cost = 0;
        p->strings = false;
        for (int32_t c = 0; c < p->ncols; c++) {
            const pk_fcol *fc = &s->b.cols[p->cols[c]];
            bool bytes = fc->dom == PK_V_BYTES || fc->dom == PK_V_I128;
            if (bytes && p->dict) {
                plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
                if (plank_reader_column_chunk(s->r, g, fc->column, &ci, NULL) == PLANK_OK &&
                    all_dictionary_pages(&ci))
                    bytes = false;
            }
            cost += bytes ? 8 : 1;
            p->strings |= bytes && p->ncols == 1;
        }
        p->est = cost / (1.0 - est_pass(&s->b, p->node, cs) + 1e-3);
    }
}

/* Whether step a runs after step b. Multi-column steps wait for the
 * single-column ones until both are measured: a guess that one is cheap
 * would read two columns whole. Except a step on byte strings read as
 * values (not dictionary codes): the estimates decide there, as a string
 * costs more to decode and compare than a row of a compare of fixed-width
 * columns (Q12's first row group of a DELTA file evaluated its l_shipmode
 * on 15% of the rows, where after the date compares it sees 2%, built
 * sparsely: a sixth of the scan's time went to that one group). Measured,
 * the ranks decide: where every value is decoded whatever the rows alive
 * (DELTA pages), a column compare that removes more rows runs before a
 * string step, which then copies and compares fewer strings. */
static bool runs_after(const pk_step *a, const pk_step *b) {
    if ((a->values <= 0 || b->values <= 0) && a->multi != b->multi &&
        !(a->multi ? b : a)->strings)
        return a->multi;
    return step_rank(a) > step_rank(b);
}

static void order_steps(plank_scan *s) {
    for (int32_t i = 1; i < s->nsteps; i++) {
        pk_step x = s->steps[i];
        int32_t j = i;
        while (j > 0 && runs_after(&s->steps[j - 1], &x)) {
            s->steps[j] = s->steps[j - 1];
            j--;
        }
        s->steps[j] = x;
    }
    for (int32_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].dict) s->fs[s->steps[i].cols[0]].dict_step = &s->steps[i];
}

/* ---- Row group pruning ---------------------------------------------------------- */

/* The PLAIN bytes of a domain value for the bloom filter; false when the
 * value has no single encoding there. */
static bool bloom_bytes(const pk_fcol *c, const pk_dval *v, uint8_t *buf, size_t *len) {
    switch (c->dom) {
    case PK_V_I32: {
        uint32_t u = c->is_unsigned ? (uint32_t)((int32_t)v->i) ^ 0x80000000u : (uint32_t)v->i;
        memcpy(buf, &u, 4);
        *len = 4;
        return true;
    }
    case PK_V_I64: {
        if (c->int96) return false;
        uint64_t u = (uint64_t)v->i;
        if (c->is_unsigned) u ^= (uint64_t)1 << 63;
        memcpy(buf, &u, 8);
        *len = 8;
        return true;
    }
    case PK_V_F32: {
        float f = (float)v->d;
        if (isnan(f) || f == 0) return false; /* NaN payloads, -0.0 vs 0.0 */
        memcpy(buf, &f, 4);
        *len = 4;
        return true;
    }
    case PK_V_F64:
        if (isnan(v->d) || v->d == 0) return false;
        memcpy(buf, &v->d, 8);
        *len = 8;
        return true;
    case PK_V_I128: {
        if (c->node->physical_type != PLANK_FIXED_LEN_BYTE_ARRAY) return false;
        int32_t w = c->node->type_length;
        if (w < 1 || w > 16) return false;
        unsigned __int128 u = (unsigned __int128)v->w;
        for (int32_t i = w - 1; i >= 0; i--) {
            buf[i] = (uint8_t)u;
            u >>= 8;
        }
        *len = (size_t)w;
        return true;
    }
    default:
        return false;
    }
}

/* Marks in absent[] the = and IN terms whose every value the column's bloom
 * filter excludes. Returns whether any filter was consulted. */
static plank_status bloom_mark(plank_scan *s, int32_t g, const pk_bnode *n, uint8_t *absent,
                               plank_bloom_filter **bfs, bool *loaded, plank_error *err) {
    for (int32_t i = 0; i < n->n; i++) PK_FORWARD(bloom_mark(s, g, n->kids[i], absent, bfs, loaded, err));
    if (n->kind != PK_B_TERM) return PLANK_OK;
    const pk_term *t = &n->term;
    bool eq = t->kind == PK_T_RANGE && !t->negate && !t->empty && !t->lo_inf && !t->hi_inf &&
              !t->nan && pk_dval_cmp(s->b.cols[n->col].dom, &t->lo, &t->hi) == 0 &&
              !t->lo_open && !t->hi_open;
    bool in = t->kind == PK_T_IN && !t->nan;
    if (!eq && !in) return PLANK_OK;
    const pk_fcol *c = &s->b.cols[n->col];
    if (!loaded[n->col]) {
        loaded[n->col] = true;
        plank_status st = plank_reader_bloom_filter(s->r, g, c->column, &bfs[n->col], err);
        if (st != PLANK_OK) {
            /* An unreadable bloom filter prunes nothing; the data decides. */
            bfs[n->col] = NULL;
            plank_error_init(err);
        }
    }
    plank_bloom_filter *bf = bfs[n->col];
    if (!bf) return PLANK_OK;
    int32_t nv = eq ? 1 : t->nlist;
    for (int32_t i = 0; i < nv; i++) {
        const pk_dval *v = eq ? &t->lo : &t->list[i];
        uint8_t buf[16];
        size_t len;
        const void *p = buf;
        if (c->dom == PK_V_BYTES) {
            p = v->p;
            len = v->n;
            if (c->node->physical_type == PLANK_FIXED_LEN_BYTE_ARRAY &&
                (int64_t)len != c->node->type_length)
                continue; /* no value of the column has another length */
        } else if (!bloom_bytes(c, v, buf, &len)) {
            return PLANK_OK;
        }
        if (plank_bloom_filter_check(bf, p, len)) return PLANK_OK;
    }
    absent[n->id] = 1;
    return PLANK_OK;
}

/* Set bits of bits[0 .. n), through the kernel table's POPCNT. */
static int64_t popcount_bits(const plank_scan *s, const uint8_t *bits, int64_t n) {
    return s->ev.k->count_bits(bits, 0, n);
}

/* Whether a bit of [from, to) is set (stops at the first). */
static bool any_in_range(const uint8_t *bits, int64_t from, int64_t to) {
    while (from < to && (from & 7))
        if (pk_bit_get(bits, from++)) return true;
    for (; to - from >= 64; from += 64)
        if (pk_load_u64(bits + from / 8)) return true;
    while (from < to)
        if (pk_bit_get(bits, from++)) return true;
    return false;
}

/* Compressed bytes of the chunks the scan would read in row group g. */
static int64_t group_bytes(plank_scan *s, int32_t g) {
    int64_t sum = 0;
    int32_t nc = plank_reader_num_columns(s->r);
    for (int32_t c = 0; c < nc; c++) {
        bool want = s->mask[c];
        for (int32_t k = 0; k < s->b.ncols && !want; k++) want = s->b.cols[k].column == c;
        if (!want) continue;
        plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
        if (plank_reader_column_chunk(s->r, g, c, &ci, NULL) == PLANK_OK)
            sum += ci.total_compressed_size;
    }
    return sum;
}

/* Whether every data page of the chunk is dictionary-encoded, as far as
 * its encoding stats tell (false when they are absent). */
static bool all_dictionary_pages(const plank_column_chunk_info *ci) {
    if (ci->num_encoding_stats <= 0) return false;
    for (int32_t i = 0; i < ci->num_encoding_stats; i++) {
        const plank_encoding_stat *e = &ci->encoding_stats[i];
        if (e->page_type != PLANK_PAGE_DATA && e->page_type != PLANK_PAGE_DATA_V2) continue;
        if (e->count > 0 && e->encoding != PLANK_ENC_RLE_DICTIONARY &&
            e->encoding != PLANK_ENC_PLAIN_DICTIONARY)
            return false;
    }
    return true;
}

/* Whether every data page of the chunk is PLAIN (by its encoding stats, or
 * else its list of encodings, levels' aside): a step reads such a column
 * in view mode, its batches pointing at the pages instead of copies. */
static bool all_plain_pages(const plank_column_chunk_info *ci) {
    if (ci->num_encoding_stats > 0) {
        for (int32_t i = 0; i < ci->num_encoding_stats; i++) {
            const plank_encoding_stat *e = &ci->encoding_stats[i];
            if ((e->page_type == PLANK_PAGE_DATA || e->page_type == PLANK_PAGE_DATA_V2) &&
                e->count > 0 && e->encoding != PLANK_ENC_PLAIN)
                return false;
        }
        return true;
    }
    for (int32_t i = 0; i < ci->num_encodings; i++)
        if (ci->encodings[i] != PLANK_ENC_PLAIN && ci->encodings[i] != PLANK_ENC_RLE &&
            ci->encodings[i] != PLANK_ENC_BIT_PACKED)
            return false;
    return ci->dictionary_page_offset < 0;
}

/* The page index of filter column slot k in row group g into pi (npages 0
 * when absent or unusable). */
static plank_status load_pages(plank_scan *s, int32_t g, int32_t k, int64_t rows,
                               pk_pageinfo *pi, plank_error *err) {
    memset(pi, 0, sizeof *pi);
    const pk_fcol *c = &s->b.cols[k];
    if (!c->stats_ok) return PLANK_OK;
    plank_column_index *ci = NULL;
    plank_offset_index *oi = NULL;
    plank_error e2;
    plank_error_init(&e2);
    /* A page index that cannot be read prunes nothing. */
    if (plank_reader_column_index(s->r, g, c->column, &ci, &e2) != PLANK_OK) ci = NULL;
    if (ci && plank_reader_offset_index(s->r, g, c->column, &oi, &e2) != PLANK_OK) oi = NULL;
    plank_status st = PLANK_OK;
    if (ci && oi && ci->num_pages == oi->num_pages && ci->num_pages > 0) {
        int32_t np = ci->num_pages;
        bool ok = oi->pages[0].first_row_index == 0;
        for (int32_t i = 1; i < np && ok; i++)
            ok = oi->pages[i].first_row_index > oi->pages[i - 1].first_row_index &&
                 oi->pages[i].first_row_index < rows;
        if (ok) {
            pi->cap = np;
            pi->first = pk_malloc(&s->alloc, (size_t)(np + 1) * sizeof *pi->first);
            pi->st = pk_malloc(&s->alloc, (size_t)np * sizeof *pi->st);
            if (!pi->first || !pi->st) {
                st = oom(err);
            } else {
                for (int32_t i = 0; i < np; i++) pi->first[i] = oi->pages[i].first_row_index;
                pi->first[np] = rows;
                bool required = c->node->max_definition_level == 0;
                for (int32_t i = 0; i < np; i++) {
                    pk_colstat *p = &pi->st[i];
                    memset(p, 0, sizeof *p);
                    p->num_values = pi->first[i + 1] - pi->first[i];
                    p->may_nan = true;
                    p->known = true;
                    if (required) {
                        p->nulls_known = true;
                    } else if (ci->null_counts && ci->null_counts[i] >= 0 &&
                               ci->null_counts[i] <= p->num_values) {
                        p->nulls_known = true;
                        p->null_count = ci->null_counts[i];
                    }
                    if (ci->null_pages[i]) {
                        /* An all-null page: trusted only when the null count,
                         * if given, agrees (and never for a REQUIRED column). */
                        if (!required && (!ci->null_counts || ci->null_counts[i] == p->num_values)) {
                            p->nulls_known = true;
                            p->null_count = p->num_values;
                        }
                        continue;
                    }
                    if (pk_decode_bound(c, ci->min_values[i], ci->min_lens[i], &p->min) &&
                        pk_decode_bound(c, ci->max_values[i], ci->max_lens[i], &p->max) &&
                        pk_dval_cmp(c->dom, &p->min, &p->max) <= 0) {
                        p->has_minmax = true;
                        p->max_prefix = c->dom == PK_V_BYTES;
                        if (p->nulls_known && p->null_count >= p->num_values && !required)
                            p->nulls_known = false;
                    }
                }
                pi->npages = np;
            }
        }
    }
    /* The bounds point into ci: copy the byte values the evaluation needs. */
    if (st == PLANK_OK && pi->npages > 0 && c->dom == PK_V_BYTES) {
        size_t total = 0;
        for (int32_t i = 0; i < pi->npages; i++) total += pi->st[i].min.n + pi->st[i].max.n;
        uint8_t *copy = pk_malloc(&s->alloc, total + 1);
        pi->bytes = copy;
        pi->bytes_len = total + 1;
        if (!copy) {
            st = oom(err);
        } else {
            for (int32_t i = 0; i < pi->npages; i++) {
                pk_colstat *p = &pi->st[i];
                if (!p->has_minmax) continue;
                memcpy(copy, p->min.p, p->min.n);
                p->min.p = copy;
                copy += p->min.n;
                memcpy(copy, p->max.p, p->max.n);
                p->max.p = copy;
                copy += p->max.n;
            }
        }
    }
    plank_column_index_free(ci);
    plank_offset_index_free(oi);
    return st;
}

static void free_pages(plank_scan *s, pk_pageinfo *pi) {
    if (pi->first) pk_free(&s->alloc, pi->first, (size_t)(pi->cap + 1) * sizeof *pi->first);
    if (pi->st) pk_free(&s->alloc, pi->st, (size_t)pi->cap * sizeof *pi->st);
    if (pi->bytes) pk_free(&s->alloc, pi->bytes, pi->bytes_len);
    memset(pi, 0, sizeof *pi);
}

/* ---- Filter steps ----------------------------------------------------------------- */

/* Opens (or moves) filter column k's reader to row group g. A column with
 * a step on dictionary codes is read as codes when its chunk has a
 * dictionary; a chunk without one is read as values. */
static plank_status open_reader(plank_scan *s, int32_t k, int32_t g, plank_error *err) {
    pk_fstate *f = &s->fs[k];
    if (f->cr) PK_FORWARD(pk_column_reader_reopen(f->cr, g, err));
    else PK_FORWARD(plank_column_reader_open(&f->cr, s->r, g, s->b.cols[k].column, err));
    f->codes = false;
    /* The entry bitmaps belong to the last chunk's dictionary (the reader
     * keeps its dictionary at one address across chunks). */
    f->dict = NULL;
    if (f->dict_step) {
        plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
        PK_FORWARD(plank_reader_column_chunk(s->r, g, s->b.cols[k].column, &ci, err));
        bool has_dict = ci.dictionary_page_offset >= 0;
        for (int32_t i = 0; i < ci.num_encodings && !has_dict; i++)
            has_dict = ci.encodings[i] == PLANK_ENC_RLE_DICTIONARY ||
                       ci.encodings[i] == PLANK_ENC_PLAIN_DICTIONARY;
        f->codes = has_dict;
    }
    pk_column_reader_set_dict_mode(f->cr, f->codes);
    pk_column_reader_set_run_log(f->cr, f->codes);
    return PLANK_OK;
}

/* The step's TRUE bitmap for a batch of a dictionary-mode column. */
static plank_status eval_codes(plank_scan *s, pk_step *step, const plank_batch *b,
                               const uint8_t **tout, plank_error *err) {
    int32_t k = step->cols[0];
    pk_fstate *f = &s->fs[k];
    const pk_dict *d = pk_column_reader_dict(f->cr);
    int64_t dn = d ? d->count : 0;
    if (d != f->dict) {
        size_t nb = (size_t)(dn + 7) / 8 + 8;
        PK_FORWARD(pk_buffer_resize(&f->dt, nb, err));
        PK_FORWARD(pk_buffer_resize(&f->df, nb, err));
        memset(f->dt.data, 0, nb);
        memset(f->df.data, 0, nb);
        const uint8_t *entries = !d ? NULL : d->type == PLANK_BYTE_ARRAY ? d->data : d->values;
        PK_FORWARD(pk_eval_entries(&s->ev, step->node, k, d ? d->offsets : NULL, entries, dn,
                                   f->dt.data, f->df.data, &f->null_result, err));
        f->dict = d;
        s->st.dictionary_entries_evaluated += dn;
    }
    int64_t n = b->length;
    int64_t fb = pk_column_reader_fallback_count(f->cr);
    const uint8_t *fbt = NULL;
    if (fb > 0) {
        /* The batch's values from non-dictionary pages, evaluated first:
         * the evaluation uses the node's bitmaps, which t is. */
        PK_FORWARD(pk_buffer_resize(&s->tmp_t, (size_t)(fb + 7) / 8 + 8, err));
        PK_FORWARD(pk_buffer_resize(&s->tmp_f, (size_t)(fb + 7) / 8 + 8, err));
        PK_FORWARD(pk_eval_entries(&s->ev, step->node, k, b->offsets, b->data, fb,
                                   s->tmp_t.data, s->tmp_f.data, NULL, err));
        fbt = s->tmp_t.data;
    }
    uint8_t *t = s->ev.bits + (size_t)step->node->id * 2 * PK_EVAL_STRIDE;
    const int32_t *codes = b->values;
    int64_t nruns;
    const int64_t *runs = pk_column_reader_runs(f->cr, &nruns);
    if (nruns == 0) {
        s->ev.k->filter_codes(codes, (size_t)n, f->dt.data, dn, t);
    } else {
        /* A run of one code is decided once, by its first code; the codes
         * between runs go through the kernel (runs start and end on whole
         * bytes of t, so each piece is written alone). */
        int64_t at = 0;
        for (int64_t r = 0; r <= nruns; r++) {
            int64_t first = r < nruns ? runs[2 * r] : n, count = r < nruns ? runs[2 * r + 1] : 0;
            if (first > at)
                s->ev.k->filter_codes(codes + at, (size_t)(first - at), f->dt.data, dn,
                                      t + (at >> 3));
            if (count > 0) {
                uint8_t one;
                s->ev.k->filter_codes(codes + first, 1, f->dt.data, dn, &one);
                memset(t + (first >> 3), (one & 1) ? 0xFF : 0, (size_t)(count >> 3));
                s->st.values_decided_by_run += count;
            }
            at = first + count;
        }
    }
    if (fb > 0 || (b->null_count > 0 && f->null_result == 1)) {
        for (int64_t i = 0; i < n; i++) {
            int32_t c = codes[i];
            if (c < 0) pk_bit_put(t, i, f->null_result == 1);
            else if (c >= dn) pk_bit_put(t, i, fbt && pk_bit_get(fbt, c - dn));
        }
    }
    *tout = t;
    return PLANK_OK;
}

/* dst bits [d, d + n) &= src bits [s, s + n). */
static void and_bits(uint8_t *dst, int64_t d, const uint8_t *src, int64_t s, int64_t n) {
    while (n > 0 && (d & 7)) {
        if (!pk_bit_get(src, s)) pk_bit_clear(dst, d);
        d++, s++, n--;
    }
    /* d is byte-aligned: take 56 source bits at a time from any offset. */
    while (n >= 56) {
        uint64_t w = pk_load_u64(src + (s >> 3)) >> (s & 7);
        uint64_t x = pk_load_u64(dst + (d >> 3));
        x &= w | ~(((uint64_t)1 << 56) - 1);
        memcpy(dst + (d >> 3), &x, 7);
        d += 56, s += 56, n -= 56;
    }
    while (n > 0) {
        if (!pk_bit_get(src, s)) pk_bit_clear(dst, d);
        d++, s++, n--;
    }
}

/* Selection ranges closer than this many rows are read as one: decoding a
 * few unneeded values costs less than starting a range (measured on
 * TPC-H lineitem: a range costs about what 20-40 plain values do). */
#define PK_MERGE_GAP 32

/* More than one range per this many rows: the column reader's per-range
 * work (skips, gather windows) costs more than decoding every value. */
#define PK_DENSE_RANGES 256
/* A batch of a one-column string step is read packed (packed_batch_done)
 * when fewer than one row in this many is alive: then building only the
 * alive rows' values, densely, costs less than building them in their
 * slots and leaving the others empty (measured on TPC-H Q12's l_shipmode
 * after its date terms, 1.8% alive, DELTA_BYTE_ARRAY). */
#define PK_PACK_RATIO 10


/* The projection reads a row group whole and keeps the surviving rows of its
 * batches by their bitmap (dropped in the decoders of required columns) when
 * they form more than one run per this many rows; fewer, longer runs are read
 * as ranges (pages without a survivor skipped). Every column of SF 1 lineitem,
 * rows kept at random (bench/README.md, "Projections"): at 4% (a run per 26
 * rows) the bitmap took 233-296 ms against 320-337 as ranges on the PLAIN and
 * dictionary files, at 2% (a run per 51) 232 against 279 on dictionary and the
 * same on PLAIN; 16, the value before the decoders dropped rows, left both to
 * ranges. */
#define PK_MASK_RUNS 64

/* Merges ranges whose gap is below PK_MERGE_GAP, in place; returns the count. */
static int64_t merge_ranges(plank_row_range *rr, int64_t nr) {
    int64_t k = 0;
    for (int64_t i = 0; i < nr; i++) {
        if (k > 0 && rr[i].first - (rr[k - 1].first + rr[k - 1].count) < PK_MERGE_GAP) {
            rr[k - 1].count = rr[i].first + rr[i].count - rr[k - 1].first;
            continue;
        }
        rr[k++] = rr[i];
    }
    return k;
}

/* The bytes per value a column's kept values take (0: not kept). */
static size_t kept_width(const pk_fcol *c) {
    plank_physical_type t = c->node->physical_type;
    if (t == PLANK_BOOLEAN || t == PLANK_BYTE_ARRAY) return 0;
    return (size_t)pk_physical_width(t, c->node->type_length);
}

/* The bytes per row a step keeps for column c (0: not kept): codes,
 * fixed-width values, or a string's place in kdata. */
static size_t keep_width(const pk_fcol *c, bool codes) {
    plank_physical_type t = c->node->physical_type;
    /* A string column's codes are not kept: reading the survivors' codes
     * again costs less than copying every row's (measured on Q12's
     * l_shipmode, a new scan's buffers faulting in page by page). */
    if (t == PLANK_BOOLEAN || (codes && t == PLANK_BYTE_ARRAY)) return 0;
    if (codes) return 4;
    return t == PLANK_BYTE_ARRAY ? 8 : kept_width(c);
}

/* Whether a step after `step` (in the current order) reads column slot k. */
static bool read_by_later_step(const plank_scan *s, const pk_step *step, int32_t k) {
    for (const pk_step *p = step + 1; p < s->steps + s->nsteps; p++)
        for (int32_t c = 0; c < p->ncols; c++)
            if (p->cols[c] == k) return true;
    return false;
}

/* A kept buffer resized to n bytes. A new block is about to be written
 * nearly whole: its pages are faulted in by one call rather than one fault
 * each (a first scan's faults were most of its extra time on this
 * project's virtual machines). */
static bool reserve_kept(plank_scan *s, pk_buffer *b, size_t n) {
    size_t cap = b->capacity;
    if (pk_buffer_resize(b, n, NULL) != PLANK_OK) return false;
    if (b->capacity != cap && pk_alloc_is_default(&s->alloc))
        pk_populate_write(b->data, b->capacity);
    return true;
}

/* The 64 bits of the alive bitmap from bit `bit` on (the bitmap has 8
 * bytes of padding past its rows, so the ninth byte read is inside it). */
static inline uint64_t alive_word(const uint8_t *alive, int64_t bit) {
    uint64_t w;
    memcpy(&w, alive + (bit >> 3), 8);
    unsigned sh = (unsigned)(bit & 7);
    if (sh) w = (w >> sh) | ((uint64_t)alive[(bit >> 3) + 8] << (64 - sh));
    return w;
}

/* Room in f's kept strings for up to all of the batch's values (none
 * null; their bytes addressed by 32-bit places), else the keeping ends. */
static bool kept_strings_room(plank_scan *s, pk_fstate *f) {
    const plank_batch *b = &f->batch;
    const int64_t *o = b->offsets;
    size_t base = f->kdata.size, bytes = (size_t)(o[b->length] - o[0]);
    if (b->null_count > 0 || base + bytes > UINT32_MAX ||
        !reserve_kept(s, &f->kdata, base + bytes) ||
        !reserve_kept(s, &f->kept, (size_t)(f->nkept + b->length) * 8)) {
        f->keeping = false;
        return false;
    }
    f->kdata.size = base; /* reserve_kept sized it: kept_string_put appends */
    return true;
}

/* Appends value i of the batch to f's kept strings (kept_strings_room
 * made the room): its bytes to kdata, its place to kept. */
static inline void kept_string_put(pk_fstate *f, int64_t i) {
    const int64_t *o = f->batch.offsets;
    size_t len = (size_t)(o[i + 1] - o[i]), pos = f->kdata.size;
    if (len) memcpy(f->kdata.data + pos, f->batch.data + o[i], len);
    uint32_t *at = (uint32_t *)(void *)f->kept.data + 2 * f->nkept;
    at[0] = (uint32_t)pos;
    at[1] = (uint32_t)len;
    f->nkept++;
    f->kdata.size = pos + len;
}

/* A batch of strings kept, after the step decided it: only the rows still
 * alive (no later reader asks for another), each one's bytes appended to
 * kdata and its place appended to kept. */
static void keep_strings(plank_scan *s, pk_fstate *f, const uint8_t *alive,
                         const plank_row_range *rr, int64_t ri, int64_t row) {
    if (!kept_strings_room(s, f)) return;
    int64_t length = f->batch.length;
    for (int64_t p = 0, m; p < length; row += m, p += m) {
        m = pk_range_step(rr, &ri, &row, length - p);
        /* The alive rows of the segment, 64 bits at a time (few are left
         * alive by then: a test per row cost more than the copies). */
        for (int64_t w0 = 0; w0 < m; w0 += 64) {
            uint64_t bits = alive_word(alive, row + w0);
            if (m - w0 < 64) bits &= ((uint64_t)1 << (m - w0)) - 1;
            while (bits) {
                kept_string_put(f, p + w0 + __builtin_ctzll(bits));
                bits &= bits - 1;
            }
        }
    }
}

/* Whether a batch a keeping step read can be kept (fixed width: checked
 * when read, kept after the step decided it, by keep_fixed); a batch with
 * nulls, or with fallback values among codes, ends the keeping (the later
 * readers decode again). */
static void keep_check(pk_fstate *f, size_t w) {
    const plank_batch *b = &f->batch;
    if (!f->codes && b->physical_type == PLANK_BYTE_ARRAY) return; /* keep_strings */
    if (b->null_count > 0 || (size_t)b->value_width != w ||
        (f->codes && pk_column_reader_fallback_count(f->cr) > 0))
        f->keeping = false;
}

/* Appends to kept the batch's values (codes in codes mode) of the rows
 * still alive after the step decided it (the read rows rr from range ri,
 * row `row` on). */
static void keep_fixed(plank_scan *s, pk_fstate *f, size_t w, const uint8_t *alive,
                       const plank_row_range *rr, int64_t ri, int64_t row) {
    const plank_batch *b = &f->batch;
    const pk_kernels *kn = s->ev.k;
    if (f->by_row) {
        /* every read row's value at its row (the dead ones' too: cheaper
         * than testing) */
        for (int64_t p = 0, m; p < b->length; row += m, p += m) {
            m = pk_range_step(rr, &ri, &row, b->length - p);
            memcpy(f->kept.data + (size_t)row * w, b->values + (size_t)p * w, (size_t)m * w);
        }
        return;
    }
    /* compact_fixed may write a segment's whole width past the kept ones */
    if (!reserve_kept(s, &f->kept, (size_t)(f->nkept + b->length) * w) ||
        pk_buffer_resize(&s->kscratch, (size_t)(b->length + 7) / 8 + 8, NULL) != PLANK_OK) {
        f->keeping = false;
        return;
    }
    for (int64_t p = 0, m; p < b->length; row += m, p += m) {
        m = pk_range_step(rr, &ri, &row, b->length - p);
        const uint8_t *src = b->values + (size_t)p * w;
        if (kn->count_bits(alive, row, row + m) * 16 < m) {
            /* Few alive (Q6's discount keeps 4% of its rows): a copy per
             * set bit costs less than compacting every value. */
            int64_t k = f->nkept;
            for (int64_t w0 = 0; w0 < m; w0 += 64) {
                uint64_t bits = alive_word(alive, row + w0);
                if (m - w0 < 64) bits &= ((uint64_t)1 << (m - w0)) - 1;
                for (; bits; bits &= bits - 1, k++) {
                    int64_t i = w0 + __builtin_ctzll(bits);
                    if (w == 4) memcpy(f->kept.data + (size_t)k * 4, src + (size_t)i * 4, 4);
                    else if (w == 8) memcpy(f->kept.data + (size_t)k * 8, src + (size_t)i * 8, 8);
                    else memcpy(f->kept.data + (size_t)k * w, src + (size_t)i * w, w);
                }
            }
            f->nkept = k;
            continue;
        }
        const uint8_t *bits = alive + (row >> 3);
        if (row & 7) {
            kn->copy_bits(alive, row, s->kscratch.data, 0, (size_t)m);
            bits = s->kscratch.data;
        }
        f->nkept += kn->compact_fixed(f->kept.data + (size_t)f->nkept * w, src, w, bits,
                                      (size_t)m);
    }
}

/* After a step kept every batch: the rows kept are the rows alive (those
 * it did not read were dead before it), marked in kbits and counted per
 * word into krank. False when they disagree with what was kept (nothing
 * is kept then: the later readers decode again). */
static bool keep_rows(pk_fstate *f, const pk_kernels *kn, const uint8_t *alive,
                      int64_t rows) {
    if (f->by_row) return true;
    size_t words = (size_t)(rows + 63) / 64;
    if (pk_buffer_resize(&f->kbits, (words + 1) * 8, NULL) != PLANK_OK ||
        pk_buffer_resize(&f->krank, (words + 1) * 8, NULL) != PLANK_OK)
        return false;
    memset(f->kbits.data, 0, (words + 1) * 8);
    kn->copy_bits(alive, 0, f->kbits.data, 0, (size_t)rows);
    int64_t *rank = (int64_t *)(void *)f->krank.data, sum = 0;
    for (size_t i = 0; i <= words; i++) {
        uint64_t w;
        memcpy(&w, f->kbits.data + i * 8, 8);
        rank[i] = sum;
        sum += pk_bits_popcount(w);
    }
    return sum == f->nkept;
}

/* Where kept row `row` is (the rows kept before it, or the row by row). */
static inline int64_t kept_rank(const pk_fstate *f, int64_t row) {
    if (f->by_row) return row;
    uint64_t w;
    memcpy(&w, f->kbits.data + (size_t)(row >> 6) * 8, 8);
    unsigned b = (unsigned)(row & 63);
    int64_t r = ((const int64_t *)(const void *)f->krank.data)[row >> 6];
    return b ? r + pk_bits_popcount(w << (64 - b)) : r;
}

/* Dictionary entries of codes c[0 .. m) into dst (entries of w bytes). */
static plank_status lookup_codes(const pk_dict *d, size_t w, const int32_t *c, int64_t m,
                                 uint8_t *dst, plank_error *err) {
    uint32_t bad = 0, n = (uint32_t)d->count;
    if (w == 4) {
        const uint32_t *v = (const uint32_t *)(const void *)d->values;
        uint32_t *o = (uint32_t *)(void *)dst;
        for (int64_t i = 0; i < m; i++) {
            uint32_t k = (uint32_t)c[i];
            bad |= k >= n;
            o[i] = v[k < n ? k : 0];
        }
    } else if (w == 8) {
        const uint64_t *v = (const uint64_t *)(const void *)d->values;
        uint64_t *o = (uint64_t *)(void *)dst;
        for (int64_t i = 0; i < m; i++) {
            uint32_t k = (uint32_t)c[i];
            bad |= k >= n;
            o[i] = v[k < n ? k : 0];
        }
    } else {
        for (int64_t i = 0; i < m; i++) {
            uint32_t k = (uint32_t)c[i];
            bad |= k >= n;
            memcpy(dst + (size_t)i * w, d->values + (size_t)(k < n ? k : 0) * w, w);
        }
    }
    PK_RETURN_IF(bad, err, PLANK_ERR_CORRUPT, "dictionary index out of range (%lld entries)",
                 (long long)d->count);
    return PLANK_OK;
}

/* The place in kept of rows [row, row + m), which must all be kept: by
 * row, every row read is; compact, only the projection reads, and only
 * surviving rows (a later step's reads, which may take dead rows, are of
 * columns kept by row). */
static plank_status kept_run(const pk_fstate *f, int64_t row, int64_t m, int64_t *at,
                             plank_error *err) {
    *at = kept_rank(f, row);
    PK_RETURN_IF(kept_rank(f, row + m) - *at != m, err, PLANK_ERR_INVALID_ARGUMENT,
                 "rows %lld..%lld asked of a filter column's kept values were not kept",
                 (long long)row, (long long)(row + m));
    return PLANK_OK;
}

/* A bitmap batch's rows (at->bits over at->slots rows from at->row), n of
 * them, in f's kept values: the first kept index of the batch's rows in
 * *first, and gsel's bits [0, *count) telling which of the *count kept
 * rows from there the batch takes (by row: every row is kept, and the
 * batch's bits are those). Every row taken must have been kept. */
static plank_status kept_select(pk_fstate *f, const pk_kernels *kn, const pk_given_rows *at,
                                int64_t n, int64_t *first, int64_t *count,
                                const uint8_t **sel, plank_error *err) {
    int64_t row = at->row, slots = at->slots;
    *first = kept_rank(f, row);
    *count = kept_rank(f, row + slots) - *first;
    if (f->by_row) {
        *sel = at->bits;
        return PLANK_OK;
    }
    size_t nb = (size_t)(slots + 7) / 8 + 8;
    PK_FORWARD(pk_buffer_resize(&f->gbits, nb, err));
    PK_FORWARD(pk_buffer_resize(&f->gsel, nb, err));
    memset(f->gbits.data, 0, nb);
    kn->copy_bits(f->kbits.data, row, f->gbits.data, 0, (size_t)slots);
    /* the batch's bits of the kept rows, in kept order */
    int64_t taken = kn->compact_bits(f->gsel.data, at->bits, f->gbits.data, (size_t)slots);
    PK_RETURN_IF(taken != n || *count > slots, err, PLANK_ERR_INVALID_ARGUMENT,
                 "rows %lld..%lld asked of a filter column's kept values were not kept",
                 (long long)row, (long long)(row + slots));
    *sel = f->gsel.data;
    return PLANK_OK;
}

/* A bitmap batch's n kept values of w bytes into dst (kept_gather). */
static plank_status kept_gather_bits(pk_fstate *f, const pk_kernels *kn, size_t w,
                                     const pk_given_rows *at, int64_t n, uint8_t *dst,
                                     plank_error *err) {
    int64_t first, count;
    const uint8_t *sel;
    PK_FORWARD(kept_select(f, kn, at, n, &first, &count, &sel, err));
    size_t kw = f->kept_dict ? 4 : w;
    PK_FORWARD(pk_buffer_resize(&f->gtmp, (size_t)count * kw + kw, err));
    int64_t got = kn->compact_fixed(f->gtmp.data, f->kept.data + (size_t)first * kw, kw, sel,
                                    (size_t)count);
    PK_RETURN_IF(got != n, err, PLANK_ERR_INVALID_ARGUMENT,
                 "%lld of %lld rows asked of a filter column's kept values were kept",
                 (long long)got, (long long)n);
    if (f->kept_dict)
        return lookup_codes(f->kept_dict, w, (const int32_t *)(const void *)f->gtmp.data, n, dst,
                            err);
    memcpy(dst, f->gtmp.data, (size_t)n * w);
    return PLANK_OK;
}

/* n kept values of w bytes (the rows of given) into dst. */
static plank_status kept_gather(pk_fstate *f, const pk_kernels *kn, size_t w,
                                const pk_given_rows *given, int64_t n, uint8_t *dst,
                                plank_error *err) {
    if (given->bits) return kept_gather_bits(f, kn, w, given, n, dst, err);
    const plank_row_range *rr = given->rr;
    int64_t ri = given->ri, row = given->row;
    const uint8_t *src = f->kept.data;
    for (int64_t p = 0, m, at; p < n; row += m, p += m) {
        m = pk_range_step(rr, &ri, &row, n - p);
        PK_FORWARD(kept_run(f, row, m, &at, err));
        if (f->kept_dict)
            PK_FORWARD(lookup_codes(f->kept_dict, w, (const int32_t *)(const void *)src + at, m,
                                    dst + (size_t)p * w, err));
        else
            memcpy(dst + (size_t)p * w, src + (size_t)at * w, (size_t)m * w);
    }
    return PLANK_OK;
}

/* Kept string i (at: kept's places) appended to out at *pos, its end the
 * Arrow offset k + 1 (ow bytes). */
static inline void kept_string_out(const pk_fstate *f, const uint32_t *at, int64_t i,
                                   uint8_t *out, uint64_t *pos, uint8_t *offs, size_t ow,
                                   int64_t k) {
    size_t len = at[2 * i + 1];
    if (len) memcpy(out + *pos, f->kdata.data + at[2 * i], len);
    *pos += len;
    if (ow == 8) ((int64_t *)(void *)offs)[k + 1] = (int64_t)*pos;
    else ((int32_t *)(void *)offs)[k + 1] = (int32_t)*pos;
}

/* A bitmap batch's n kept strings (kept_gather_strings). */
static plank_status kept_gather_strings_bits(pk_fstate *f, const pk_kernels *kn,
                                             const pk_given_rows *given, int64_t n, size_t ow,
                                             uint8_t *offs, pk_buffer *data, plank_error *err) {
    int64_t first, count;
    const uint8_t *sel;
    PK_FORWARD(kept_select(f, kn, given, n, &first, &count, &sel, err));
    const uint32_t *at = (const uint32_t *)(const void *)f->kept.data;
    uint64_t total = 0;
    for (int64_t j = 0; j < count; j++)
        if (pk_bit_get(sel, j)) total += at[2 * (first + j) + 1];
    PK_RETURN_IF(ow == 4 && total > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "%llu string bytes in one batch do not fit 32-bit offsets",
                 (unsigned long long)total);
    PK_FORWARD(pk_buffer_resize(data, (size_t)total, err));
    memset(offs, 0, ow);
    uint64_t pos = 0;
    int64_t k = 0;
    for (int64_t w0 = 0; w0 < count; w0 += 64) {
        uint64_t bits = pk_load_u64(sel + (w0 >> 3));
        if (count - w0 < 64) bits &= ((uint64_t)1 << (count - w0)) - 1;
        while (bits) {
            kept_string_out(f, at, first + w0 + __builtin_ctzll(bits), data->data, &pos, offs,
                            ow, k++);
            bits &= bits - 1;
        }
    }
    return PLANK_OK;
}

/* n kept strings (the rows of given: the projection's, all kept) as Arrow
 * offsets of ow bytes (n + 1 of them, into offs) and bytes (into data). */
static plank_status kept_gather_strings(pk_fstate *f, const pk_kernels *kn,
                                        const pk_given_rows *given, int64_t n, size_t ow,
                                        uint8_t *offs, pk_buffer *data, plank_error *err) {
    if (given->bits) return kept_gather_strings_bits(f, kn, given, n, ow, offs, data, err);
    const plank_row_range *rr = given->rr;
    int64_t ri = given->ri, row = given->row;
    const uint32_t *at = (const uint32_t *)(const void *)f->kept.data;
    /* The bytes first, so that the copy goes to a buffer of its final size. */
    uint64_t total = 0;
    for (int64_t p = 0, m, a, ri2 = ri, row2 = row; p < n; row2 += m, p += m) {
        m = pk_range_step(rr, &ri2, &row2, n - p);
        PK_FORWARD(kept_run(f, row2, m, &a, err));
        for (int64_t i = a; i < a + m; i++) total += at[2 * i + 1];
    }
    PK_RETURN_IF(ow == 4 && total > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "%llu string bytes in one batch do not fit 32-bit offsets",
                 (unsigned long long)total);
    PK_FORWARD(pk_buffer_resize(data, (size_t)total, err));
    uint8_t *out = data->data;
    uint64_t pos = 0;
    memset(offs, 0, ow);
    int64_t k = 0;
    for (int64_t p = 0, m; p < n; row += m, p += m) {
        m = pk_range_step(rr, &ri, &row, n - p);
        for (int64_t i = kept_rank(f, row), e = i + m; i < e; i++, k++)
            kept_string_out(f, at, i, out, &pos, offs, ow, k);
    }
    return PLANK_OK;
}

/* The batch of the next n read rows (the merged ranges rr from range ri,
 * row `row` on) from the kept values: in place when they are values in one
 * run of rows, else gathered. */
static plank_status kept_batch(pk_fstate *f, const pk_fcol *c, size_t w,
                               const plank_row_range *rr, int64_t ri, int64_t row, int64_t n,
                               plank_error *err) {
    plank_batch *b = &f->batch;
    const uint8_t *values;
    int64_t ri2 = ri, row2 = row, at;
    if (!f->kept_dict && pk_range_step(rr, &ri2, &row2, n) == n) {
        PK_FORWARD(kept_run(f, row2, n, &at, err));
        values = f->kept.data + (size_t)at * w;
    } else {
        PK_FORWARD(pk_buffer_resize(&f->kbuf, (size_t)n * w, err));
        pk_given_rows rows = {rr, ri, row, NULL, 0};
        PK_FORWARD(kept_gather(f, NULL, w, &rows, n, f->kbuf.data, err));
        values = f->kbuf.data;
    }
    memset(b, 0, sizeof *b);
    b->struct_size = sizeof *b;
    b->length = n;
    b->physical_type = c->node->physical_type;
    b->values = values;
    b->value_width = (int32_t)w;
    return PLANK_OK;
}

/* The interval [*lo, *hi] a row's value of signed integer filter column k
 * must lie in for node to be TRUE (a range or IN term on k, or a conjunction
 * holding some); false when node does not confine it. The column's reader
 * then passes over DELTA_BINARY_PACKED runs outside it: their rows fail the
 * step whatever stands in for their values, and a failed row's values are
 * never read again (kept values serve surviving rows only). */
static bool step_interval(const pk_bound *b, const pk_bnode *n, int32_t k, int64_t *lo,
                          int64_t *hi) {
    const pk_fcol *c = &b->cols[k];
    if ((c->dom != PK_V_I32 && c->dom != PK_V_I64) || c->is_unsigned || c->int96) return false;
    if (n->kind == PK_B_TERM && n->col == k) {
        const pk_term *t = &n->term;
        if (t->kind == PK_T_RANGE && !t->negate && !t->empty) {
            *lo = t->lo.i;
            *hi = t->hi.i;
            return true;
        }
        if (t->kind == PK_T_IN && t->nlist > 0) {
            *lo = t->list[0].i;
            *hi = t->list[t->nlist - 1].i;
            return true;
        }
        return false;
    }
    if (n->kind != PK_B_AND) return false;
    bool any = false;
    int64_t l = INT64_MIN, h = INT64_MAX, a, z;
    for (int32_t i = 0; i < n->n; i++) {
        if (!step_interval(b, n->kids[i], k, &a, &z)) continue;
        any = true;
        l = a > l ? a : l;
        h = z < h ? z : h;
    }
    *lo = l;
    *hi = h;
    return any;
}

/* A packed batch of a one-column step (run_step): the values of the alive
 * rows among slots [done, done + n) of the row group (n <= PK_EVAL_BATCH),
 * in order. The step is evaluated on them; its pass bits, spread over the
 * alive rows' places, become those rows' alive bits; and when the column is
 * kept for the projection, the values that passed are appended as
 * keep_strings appends them. */
static plank_status packed_batch_done(plank_scan *s, pk_step *step, pk_fstate *f,
                                      uint8_t *alive, int64_t done, int64_t n,
                                      plank_error *err) {
    const plank_batch *b = &f->batch;
    int64_t k = b->length;
    if (k == 0) return PLANK_OK;
    s->cb[step->cols[0]].b = &f->batch;
    s->ev.n = k;
    s->ev.live = NULL;
    const uint8_t *t, *fb;
    PK_FORWARD(pk_eval(&s->ev, step->node, &t, &fb, err));
    const pk_kernels *kn = s->ev.k;
    size_t half = PK_EVAL_STRIDE + 16;
    PK_FORWARD(pk_buffer_resize(&s->live, 2 * half, err));
    uint8_t *was = s->live.data, *now = was + half;
    kn->copy_bits(alive, done, was, 0, (size_t)n);
    /* The reader kept one value per alive row: k of them. */
    kn->spread_bits(t, (size_t)k, was, now, 0, (size_t)n);
    kn->copy_bits(now, 0, alive, done, (size_t)n);
    if (!f->keeping || !kept_strings_room(s, f)) return PLANK_OK;
    for (int64_t w0 = 0; w0 < k; w0 += 64) {
        uint64_t bits = pk_load_u64(t + (w0 >> 3));
        if (k - w0 < 64) bits &= ((uint64_t)1 << (k - w0)) - 1;
        while (bits) {
            kept_string_put(f, w0 + __builtin_ctzll(bits));
            bits &= bits - 1;
        }
    }
    return PLANK_OK;
}

/* Runs one step over the alive rows of the row group (rows bits in alive),
 * clearing the rows where it is not TRUE. The step's columns are read at
 * the alive rows' ranges, merged across short gaps; the values read for
 * rows that are not alive are evaluated and ignored. */
static plank_status run_step(plank_scan *s, pk_step *step, int32_t g, int64_t rows,
                             int64_t *left, plank_error *err) {
    uint8_t *alive = s->alive.data;
    int64_t before = *left;
    if (before == 0) return PLANK_OK;
    if (step->ncols == 0) {
        /* A constant: TRUE keeps every row, FALSE and NULL none. */
        const uint8_t *t, *f;
        s->ev.n = 1;
        PK_FORWARD(pk_eval(&s->ev, step->node, &t, &f, err));
        if (!(t[0] & 1)) {
            memset(alive, 0, (size_t)(rows + 7) / 8);
            *left = 0;
        }
        return PLANK_OK;
    }
    double t0 = (double)pk_now_ns();
    /* Dense enough to read whole (decided from the bitmap's counts before
     * any range is built): half the rows alive, or more than one run of
     * alive rows per PK_DENSE_RANGES rows. */
    int64_t runs = before * 2 > rows ? 0 : s->ev.k->count_runs(alive, rows);
    bool dense = before * 2 > rows || runs * PK_DENSE_RANGES > rows;
    plank_row_range whole = {0, rows};
    plank_row_range *rr = &whole;
    int64_t nr = 1, nr_alloc = 0, span = rows;
    if (!dense) {
        PK_FORWARD(pk_row_ranges_counted(alive, rows, 0, runs, &s->alloc, &rr, &nr_alloc, err));
        nr = merge_ranges(rr, nr_alloc);
        span = 0;
        for (int64_t i = 0; i < nr; i++) span += rr[i].count;
        if (span * 2 > rows) {
            /* Merged, most of the row group is read anyway. */
            plank_row_ranges_free(&s->alloc, rr, nr_alloc);
            dense = true;
            rr = &whole;
            nr = 1;
            span = rows;
        }
    }
    plank_status st = PLANK_OK;
    for (int32_t c = 0; c < step->ncols && st == PLANK_OK; c++) {
        int32_t k = step->cols[c];
        pk_fstate *f = &s->fs[k];
        /* later steps take fixed-width values only; kept strings serve the
         * projection */
        f->from_kept = f->kept_g == g && kept_width(&s->b.cols[k]) > 0;
        f->keeping = false;
        if (f->from_kept) continue;
        f->kept_g = -1;
        st = open_reader(s, k, g, err);
        if (st == PLANK_OK) {
            int64_t lo = 0, hi = 0;
            bool on = !f->codes && step_interval(&s->b, step->node, k, &lo, &hi);
            pk_column_reader_set_bound(f->cr, on, lo, hi);
        }
        if (st == PLANK_OK && !dense) st = plank_column_reader_select(f->cr, rr, nr, err);
        if (st == PLANK_OK) {
            /* A single column read whole from uncompressed PLAIN pages:
             * batches are views of the pages (one page at most each), not
             * copies (compressed pages have no bytes in place to view). */
            bool view = false;
            if (dense && step->ncols == 1 && !f->codes) {
                plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
                view = plank_reader_column_chunk(s->r, g, s->b.cols[k].column, &ci, NULL) ==
                           PLANK_OK && ci.codec == PLANK_CODEC_UNCOMPRESSED &&
                       all_plain_pages(&ci);
            }
            pk_column_reader_set_view_mode(f->cr, view);
        }
        bool later = read_by_later_step(s, step, k);
        if (st == PLANK_OK && keep_width(&s->b.cols[k], f->codes) &&
            (later || (s->streamed && f->wanted))) {
            f->keeping = true;
            f->nkept = 0;
            f->kdata.size = 0;
            /* A later step reads whole row groups when many rows are
             * alive, or merged ranges: dead rows among its reads. By row,
             * those reads are views of kept; compact, each would be a
             * spread (Q12's receipt date, 15% kept: 5% more time). The
             * projection reads only surviving rows. */
            f->by_row = later && s->b.cols[k].node->physical_type != PLANK_BYTE_ARRAY;
            if (f->by_row && !reserve_kept(s, &f->kept, (size_t)rows * keep_width(&s->b.cols[k],
                                                                                 f->codes)))
                f->keeping = false;
        }
    }
    if (st == PLANK_OK && s->r->hints) {
        /* the step's pages, announced together (a source that takes hints) */
        pk_range_list l = {.a = &s->alloc};
        for (int32_t c = 0; c < step->ncols; c++)
            if (!s->fs[step->cols[c]].from_kept)
                pk_column_reader_fetch_ranges(s->fs[step->cols[c]].cr, &l);
        pk_reader_prefetch(s->r, l.r, l.n);
        pk_range_list_free(&l);
    }
    /* A step on one flat required byte-array column read whole (its own
     * codes aside) reads a batch where few rows are alive packed: only the
     * alive rows' values are built, and the step is evaluated on those
     * alone (see packed_batch_done). */
    const plank_schema_node *pn0 = s->b.cols[step->cols[0]].node;
    bool may_pack = dense && before < rows && step->ncols == 1 &&
                    !s->fs[step->cols[0]].codes && !s->fs[step->cols[0]].from_kept &&
                    pn0->physical_type == PLANK_BYTE_ARRAY && pn0->max_definition_level == 0 &&
                    pn0->max_repetition_level == 0;
    /* Walk the read rows (the merged ranges) alongside the batch positions. */
    int64_t ri = 0, row = nr > 0 ? rr[0].first : 0, done = 0, passed = 0;
    while (st == PLANK_OK && done < span) {
        int64_t want = span - done < PK_EVAL_BATCH ? span - done : PK_EVAL_BATCH;
        int64_t n = -1;
        bool packed = may_pack && s->ev.k->count_bits(alive, done, done + want) * PK_PACK_RATIO <
                                      want;
        if (packed) {
            pk_fstate *f = &s->fs[step->cols[0]];
            f->batch.struct_size = sizeof f->batch;
            pk_column_reader_set_keep(f->cr, alive, done);
            st = plank_column_reader_read(f->cr, want, &f->batch, err);
            if (st != PLANK_OK) break;
            n = pk_column_reader_slots(f->cr);
            if (n == 0)
                st = pk_error_set(err, PLANK_ERR_CORRUPT,
                                  "row group %d: column %s holds fewer rows than the row group",
                                  (int)g, pn0->path);
            if (st == PLANK_OK) st = packed_batch_done(s, step, f, alive, done, n, err);
            if (st != PLANK_OK) break;
            /* The range walk moves on as after any batch (dense: one
             * range, row == done). */
            for (int64_t p = 0, m; p < n; row += m, p += m) m = pk_range_step(rr, &ri, &row, n - p);
            done += n;
            continue;
        }
        for (int32_t c = 0; c < step->ncols && st == PLANK_OK; c++) {
            pk_fstate *f = &s->fs[step->cols[c]];
            f->batch.struct_size = sizeof f->batch;
            if (f->from_kept) {
                const pk_fcol *fc = &s->b.cols[step->cols[c]];
                st = kept_batch(f, fc, kept_width(fc), rr, ri, row, want, err);
            } else {
                /* Read whole with rows dead: the decoders that gain by it
                 * (where few are alive: each decides by its own costs) do
                 * not copy the dead rows' values out of their pages or
                 * dictionaries. */
                if (dense && before < rows) pk_column_reader_set_live(f->cr, alive, done);
                st = plank_column_reader_read(f->cr, want, &f->batch, err);
                if (st == PLANK_OK && f->keeping)
                    keep_check(f, keep_width(&s->b.cols[step->cols[c]], f->codes));
            }
            if (st != PLANK_OK) break;
            if (n < 0) n = f->batch.length;
            if (f->batch.length != n || n == 0)
                st = pk_error_set(err, PLANK_ERR_CORRUPT,
                                  "row group %d: column %s holds fewer rows than the row group",
                                  (int)g, s->b.cols[step->cols[c]].node->path);
            s->cb[step->cols[c]].b = &f->batch;
        }
        if (st != PLANK_OK) break;
        const uint8_t *t, *fb;
        if (step->dict && s->fs[step->cols[0]].codes) {
            st = eval_codes(s, step, &s->fs[step->cols[0]].batch, &t, err);
            pk_fstate *f = &s->fs[step->cols[0]];
            if (st == PLANK_OK && done == 0 && f->dict && f->null_result != 1 &&
                pk_column_reader_fallback_count(f->cr) == 0 &&
                popcount_bits(s, f->dt.data, f->dict->count) == 0) {
                /* No dictionary entry (nor NULL) passes: when every data page
                 * of the chunk is dictionary-encoded (its encoding stats, and
                 * no fallback value in this first batch), no row of it can,
                 * and the rest of the chunk is not read. */
                plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
                if (plank_reader_column_chunk(s->r, g, s->b.cols[step->cols[0]].column, &ci,
                                              NULL) == PLANK_OK &&
                    all_dictionary_pages(&ci)) {
                    memset(alive, 0, (size_t)(rows + 7) / 8);
                    s->st.row_groups_pruned_dictionary++;
                    done += n;
                    break;
                }
            }
        } else {
            s->ev.n = n;
            /* Read whole, the batch is rows [done, done + n) of the row
             * group: the dead rows' results are dropped below, so costly
             * terms may skip them (the live bits shifted to bit 0 when a
             * page's end left done off a byte). */
            s->ev.live = NULL;
            if (dense && before < rows) {
                s->ev.live = alive + (done >> 3);
                if (done & 7) {
                    PK_FORWARD(pk_buffer_resize(&s->live, PK_EVAL_STRIDE + 16, err));
                    memset(s->live.data, 0, PK_EVAL_STRIDE + 16);
                    s->ev.k->copy_bits(alive, done, s->live.data, 0, (size_t)n);
                    s->ev.live = s->live.data;
                }
            }
            st = pk_eval(&s->ev, step->node, &t, &fb, err);
            s->ev.live = NULL;
        }
        if (st != PLANK_OK) break;
        /* alive &= t, segment by segment of the merged ranges. */
        int64_t ri0 = ri, row0 = row;
        for (int64_t p = 0, m; p < n; row += m, p += m) {
            m = pk_range_step(rr, &ri, &row, n - p);
            and_bits(alive, row, t, p, m);
        }
        for (int32_t c = 0; c < step->ncols; c++) {
            pk_fstate *f = &s->fs[step->cols[c]];
            if (!f->keeping) continue;
            if (!f->codes && f->batch.physical_type == PLANK_BYTE_ARRAY)
                keep_strings(s, f, alive, rr, ri0, row0);
            else
                keep_fixed(s, f, keep_width(&s->b.cols[step->cols[c]], f->codes), alive, rr,
                           ri0, row0);
        }
        done += n;
    }
    if (!dense) plank_row_ranges_free(&s->alloc, rr, nr_alloc);
    PK_FORWARD(st);
    for (int32_t c = 0; c < step->ncols; c++) {
        /* Kept only when every batch was (the dictionary's early end of a
         * chunk leaves no row alive, which no later reader asks for). */
        pk_fstate *f = &s->fs[step->cols[c]];
        if (!f->keeping || done < span) continue;
        f->keeping = false;
        f->kept_dict = NULL;
        if (f->codes) {
            const pk_dict *d = pk_column_reader_dict(f->cr);
            if (!d || !d->values || d->width != (int32_t)kept_width(&s->b.cols[step->cols[c]]))
                continue;
            f->kept_dict = d;
        }
        if (keep_rows(f, s->ev.k, alive, rows)) f->kept_g = g;
    }
    passed = popcount_bits(s, alive, rows);
    *left = passed;
    s->st.values_evaluated += done;
    step->values += (double)before;
    if (step->dict && s->fs[step->cols[0]].codes) step->code_values += (double)before;
    step->passed += (double)passed;
    step->ns += (double)pk_now_ns() - t0;
    return PLANK_OK;
}

/* Decides row group g: *out_rows gets the surviving rows (0: nothing to
 * read) with the alive bitmap set. */
/* Whether row group g's chunk statistics leave the filter possibly TRUE
 * (true when they cannot tell). */
static bool stats_may_match(plank_scan *s, int32_t g) {
    pk_bound *b = &s->b;
    if (!b->root || !s->o.pushdown || !s->o.use_statistics) return true;
    plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
    if (plank_reader_row_group(s->r, g, &info, NULL) != PLANK_OK) return true;
    pk_colstat *cs = pk_calloc(&s->alloc, (size_t)b->ncols * sizeof *cs + 1);
    if (!cs) return true;
    bool ok = true;
    for (int32_t k = 0; k < b->ncols && ok; k++) {
        plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
        ok = plank_reader_column_chunk(s->r, g, b->cols[k].column, &ci, NULL) == PLANK_OK;
        if (ok) pk_colstat_from_chunk(&b->cols[k], &ci, info.num_rows, &cs[k]);
    }
    bool may = !ok || (pk_prune_eval(b, b->root, cs, NULL) & PK_CAN_T);
    pk_free(&s->alloc, cs, (size_t)b->ncols * sizeof *cs + 1);
    return may;
}

/* A source that takes hints: announces the filter columns' chunks of row
 * group g (when the rows alive are dense enough for them to be read whole),
 * and, in a serial scan, those of the next row group unless its statistics
 * rule it out, so that they arrive together, the next group's while this
 * one is filtered, instead of a round trip per step. */
static void announce_filters(plank_scan *s, int32_t g, int64_t rows) {
    if (!s->r->hints || s->b.ncols == 0) return;
    pk_range_list l = {.a = &s->alloc};
    uint64_t o, len;
    if (popcount_bits(s, s->alive.data, rows) * 2 > rows)
        for (int32_t i = 0; i < s->b.ncols; i++)
            if (pk_reader_chunk_range(s->r, g, s->b.cols[i].column, &o, &len))
                pk_range_list_add(&l, o, len);
    if (!s->par && s->next_rg < s->nrgs && stats_may_match(s, s->rgs[s->next_rg]))
        for (int32_t i = 0; i < s->b.ncols; i++)
            if (pk_reader_chunk_range(s->r, s->rgs[s->next_rg], s->b.cols[i].column, &o, &len))
                pk_range_list_add(&l, o, len);
    pk_reader_prefetch(s->r, l.r, l.n);
    pk_range_list_free(&l);
}

/* A source that takes hints: announces the page indexes of the filter
 * columns in every row group the scan visits; written together at the end
 * of a file, they then come in one request or a few instead of two per
 * column chunk. */
static void announce_page_indexes(plank_scan *s) {
    if (!s->r->hints || !s->o.pushdown || !s->o.use_page_index || s->b.ncols == 0) return;
    size_t cap = (size_t)s->nrgs * (size_t)s->b.ncols * 2;
    if (cap == 0) return;
    pk_byte_range *rs = pk_malloc(&s->alloc, cap * sizeof *rs);
    if (!rs) return;
    size_t k = 0;
    for (int32_t u = 0; u < s->nrgs; u++) {
        for (int32_t i = 0; i < s->b.ncols; i++) {
            const plank_column_chunk_info *cc;
            plank_error e;
            if (pk_index_chunk(s->r, s->rgs[u], s->b.cols[i].column, &cc, &e) != PLANK_OK)
                continue;
            if (cc->column_index_offset >= 0 && cc->column_index_length > 0)
                rs[k++] = (pk_byte_range){(uint64_t)cc->column_index_offset,
                                          (uint64_t)cc->column_index_length};
            if (cc->offset_index_offset >= 0 && cc->offset_index_length > 0)
                rs[k++] = (pk_byte_range){(uint64_t)cc->offset_index_offset,
                                          (uint64_t)cc->offset_index_length};
        }
    }
    pk_reader_prefetch(s->r, rs, k);
    pk_free(&s->alloc, rs, cap * sizeof *rs);
}

static plank_status plan_group(plank_scan *s, int32_t g, int64_t *out_rows, plank_error *err) {
    plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
    PK_FORWARD(plank_reader_row_group(s->r, g, &info, err));
    int64_t rows = info.num_rows;
    *out_rows = 0;
    for (int32_t k = 0; k < s->b.ncols; k++) s->fs[k].kept_g = -1;
    if (rows <= 0) return PLANK_OK;
    /* The row group's bitmaps take a bit a row, however few bytes its
     * chunks hold (a run of RLE codes stands for any number of rows): the
     * footer's count is bounded like a page's levels, by max_page_size. */
    PK_RETURN_IF((uint64_t)rows / 8 > s->r->max_page_size, err, PLANK_ERR_LIMIT,
                 "row group %d declares %lld rows, whose row bitmaps would take %llu bytes, "
                 "above the max_page_size limit of %llu", (int)g, (long long)rows,
                 (unsigned long long)((uint64_t)rows / 8),
                 (unsigned long long)s->r->max_page_size);
    size_t nb = (size_t)(rows + 7) / 8;
    PK_FORWARD(pk_buffer_resize(&s->alive, nb + 8, err));
    uint8_t *alive = s->alive.data;
    memset(alive, 0xff, nb);
    if (rows & 7) alive[nb - 1] = (uint8_t)((1u << (rows & 7)) - 1);
    pk_bound *b = &s->b;
    if (!b->root) {
        *out_rows = rows;
        s->st.rows_candidate += rows;
        return PLANK_OK;
    }
    bool push = s->o.pushdown;
    pk_colstat *cs = pk_calloc(&s->alloc, (size_t)b->ncols * sizeof *cs + 1);
    if (!cs) return oom(err);
    plank_status st = PLANK_OK;
    for (int32_t k = 0; k < b->ncols && st == PLANK_OK; k++) {
        plank_column_chunk_info ci = {.struct_size = sizeof(plank_column_chunk_info)};
        st = plank_reader_column_chunk(s->r, g, b->cols[k].column, &ci, err);
        if (st != PLANK_OK) break;
        if (push && s->o.use_statistics) pk_colstat_from_chunk(&b->cols[k], &ci, rows, &cs[k]);
        else cs[k].known = false;
    }
    bool skip = false;
    if (st == PLANK_OK && push && s->o.use_statistics &&
        !(pk_prune_eval(b, b->root, cs, NULL) & PK_CAN_T)) {
        s->st.row_groups_pruned_statistics++;
        skip = true;
    }
    if (st == PLANK_OK && !skip && push && s->o.use_bloom_filters) {
        uint8_t *absent = pk_calloc(&s->alloc, (size_t)b->nnodes + 1);
        plank_bloom_filter **bfs = pk_calloc(&s->alloc, (size_t)b->ncols * sizeof *bfs + 1);
        bool *loaded = pk_calloc(&s->alloc, (size_t)b->ncols + 1);
        if (!absent || !bfs || !loaded) st = oom(err);
        if (st == PLANK_OK) st = bloom_mark(s, g, b->root, absent, bfs, loaded, err);
        if (st == PLANK_OK && !(pk_prune_eval(b, b->root, cs, absent) & PK_CAN_T)) {
            s->st.row_groups_pruned_bloom++;
            skip = true;
        }
        for (int32_t k = 0; bfs && k < b->ncols; k++) plank_bloom_filter_free(bfs[k]);
        if (absent) pk_free(&s->alloc, absent, (size_t)b->nnodes + 1);
        if (bfs) pk_free(&s->alloc, bfs, (size_t)b->ncols * sizeof *bfs + 1);
        if (loaded) pk_free(&s->alloc, loaded, (size_t)b->ncols + 1);
    }
    if (st == PLANK_OK && !skip && push && s->o.use_page_index) {
        pk_pageinfo *pi = pk_calloc(&s->alloc, (size_t)b->ncols * sizeof *pi + 1);
        if (!pi) st = oom(err);
        bool any = false;
        for (int32_t k = 0; k < b->ncols && st == PLANK_OK; k++) {
            st = load_pages(s, g, k, rows, &pi[k], err);
            any |= pi[k].npages > 0;
        }
        if (st == PLANK_OK && any && !pk_prune_rows_may_cut(b, b->root, pi)) {
            for (int32_t k = 0; k < b->ncols; k++) s->st.pages += pi[k].npages;
        } else if (st == PLANK_OK && any) {
            memset(alive, 0, nb);
            st = pk_prune_rows(b, pi, cs, rows, &s->alloc, alive, err);
            if (st == PLANK_OK) {
                for (int32_t k = 0; k < b->ncols; k++) {
                    s->st.pages += pi[k].npages;
                    for (int32_t i = 0; i < pi[k].npages; i++)
                        s->st.pages_pruned_page_index +=
                            !any_in_range(alive, pi[k].first[i], pi[k].first[i + 1]);
                }
                if (popcount_bits(s, alive, rows) == 0) {
                    s->st.row_groups_pruned_page_index++;
                    skip = true;
                }
            }
        }
        for (int32_t k = 0; pi && k < b->ncols; k++) free_pages(s, &pi[k]);
        if (pi) pk_free(&s->alloc, pi, (size_t)b->ncols * sizeof *pi + 1);
    }
    /* A string step whose dictionary has no passing entry, in a chunk made
     * only of dictionary pages, leaves no row: known once the dictionary is
     * read, which the first step batch does. */
    if (st == PLANK_OK && !skip && push) estimate_steps(s, g, cs);
    pk_free(&s->alloc, cs, (size_t)b->ncols * sizeof *cs + 1);
    PK_FORWARD(st);
    if (skip) {
        s->st.bytes_not_read += group_bytes(s, g);
        return PLANK_OK;
    }
    int64_t left = popcount_bits(s, alive, rows);
    s->st.rows_candidate += left;
    announce_filters(s, g, rows);
    if (push) order_steps(s);
    for (int32_t i = 0; i < s->nsteps && left > 0; i++)
        PK_FORWARD(run_step(s, &s->steps[i], g, rows, &left, err));
    if (left == 0) s->st.row_groups_no_match++;
    *out_rows = left;
    return PLANK_OK;
}

/* ---- Open, close ------------------------------------------------------------------ */

static void scan_unref(void *p);

static void scan_free(plank_scan *s) {
    plank_allocator a = s->alloc;
    if (s->fs) {
        for (int32_t k = 0; k < s->b.ncols; k++) {
            plank_column_reader_close(s->fs[k].cr);
            pk_buffer_reset(&s->fs[k].dt);
            pk_buffer_reset(&s->fs[k].df);
            pk_buffer_reset(&s->fs[k].kept);
            pk_buffer_reset(&s->fs[k].kbuf);
            pk_buffer_reset(&s->fs[k].gbits);
            pk_buffer_reset(&s->fs[k].gsel);
            pk_buffer_reset(&s->fs[k].gtmp);
            pk_buffer_reset(&s->fs[k].kdata);
            pk_buffer_reset(&s->fs[k].kbits);
            pk_buffer_reset(&s->fs[k].krank);
        }
        pk_free(&a, s->fs, (size_t)s->b.ncols * sizeof *s->fs + 1);
    }
    if (s->cb) pk_free(&a, s->cb, (size_t)s->b.ncols * sizeof *s->cb + 1);
    if (s->ev.bits) pk_evalctx_free(&s->ev, &a);
    if (s->mask) pk_free(&a, s->mask, (size_t)plank_reader_num_columns(s->r) + 1);
    if (s->ranges) plank_row_ranges_free(&a, s->ranges, s->nranges);
    if (s->rgs) pk_free(&a, s->rgs, (size_t)s->nrgs * sizeof *s->rgs + 1);
    pk_buffer_reset(&s->alive);
    pk_buffer_reset(&s->tmp_t);
    pk_buffer_reset(&s->live);
    pk_buffer_reset(&s->kscratch);
    pk_buffer_reset(&s->tmp_f);
    pk_bound_free(&s->b);
    pk_reader_release(s->r);
    pk_exec_free(s->own_exec);
    pk_bufpool_close(s->pool);
    if (s->sibs) {
        for (int32_t k = 0; k < s->nsibs; k++) scan_unref(s->sibs[k]);
        pk_free(&a, s->sibs, (size_t)s->nsibs * sizeof *s->sibs + 1);
    }
    pk_free(&a, s, sizeof *s);
}

static void scan_unref(void *p) {
    plank_scan *s = p;
    if (atomic_fetch_sub(&s->refs, 1) == 1) scan_free(s);
}

void plank_scan_close(plank_scan *s) {
    if (s) scan_unref(s);
}

/* Marks the leaves below schema node i. */
static void mark_below(const plank_reader *r, int32_t i, bool *mask, int32_t *count) {
    const plank_schema_node *n = plank_reader_schema_node(r, i);
    if (!n) return;
    if (n->num_children == 0) {
        if (n->column >= 0 && !mask[n->column]) {
            mask[n->column] = true;
            (*count)++;
        }
        return;
    }
    for (int32_t k = 0; k < n->num_children; k++) mark_below(r, n->children[k], mask, count);
}

static plank_status resolve_projection(plank_scan *s, plank_error *err) {
    plank_reader *r = s->r;
    int32_t nc = plank_reader_num_columns(r);
    s->mask = pk_calloc(&s->alloc, (size_t)nc + 1);
    if (!s->mask) return oom(err);
    if (!s->o.columns || s->o.num_columns <= 0) {
        for (int32_t c = 0; c < nc; c++)
            if (r->selected[c]) s->mask[c] = true, s->nproj++;
        return PLANK_OK;
    }
    for (int32_t i = 0; i < s->o.num_columns; i++) {
        const char *p = s->o.columns[i];
        PK_RETURN_IF(!p, err, PLANK_ERR_INVALID_ARGUMENT, "projected column %d is NULL", (int)i);
        int32_t found = -1;
        for (int32_t k = 1; k < plank_reader_num_schema_nodes(r) && found < 0; k++) {
            const plank_schema_node *n = plank_reader_schema_node(r, k);
            if (n && strcmp(n->path, p) == 0) found = k;
        }
        if (found < 0) {
            int32_t col = plank_reader_find_column(r, p);
            if (col >= 0) found = plank_reader_column_node(r, col)->index;
        }
        PK_RETURN_IF(found < 0, err, PLANK_ERR_INVALID_ARGUMENT,
                     "projected column \"%s\" does not exist", p);
        mark_below(r, found, s->mask, &s->nproj);
    }
    for (int32_t c = 0; c < nc; c++)
        PK_RETURN_IF(s->mask[c] && !r->selected[c], err, PLANK_ERR_INVALID_ARGUMENT,
                     "projected column \"%s\" is not selected in the reader's options",
                     plank_reader_column_node(r, c)->path);
    return PLANK_OK;
}

/* The row groups of the options (checked: in the file, strictly ascending) or
 * all of them, and the statistics' totals over them. */
static plank_status resolve_row_groups(plank_scan *s, const plank_scan_options *o,
                                       plank_error *err) {
    int32_t ng = plank_reader_num_row_groups(s->r);
    bool all = !o->row_groups || o->num_row_groups <= 0;
    PK_RETURN_IF(!all && o->num_row_groups > ng, err, PLANK_ERR_INVALID_ARGUMENT,
                 "%d row groups named, the file has %d", (int)o->num_row_groups, (int)ng);
    s->nrgs = all ? ng : o->num_row_groups;
    s->rgs = pk_malloc(&s->alloc, (size_t)s->nrgs * sizeof *s->rgs + 1);
    if (!s->rgs) return oom(err);
    for (int32_t i = 0; i < s->nrgs; i++) {
        int32_t g = all ? i : o->row_groups[i];
        PK_RETURN_IF(g < 0 || g >= ng, err, PLANK_ERR_INVALID_ARGUMENT,
                     "row group %d does not exist (the file has %d)", (int)g, (int)ng);
        PK_RETURN_IF(i > 0 && g <= s->rgs[i - 1], err, PLANK_ERR_INVALID_ARGUMENT,
                     "row groups must be strictly ascending (%d after %d)", (int)g,
                     (int)s->rgs[i - 1]);
        s->rgs[i] = g;
        plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
        PK_FORWARD(plank_reader_row_group(s->r, g, &info, err));
        s->st.rows += info.num_rows;
    }
    s->st.row_groups = s->nrgs;
    return PLANK_OK;
}

/* A parallel read's other workers: one scan each, over the same row groups,
 * opened with the same options as serial scans. */
static plank_status open_siblings(plank_scan *s, const plank_scan_options *opt,
                                  plank_error *err) {
    s->threads = pk_reader_read_threads(s->r, &s->arrow);
    int32_t n = s->threads < s->nrgs ? s->threads : s->nrgs;
    if (n <= 1) return PLANK_OK;
    plank_arrow_options a = s->arrow;
    a.threads = 1;
    a.executor = NULL;
    plank_scan_options o = *opt;
    o.arrow = &a;
    s->sibs = pk_calloc(&s->alloc, (size_t)(n - 1) * sizeof *s->sibs + 1);
    if (!s->sibs) return oom(err);
    for (int32_t k = 0; k + 1 < n; k++) {
        PK_FORWARD(plank_scan_open(&s->sibs[k], s->r, &o, err));
        s->nsibs++;
    }
    return PLANK_OK;
}

plank_status plank_scan_open(plank_scan **out, plank_reader *r, const plank_scan_options *o,
                             plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!out || !r) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    plank_scan_options opt;
    plank_scan_options_init(&opt);
    if (o) PK_FORWARD(pk_struct_read(&opt, o, &pk_layout_scan_options, err));
    plank_arrow_options arrow;
    PK_FORWARD(pk_arrow_options_load(&arrow, opt.arrow, err));
    plank_scan *s = pk_calloc(&r->alloc, sizeof *s);
    if (!s) return oom(err);
    s->alloc = r->alloc;
    atomic_init(&s->refs, 1);
    s->r = r;
    pk_reader_retain(r);
    s->o = opt;
    s->o.filter = NULL;
    s->arrow = arrow;
    s->o.arrow = NULL;
    s->o.columns = NULL;
    s->o.row_groups = NULL;
    plank_scan_stats_init(&s->st);
    pk_buffer_init(&s->alive, &s->alloc);
    pk_buffer_init(&s->tmp_t, &s->alloc);
    pk_buffer_init(&s->live, &s->alloc);
    pk_buffer_init(&s->kscratch, &s->alloc);
    pk_buffer_init(&s->tmp_f, &s->alloc);
    plank_status st = resolve_row_groups(s, &opt, err);
    s->o.columns = opt.columns;
    if (st == PLANK_OK) st = resolve_projection(s, err);
    s->o.columns = NULL;
    if (st == PLANK_OK) st = pk_bind(r, opt.filter, &s->b, err);
    if (st == PLANK_OK) {
        s->fs = pk_calloc(&s->alloc, (size_t)s->b.ncols * sizeof *s->fs + 1);
        s->cb = pk_calloc(&s->alloc, (size_t)s->b.ncols * sizeof *s->cb + 1);
        if (!s->fs || !s->cb) st = oom(err);
        for (int32_t k = 0; s->fs && k < s->b.ncols; k++) {
            pk_buffer_init(&s->fs[k].dt, &s->alloc);
            pk_buffer_init(&s->fs[k].df, &s->alloc);
            pk_buffer_init(&s->fs[k].kept, &s->alloc);
            pk_buffer_init(&s->fs[k].kbuf, &s->alloc);
            pk_buffer_init(&s->fs[k].gbits, &s->alloc);
            pk_buffer_init(&s->fs[k].gsel, &s->alloc);
            pk_buffer_init(&s->fs[k].gtmp, &s->alloc);
            pk_buffer_init(&s->fs[k].kdata, &s->alloc);
            pk_buffer_init(&s->fs[k].kbits, &s->alloc);
            pk_buffer_init(&s->fs[k].krank, &s->alloc);
            s->fs[k].kept_g = -1;
            s->fs[k].batch.physical_type = s->b.cols[k].node->physical_type;
        }
    }
    if (st == PLANK_OK) st = build_steps(s, err);
    if (st == PLANK_OK) st = pk_evalctx_init(&s->ev, &s->b, r->kernels, &s->alloc, err);
    if (st == PLANK_OK) s->ev.cols = s->cb;
    if (st == PLANK_OK) st = open_siblings(s, &opt, err);
    if (st != PLANK_OK) {
        scan_free(s);
        return st;
    }
    announce_page_indexes(s);
    *out = s;
    return PLANK_OK;
}

/* ---- Count and stream ----------------------------------------------------------------- */

static void add_counters(plank_scan *s) {
    for (int32_t k = 0; k < s->b.ncols; k++) {
        if (!s->fs[k].cr) continue;
        pk_column_counters c;
        pk_column_reader_counters(s->fs[k].cr, &c);
        s->st.pages_decoded += c.pages_decoded;
        s->st.pages_skipped += c.pages_skipped;
        s->st.bytes_read += c.bytes_fetched;
        s->st.values_skipped_delta += c.values_bound_skipped;
    }
}

/* A parallel count: every worker scan takes row groups from one counter; the
 * error reported is that of the first row group that failed. */
typedef struct pk_pcount {
    plank_scan *s;
    atomic_int_fast64_t next;
    int64_t *rows;           /* per worker */
    plank_status *st;        /* per worker */
    int64_t *err_unit;       /* per worker */
    plank_error *errs;       /* per worker */
} pk_pcount;

static void count_worker(void *ctx, int64_t w) {
    pk_pcount *c = ctx;
    plank_scan *ws = w == 0 ? c->s : c->s->sibs[w - 1];
    plank_error_init(&c->errs[w]);
    c->st[w] = PLANK_OK;
    c->rows[w] = 0;
    for (;;) {
        int64_t u = (int64_t)atomic_fetch_add(&c->next, 1);
        if (u >= ws->nrgs) break;
        int32_t g = ws->rgs[u];
        int64_t rows;
        plank_status st = plan_group(ws, g, &rows, &c->errs[w]);
        if (st != PLANK_OK) {
            pk_error_locate(&c->errs[w], -1, g, -1, -1);
            c->st[w] = st;
            c->err_unit[w] = u;
            /* later units are not needed: stop the others at theirs */
            atomic_store(&c->next, ws->nrgs);
            break;
        }
        c->rows[w] += rows;
    }
    ws->st.rows_matched = c->rows[w];
    add_counters(ws);
}

static plank_status count_parallel(plank_scan *s, int64_t *count, plank_error *err) {
    int32_t n = s->nsibs + 1;
    /* units come from a shared counter: no worker knows its next group */
    s->next_rg = s->nrgs;
    for (int32_t k = 0; k < s->nsibs; k++) s->sibs[k]->next_rg = s->sibs[k]->nrgs;
    pk_pcount c;
    memset(&c, 0, sizeof c);
    c.s = s;
    atomic_init(&c.next, 0);
    c.rows = pk_calloc(&s->alloc, (size_t)n * sizeof *c.rows);
    c.st = pk_calloc(&s->alloc, (size_t)n * sizeof *c.st);
    c.err_unit = pk_calloc(&s->alloc, (size_t)n * sizeof *c.err_unit);
    c.errs = pk_calloc(&s->alloc, (size_t)n * sizeof *c.errs);
    pk_exec *own = NULL;
    plank_executor ex;
    plank_status st = PLANK_OK;
    if (!c.rows || !c.st || !c.err_unit || !c.errs) st = oom(err);
    /* n - 1 threads of its own: the caller's thread takes a worker's part */
    if (st == PLANK_OK) st = pk_par_executor_of(&s->arrow, n - 1, &s->alloc, &own, &ex, err);
    if (st == PLANK_OK) {
        if (ex.threads > n) ex.threads = n;
        pk_exec_for(&ex, n, count_worker, &c);
        int64_t total = 0, first = INT64_MAX;
        for (int32_t w = 0; w < n; w++) {
            total += c.rows[w];
            if (c.st[w] != PLANK_OK && c.err_unit[w] < first) {
                first = c.err_unit[w];
                st = c.st[w];
                if (err) *err = c.errs[w];
            }
        }
        if (st == PLANK_OK) *count = total;
    }
    pk_exec_free(own);
    if (c.rows) pk_free(&s->alloc, c.rows, (size_t)n * sizeof *c.rows);
    if (c.st) pk_free(&s->alloc, c.st, (size_t)n * sizeof *c.st);
    if (c.err_unit) pk_free(&s->alloc, c.err_unit, (size_t)n * sizeof *c.err_unit);
    if (c.errs) pk_free(&s->alloc, c.errs, (size_t)n * sizeof *c.errs);
    return st;
}

plank_status plank_scan_count(plank_scan *s, int64_t *count, plank_error *err) {
    plank_error_init(err);
    if (!s || !count) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    PK_RETURN_IF(s->streamed || s->counted, err, PLANK_ERR_INVALID_ARGUMENT,
                 "the scan was already run (one stream or count per scan)");
    s->counted = true;
    if (s->nsibs > 0) return count_parallel(s, count, err);
    int64_t total = 0;
    while (s->next_rg < s->nrgs) {
        int32_t g = s->rgs[s->next_rg++]; /* next_rg: the next group to announce */
        int64_t rows;
        plank_status st = plan_group(s, g, &rows, err);
        if (st != PLANK_OK) {
            pk_error_locate(err, -1, g, -1, -1);
            return st;
        }
        total += rows;
    }
    s->st.rows_matched = total;
    add_counters(s);
    *count = total;
    return PLANK_OK;
}

static plank_status stream_plan(void *opaque, int32_t *g, const plank_row_range **ranges,
                                int64_t *n, const uint8_t **mask, plank_error *err) {
    plank_scan *s = opaque;
    *g = -1;
    *ranges = NULL;
    *n = 0;
    *mask = NULL;
    s->planned_g = -1;
    if (s->ranges) {
        plank_row_ranges_free(&s->alloc, s->ranges, s->nranges);
        s->ranges = NULL;
        s->nranges = 0;
    }
    for (;;) {
        int32_t cur;
        if (s->par) {
            int64_t u = pk_par_next_unit(s->par, s->par_w);
            if (u < 0) break;
            cur = s->rgs[u];
        } else {
            if (s->next_rg >= s->nrgs) break;
            cur = s->rgs[s->next_rg++];
        }
        int64_t rows;
        plank_status st = plan_group(s, cur, &rows, err);
        if (st != PLANK_OK) {
            pk_error_locate(err, -1, cur, -1, -1);
            return st;
        }
        if (rows == 0) continue;
        plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
        PK_FORWARD(plank_reader_row_group(s->r, cur, &info, err));
        int64_t runs = s->ev.k->count_runs(s->alive.data, info.num_rows);
        if (runs * PK_MASK_RUNS > info.num_rows) {
            /* Runs this short cost more as ranges (a gather each) than
             * reading every row and dropping the others. */
            *mask = s->alive.data;
            s->st.row_groups_masked++;
        } else {
            PK_FORWARD(pk_row_ranges_counted(s->alive.data, info.num_rows, 0, runs, &s->alloc,
                                             &s->ranges, &s->nranges, err));
        }
        s->st.rows_matched += rows;
        s->planned_g = cur;
        s->planned_rows = rows;
        *g = cur;
        *ranges = s->ranges;
        *n = s->nranges;
        return PLANK_OK;
    }
    add_counters(s);
    return PLANK_OK;
}

/* The filter column slot reading leaf column `column`, or -1. */
static int32_t filter_slot(const plank_scan *s, int32_t column) {
    for (int32_t k = 0; k < s->b.ncols; k++)
        if (s->b.cols[k].column == column) return k;
    return -1;
}

static void stream_want(void *opaque, int32_t column) {
    plank_scan *s = opaque;
    int32_t k = filter_slot(s, column);
    if (k >= 0) s->fs[k].wanted = true;
}

/* Whether a step kept the projected column's values of the planned row
 * group: the stream then takes them from there (stream_gather). */
static bool stream_has(void *opaque, int32_t column) {
    plank_scan *s = opaque;
    int32_t k = filter_slot(s, column);
    if (k < 0 || s->planned_g < 0 || s->fs[k].kept_g != s->planned_g) return false;
    s->st.values_reused += s->planned_rows;
    return true;
}

static plank_status stream_gather_strings(void *opaque, int32_t column, const pk_given_rows *at,
                                          int64_t n, size_t ow, uint8_t *offs, pk_buffer *data,
                                          plank_error *err) {
    plank_scan *s = opaque;
    int32_t k = filter_slot(s, column);
    PK_RETURN_IF(k < 0 || s->b.cols[k].node->physical_type != PLANK_BYTE_ARRAY, err,
                 PLANK_ERR_INVALID_ARGUMENT, "column %d is not kept", (int)column);
    return kept_gather_strings(&s->fs[k], s->ev.k, at, n, ow, offs, data, err);
}

static plank_status stream_gather(void *opaque, int32_t column, const pk_given_rows *at,
                                  int64_t n, uint8_t *dst, plank_error *err) {
    plank_scan *s = opaque;
    int32_t k = filter_slot(s, column);
    PK_RETURN_IF(k < 0, err, PLANK_ERR_INVALID_ARGUMENT, "column %d is not kept", (int)column);
    return kept_gather(&s->fs[k], s->ev.k, kept_width(&s->b.cols[k]), at, n, dst, err);
}

/* The projection's column readers: what they read and skipped. */
static void stream_counters(void *opaque, const pk_column_counters *c) {
    plank_scan *s = opaque;
    s->st.pages_decoded += c->pages_decoded;
    s->st.pages_skipped += c->pages_skipped;
    s->st.bytes_read += c->bytes_fetched;
}

/* The projection's planned stream over scan ws (which it holds a reference
 * on), its batches from pool (NULL: a pool of its own). */
static plank_status open_projection(plank_scan *ws, pk_bufpool *pool,
                                    struct ArrowArrayStream *out, plank_error *err) {
    atomic_fetch_add(&ws->refs, 1);
    plank_status st = pk_arrow_stream_planned(ws->r, ws->mask, &ws->arrow, stream_plan,
                                              stream_counters, ws, scan_unref, pool, out, err);
    if (st != PLANK_OK) {
        atomic_fetch_sub(&ws->refs, 1);
        return st;
    }
    static const pk_stream_given given = {stream_want, stream_has, stream_gather,
                                          stream_gather_strings};
    pk_stream_set_given(out, &given);
    return PLANK_OK;
}

/* Worker w of a parallel scan stream: the scan itself or one of its
 * siblings, as a planned stream whose row groups come from the parallel
 * stream's counter. */
static plank_status scan_worker_open(void *ctx, int32_t w, pk_par *p,
                                     struct ArrowArrayStream *out, plank_error *err) {
    plank_scan *s = ctx;
    plank_scan *ws = w == 0 ? s : s->sibs[w - 1];
    ws->par = p;
    ws->par_w = w;
    ws->streamed = true;
    PK_FORWARD(open_projection(ws, s->pool, out, err));
    pk_stream_set_fanout(out, pk_par_executor(p), pk_par_fanout(p));
    return PLANK_OK;
}

plank_status plank_scan_arrow_stream(plank_scan *s, struct ArrowArrayStream *out,
                                     plank_error *err) {
    plank_error_init(err);
    if (!s || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    PK_RETURN_IF(s->streamed || s->counted, err, PLANK_ERR_INVALID_ARGUMENT,
                 "the scan was already run (one stream or count per scan)");
    PK_RETURN_IF(s->nproj == 0, err, PLANK_ERR_INVALID_ARGUMENT,
                 "the scan projects no column (use plank_scan_count)");
    if (s->nsibs > 0) {
        /* One buffer pool for the workers: a batch freed by the consumer is
         * reused by whichever worker makes the next one. */
        s->pool = pk_bufpool_new(&s->alloc, (size_t)256 << 20, 512);
        atomic_fetch_add(&s->refs, 1);
        s->streamed = true;
        return pk_par_stream(&s->alloc, &s->arrow, s->threads, s->nrgs, scan_worker_open, s,
                             scan_unref, out, err);
    }
    PK_FORWARD(open_projection(s, NULL, out, err));
    s->streamed = true;
    plank_status st;
    if (s->threads > 1 && s->nrgs == 1) {
        /* One row group: the projection's columns are read in parallel. */
        plank_executor ex;
        st = pk_par_executor_of(&s->arrow, s->threads - 1, &s->alloc, &s->own_exec, &ex, err);
        if (st != PLANK_OK) {
            out->release(out);
            return st;
        }
        pk_stream_set_fanout(out, &ex, s->threads);
    }
    return PLANK_OK;
}

/* ---- Explain ---------------------------------------------------------------------- */

size_t plank_scan_explain(const plank_scan *s, char *buf, size_t size) {
    size_t len = 0;
    if (buf && size) buf[0] = 0;
    if (!s) return 0;
    if (!buf) size = 0;
    pk_scan_append(buf, size, &len, "scan: %d row groups, %lld rows\n", (int)s->st.row_groups,
        (long long)s->st.rows);
    pk_scan_append(buf, size, &len, "projection:");
    int32_t nc = plank_reader_num_columns(s->r);
    for (int32_t c = 0; c < nc; c++)
        if (s->mask[c]) pk_scan_append(buf, size, &len, " %s", plank_reader_column_node(s->r, c)->path);
    pk_scan_append(buf, size, &len, "\n");
    if (!s->b.root) {
        pk_scan_append(buf, size, &len, "filter: none\n");
        return len;
    }
    pk_scan_append(buf, size, &len, "filter: ");
    pk_bound_describe(&s->b, s->b.root, buf, size, &len);
    pk_scan_append(buf, size, &len, "\npruning: statistics %s, bloom filters %s, page index %s, "
        "dictionaries %s%s\n", s->o.use_statistics ? "on" : "off",
        s->o.use_bloom_filters ? "on" : "off", s->o.use_page_index ? "on" : "off",
        s->o.use_dictionaries ? "on" : "off", s->o.pushdown ? "" : " (pushdown off)");
    for (int32_t i = 0; i < s->nsteps; i++) {
        const pk_step *st = &s->steps[i];
        /* A parallel scan's workers measured their own row groups: summed. */
        double ns = st->ns, values = st->values, passed = st->passed, codes = st->code_values;
        for (int32_t k = 0; k < s->nsibs; k++)
            for (int32_t j = 0; j < s->sibs[k]->nsteps; j++) {
                const pk_step *o = &s->sibs[k]->steps[j];
                if (o->id != st->id) continue;
                ns += o->ns, values += o->values, passed += o->passed, codes += o->code_values;
            }
        /* How the step ran, not how it was planned: a step planned on codes
         * reads values where its chunks have no dictionary (DELTA files). */
        pk_scan_append(buf, size, &len, "step %d", (int)(i + 1));
        if (codes > 0 && codes == values)
            pk_scan_append(buf, size, &len, " (dictionary codes)");
        else if (codes > 0)
            pk_scan_append(buf, size, &len, " (dictionary codes for %.1f%% of values)",
                           100.0 * codes / values);
        pk_scan_append(buf, size, &len, ": ");
        pk_bound_describe(&s->b, st->node, buf, size, &len);
        if (values > 0)
            pk_scan_append(buf, size, &len, "  [%.0f values, %.1f%% passed, %.2f ns/value]",
                values, 100.0 * passed / values, ns / values);
        pk_scan_append(buf, size, &len, "\n");
    }
    return len;
}
