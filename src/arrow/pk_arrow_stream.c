/*
 * pk_arrow_stream.c: the ArrowArrayStream over a reader: reads every selected
 * leaf column of a row group ahead into pending buffers, cuts each batch at a
 * record boundary (the (N+1)-th entry with repetition level 0) and assembles
 * the records into arrays. Batches never span row groups.
 *
 * Hostile-input contract: leaf columns that disagree on the number of
 * records of a row group (with each other or with the row group's num_rows),
 * or whose first level entry continues a record, fail with
 * PLANK_ERR_CORRUPT; errors are sticky (every later get_next returns the
 * same error).
 */
#include "pk_arrow.h"
#include "../common/pk_struct.h"

#include <errno.h>
#include <stdio.h>

typedef struct pk_stream {
    plank_allocator alloc;       /* the pool's, for everything the stream allocates */
    plank_allocator base;        /* the reader's: the stream struct itself, and the pool */
    pk_bufpool *pool;
    plank_reader *r;
    plank_arrow_options o;
    pk_atree t;
    int32_t *rgs;
    int32_t nrg, next_rg;
    int32_t rgs_cap;             /* entries allocated in rgs, less one */
    int32_t cur_rg;              /* -1: between row groups */
    int64_t rows_left;
    int64_t rg_rows;             /* rows the current row group gives (selected ones) */
    plank_column_reader **crs;   /* per leaf */
    pk_leaf_buf *leaves;
    int64_t *slots;
    bool *direct;                /* per leaf: a flat leaf decoded straight into its array */
    pk_flat_leaf *flat;          /* per leaf, for direct ones */
    struct ArrowArray *pre;      /* per leaf: the direct leaf's array of the batch */
    bool zero_copy;              /* some leaf may be exported zero-copy */
    bool reader_ref;             /* holds a reference on r */
    /* Row selection (plank_reader_arrow_stream_rows): per entry of rgs, the
     * ranges sel[sel_first[i] .. + sel_count[i]) relative to its row group. */
    plank_row_range *sel;
    int64_t nsel;
    int64_t *sel_first, *sel_count;
    int32_t sel_groups_cap;      /* entries allocated in sel_first/sel_count, less one */
    /* Planned stream (pk_arrow_stream_planned): row groups and rows come
     * from plan instead of rgs / sel. */
    pk_stream_plan_fn plan;
    pk_stream_counters_fn plan_counters; /* told once (counters_told) */
    bool counters_told;
    void *plan_opaque;
    void (*plan_release)(void *);
    /* Values the plan's owner holds (pk_stream_set_given): per leaf, whether
     * the current row group's batches come from given.gather, and where the
     * next batch starts in the plan's rows (g_rr from g_ri, row g_row). */
    pk_stream_given given;
    bool *from_given;
    const plank_row_range *g_rr;
    int64_t g_ri, g_row;
    plank_row_range g_whole;
    /* A plan's bitmap selection (pk_stream_plan_fn): the row group is read
     * whole and each batch compacted by its bits (mbits: the batch's, from
     * bit 0; mkeep of them set); mrr: ranges made from a bitmap (for the
     * given leaves of a batch, or for a stream that cannot compact). */
    const uint8_t *mask;
    int64_t mask_pos, mkeep;
    bool mask_wide;              /* a batch may span more rows than batch_rows (mask_span) */
    pk_buffer mbits;
    plank_row_range *mrr;
    int64_t nmrr;
    int err_code;                /* sticky errno, 0 when fine */
    char msg[PLANK_ERROR_MESSAGE_SIZE + 64];
    /* Column fan-out (pk_stream_set_fanout): a batch's leaves read on fan_ex. */
    plank_executor fan_ex;
    int32_t fanout;              /* 1: serial */
    pk_exec *own_exec;           /* the pool behind fan_ex when the stream made it */
    plank_status *lst;           /* per leaf: the status of its part of the batch */
    plank_error *lerr;           /* per leaf */
    int64_t fan_take;            /* the batch's records, for the leaf tasks */
    /* The order the leaf tasks are taken in: longest first by their times in
     * the last batch (fan_ns), so that the longest column does not start
     * last and leave the other threads idle at the batch's end. */
    int32_t *fan_order;
    int64_t *fan_ns;
    struct ArrowArray *fan_dst;  /* where the leaf tasks put their arrays (pre, or ahead) */
    /* Lookahead (a stream with its own pool, every leaf direct, no mask):
     * the next batch's leaf tasks are started before a batch is handed out,
     * so that the pool's threads decode it while the consumer assembles and
     * uses this one; get_next joins them. ahead_take: its records, 0 when
     * none is running. */
    bool lookahead;
    pk_for_run ahead;
    int64_t ahead_take;
    struct ArrowArray *pre_ahead; /* per leaf: the next batch's arrays */
} pk_stream;

static int to_errno(plank_status st) {
    switch (st) {
    case PLANK_OK: return 0;
    case PLANK_ERR_OUT_OF_MEMORY: return ENOMEM;
    case PLANK_ERR_INVALID_ARGUMENT: return EINVAL;
    case PLANK_ERR_UNSUPPORTED: case PLANK_ERR_ENCRYPTED: return ENOSYS;
    default: return EIO;
    }
}

/* ---- Pending leaf buffers ------------------------------------------------------------- */

static void leaf_init(pk_leaf_buf *l, const plank_allocator *a) {
    memset(l, 0, sizeof *l);
    pk_buffer_init(&l->def, a);
    pk_buffer_init(&l->rep, a);
    pk_buffer_init(&l->vals, a);
    pk_buffer_init(&l->offs, a);
    pk_buffer_init(&l->idx, a);
}

/* A pending view holds a reference on the bytes it points into: the column
 * reader moves on through its chunk (and reuses the buffers nothing holds)
 * before the view is exported or copied. */
static void leaf_drop_owner(pk_leaf_buf *l) {
    pk_shared_release(l->owner);
    l->owner = NULL;
}

static void leaf_reset(pk_leaf_buf *l) {
    leaf_drop_owner(l);
    pk_buffer_reset(&l->def);
    pk_buffer_reset(&l->rep);
    pk_buffer_reset(&l->vals);
    pk_buffer_reset(&l->offs);
    pk_buffer_reset(&l->idx);
}

static void leaf_clear(pk_leaf_buf *l) {
    l->n = l->starts = 0;
    l->eof = false;
    l->def.size = l->rep.size = l->vals.size = 0;
    l->offs.size = 0;
    l->idx.size = 0;
    l->fb_n = l->base = 0;
    l->dict = NULL;
    l->view = NULL;
    leaf_drop_owner(l);
}

/* Bytes per pending slot of a fixed-width leaf. */
static size_t slot_width(const plank_schema_node *pn) {
    int32_t w = pk_physical_width(pn->physical_type, pn->type_length);
    return w > 0 ? (size_t)w : 0;
}

/* Dictionary leaves: appends a batch of the column reader's dictionary mode,
 * renumbering its fallback values after the pending ones. */
static plank_status leaf_append_dict(pk_leaf_buf *l, const plank_column_reader *cr,
                                     const plank_batch *b, plank_error *err) {
    const pk_dict *d = pk_column_reader_dict(cr);
    int64_t base = d ? d->count : 0, fb = pk_column_reader_fallback_count(cr);
    PK_RETURN_IF(l->dict && l->dict != d, err, PLANK_ERR_CORRUPT,
                 "the dictionary changed within a column chunk");
    l->dict = d;
    l->base = base;
    PK_RETURN_IF(base + l->fb_n + fb > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "%lld dictionary and %lld pending fallback values do not fit int32 indices",
                 (long long)base, (long long)(l->fb_n + fb));
    if (l->offs.size == 0) {
        int64_t zero = 0;
        PK_FORWARD(pk_buffer_append(&l->offs, &zero, 8, err));
    }
    size_t at = l->idx.size;
    PK_FORWARD(pk_buffer_append(&l->idx, b->values, (size_t)b->length * 4, err));
    int32_t *ix = (int32_t *)(void *)(l->idx.data + at);
    for (int64_t i = 0; i < b->length; i++)
        if (ix[i] >= base) ix[i] += (int32_t)l->fb_n;
    int64_t vbase = ((const int64_t *)(void *)l->offs.data)[l->fb_n];
    size_t oat = l->offs.size;
    PK_FORWARD(pk_buffer_resize(&l->offs, oat + (size_t)fb * 8, err));
    int64_t *o = (int64_t *)(void *)(l->offs.data + oat);
    for (int64_t j = 0; j < fb; j++) o[j] = b->offsets[j + 1] + vbase;
    if (fb && b->offsets[fb])
        PK_FORWARD(pk_buffer_append(&l->vals, b->data, (size_t)b->offsets[fb], err));
    l->fb_n += fb;
    return PLANK_OK;
}

/* Zero copy ends for the pending values: they move into vals. */
static plank_status leaf_materialize(pk_leaf_buf *l, size_t w, plank_error *err) {
    const uint8_t *v = l->view;
    l->view = NULL;
    plank_status st = pk_buffer_append(&l->vals, v, (size_t)l->n * w, err);
    leaf_drop_owner(l);
    return st;
}

/* Fixed-width values: kept as a view into the chunk while the batches of a
 * zero-copy leaf are views that continue each other (the same page), else
 * copied. */
static plank_status leaf_append_fixed(pk_leaf_buf *l, const plank_schema_node *pn,
                                      const plank_column_reader *cr, const plank_batch *b,
                                      plank_error *err) {
    size_t w = slot_width(pn);
    const uint8_t *v = b->values;
    pk_shared *owner = NULL;
    if (l->zc_align && pk_column_reader_batch_view(cr, &owner) &&
        (uintptr_t)v % (uintptr_t)l->zc_align == 0) {
        if (l->n == 0) {
            leaf_drop_owner(l);
            l->view = v;
            l->owner = owner;
            if (owner) pk_shared_retain(owner);
            return PLANK_OK;
        }
        if (l->view && l->view + (size_t)l->n * w == v) return PLANK_OK;
    }
    if (l->view) PK_FORWARD(leaf_materialize(l, w, err));
    return pk_buffer_append(&l->vals, v, (size_t)b->length * w, err);
}

static plank_status leaf_append(pk_leaf_buf *l, const pk_anode *an,
                                const plank_column_reader *cr, const plank_batch *b,
                                const pk_kernels *kn, plank_error *err) {
    const plank_schema_node *pn = an->pn;
    int64_t k = b->length;
    if (pn->max_repetition_level > 0) {
        PK_RETURN_IF(l->n == 0 && b->rep_levels[0] != 0, err, PLANK_ERR_CORRUPT,
                     "column %d (%s): a record starts with repetition level %d",
                     (int)pn->column, pn->path, (int)b->rep_levels[0]);
        PK_FORWARD(pk_buffer_append(&l->rep, b->rep_levels, (size_t)k * 2, err));
        l->starts += pk_count_eq16(kn, b->rep_levels, (size_t)k, 0);
    } else {
        l->starts += k;
    }
    if (pn->max_definition_level > 0)
        PK_FORWARD(pk_buffer_append(&l->def, b->def_levels, (size_t)k * 2, err));
    if (an->dict) {
        /* dictionary mode: appended by leaf_append_dict */
    } else if (pn->physical_type == PLANK_BYTE_ARRAY) {
        if (l->offs.size == 0) {
            int64_t zero = 0;
            PK_FORWARD(pk_buffer_append(&l->offs, &zero, 8, err));
        }
        int64_t base = ((const int64_t *)l->offs.data)[l->n] - b->offsets[0];
        size_t at = l->offs.size;
        PK_FORWARD(pk_buffer_resize(&l->offs, at + (size_t)k * 8, err));
        int64_t *o = (int64_t *)(l->offs.data + at);
        for (int64_t i = 0; i < k; i++) o[i] = b->offsets[i + 1] + base;
        size_t bytes = (size_t)(b->offsets[k] - b->offsets[0]);
        if (bytes) PK_FORWARD(pk_buffer_append(&l->vals, b->data + b->offsets[0], bytes, err));
    } else if (pn->physical_type == PLANK_BOOLEAN) {
        size_t at = l->vals.size;
        PK_FORWARD(pk_buffer_resize(&l->vals, at + (size_t)k, err));
        const uint8_t *bits = b->values;
        for (int64_t i = 0; i < k; i++) l->vals.data[at + (size_t)i] = pk_bit_get(bits, i);
    } else {
        PK_FORWARD(leaf_append_fixed(l, pn, cr, b, err));
    }
    l->n += k;
    return PLANK_OK;
}

/* Drops the first s slots (holding `records` records). */
/* Moves the last `keep` items of `size` bytes each from index `from` to the front. */
static void shift_front(pk_buffer *b, size_t from, size_t keep, size_t size) {
    if (keep) memmove(b->data, b->data + from * size, keep * size);
    b->size = keep * size;
}

/* Drops the first s slots (holding `records` records). */
static void leaf_consume(pk_leaf_buf *l, const pk_anode *an, int64_t s, int64_t records) {
    const plank_schema_node *pn = an->pn;
    size_t rest = (size_t)(l->n - s), from = (size_t)s;
    if (pn->max_repetition_level > 0) shift_front(&l->rep, from, rest, 2);
    if (pn->max_definition_level > 0) shift_front(&l->def, from, rest, 2);
    if (an->dict) {
        /* Fallback values are in slot order: those of the consumed slots go. */
        int32_t *ix = (int32_t *)(void *)l->idx.data;
        int32_t k = 0;
        for (int64_t p = 0; p < s; p++) k += ix[p] >= l->base;
        for (size_t p = from; p < from + rest; p++)
            if (ix[p] >= l->base) ix[p] -= k;
        shift_front(&l->idx, from, rest, 4);
        if (l->offs.size) {
            int64_t *o = (int64_t *)(void *)l->offs.data;
            int64_t cut = o[k];
            shift_front(&l->vals, (size_t)cut, (size_t)(o[l->fb_n] - cut), 1);
            for (int64_t j = 0; j <= l->fb_n - k; j++) o[j] = o[j + k] - cut;
            l->fb_n -= k;
            l->offs.size = (size_t)(l->fb_n + 1) * 8;
        }
    } else if (pn->physical_type == PLANK_BYTE_ARRAY) {
        int64_t *o = (int64_t *)l->offs.data;
        int64_t cut = o[s];
        shift_front(&l->vals, (size_t)cut, (size_t)(o[l->n] - cut), 1);
        for (size_t i = 0; i <= rest; i++) o[i] = o[from + i] - cut;
        l->offs.size = (rest + 1) * 8;
    } else if (l->view) {
        l->view = rest ? l->view + from * slot_width(pn) : NULL;
        if (!rest) leaf_drop_owner(l);
    } else {
        shift_front(&l->vals, from, rest, slot_width(pn));
    }
    l->n -= s;
    l->starts -= records;
}

static int64_t complete_records(const pk_leaf_buf *l, const plank_schema_node *pn) {
    if (pn->max_repetition_level == 0 || l->eof) return l->starts;
    return l->starts > 0 ? l->starts - 1 : 0;
}

/* One read of up to k slots of leaf i into its pending buffers. */
static plank_status leaf_read(pk_stream *s, int32_t i, int64_t k, plank_error *err) {
    pk_leaf_buf *l = &s->leaves[i];
    plank_batch b = {.struct_size = sizeof(plank_batch)};
    PK_FORWARD(plank_column_reader_read(s->crs[i], k, &b, err));
    if (b.length == 0) {
        l->eof = true;
        return PLANK_OK;
    }
    PK_FORWARD(leaf_append(l, s->t.leaf_nodes[i], s->crs[i], &b, s->r->kernels, err));
    if (s->t.leaf_nodes[i]->dict) PK_FORWARD(leaf_append_dict(l, s->crs[i], &b, err));
    return PLANK_OK;
}

/* Reads ahead until `want` whole records are pending or the chunk ends. */
static plank_status leaf_fill(pk_stream *s, int32_t i, int64_t want, plank_error *err) {
    pk_leaf_buf *l = &s->leaves[i];
    const plank_schema_node *pn = s->t.leaf_nodes[i]->pn;
    for (;;) {
        int64_t have = complete_records(l, pn);
        if (l->eof || have >= want) return PLANK_OK;
        int64_t k = want - have;
        if (pn->max_repetition_level > 0 && k < 1024) k = 1024;
        PK_FORWARD(leaf_read(s, i, k, err));
    }
}

/* Whether leaf i's batches of this row group come from the plan's owner. */
static bool given_leaf(const pk_stream *s, int32_t i) {
    return s->from_given && s->from_given[i];
}

/* Zero copy: the records of the next batch of at most `take`. Each
 * zero-copy leaf without enough pending values gets one read, unless its
 * pending view already reaches the end of its page (its column reader stops
 * there); the batch then ends with the shortest view that still holds at
 * least take / 8 records, so that every view of that length stays whole.
 * Leaves whose view is shorter are copied when the next read extends them. */
static plank_status zero_copy_cut(pk_stream *s, int64_t *take, plank_error *err) {
    int64_t cut = *take, floor = *take / 8 > 0 ? *take / 8 : 1;
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        pk_leaf_buf *l = &s->leaves[i];
        if (!l->zc_align || given_leaf(s, i)) continue;
        if (s->direct[i]) {
            /* A direct leaf is a view when one page holds the whole batch. */
            int64_t r;
            PK_FORWARD(pk_column_reader_view_rows(s->crs[i], &r, err));
            if (r >= floor && r < cut) cut = r;
            continue;
        }
        bool whole = l->view && pk_column_reader_at_page_end(s->crs[i]);
        if (l->n < *take && !l->eof && !whole) PK_FORWARD(leaf_read(s, i, *take - l->n, err));
        if (l->view && l->n >= floor && l->n < cut) cut = l->n;
    }
    *take = cut;
    return PLANK_OK;
}

/* Slots of the first `rows` records of leaf i. */
static plank_status leaf_cut(pk_stream *s, int32_t i, int64_t rows, int64_t *slots,
                             plank_error *err) {
    const pk_leaf_buf *l = &s->leaves[i];
    const plank_schema_node *pn = s->t.leaf_nodes[i]->pn;
    if (pn->max_repetition_level == 0) {
        *slots = rows;
        return PLANK_OK;
    }
    const int16_t *rep = (const int16_t *)l->rep.data;
    int64_t c = 0, p = 0;
    /* Whole blocks through the counting kernel while they cannot hold the
     * start of record `rows`, then level by level. */
    const pk_kernels *kn = s->r->kernels;
    for (int64_t m; (m = l->n - p < 1024 ? l->n - p : 1024) > 0; p += m) {
        int64_t in = pk_count_eq16(kn, rep + p, (size_t)m, 0);
        if (c + in > rows) break;
        c += in;
    }
    for (; p < l->n; p++) {
        if (rep[p] != 0) continue;
        if (c == rows) {
            *slots = p;
            return PLANK_OK;
        }
        c++;
    }
    PK_RETURN_IF(c != rows, err, PLANK_ERR_CORRUPT, "column %d (%s): %lld records, %lld needed",
                 (int)pn->column, pn->path, (long long)c, (long long)rows);
    *slots = l->n;
    return PLANK_OK;
}

/* Whether a batch of these slots fits the int32 offsets of the columns and
 * lists that keep them (large ones take any size). */
static bool fits_int32(pk_stream *s) {
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        const pk_anode *an = s->t.leaf_nodes[i];
        const plank_schema_node *pn = an->pn;
        if (s->direct[i]) continue;
        if (an->under_small_list && s->slots[i] > INT32_MAX) return false;
        if (pn->physical_type == PLANK_BYTE_ARRAY && !an->large && !an->dict &&
            ((const int64_t *)s->leaves[i].offs.data)[s->slots[i]] > INT32_MAX)
            return false;
    }
    return true;
}

/* The alignment a zero-copy pointer to the leaf's values needs, 0 when the
 * leaf is never zero-copy: its Arrow values must be the page's bytes
 * (PK_CONV_COPY) and every slot an entry of its own (no list above: the
 * assembler's identity case). The alignment is the value width's largest
 * power-of-two factor up to 8 (int32 4, int64 8, fixed_size_binary(16) 8,
 * fixed_size_binary(3) 1), what a consumer may assume of the buffer. */
static int32_t zero_copy_align(const pk_stream *s, const pk_anode *an) {
    const plank_schema_node *pn = an->pn;
    if (!s->o.zero_copy || (s->r->mem && !s->r->map && !s->o.borrow_memory)) return 0;
    if (an->dict || an->conv != PK_CONV_COPY || pn->max_repetition_level > 0 ||
        an->entry_def != 0 || pn->physical_type == PLANK_BOOLEAN ||
        pn->physical_type == PLANK_BYTE_ARRAY)
        return 0;
    int32_t w = (int32_t)slot_width(pn);
    if (w <= 0) return 0;
    int32_t a = w & -w;
    return a > 8 ? 8 : a;
}

/* ---- Row groups ---------------------------------------------------------------------- */

static void close_readers(pk_stream *s) {
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        plank_column_reader_close(s->crs[i]);
        s->crs[i] = NULL;
    }
}

/* A source that takes hints (pk_reader_prefetch): announces the chunks
 * row group g's readers will fetch whole, and, when the stream knows it, the
 * next row group's, so that its bytes arrive while this one decodes. */
static void announce(pk_stream *s) {
    if (!s->r->hints) return;
    pk_range_list l = {.a = &s->alloc};
    int32_t n = s->t.num_leaves;
    for (int32_t i = 0; i < n; i++)
        if (s->crs[i] && !given_leaf(s, i)) pk_column_reader_fetch_ranges(s->crs[i], &l);
    if (!s->plan && s->next_rg < s->nrg) {
        for (int32_t i = 0; i < n; i++) {
            uint64_t o, len;
            if (pk_reader_chunk_range(s->r, s->rgs[s->next_rg], s->t.leaf_columns[i], &o, &len))
                pk_range_list_add(&l, o, len);
        }
    }
    pk_reader_prefetch(s->r, l.r, l.n);
    pk_range_list_free(&l);
}

/* Opens row group g for reading; rr[0..nr) are the rows to return
 * (rr NULL: all of them). */
static plank_status open_row_group(pk_stream *s, int32_t g, const plank_row_range *rr,
                                   int64_t nr, plank_error *err) {
    plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
    PK_FORWARD(plank_reader_row_group(s->r, g, &info, err));
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        leaf_clear(&s->leaves[i]);
        pk_flat_leaf_reset(&s->flat[i]);
        if (s->crs[i]) {
            /* Buffers, contexts and modes carry over from the last row group. */
            PK_FORWARD(pk_column_reader_reopen(s->crs[i], g, err));
            continue;
        }
        /* Through the stream's pool: buffers freed by one row group (or by
         * the consumer) serve the next, whichever thread decodes it. */
        PK_FORWARD(pk_column_reader_open_alloc(&s->crs[i], s->r, g, s->t.leaf_columns[i],
                                               &s->alloc, err));
        if (s->t.leaf_nodes[i]->dict) pk_column_reader_set_dict_mode(s->crs[i], true);
        if (s->leaves[i].zc_align && !s->direct[i])
            pk_column_reader_set_view_mode(s->crs[i], true);
    }
    s->cur_rg = g;
    s->rows_left = info.num_rows;
    s->mask = NULL;
    s->mask_pos = 0;
    bool any_given = false;
    for (int32_t i = 0; i < s->t.num_leaves && s->from_given; i++) {
        const pk_anode *an = s->t.leaf_nodes[i];
        s->from_given[i] = s->direct[i] && pk_flat_leaf_givable(an) &&
                           s->given.has(s->plan_opaque, an->pn->column);
        any_given |= s->from_given[i];
    }
    s->g_rr = NULL;
    if (any_given) {
        s->g_whole = (plank_row_range){0, info.num_rows};
        s->g_rr = rr ? rr : &s->g_whole;
        s->g_ri = 0;
        s->g_row = rr ? (nr > 0 ? rr[0].first : 0) : 0;
    }
    if (rr) {
        int64_t rows = 0;
        for (int32_t i = 0; i < s->t.num_leaves; i++)
            if (!given_leaf(s, i)) PK_FORWARD(plank_column_reader_select(s->crs[i], rr, nr, err));
        for (int64_t k = 0; k < nr; k++) rows += rr[k].count;
        s->rows_left = rows;
    }
    s->rg_rows = s->rows_left;
    announce(s);
    return PLANK_OK;
}

static void tell_counters(pk_stream *s) {
    if (!s->plan_counters || s->counters_told) return;
    s->counters_told = true;
    pk_column_counters sum, c;
    memset(&sum, 0, sizeof sum);
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        if (!s->crs || !s->crs[i]) continue;
        pk_column_reader_counters(s->crs[i], &c);
        sum.pages_decoded += c.pages_decoded;
        sum.pages_decompressed += c.pages_decompressed;
        sum.pages_skipped += c.pages_skipped;
        sum.dictionaries += c.dictionaries;
        sum.bytes_fetched += c.bytes_fetched;
    }
    s->plan_counters(s->plan_opaque, &sum);
}

static void free_mask_ranges(pk_stream *s) {
    if (s->mrr) plank_row_ranges_free(&s->alloc, s->mrr, s->nmrr);
    s->mrr = NULL;
    s->nmrr = 0;
}

/* Whether every leaf is read flat into its array (a bitmap selection is
 * then applied by compacting the arrays). */
static bool all_direct(const pk_stream *s) {
    for (int32_t i = 0; i < s->t.num_leaves; i++)
        if (!s->direct[i]) return false;
    return s->t.num_leaves > 0;
}

/* Whether every leaf of a bitmap batch reads only its kept rows into its
 * array (given leaves, and flat leaves without levels), so that a batch's
 * memory follows the rows it keeps, not the rows it spans. */
static bool kept_only(const pk_stream *s) {
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        const plank_schema_node *pn = s->t.leaf_nodes[i]->pn;
        if (!given_leaf(s, i) && (pn->max_definition_level > 0 || pn->max_repetition_level > 0))
            return false;
    }
    return true;
}

/* The next row group to open: from the plan, or the next entry of rgs with
 * its selection. *g = -1 at the end. */
static plank_status next_row_group(pk_stream *s, plank_error *err) {
    const plank_row_range *rr = NULL;
    const uint8_t *mask = NULL;
    int64_t nr = 0;
    int32_t g = -1;
    free_mask_ranges(s);
    if (s->plan) {
        PK_FORWARD(s->plan(s->plan_opaque, &g, &rr, &nr, &mask, err));
        if (g < 0) {
            tell_counters(s);
            return PLANK_OK;
        }
        static const plank_row_range none = {0, 0};
        if (mask) {
            plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
            PK_FORWARD(plank_reader_row_group(s->r, g, &info, err));
            if (all_direct(s)) {
                PK_FORWARD(open_row_group(s, g, NULL, 0, err));
                s->mask = mask;
                s->mask_wide = kept_only(s);
                s->g_rr = NULL; /* the given leaves take each batch's bits */
                return PLANK_OK;
            }
            PK_FORWARD(plank_row_ranges_from_bitmap(mask, info.num_rows, 0, &s->alloc, &s->mrr,
                                                    &s->nmrr, err));
            rr = s->mrr;
            nr = s->nmrr;
        }
        if (nr < 0) {
            rr = NULL; /* every row */
            nr = 0;
        } else if (!rr || nr == 0) {
            rr = &none; /* no row: a selection of nothing */
            nr = 0;
        }
    } else {
        if (s->next_rg >= s->nrg) return PLANK_OK;
        int32_t e = s->next_rg++;
        g = s->rgs[e];
        if (s->sel) {
            rr = s->sel + s->sel_first[e];
            nr = s->sel_count[e];
        }
    }
    return open_row_group(s, g, rr, nr, err);
}

/* Every column must end exactly with the row group. */
static plank_status finish_row_group(pk_stream *s, plank_error *err) {
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        const plank_schema_node *pn = s->t.leaf_nodes[i]->pn;
        pk_leaf_buf *l = &s->leaves[i];
        bool more = l->n > 0;
        if (!more && !l->eof && !given_leaf(s, i)) {
            plank_batch b = {.struct_size = sizeof(plank_batch)};
            PK_FORWARD(plank_column_reader_read(s->crs[i], 1, &b, err));
            more = b.length > 0;
        }
        PK_RETURN_IF(more, err, PLANK_ERR_CORRUPT,
                     "row group %d: column %d (%s) has more records than the row group's "
                     "num_rows", (int)s->cur_rg, (int)pn->column, pn->path);
    }
    s->cur_rg = -1;
    return PLANK_OK;
}

/* Leaf i's pending entries up to `take` complete records. */
static plank_status fill_checked(pk_stream *s, int32_t i, int64_t take, plank_error *err) {
    PK_FORWARD(leaf_fill(s, i, take, err));
    const plank_schema_node *pn = s->t.leaf_nodes[i]->pn;
    int64_t have = complete_records(&s->leaves[i], pn);
    PK_RETURN_IF(have < take, err, PLANK_ERR_CORRUPT,
                 "row group %d: column %d (%s) ends after %lld of %lld records",
                 (int)s->cur_rg, (int)pn->column, pn->path, (long long)have, (long long)take);
    return PLANK_OK;
}

/* A direct leaf's array of the batch, into dst[i]. */
static plank_status direct_read(pk_stream *s, int32_t i, int64_t take, struct ArrowArray *dst,
                                plank_error *err) {
    plank_status st;
    const pk_anode *an = s->t.leaf_nodes[i];
    if (given_leaf(s, i)) {
        /* only the selected rows: a bitmap batch's kept ones, by its bits */
        pk_given_rows at = {s->g_rr, s->g_ri, s->g_row, NULL, 0};
        if (s->mask) at = (pk_given_rows){NULL, 0, s->mask_pos, s->mbits.data, take};
        st = pk_flat_leaf_given(&s->flat[i], an, &s->given, s->plan_opaque, &at,
                                s->mask ? s->mkeep : take, &s->alloc, &dst[i], err);
    } else {
        /* a bitmap batch keeps its rows only, never as a view */
        if (s->mask)
            st = pk_flat_leaf_read_kept(&s->flat[i], s->crs[i], an, take, s->mbits.data,
                                        s->mkeep, s->r->kernels, &s->alloc, &dst[i], err);
        else
            st = pk_flat_leaf_read(&s->flat[i], s->crs[i], an, take, s->leaves[i].zc_align,
                                   &s->alloc, &dst[i], err);
    }
    if (st != PLANK_OK && err) pk_error_prefix(err, "row group %d", (int)s->cur_rg);
    return st;
}

/* The leaf tasks of a fanned-out batch: each leaf touches only its own column
 * reader and buffers; errors are kept per leaf and the first in leaf order
 * is returned, as the serial loop would. */
static void fan_fill(void *ctx, int64_t k) {
    pk_stream *s = ctx;
    int32_t i = s->fan_order[k];
    int64_t t0 = pk_now_ns();
    plank_error_init(&s->lerr[i]);
    s->lst[i] = s->direct[i] ? PLANK_OK : fill_checked(s, i, s->fan_take, &s->lerr[i]);
    s->fan_ns[i] += pk_now_ns() - t0;
}

static void fan_direct(void *ctx, int64_t k) {
    pk_stream *s = ctx;
    int32_t i = s->fan_order[k];
    int64_t t0 = pk_now_ns();
    plank_error_init(&s->lerr[i]);
    s->lst[i] = s->direct[i] ? direct_read(s, i, s->fan_take, s->fan_dst, &s->lerr[i])
                             : PLANK_OK;
    s->fan_ns[i] += pk_now_ns() - t0;
}

/* The leaves reordered longest first by the batch just read (an insertion
 * sort: from one batch to the next the order barely changes), and the
 * times cleared for the next. */
static void fan_reorder(pk_stream *s) {
    int32_t *o = s->fan_order;
    const int64_t *ns = s->fan_ns;
    for (int32_t k = 1; k < s->t.num_leaves; k++) {
        int32_t v = o[k], j = k;
        for (; j > 0 && ns[o[j - 1]] < ns[v]; j--) o[j] = o[j - 1];
        o[j] = v;
    }
    memset(s->fan_ns, 0, (size_t)s->t.num_leaves * sizeof *s->fan_ns);
}

/* The first error of the leaf tasks, in leaf order. */
static plank_status fan_status(pk_stream *s, plank_error *err) {
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        if (s->lst[i] == PLANK_OK) continue;
        if (err) *err = s->lerr[i];
        return s->lst[i];
    }
    return PLANK_OK;
}

static plank_status fan_out(pk_stream *s, int64_t take, void (*fn)(void *, int64_t),
                            plank_error *err) {
    s->fan_take = take;
    s->fan_dst = s->pre;
    pk_exec_for(&s->fan_ex, s->t.num_leaves, fn, s);
    return fan_status(s, err);
}

/* The lookahead's tasks joined (nothing running after it). */
static void ahead_join(pk_stream *s) {
    if (s->ahead_take <= 0) return;
    pk_exec_for_join(&s->ahead);
    s->ahead_take = 0;
}

void pk_stream_set_given(struct ArrowArrayStream *st, const pk_stream_given *given) {
    pk_stream *s = st->private_data;
    if (!s->plan || !given->want || !given->has || !given->gather || !given->gather_strings)
        return;
    s->from_given = pk_calloc(&s->alloc, (size_t)s->t.num_leaves + 1);
    if (!s->from_given) return; /* read from the column readers, then */
    s->given = *given;
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        const pk_anode *an = s->t.leaf_nodes[i];
        if (s->direct[i] && pk_flat_leaf_givable(an)) given->want(s->plan_opaque, an->pn->column);
    }
}

void pk_stream_set_fanout(struct ArrowArrayStream *st, const plank_executor *ex, int32_t n) {
    pk_stream *s = st->private_data;
    if (n <= 1 || s->t.num_leaves < 2) return;
    size_t nl = (size_t)s->t.num_leaves;
    s->lst = pk_calloc(&s->alloc, nl * sizeof *s->lst);
    s->lerr = pk_calloc(&s->alloc, nl * sizeof *s->lerr);
    s->fan_order = pk_calloc(&s->alloc, nl * sizeof *s->fan_order);
    s->fan_ns = pk_calloc(&s->alloc, nl * sizeof *s->fan_ns);
    s->pre_ahead = pk_calloc(&s->alloc, (nl + 1) * sizeof *s->pre_ahead);
    if (!s->lst || !s->lerr || !s->fan_order || !s->fan_ns || !s->pre_ahead)
        return; /* serial, then: fanout stays 1 */
    for (int32_t i = 0; i < s->t.num_leaves; i++) s->fan_order[i] = i;
    s->fan_ex = *ex;
    /* n threads in all: the stream's own (which reads a leaf too) and n - 1 tasks */
    if (s->fan_ex.threads > n - 1) s->fan_ex.threads = n - 1;
    s->fanout = n;
}

/* The rows a bitmap batch spans, from `take` (batch_rows or the rest of the
 * row group): whole steps of batch_rows rows while the batch keeps at most
 * batch_rows. A selective filter's survivors then come out in a few full
 * batches, not one sliver per batch_rows rows read: each batch costs its
 * arrays and assembly, and a parallel stream in file order holds at most
 * batches_in_flight of them, so slivers left the worker ahead of the
 * consumer idle. */
static int64_t mask_span(const pk_stream *s, int64_t take) {
    if (!s->mask_wide) return take;
    const pk_kernels *kn = s->r->kernels;
    int64_t at = s->mask_pos, end = s->mask_pos + s->rows_left;
    int64_t kept = kn->count_bits(s->mask, at, at + take);
    while (at + take < end) {
        int64_t more = end - (at + take);
        if (more > s->o.batch_rows) more = s->o.batch_rows;
        int64_t c = kn->count_bits(s->mask, at + take, at + take + more);
        if (kept + c > s->o.batch_rows) break;
        kept += c;
        take += more;
    }
    return take;
}

/* A bitmap row group's batch of `take` rows: its bits (mbits, from bit 0)
 * and how many are set (the given leaves take them by these bits too). A
 * batch without a selected row is skipped in every column reader (*empty). */
static plank_status mask_batch(pk_stream *s, int64_t take, bool *empty, plank_error *err) {
    const pk_kernels *kn = s->r->kernels;
    PK_FORWARD(pk_buffer_resize(&s->mbits, (size_t)(take + 7) / 8 + 8, err));
    memset(s->mbits.data, 0, (size_t)(take + 7) / 8 + 8);
    kn->copy_bits(s->mask, s->mask_pos, s->mbits.data, 0, (size_t)take);
    s->mkeep = kn->count_bits(s->mbits.data, 0, take);
    *empty = s->mkeep == 0;
    if (*empty) {
        for (int32_t i = 0; i < s->t.num_leaves; i++) {
            if (given_leaf(s, i)) continue;
            int64_t skipped = 0;
            PK_FORWARD(plank_column_reader_skip(s->crs[i], take, &skipped, err));
            PK_RETURN_IF(skipped != take, err, PLANK_ERR_CORRUPT,
                         "row group %d: column %d ends after %lld of %lld records",
                         (int)s->cur_rg, (int)s->t.leaf_columns[i],
                         (long long)(s->mask_pos + skipped), (long long)s->rg_rows);
        }
        s->mask_pos += take;
        s->rows_left -= take;
        return PLANK_OK;
    }
    return PLANK_OK;
}

/* The batch's array from its leaves (st: how their reads went), the leaves'
 * arrays released; on an error, the lookahead joined. */
static plank_status assemble_batch(pk_stream *s, plank_status st, int64_t length,
                                   struct ArrowArray *out, plank_error *err) {
    if (st == PLANK_OK) {
        pk_batch_view v = {&s->t, s->r, s->leaves, s->slots, s->alloc, s->pre};
        st = pk_assemble(&v, length, out, err);
        if (st == PLANK_OK) {
            st = pk_arrow_unshred(&s->t, out, s->rg_rows - s->rows_left, err);
            if (st != PLANK_OK) {
                out->release(out);
                if (err) pk_error_prefix(err, "row group %d", (int)s->cur_rg);
            }
        }
    }
    for (int32_t i = 0; i < s->t.num_leaves; i++)
        if (s->pre[i].release) s->pre[i].release(&s->pre[i]);
    if (st != PLANK_OK) ahead_join(s);
    return st;
}

/* With lookahead, after the leaves of a `take`-record batch were read: the
 * next batch of the row group started on the pool (into pre_ahead). Its
 * zero-copy cut is made here, where the column readers stand where that
 * batch starts and no task runs (every leaf is direct, so the cut only asks
 * the readers how many rows their pages hold); should it fail, nothing is
 * started and the batch is read, and fails, the usual way. */
static void ahead_start(pk_stream *s, int64_t take) {
    int64_t next = s->rows_left - take;
    if (!s->lookahead || next <= 0) return;
    next = next < s->o.batch_rows ? next : s->o.batch_rows;
    if (s->zero_copy) {
        plank_error e;
        plank_error_init(&e);
        if (zero_copy_cut(s, &next, &e) != PLANK_OK) return;
    }
    s->ahead_take = next;
    s->fan_take = s->ahead_take;
    s->fan_dst = s->pre_ahead;
    pk_exec_for_start(&s->ahead, &s->fan_ex, s->t.num_leaves, fan_direct, s);
}

/* A lookahead batch: its tasks joined (this thread takes the leaves not
 * started yet), the next one started, this one assembled. */
static plank_status ahead_batch(pk_stream *s, struct ArrowArray *out, plank_error *err) {
    int64_t take = s->ahead_take;
    ahead_join(s);
    struct ArrowArray *t = s->pre;
    s->pre = s->pre_ahead;
    s->pre_ahead = t;
    plank_status st = fan_status(s, err);
    fan_reorder(s);
    if (st == PLANK_OK) ahead_start(s, take);
    PK_FORWARD(assemble_batch(s, st, take, out, err));
    s->rows_left -= take;
    s->mask_pos += take;
    return PLANK_OK;
}

static plank_status next_batch(pk_stream *s, struct ArrowArray *out, bool *end,
                               plank_error *err) {
    *end = false;
again:
    for (;;) {
        if (s->cur_rg < 0) {
            PK_FORWARD(next_row_group(s, err));
            if (s->cur_rg < 0) {
                *end = true;
                return PLANK_OK;
            }
        }
        if (s->rows_left > 0) break;
        PK_FORWARD(finish_row_group(s, err));
    }
    int64_t take = s->rows_left < s->o.batch_rows ? s->rows_left : s->o.batch_rows;
    if (s->ahead_take > 0) return ahead_batch(s, out, err);
    if (s->mask) {
        bool empty;
        take = mask_span(s, take);
        PK_FORWARD(mask_batch(s, take, &empty, err));
        if (empty) goto again;
    } else if (s->zero_copy) {
        PK_FORWARD(zero_copy_cut(s, &take, err));
    }
    /* (no round of tasks when every leaf is direct: nothing to fill) */
    if (s->fanout > 1 && !all_direct(s)) PK_FORWARD(fan_out(s, take, fan_fill, err));
    for (int32_t i = 0; i < s->t.num_leaves && s->fanout <= 1; i++) {
        if (s->direct[i]) continue;
        PK_FORWARD(fill_checked(s, i, take, err));
    }
    for (;;) {
        for (int32_t i = 0; i < s->t.num_leaves; i++)
            PK_FORWARD(leaf_cut(s, i, take, &s->slots[i], err));
        if (fits_int32(s)) break;
        PK_RETURN_IF(take == 1, err, PLANK_ERR_LIMIT,
                     "row group %d: one record holds more than INT32_MAX bytes or elements",
                     (int)s->cur_rg);
        take /= 2;
    }
    /* Direct leaves last: the batch's length is final now. */
    plank_status st = PLANK_OK;
    if (s->fanout > 1) {
        st = fan_out(s, take, fan_direct, err);
        fan_reorder(s);
        if (st == PLANK_OK) ahead_start(s, take);
    }
    for (int32_t i = 0; i < s->t.num_leaves && st == PLANK_OK && s->fanout <= 1; i++) {
        if (!s->direct[i]) continue;
        st = direct_read(s, i, take, s->pre, err);
    }
    if (st == PLANK_OK && s->g_rr && !s->mask) {
        /* the given leaves' next batch starts after this one's rows */
        for (int64_t p = 0, m; p < take; s->g_row += m, p += m)
            m = pk_range_step(s->g_rr, &s->g_ri, &s->g_row, take - p);
    }
    PK_FORWARD(assemble_batch(s, st, s->mask ? s->mkeep : take, out, err));
    for (int32_t i = 0; i < s->t.num_leaves; i++)
        if (!s->direct[i])
            leaf_consume(&s->leaves[i], s->t.leaf_nodes[i], s->slots[i], take);
    s->rows_left -= take;
    s->mask_pos += take;
    return PLANK_OK;
}

/* ---- The stream callbacks --------------------------------------------------------------- */

static int set_error(pk_stream *s, plank_status st, const plank_error *e) {
    s->err_code = to_errno(st);
    snprintf(s->msg, sizeof s->msg, "%s: %s", plank_status_string(st),
             e->message[0] ? e->message : "(no detail)");
    return s->err_code;
}

static int stream_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
    if (!st || !st->private_data || !out) return EINVAL;
    pk_stream *s = st->private_data;
    plank_error e;
    plank_error_init(&e);
    plank_status rc = pk_atree_export_schema(&s->t, &s->alloc, out, &e);
    if (rc != PLANK_OK) {
        snprintf(s->msg, sizeof s->msg, "%s", e.message);
        return to_errno(rc);
    }
    return 0;
}

static int stream_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
    if (!st || !st->private_data || !out) return EINVAL;
    pk_stream *s = st->private_data;
    memset(out, 0, sizeof *out);
    if (s->err_code) return s->err_code;
    plank_error e;
    plank_error_init(&e);
    bool end;
    plank_status rc = next_batch(s, out, &end, &e);
    if (rc != PLANK_OK) return set_error(s, rc, &e);
    if (end) out->release = NULL; /* end of stream: a released array */
    return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *st) {
    if (!st || !st->private_data) return NULL;
    pk_stream *s = st->private_data;
    return s->msg[0] ? s->msg : NULL;
}

static void stream_free(pk_stream *s) {
    plank_allocator a = s->alloc;
    ahead_join(s); /* no task may outlive the readers and buffers below */
    tell_counters(s);
    if (s->crs) {
        close_readers(s);
        pk_free(&a, s->crs, (size_t)(s->t.num_leaves + 1) * sizeof *s->crs);
    }
    if (s->leaves) {
        for (int32_t i = 0; i < s->t.num_leaves; i++) leaf_reset(&s->leaves[i]);
        pk_free(&a, s->leaves, (size_t)(s->t.num_leaves + 1) * sizeof *s->leaves);
    }
    if (s->slots) pk_free(&a, s->slots, (size_t)(s->t.num_leaves + 1) * sizeof *s->slots);
    if (s->flat) {
        for (int32_t i = 0; i < s->t.num_leaves; i++) pk_flat_leaf_free(&s->flat[i]);
        pk_free(&a, s->flat, (size_t)(s->t.num_leaves + 1) * sizeof *s->flat);
    }
    if (s->direct) pk_free(&a, s->direct, (size_t)(s->t.num_leaves + 1) * sizeof *s->direct);
    if (s->pre) pk_free(&a, s->pre, (size_t)(s->t.num_leaves + 1) * sizeof *s->pre);
    if (s->rgs) pk_free(&a, s->rgs, (size_t)(s->rgs_cap + 1) * sizeof *s->rgs);
    if (s->from_given) pk_free(&a, s->from_given, (size_t)s->t.num_leaves + 1);
    free_mask_ranges(s);
    pk_buffer_reset(&s->mbits);
    if (s->lst) pk_free(&a, s->lst, (size_t)s->t.num_leaves * sizeof *s->lst);
    if (s->lerr) pk_free(&a, s->lerr, (size_t)s->t.num_leaves * sizeof *s->lerr);
    if (s->fan_order)
        pk_free(&a, s->fan_order, (size_t)s->t.num_leaves * sizeof *s->fan_order);
    if (s->fan_ns) pk_free(&a, s->fan_ns, (size_t)s->t.num_leaves * sizeof *s->fan_ns);
    if (s->pre_ahead) {
        for (int32_t i = 0; i < s->t.num_leaves; i++)
            if (s->pre_ahead[i].release) s->pre_ahead[i].release(&s->pre_ahead[i]);
        pk_free(&a, s->pre_ahead, (size_t)(s->t.num_leaves + 1) * sizeof *s->pre_ahead);
    }
    pk_atree_free(&s->t);
    /* The selection came from the reader's allocator (made before the stream). */
    if (s->sel) pk_free(&s->base, s->sel, (size_t)(s->nsel + 1) * sizeof *s->sel);
    if (s->sel_first)
        pk_free(&s->base, s->sel_first, (size_t)(s->sel_groups_cap + 1) * sizeof *s->sel_first);
    if (s->sel_count)
        pk_free(&s->base, s->sel_count, (size_t)(s->sel_groups_cap + 1) * sizeof *s->sel_count);
    if (s->reader_ref) pk_reader_release(s->r);
    if (s->plan_release) s->plan_release(s->plan_opaque);
    pk_exec_free(s->own_exec);
    pk_bufpool_close(s->pool);
    plank_allocator b = s->base;
    pk_free(&b, s, sizeof *s);
}

static void stream_release(struct ArrowArrayStream *st) {
    if (!st || !st->release) return;
    if (st->private_data) stream_free(st->private_data);
    st->private_data = NULL;
    st->release = NULL;
}

/* The stream over row groups rgs[0..nrg) (NULL: all) of the leaves in mask. */
static plank_status stream_create(plank_reader *r, const int32_t *row_groups,
                                  int32_t num_row_groups, const plank_arrow_options *o,
                                  const bool *mask, pk_bufpool *share,
                                  struct ArrowArrayStream *out, plank_error *err) {
    plank_error_init(err);
    if (!r || !out || num_row_groups < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    memset(out, 0, sizeof *out);
    plank_arrow_options opt;
    PK_FORWARD(pk_arrow_options_load(&opt, o, err));
    if (opt.batch_rows <= 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "batch_rows must be positive (%lld)",
                            (long long)opt.batch_rows);
    int32_t total = plank_reader_num_row_groups(r);
    if (row_groups && num_row_groups > 0) {
        for (int32_t i = 0; i < num_row_groups; i++)
            if (row_groups[i] < 0 || row_groups[i] >= total)
                return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                    "row group %d does not exist (file has %d)",
                                    (int)row_groups[i], (int)total);
    } else {
        num_row_groups = total;
        row_groups = NULL;
    }
    pk_stream *s = pk_calloc(&r->alloc, sizeof *s);
    if (!s) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    s->base = r->alloc;
    s->alloc = r->alloc;
    /* Batches' buffers come from a cache of the blocks earlier batches
     * freed (pk_bufpool.c); without it, plain allocation. */
    if (share) pk_bufpool_retain(share);
    s->pool = share ? share : pk_bufpool_new(&r->alloc, (size_t)256 << 20, 512);
    if (s->pool) pk_bufpool_allocator(s->pool, &s->alloc);
    s->r = r;
    s->o = opt;
    s->cur_rg = -1;
    s->nrg = num_row_groups;
    s->rgs_cap = num_row_groups;
    /* The schema is decided from every row group, so that streams over any
     * subset agree with each other and with plank_reader_arrow_schema. */
    plank_status st = pk_atree_build(r, &opt, NULL, 0, mask, &s->t, err);
    if (st != PLANK_OK) {
        pk_bufpool_close(s->pool);
        pk_free(&s->base, s, sizeof *s);
        return st;
    }
    size_t nl = (size_t)s->t.num_leaves + 1;
    s->rgs = pk_malloc(&s->alloc, (size_t)(s->nrg + 1) * sizeof *s->rgs);
    s->crs = pk_calloc(&s->alloc, nl * sizeof *s->crs);
    s->leaves = pk_calloc(&s->alloc, nl * sizeof *s->leaves);
    s->slots = pk_calloc(&s->alloc, nl * sizeof *s->slots);
    s->direct = pk_calloc(&s->alloc, nl * sizeof *s->direct);
    s->flat = pk_calloc(&s->alloc, nl * sizeof *s->flat);
    s->pre = pk_calloc(&s->alloc, nl * sizeof *s->pre);
    pk_buffer_init(&s->mbits, &s->alloc);
    if (!s->rgs || !s->crs || !s->leaves || !s->slots || !s->direct || !s->flat || !s->pre) {
        stream_free(s);
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int32_t i = 0; i < s->nrg; i++) s->rgs[i] = row_groups ? row_groups[i] : i;
    pk_reader_retain(r);
    s->reader_ref = true;
    for (int32_t i = 0; i < s->t.num_leaves; i++) {
        leaf_init(&s->leaves[i], &s->alloc);
        pk_flat_leaf_init(&s->flat[i], &s->alloc);
        s->leaves[i].zc_align = zero_copy_align(s, s->t.leaf_nodes[i]);
        s->zero_copy |= s->leaves[i].zc_align > 0;
    }
    /* Leaves that are top-level fields of their own go straight into arrays. */
    const pk_anode *root = s->t.root;
    for (int32_t k = 0; k < root->num_children; k++) {
        const pk_anode *an = root->children[k];
        if (pk_flat_leaf_eligible(an)) s->direct[an->leaf] = true;
    }
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = s;
    return PLANK_OK;
}

/* ---- Parallel streams ------------------------------------------------------------------ */

/* A worker of a parallel stream: its row groups are the units it takes from
 * the shared counter, looked up in the serial stream made for the call (the
 * template, which is never read from). */
typedef struct pk_pworker {
    const pk_stream *tmpl;
    pk_par *p;
    int32_t w;
    plank_allocator alloc;
} pk_pworker;

static plank_status worker_plan(void *opaque, int32_t *g, const plank_row_range **ranges,
                                int64_t *n, const uint8_t **mask, plank_error *err) {
    (void)err;
    *mask = NULL;
    pk_pworker *pw = opaque;
    const pk_stream *t = pw->tmpl;
    int64_t u = pk_par_next_unit(pw->p, pw->w);
    *g = -1;
    *ranges = NULL;
    *n = -1; /* every row */
    if (u < 0) return PLANK_OK;
    *g = t->rgs[u];
    if (t->sel) {
        *ranges = t->sel + t->sel_first[u];
        *n = t->sel_count[u];
    }
    return PLANK_OK;
}

static void worker_free(void *opaque) {
    pk_pworker *pw = opaque;
    plank_allocator a = pw->alloc;
    pk_free(&a, pw, sizeof *pw);
}

static plank_status worker_open(void *ctx, int32_t w, pk_par *p, struct ArrowArrayStream *out,
                                plank_error *err) {
    pk_stream *t = ctx;
    pk_pworker *pw = pk_calloc(&t->base, sizeof *pw);
    if (!pw) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    pw->tmpl = t;
    pw->p = p;
    pw->w = w;
    pw->alloc = t->base;
    plank_arrow_options o = t->o;
    o.threads = 1;
    o.executor = NULL;
    plank_status st = pk_arrow_stream_planned(t->r, NULL, &o, worker_plan, NULL, pw, worker_free,
                                              t->pool, out, err);
    if (st != PLANK_OK) {
        worker_free(pw);
        return st;
    }
    pk_stream_set_fanout(out, pk_par_executor(p), pk_par_fanout(p));
    return PLANK_OK;
}

static void template_free(void *ctx) { stream_free(ctx); }

/* Turns the serial stream in *out into a parallel one when its options and
 * reader call for threads. */
static plank_status maybe_parallel(struct ArrowArrayStream *out, plank_error *err) {
    pk_stream *s = out->private_data;
    int32_t threads = pk_reader_read_threads(s->r, &s->o);
    if (threads <= 1 || s->nrg < 1) return PLANK_OK;
    if (s->nrg == 1 || (!s->o.any_order && s->t.num_leaves > 1)) {
        /* The columns of each batch run in parallel: in file order, row groups
         * on several threads would have to buffer whole row groups ahead of
         * the consumer to keep the threads busy (measured: no faster than one
         * thread with batches_in_flight's default, slower with a large one,
         * from the memory first touched), while columns need no buffer. */
        plank_executor ex;
        plank_status st = pk_par_executor_of(&s->o, threads - 1, &s->alloc, &s->own_exec, &ex,
                                             err);
        if (st != PLANK_OK) {
            out->release(out);
            return st;
        }
        pk_stream_set_fanout(out, &ex, threads);
        /* The next batch decoded while this one is used: with plank's own
         * pool (whose waits may come from any thread), flat leaves only. */
        s->lookahead = s->own_exec && s->fanout > 1 && all_direct(s) && !s->plan &&
                       !s->from_given;
        return PLANK_OK;
    }
    memset(out, 0, sizeof *out);
    /* The parallel stream outlives the template (and its pool): the base allocator. */
    return pk_par_stream(&s->base, &s->o, threads, s->nrg, worker_open, s, template_free, out,
                         err);
}

plank_status plank_reader_arrow_stream(plank_reader *r, const int32_t *row_groups,
                                       int32_t num_row_groups, const plank_arrow_options *o,
                                       struct ArrowArrayStream *out, plank_error *err) {
    PK_FORWARD(stream_create(r, row_groups, num_row_groups, o, NULL, NULL, out, err));
    return maybe_parallel(out, err);
}

plank_status pk_arrow_stream_planned(plank_reader *r, const bool *mask,
                                     const plank_arrow_options *o, pk_stream_plan_fn plan,
                                     pk_stream_counters_fn counters, void *opaque,
                                     void (*release_opaque)(void *), pk_bufpool *pool,
                                     struct ArrowArrayStream *out, plank_error *err) {
    if (!plan) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    PK_FORWARD(stream_create(r, NULL, 0, o, mask, pool, out, err));
    pk_stream *s = out->private_data;
    s->nrg = 0;
    s->plan = plan;
    s->plan_counters = counters;
    s->plan_opaque = opaque;
    s->plan_release = release_opaque;
    return PLANK_OK;
}

plank_status plank_reader_arrow_stream_rows(plank_reader *r, const plank_row_range *rows,
                                            int64_t num_ranges, const plank_arrow_options *o,
                                            struct ArrowArrayStream *out, plank_error *err) {
    plank_error_init(err);
    if (!r || !out || num_ranges < 0 || (num_ranges > 0 && !rows))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    memset(out, 0, sizeof *out);
    int64_t total_rows = plank_reader_num_rows(r), prev_end = 0;
    for (int64_t i = 0; i < num_ranges; i++) {
        const plank_row_range *g = &rows[i];
        if (g->first < 0 || g->count < 0 || g->first < prev_end ||
            g->count > total_rows - g->first)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "row range %lld ([%lld, +%lld)) is negative, overlaps the "
                                "previous one or ends past the file's %lld rows",
                                (long long)i, (long long)g->first, (long long)g->count,
                                (long long)total_rows);
        prev_end = g->first + g->count;
    }
    int32_t nrg = plank_reader_num_row_groups(r);
    /* Ranges split at row group boundaries: at most one piece more per group. */
    size_t cap = (size_t)num_ranges + (size_t)nrg + 1;
    plank_row_range *sel = pk_malloc(&r->alloc, cap * sizeof *sel);
    int32_t *touched = pk_malloc(&r->alloc, ((size_t)nrg + 1) * sizeof *touched);
    int64_t *first = pk_malloc(&r->alloc, ((size_t)nrg + 1) * sizeof *first);
    int64_t *count = pk_malloc(&r->alloc, ((size_t)nrg + 1) * sizeof *count);
    plank_status st = PLANK_OK;
    if (!sel || !touched || !first || !count)
        st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    int64_t ns = 0, k = 0, base = 0;
    int32_t nt = 0;
    for (int32_t g = 0; g < nrg && st == PLANK_OK; g++) {
        plank_row_group_info info = {.struct_size = sizeof(plank_row_group_info)};
        st = plank_reader_row_group(r, g, &info, err);
        if (st != PLANK_OK) break;
        int64_t end = base + info.num_rows, start = ns;
        while (k < num_ranges && rows[k].first + rows[k].count <= base) k++;
        for (int64_t j = k; j < num_ranges && rows[j].first < end; j++) {
            int64_t a = rows[j].first > base ? rows[j].first : base;
            int64_t b = rows[j].first + rows[j].count < end ? rows[j].first + rows[j].count : end;
            if (b > a) sel[ns++] = (plank_row_range){a - base, b - a};
        }
        if (ns > start) {
            touched[nt] = g;
            first[nt] = start;
            count[nt] = ns - start;
            nt++;
        }
        base = end;
    }
    if (st == PLANK_OK) {
        /* No row group at all is an empty stream: open it over the first
         * group, then drop that group. */
        int32_t dummy = 0;
        st = nrg == 0 ? stream_create(r, NULL, 0, o, NULL, NULL, out, err)
                      : stream_create(r, nt ? touched : &dummy, nt ? nt : 1, o, NULL, NULL, out, err);
    }
    if (st == PLANK_OK) {
        pk_stream *s = out->private_data;
        s->nrg = nt;
        s->sel = sel;
        s->nsel = (int64_t)cap - 1;
        s->sel_first = first;
        s->sel_count = count;
        /* sizes recorded for the frees: the arrays were allocated for nrg */
        s->sel_groups_cap = nrg;
        sel = NULL;
        first = count = NULL;
    }
    if (sel) pk_free(&r->alloc, sel, cap * sizeof *sel);
    if (first) pk_free(&r->alloc, first, ((size_t)nrg + 1) * sizeof *first);
    if (count) pk_free(&r->alloc, count, ((size_t)nrg + 1) * sizeof *count);
    if (touched) pk_free(&r->alloc, touched, ((size_t)nrg + 1) * sizeof *touched);
    if (st == PLANK_OK) st = maybe_parallel(out, err);
    return st;
}
