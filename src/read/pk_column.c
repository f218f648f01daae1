/*
 * pk_column.c: reading one column chunk page by page into Arrow-layout
 * batches.
 *
 * Flow: the chunk's bytes are fetched as the pages need them, through a
 * window (chunk_need), or referenced in place for memory sources; each page
 * header is decoded, its CRC checked, its body decompressed (v2: only the
 * values section), the levels decoded lazily per batch, and the non-null
 * values decoded densely and then spread over the slots of the batch. A slot is one level entry, so the same reader serves
 * nested columns: the record assembler works from def/rep levels and slots.
 */
#include "pk_read.h"
#include "../common/pk_struct.h"

#include <stdio.h>

#define PK_SCRATCH_LEVELS 4096
/* Granularity of the sparse fetch; a page header is first looked for in
 * this many bytes (one block or two). */
#define PK_FETCH_BLOCK 4096u
#define PK_HEADER_PROBE 4096u
#define PK_SPARE_WINDOWS 4
/* chunk_need: a window holds at least this many of the chunk's largest pages,
 * up to PK_WINDOW_MAX bytes (or read_window, if larger) */
#define PK_WINDOW_PAGES 2
#define PK_WINDOW_MAX ((uint64_t)4 << 20)

/* True for parquet-mr before 1.2.9 (or without a version), whose
 * total_compressed_size misses the dictionary page header. */
static bool pk_writer_pads_dictionary(const char *created_by) {
    if (!created_by || strncmp(created_by, "parquet-mr", 10) != 0) return false;
    const char *v = strstr(created_by, "version ");
    if (!v) return true;
    int major = 0, minor = 0, patch = 0;
    if (sscanf(v + 8, "%d.%d.%d", &major, &minor, &patch) < 2) return true;
    if (major != 1) return major < 1;
    if (minor != 2) return minor < 2;
    return patch < 9;
}

struct plank_column_reader {
    plank_reader *r;
    const plank_allocator *a; /* &alloc */
    plank_allocator alloc;    /* the reader's, or a stream's pool (pk_column_reader_open_alloc) */
    int32_t rg, col;
    const plank_schema_node *node;
    const plank_column_chunk_info *cc;
    plank_physical_type type;
    int32_t width;            /* dense bytes per value (BOOLEAN: 1) */
    int16_t max_def, max_rep;

    /* chunk bytes: in place for memory sources (chunk), else in chunk_owned
     * (chunk_at gives the address of a chunk offset) */
    const uint8_t *chunk;
    pk_shared *chunk_owned;   /* memory sources: the mapping, if any */
    uint64_t chunk_start, chunk_len;
    /* Bytes are fetched as reads need them (chunk_need) into a window:
     * chunk_owned holds chunk bytes [win_off, win_off + win_len) */
    bool have_all;            /* the window holds the whole chunk */
    uint64_t win_off, win_len;
    uint64_t page_span;       /* the largest page (header and body) met in the chunk */
    /* earlier windows that exported arrays may still point into: reused
     * once nothing else holds them */
    pk_shared *spare[PK_SPARE_WINDOWS];
    uint64_t pos;             /* next page header, relative to chunk */
    uint64_t data_pos;        /* first page after the dictionary page (rewinds) */
    int64_t page_ordinal;     /* ordinal of the current page, -1 before the first */
    uint64_t page_offset;     /* current page header offset, relative to chunk */
    int64_t levels_done;      /* level entries consumed over the chunk */
    int64_t rows_started;     /* record starts (rep 0) consumed over the chunk */

    pk_dict dict;
    bool has_dict;

    /* current data page: its levels are decoded once, when the page starts */
    bool in_page;
    bool page_full;           /* the page's definition levels are all the maximum */
    int64_t page_left;        /* level entries left in the page */
    int64_t lv_pos;           /* level entries consumed in the page */
    pk_buffer pdef, prep;     /* the page's levels (int16), when the max level > 0 */
    pk_rle_decoder rle_tmp;
    pk_decoder dec;
    bool dec_active;
    pk_decoder_arrays darr;   /* the DELTA byte-array length arrays, kept over pages */
    pk_buffer page_buf;       /* decompressed page */
    pk_decompressor dctx;     /* codec state reused over the pages and row groups */

    /* row selection (plank_column_reader_select): sorted, disjoint ranges */
    plank_row_range *sel;
    int64_t nsel, sel_cap, sel_i;
    int64_t sel_rows;         /* rows the selection keeps */
    bool sel_reading;         /* inside range sel_i (else before it) */
    bool sel_done;            /* every range read: the chunk is over */

    /* sparse selections: a window of the page decoded here, then gathered */
    pk_buffer g_validity, g_def, g_values, g_offsets, g_data;

    /* batch output of the plank_batch API */
    pk_buffer validity, values, offsets, data, def, rep;
    pk_buffer scratch, ends;
    pk_buffer keepbits;       /* a read's keep bits moved to bit 0 (pk_read_dest.keep) */
    pk_buffer stage;          /* values before pk_read_dest.convert (a block, or a read) */
    bool dict_mode;           /* see pk_column_reader_set_dict_mode */
    bool view_mode;           /* see pk_column_reader_set_view_mode */
    bool log_runs;            /* see pk_column_reader_set_run_log */
    bool bounded;             /* see pk_column_reader_set_bound */
    pk_delta_bound bound;
    const uint8_t *live;      /* see pk_column_reader_set_live (next read only) */
    int64_t live_base;
    const uint8_t *keep;      /* see pk_column_reader_set_keep (next read only) */
    int64_t keep_base;
    int64_t last_slots;       /* slots the last kept read went over */
    pk_buffer runs;           /* the batch's logged runs of codes (int64 pairs) */
    const uint8_t *view;      /* the batch's values in the chunk (view mode), else NULL */
    int64_t fb_n;             /* fallback values in the batch (dictionary mode) */

    pk_column_counters counters;
};

/* ---- Errors with location --------------------------------------------------- */

static plank_status locate(plank_column_reader *cr, plank_status st, plank_error *err) {
    if (st == PLANK_OK || !err) return st;
    pk_error_prefix(err, "row group %d, column %d (%s), page %lld", (int)cr->rg, (int)cr->col,
                    cr->node->path, (long long)(cr->page_ordinal < 0 ? 0 : cr->page_ordinal));
    pk_error_locate(err, (int64_t)(cr->chunk_start + cr->page_offset), cr->rg, cr->col,
                    cr->page_ordinal < 0 ? 0 : cr->page_ordinal);
    return st;
}

/* ---- Open / close --------------------------------------------------------------- */

/* Checks chunk (g, c) and finds its byte range. */
static plank_status chunk_range(plank_reader *r, int32_t g, int32_t c, int64_t *start_out,
                                int64_t *len_out, plank_error *err) {
    const plank_column_chunk_info *cc = &r->md.row_groups[g].columns[c];
    const plank_schema_node *n = &r->nodes[r->leaf_nodes[c]];
    if (cc->encrypted || r->md.has_encryption_algorithm)
        return pk_error_set(err, PLANK_ERR_ENCRYPTED,
                            "row group %d, column %d (%s) is encrypted; encryption is not "
                            "supported yet", (int)g, (int)c, n->path);
    if (cc->file_path)
        return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                            "row group %d, column %d (%s) is stored in another file (%s)",
                            (int)g, (int)c, n->path, cc->file_path);
    if ((int32_t)cc->physical_type != (int32_t)n->physical_type)
        return pk_error_set(err, PLANK_ERR_CORRUPT,
                            "row group %d, column %d (%s): chunk type %s does not match schema "
                            "type %s", (int)g, (int)c, n->path,
                            plank_physical_type_name(cc->physical_type),
                            plank_physical_type_name(n->physical_type));
    /* The chunk starts at the dictionary page when there is one. Some writers
     * store dictionary_page_offset 0 (meaning none) or put it after the data:
     * only trust it when it lies before the first data page. */
    int64_t start = cc->data_page_offset;
    if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < start)
        start = cc->dictionary_page_offset;
    int64_t len = cc->total_compressed_size;
    if (cc->num_values == 0) {
        /* An empty chunk is never read: writers put anything in its offsets
         * (column_chunk_key_value_metadata.parquet has data_page_offset 0). */
        start = 4;
        len = 0;
    }
    uint64_t data_end = r->file_size - 8 - r->footer_len;
    if (len >= 0 && pk_writer_pads_dictionary(r->md.created_by) && start >= 4 &&
        (uint64_t)start <= data_end && (uint64_t)len <= data_end - (uint64_t)start) {
        /* Old parquet-mr left the dictionary page header out of
         * total_compressed_size (nation.dict-malformed.parquet): allow up to
         * 100 more bytes, as Arrow does, but never into the footer. */
        uint64_t room = data_end - (uint64_t)start - (uint64_t)len;
        len += room < 100 ? (int64_t)room : 100;
    }
    if (start < 4 || len < 0 || cc->num_values < 0 || (uint64_t)start > r->file_size ||
        (uint64_t)len > r->file_size - (uint64_t)start)
        return pk_error_set(err, PLANK_ERR_CORRUPT,
                            "row group %d, column %d (%s): chunk range [%lld, +%lld) is outside "
                            "the file (%llu bytes)", (int)g, (int)c, n->path, (long long)start,
                            (long long)cc->total_compressed_size,
                            (unsigned long long)r->file_size);
    if (!r->mem && (uint64_t)len > r->max_chunk_buffer)
        return pk_error_set(err, PLANK_ERR_LIMIT,
                            "row group %d, column %d (%s): chunk of %llu bytes is above the "
                            "limit of %llu bytes buffered per column chunk", (int)g, (int)c,
                            n->path, (unsigned long long)len,
                            (unsigned long long)r->max_chunk_buffer);
    *start_out = start;
    *len_out = len;
    return PLANK_OK;
}

static void end_page(plank_column_reader *cr) {
    if (cr->dec_active) pk_decoder_release(&cr->dec);
    cr->dec_active = false;
    cr->in_page = false;
}

static void reset_position(plank_column_reader *cr) {
    end_page(cr);
    cr->pos = 0;
    cr->page_ordinal = -1;
    cr->page_offset = 0;
    cr->levels_done = 0;
    cr->rows_started = 0;
}

/* Back to the first data page (the dictionary, once loaded, is kept). */
static void rewind_chunk(plank_column_reader *cr) {
    reset_position(cr);
    cr->pos = cr->data_pos;
    cr->page_ordinal = cr->data_pos ? 0 : -1;
}

/* Points the reader at chunk (g, c), fetching its bytes; the chunk buffer
 * is reused when nothing else holds it (no array points into it). */
static plank_status attach(plank_column_reader *cr, int32_t g, plank_error *err) {
    plank_reader *r = cr->r;
    int32_t c = cr->col;
    int64_t start = 0, len = 0;
    PK_FORWARD(chunk_range(r, g, c, &start, &len, err));
    if (cr->has_dict) pk_dict_release(&cr->dict);
    cr->has_dict = false;
    reset_position(cr);
    cr->data_pos = 0;
    cr->rg = g;
    cr->cc = &r->md.row_groups[g].columns[c];
    cr->chunk_start = (uint64_t)start;
    cr->chunk_len = (uint64_t)len;
    cr->sel_i = 0;
    cr->sel_reading = false;
    cr->sel_done = false;
    cr->nsel = 0;
    if (r->mem) {
        cr->chunk = r->mem + start;
        if (r->map && !cr->chunk_owned) {
            /* a mapping: the arrays that point into it hold it */
            cr->chunk_owned = r->map;
            pk_shared_retain(r->map);
        }
        return PLANK_OK;
    }
    /* The buffer is chosen at the first fetch (chunk_need): its size
     * depends on how the chunk is read. */
    cr->chunk = NULL;
    cr->have_all = false;
    cr->win_off = cr->win_len = 0;
    return PLANK_OK;
}

/* The address of chunk byte `off` (present: chunk_need was called for it). */
static const uint8_t *chunk_at(const plank_column_reader *cr, uint64_t off) {
    if (cr->r->mem) return cr->chunk + off;
    return pk_shared_data(cr->chunk_owned) + (off - cr->win_off);
}

/* Whether p points into the chunk's bytes (not into a decompressed page):
 * values there can be exported as views. */
static bool in_chunk_bytes(const plank_column_reader *cr, const uint8_t *p) {
    if (cr->r->mem) return (uintptr_t)p - (uintptr_t)cr->chunk < cr->chunk_len;
    if (!cr->chunk_owned) return false;
    const uint8_t *b = pk_shared_data(cr->chunk_owned);
    return (uintptr_t)p - (uintptr_t)b < pk_shared_capacity(cr->chunk_owned);
}

/* Makes chunk_owned a buffer of at least n bytes that nothing else holds,
 * preserving its first `keep` bytes taken from `from` (which may lie in
 * the current buffer). A buffer that exported arrays still hold is put
 * aside as a spare and reused once they let it go. */
static plank_status own_buffer(plank_column_reader *cr, size_t n, const uint8_t *from,
                               size_t keep, plank_error *err) {
    pk_shared *cur = cr->chunk_owned;
    if (cur && pk_shared_unique(cur) && pk_shared_capacity(cur) >= n) {
        if (keep && from != pk_shared_data(cur)) memmove(pk_shared_data(cur), from, keep);
        return PLANK_OK;
    }
    pk_shared *b = NULL;
    for (int i = 0; i < PK_SPARE_WINDOWS && !b; i++) {
        pk_shared *sp = cr->spare[i];
        if (sp && pk_shared_unique(sp) && pk_shared_capacity(sp) >= n) {
            b = sp;
            cr->spare[i] = NULL;
        }
    }
    if (!b) {
        b = pk_shared_new(cr->a, n);
        if (!b)
            return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY,
                                "out of memory buffering %llu bytes of a column chunk",
                                (unsigned long long)n);
    }
    if (keep) memcpy(pk_shared_data(b), from, keep);
    cr->chunk_owned = b;
    if (!cur) return PLANK_OK;
    /* Keep the old buffer if arrays hold it (it will come back), in a free
     * slot, else in place of a spare that is too small or still held. */
    int slot = -1;
    for (int i = 0; i < PK_SPARE_WINDOWS && slot < 0; i++)
        if (!cr->spare[i]) slot = i;
    if (slot < 0) slot = 0;
    pk_shared_release(cr->spare[slot]);
    cr->spare[slot] = cur;
    return PLANK_OK;
}

bool pk_reader_chunk_range(const plank_reader *r, int32_t g, int32_t c, uint64_t *start,
                           uint64_t *len) {
    int64_t s = 0, n = 0;
    if (!r || g < 0 || g >= r->md.num_row_groups || c < 0 || c >= r->num_columns) return false;
    if (chunk_range((plank_reader *)r, g, c, &s, &n, NULL) != PLANK_OK) return false;
    *start = (uint64_t)s;
    *len = (uint64_t)n;
    return true;
}

/* Whether the chunk is read whole: without a selection, or with one that
 * keeps half the rows or more, or when it is small; else block by block. */
static bool reads_whole(const plank_column_reader *cr) {
    int64_t rows = cr->r->md.row_groups[cr->rg].info.num_rows;
    return !cr->nsel || cr->sel_rows * 2 >= rows || cr->chunk_len <= 4 * PK_FETCH_BLOCK;
}

/* Chunk bytes [off, off + len), widened to the fetch blocks chunk_need
 * reads (so that an announced range serves those reads whole). */
static void add_blocks(const plank_column_reader *cr, uint64_t off, uint64_t len,
                       pk_range_list *l) {
    if (off >= cr->chunk_len || len == 0) return;
    uint64_t end = len > cr->chunk_len - off ? cr->chunk_len : off + len;
    uint64_t b = off / PK_FETCH_BLOCK * PK_FETCH_BLOCK;
    uint64_t e = (end + PK_FETCH_BLOCK - 1) / PK_FETCH_BLOCK * PK_FETCH_BLOCK;
    if (e > cr->chunk_len) e = cr->chunk_len;
    pk_range_list_add(l, cr->chunk_start + b, e - b);
}

void pk_column_reader_fetch_ranges(const plank_column_reader *cr, pk_range_list *l) {
    if (cr->r->mem || !cr->r->hints || cr->have_all || cr->chunk_len == 0) return;
    if (reads_whole(cr)) {
        pk_range_list_add(l, cr->chunk_start, cr->chunk_len);
        return;
    }
    /* A sparse selection reads every page header and the selected pages:
     * with the offset index, exactly those blocks; without one (or with one
     * that does not fit the chunk), the whole chunk, since a request per
     * header would cost a round trip each. */
    plank_offset_index *oi = NULL;
    bool ok = plank_reader_offset_index(cr->r, cr->rg, cr->col, &oi, NULL) == PLANK_OK && oi &&
              oi->num_pages > 0;
    for (int32_t i = 0; ok && i < oi->num_pages; i++) {
        const plank_page_location *p = &oi->pages[i];
        ok = p->offset >= (int64_t)cr->chunk_start && p->compressed_page_size > 0 &&
             (uint64_t)p->offset - cr->chunk_start < cr->chunk_len;
    }
    if (!ok) {
        plank_offset_index_free(oi);
        pk_range_list_add(l, cr->chunk_start, cr->chunk_len);
        return;
    }
    uint64_t first = (uint64_t)oi->pages[0].offset - cr->chunk_start;
    add_blocks(cr, 0, first, l); /* the dictionary page, if any */
    int64_t rows = cr->r->md.row_groups[cr->rg].info.num_rows;
    int64_t s = 0;
    for (int32_t i = 0; i < oi->num_pages; i++) {
        const plank_page_location *p = &oi->pages[i];
        uint64_t rel = (uint64_t)p->offset - cr->chunk_start;
        add_blocks(cr, rel, PK_HEADER_PROBE, l);
        int64_t lo = p->first_row_index;
        int64_t hi = i + 1 < oi->num_pages ? oi->pages[i + 1].first_row_index : rows;
        while (s < cr->nsel && cr->sel[s].first + cr->sel[s].count <= lo) s++;
        if (s < cr->nsel && cr->sel[s].first < hi) add_blocks(cr, rel, (uint64_t)p->compressed_page_size, l);
    }
    plank_offset_index_free(oi);
}

/* Makes the window start at `off` and hold at least [off, end) and, when
 * the chunk goes on, at least `w` bytes, reading what it does not hold
 * yet. */
static plank_status window_need(plank_column_reader *cr, uint64_t off, uint64_t end, uint64_t w,
                                plank_error *err) {
    if (cr->win_len && off >= cr->win_off && end <= cr->win_off + cr->win_len) return PLANK_OK;
    uint64_t n = end - off;
    if (n < w) n = cr->chunk_len - off < w ? cr->chunk_len - off : w;
    /* the bytes from off that the window holds already move to its front */
    uint64_t keep = 0;
    const uint8_t *from = NULL;
    if (cr->win_len && off >= cr->win_off && off < cr->win_off + cr->win_len) {
        keep = cr->win_off + cr->win_len - off;
        from = pk_shared_data(cr->chunk_owned) + (off - cr->win_off);
    }
    size_t cap = n > w ? (size_t)n : (size_t)w;
    PK_FORWARD(own_buffer(cr, cap, from, (size_t)keep, err));
    cr->win_off = off;
    cr->win_len = keep;
    PK_FORWARD(pk_reader_read_at(cr->r, cr->chunk_start + off + keep,
                                 pk_shared_data(cr->chunk_owned) + keep, (size_t)(n - keep),
                                 err));
    cr->counters.bytes_fetched += n - keep;
    cr->win_len = n;
    cr->have_all = off == 0 && n == cr->chunk_len;
    return PLANK_OK;
}

/* Makes bytes [off, off + len) of the chunk present (chunk_at(cr, off) is
 * then valid until the next call), through a window that starts at the
 * bytes asked for:
 * - read front to back (no selection, or one that keeps half the rows or
 *   more), a chunk of up to twice read_window bytes at once, a larger one
 *   read_window bytes (a page at least) at a time. Reading a large chunk
 *   whole first put every byte through memory twice (the read wrote it out
 *   of the cache before the checksum and the decoder read it back), and a
 *   stream of sixteen columns held sixteen whole chunks (tens of MiB,
 *   page-faulted afresh by every reader): the window keeps the bytes in
 *   the core's cache and the buffers small;
 * - with a sparse selection, exactly the page headers (a 4 KiB probe) and
 *   the pages it needs. */
static plank_status chunk_need(plank_column_reader *cr, uint64_t off, uint64_t len,
                               plank_error *err) {
    if (cr->r->mem) {
        if (off < cr->chunk_len)
            pk_reader_map_populate(cr->r, cr->chunk + off,
                                   (size_t)(len < cr->chunk_len - off ? len : cr->chunk_len - off));
        return PLANK_OK;
    }
    if (cr->have_all) return PLANK_OK;
    if (off >= cr->chunk_len) return PLANK_OK;
    if (len > cr->chunk_len - off) len = cr->chunk_len - off;
    if (!reads_whole(cr)) return window_need(cr, off, off + len, PK_FETCH_BLOCK, err);
    uint64_t w = cr->r->read_window;
    /* A page that runs past the window's end is moved to the front of the
     * next one, about half a page per refill: with plank's PLAIN int64
     * pages (158 KiB) in 256 KiB windows a third of the bytes went through
     * memory twice, and a page larger than the window took two reads. A
     * window of at least two of the chunk's largest pages moves a quarter
     * of itself at most; four were no faster on TPC-H Q6 and slowed the
     * sixteen-column read of lineitem (their windows left the cache), and
     * PK_WINDOW_MAX bounds what one stream's columns hold (bench/README.md,
     * "Read windows of whole pages"). */
    uint64_t span = cr->page_span > PK_WINDOW_MAX / PK_WINDOW_PAGES ? PK_WINDOW_MAX
                                                                    : cr->page_span * PK_WINDOW_PAGES;
    if (w < span) w = span;
    if (cr->chunk_len <= 2 * w) return window_need(cr, 0, cr->chunk_len, w, err);
    return window_need(cr, off, off + len, w, err);
}

plank_status plank_column_reader_open(plank_column_reader **out, plank_reader *r, int32_t g,
                                      int32_t c, plank_error *err) {
    return pk_column_reader_open_alloc(out, r, g, c, r ? &r->pool_alloc : NULL, err);
}

plank_status pk_column_reader_open_alloc(plank_column_reader **out, plank_reader *r, int32_t g,
                                         int32_t c, const plank_allocator *a, plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!r || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL argument");
    *out = NULL;
    if (g < 0 || g >= r->md.num_row_groups || c < 0 || c >= r->num_columns)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column chunk (row group %d, column %d) does not exist", (int)g,
                            (int)c);
    if (!r->selected[c])
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column %d is not selected in the reader options", (int)c);
    const plank_schema_node *n = &r->nodes[r->leaf_nodes[c]];
    pk_error_locate(err, -1, g, c, -1);
    plank_column_reader *cr = pk_calloc(a, sizeof *cr);
    if (!cr) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    cr->r = r;
    cr->alloc = *a;
    cr->a = &cr->alloc;
    cr->col = c;
    cr->node = n;
    cr->type = n->physical_type;
    cr->width = pk_physical_width(n->physical_type, n->type_length);
    cr->max_def = n->max_definition_level;
    cr->max_rep = n->max_repetition_level;
    pk_buffer *bufs[] = {&cr->page_buf, &cr->validity, &cr->values, &cr->offsets, &cr->data,
                         &cr->def, &cr->rep, &cr->scratch, &cr->ends, &cr->pdef, &cr->prep,
                         &cr->g_validity, &cr->g_def, &cr->g_values, &cr->g_offsets,
                         &cr->g_data, &cr->runs, &cr->darr.lengths, &cr->darr.prefixes,
                         &cr->darr.suffix_offsets, &cr->keepbits, &cr->stage};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pk_buffer_init(bufs[i], cr->a);
    pk_decompressor_init(&cr->dctx, cr->a);
    plank_status st = attach(cr, g, err);
    if (st != PLANK_OK) {
        plank_column_reader_close(cr);
        return st;
    }
    *out = cr;
    return PLANK_OK;
}

plank_status pk_column_reader_reopen(plank_column_reader *cr, int32_t g, plank_error *err) {
    if (g < 0 || g >= cr->r->md.num_row_groups)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "row group %d does not exist",
                            (int)g);
    pk_error_locate(err, -1, g, cr->col, -1);
    return attach(cr, g, err);
}

void plank_column_reader_close(plank_column_reader *cr) {
    if (!cr) return;
    end_page(cr);
    if (cr->has_dict) pk_dict_release(&cr->dict);
    pk_buffer *bufs[] = {&cr->page_buf, &cr->validity, &cr->values, &cr->offsets, &cr->data,
                         &cr->def, &cr->rep, &cr->scratch, &cr->ends, &cr->pdef, &cr->prep,
                         &cr->g_validity, &cr->g_def, &cr->g_values, &cr->g_offsets,
                         &cr->g_data, &cr->runs, &cr->darr.lengths, &cr->darr.prefixes,
                         &cr->darr.suffix_offsets, &cr->keepbits, &cr->stage};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pk_buffer_reset(bufs[i]);
    pk_decompressor_release(&cr->dctx);
    if (cr->sel) pk_free(cr->a, cr->sel, (size_t)cr->sel_cap * sizeof *cr->sel);
    pk_shared_release(cr->chunk_owned); /* exported arrays may keep it alive */
    for (int i = 0; i < PK_SPARE_WINDOWS; i++) pk_shared_release(cr->spare[i]);
    pk_free(cr->a, cr, sizeof *cr);
}

/* ---- Pages ---------------------------------------------------------------------------- */

/* Decompresses `len` stored bytes at p into page_buf as `out_len` bytes, or
 * references them in place when the page is not compressed. */
static plank_status page_body(plank_column_reader *cr, bool compressed, const uint8_t *p,
                              size_t len, size_t out_len, const uint8_t **out, plank_error *err) {
    cr->counters.pages_decoded++;
    if (!compressed || cr->cc->codec == PLANK_CODEC_UNCOMPRESSED) {
        PK_RETURN_IF(len != out_len, err, PLANK_ERR_CORRUPT,
                     "uncompressed page stores %zu bytes but declares %zu", len, out_len);
        *out = p;
        return PLANK_OK;
    }
    /* An unbuilt codec is reported before any size limit: it is the more
     * useful of the two messages. */
    PK_RETURN_IF(!plank_codec_available(cr->cc->codec), err, PLANK_ERR_UNSUPPORTED,
                 "page compressed with %s but this build of plank has no %s support",
                 plank_codec_name(cr->cc->codec), plank_codec_name(cr->cc->codec));
    PK_RETURN_IF(out_len > cr->r->max_page_size, err, PLANK_ERR_LIMIT,
                 "page declares %zu uncompressed bytes, above the limit of %llu", out_len,
                 (unsigned long long)cr->r->max_page_size);
    cr->counters.pages_decompressed++;
    PK_FORWARD(pk_decompress_buffer_with(&cr->dctx, cr->cc->codec, p, len, out_len,
                                         &cr->page_buf, err));
    *out = cr->page_buf.data;
    return PLANK_OK;
}

static plank_status check_levels(const pk_kernels *kn, const int16_t *lv, int64_t k,
                                 int16_t max, const char *what, plank_error *err) {
    if (PK_LIKELY(kn->levels_in_range(lv, (size_t)k, max))) return PLANK_OK;
    for (int64_t i = 0; i < k; i++)
        PK_RETURN_IF(lv[i] < 0 || lv[i] > max, err, PLANK_ERR_CORRUPT,
                     "%s level %d above the maximum %d", what, (int)lv[i], (int)max);
    return PLANK_OK;
}

/* Decodes the n levels of one kind for the whole page into out: an RLE
 * hybrid run of rle_len bytes, or (legacy BIT_PACKED) bp_len bytes. */
static plank_status page_level_kind(plank_column_reader *cr, bool rle, const uint8_t *p,
                                    size_t len, int16_t max, int64_t n, pk_buffer *out,
                                    const char *what, plank_error *err) {
    /* Levels of zero-width or long RLE runs take a few bytes for any count:
     * the array is bounded by max_page_size, like a decompressed page. */
    PK_RETURN_IF((uint64_t)n > cr->r->max_page_size / 2, err, PLANK_ERR_LIMIT,
                 "page of %lld values would decode %llu bytes of %s levels, above the "
                 "max_page_size limit of %llu", (long long)n, (unsigned long long)n * 2, what,
                 (unsigned long long)cr->r->max_page_size);
    PK_FORWARD(pk_buffer_resize(out, (size_t)n * sizeof(int16_t), err));
    int16_t *lv = (int16_t *)(void *)out->data;
    int bw = pk_bit_width_for((uint64_t)max);
    if (rle) {
        PK_FORWARD(pk_rle_init(&cr->rle_tmp, p, len, bw, err));
        cr->rle_tmp.kernels = cr->r->kernels;
        PK_FORWARD(pk_rle_get_i16(&cr->rle_tmp, lv, n, err));
    } else {
        PK_FORWARD(pk_bitpacked_legacy_get_i16(p, len, bw, lv, n, err));
    }
    return check_levels(cr->r->kernels, lv, n, max, what, err);
}

/* Level section of a v1 page: RLE with a 4-byte length prefix, or the legacy
 * BIT_PACKED encoding of exactly num_values levels; decoded whole. */
static plank_status v1_levels(plank_column_reader *cr, int32_t encoding, int16_t max_level,
                              int64_t num_values, const uint8_t **p, const uint8_t *end,
                              pk_buffer *out, const char *what, plank_error *err) {
    int bw = pk_bit_width_for((uint64_t)max_level);
    if (encoding == PLANK_ENC_RLE) {
        PK_RETURN_IF(end - *p < 4, err, PLANK_ERR_CORRUPT,
                     "%s levels: page too short for the 4-byte length", what);
        uint32_t n = pk_load_u32(*p);
        *p += 4;
        PK_RETURN_IF(n > (uint64_t)(end - *p), err, PLANK_ERR_CORRUPT,
                     "%s levels: length %u exceeds the %lld bytes left in the page", what, n,
                     (long long)(end - *p));
        PK_FORWARD(page_level_kind(cr, true, *p, n, max_level, num_values, out, what, err));
        *p += n;
        return PLANK_OK;
    }
    if (encoding == PLANK_ENC_BIT_PACKED) {
        uint64_t bytes = ((uint64_t)num_values * (uint64_t)bw + 7) / 8;
        PK_RETURN_IF(bytes > (uint64_t)(end - *p), err, PLANK_ERR_CORRUPT,
                     "%s levels: BIT_PACKED needs %llu bytes, %lld left in the page", what,
                     (unsigned long long)bytes, (long long)(end - *p));
        PK_FORWARD(page_level_kind(cr, false, *p, (size_t)bytes, max_level, num_values, out,
                                   what, err));
        *p += bytes;
        return PLANK_OK;
    }
    return pk_error_set(err, PLANK_ERR_CORRUPT, "%s levels: unsupported encoding %d", what,
                        (int)encoding);
}

/* Sets up the value decoder of a data page whose value section is
 * vals[0..vlen) holding `non_null` values. */
static plank_status start_values(plank_column_reader *cr, int32_t encoding, const uint8_t *vals,
                                 size_t vlen, int64_t non_null, plank_error *err) {
    const pk_dict *dict = cr->has_dict ? &cr->dict : NULL;
    /* DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY decode their lengths (and
     * prefix lengths) for the whole page up front, 8 bytes per value; since
     * zero-width miniblocks encode any number of values in a few bytes,
     * that array is bounded here by max_page_size, like a page. */
    if (encoding == PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY || encoding == PLANK_ENC_DELTA_BYTE_ARRAY) {
        uint64_t per = encoding == PLANK_ENC_DELTA_BYTE_ARRAY ? 16 : 8;
        PK_RETURN_IF((uint64_t)non_null > cr->r->max_page_size / per, err, PLANK_ERR_LIMIT,
                     "%s page of %lld values would decode %llu bytes of lengths, above the "
                     "max_page_size limit of %llu",
                     plank_encoding_name((plank_encoding)encoding), (long long)non_null,
                     (unsigned long long)((uint64_t)non_null * per),
                     (unsigned long long)cr->r->max_page_size);
    }
    PK_FORWARD(pk_decoder_init_keep(&cr->dec, (plank_encoding)encoding, cr->type,
                                    cr->node->type_length, vals, vlen, non_null, dict,
                                    cr->r->kernels, cr->a, &cr->darr, err));
    cr->dec_active = true;
    return PLANK_OK;
}

static plank_status load_dictionary(plank_column_reader *cr, const pk_page_header *h,
                                    const uint8_t *stored, plank_error *err) {
    PK_RETURN_IF(cr->page_ordinal > 0 || cr->levels_done > 0, err, PLANK_ERR_CORRUPT,
                 "dictionary page after data pages");
    PK_RETURN_IF(!h->has_dictionary_header, err, PLANK_ERR_CORRUPT,
                 "dictionary page without a dictionary_page_header");
    PK_RETURN_IF(h->dict_num_values < 0, err, PLANK_ERR_CORRUPT,
                 "dictionary page with %d values", (int)h->dict_num_values);
    PK_RETURN_IF(h->dict_encoding != PLANK_ENC_PLAIN &&
                     h->dict_encoding != PLANK_ENC_PLAIN_DICTIONARY,
                 err, PLANK_ERR_UNSUPPORTED, "dictionary page encoding %s is not PLAIN",
                 plank_encoding_name((plank_encoding)h->dict_encoding));
    uint64_t decoded = (uint64_t)h->uncompressed_page_size;
    if (cr->type == PLANK_BYTE_ARRAY) decoded += ((uint64_t)h->dict_num_values + 1) * 8;
    /* As in page_body, an unbuilt codec is the more useful message. */
    PK_RETURN_IF(decoded > cr->r->max_dictionary_size && plank_codec_available(cr->cc->codec),
                 err, PLANK_ERR_LIMIT,
                 "dictionary page of %d values and %d bytes (%llu decoded) is above the limit "
                 "of %llu bytes", (int)h->dict_num_values, (int)h->uncompressed_page_size,
                 (unsigned long long)decoded, (unsigned long long)cr->r->max_dictionary_size);
    const uint8_t *body;
    PK_FORWARD(page_body(cr, true, stored, (size_t)h->compressed_page_size,
                         (size_t)h->uncompressed_page_size, &body, err));
    PK_FORWARD(pk_dict_decode(&cr->dict, cr->type, cr->node->type_length, body,
                              (size_t)h->uncompressed_page_size, h->dict_num_values, cr->a, err));
    cr->has_dict = true;
    cr->counters.dictionaries++;
    return PLANK_OK;
}

/* Records that start in a data page, when the header says so without the
 * page being decompressed (flat columns: one per value; v2 pages: num_rows,
 * since v2 pages start at record boundaries); -1 when unknown. */
static int64_t header_records(const plank_column_reader *cr, const pk_page_header *h) {
    if (cr->max_rep == 0) return h->num_values;
    if (h->type == PLANK_PAGE_DATA_V2 && h->has_data_header_v2 && h->num_rows >= 0)
        return h->num_rows;
    return -1;
}

static plank_status start_data_page(plank_column_reader *cr, const pk_page_header *h,
                                    const uint8_t *stored, plank_error *err) {
    bool v2 = h->type == PLANK_PAGE_DATA_V2;
    int64_t n = h->num_values;
    const uint8_t *vals;
    size_t vlen;
    if (!v2) {
        const uint8_t *body;
        PK_FORWARD(page_body(cr, true, stored, (size_t)h->compressed_page_size,
                             (size_t)h->uncompressed_page_size, &body, err));
        const uint8_t *p = body, *end = body + h->uncompressed_page_size;
        if (cr->max_rep > 0)
            PK_FORWARD(v1_levels(cr, h->repetition_level_encoding, cr->max_rep, n, &p, end,
                                 &cr->prep, "repetition", err));
        if (cr->max_def > 0)
            PK_FORWARD(v1_levels(cr, h->definition_level_encoding, cr->max_def, n, &p, end,
                                 &cr->pdef, "definition", err));
        vals = p;
        vlen = (size_t)(end - p);
    } else {
        int32_t rl = h->repetition_levels_byte_length, dl = h->definition_levels_byte_length;
        PK_RETURN_IF(rl < 0 || dl < 0 || (int64_t)rl + dl > h->compressed_page_size ||
                         (int64_t)rl + dl > h->uncompressed_page_size,
                     err, PLANK_ERR_CORRUPT,
                     "v2 page level lengths (%d + %d) exceed the page (%d stored, %d "
                     "uncompressed)", (int)rl, (int)dl, (int)h->compressed_page_size,
                     (int)h->uncompressed_page_size);
        PK_RETURN_IF(h->num_nulls < 0 || h->num_nulls > n, err, PLANK_ERR_CORRUPT,
                     "v2 page declares %d nulls of %lld values", (int)h->num_nulls,
                     (long long)n);
        if (cr->max_rep > 0)
            PK_FORWARD(page_level_kind(cr, true, stored, (size_t)rl, cr->max_rep, n, &cr->prep,
                                       "repetition", err));
        if (cr->max_def > 0)
            PK_FORWARD(page_level_kind(cr, true, stored + rl, (size_t)dl, cr->max_def, n,
                                       &cr->pdef, "definition", err));
        PK_FORWARD(page_body(cr, h->is_compressed, stored + rl + dl,
                             (size_t)(h->compressed_page_size - rl - dl),
                             (size_t)(h->uncompressed_page_size - rl - dl), &vals, err));
        vlen = (size_t)(h->uncompressed_page_size - rl - dl);
    }
    /* Levels are decoded once per page: the non-null count comes from them. */
    int64_t non_null = n;
    if (cr->max_def > 0)
        non_null = pk_count_eq16(cr->r->kernels, (const int16_t *)(void *)cr->pdef.data,
                                 (size_t)n, cr->max_def);
    PK_FORWARD(start_values(cr, h->encoding, vals, vlen, non_null, err));
    cr->page_full = non_null == n;
    cr->in_page = true;
    cr->page_left = n;
    cr->lv_pos = 0;
    return PLANK_OK;
}

/* Whether a data page of `records` whole records lies before the record the
 * selection (or a seek) skips to. */
static bool page_skippable(const plank_column_reader *cr, int64_t records, int64_t target) {
    return records >= 0 && target >= 0 && cr->rows_started + records <= target;
}

/* Advances to the next data page with at least one value. Pages made only
 * of records before `skip_to` (-1: none) are passed over by their header,
 * never decompressed. Returns PLANK_ERR_END (without message) at the end of
 * the chunk. */
static plank_status next_page(plank_column_reader *cr, int64_t skip_to, plank_error *err) {
    end_page(cr);
    for (;;) {
        if (cr->sel_done || cr->levels_done >= cr->cc->num_values) return PLANK_ERR_END;
        if (cr->pos >= cr->chunk_len) {
            cr->page_offset = cr->pos;
            return pk_error_set(err, PLANK_ERR_CORRUPT,
                                "column chunk ended after %lld of %lld values",
                                (long long)cr->levels_done, (long long)cr->cc->num_values);
        }
        cr->page_offset = cr->pos;
        cr->page_ordinal++;
        pk_page_header h;
        size_t hlen;
        /* The header's bytes: a probe first, the rest of the chunk when a
         * header is longer (or the probe ends inside it). */
        uint64_t avail = cr->chunk_len - cr->pos;
        PK_FORWARD(chunk_need(cr, cr->pos, avail < PK_HEADER_PROBE ? avail : PK_HEADER_PROBE, err));
        uint64_t probe = cr->have_all || cr->r->mem || avail < PK_HEADER_PROBE ? avail
                                                                                : PK_HEADER_PROBE;
        if (!cr->r->mem && cr->win_off + cr->win_len - cr->pos > probe)
            probe = cr->win_off + cr->win_len - cr->pos; /* all the window holds */
        plank_status st = pk_thrift_read_page_header(chunk_at(cr, cr->pos), (size_t)probe, &h,
                                                     &hlen, err);
        if (st != PLANK_OK && probe < avail) {
            plank_error_init(err);
            PK_FORWARD(chunk_need(cr, cr->pos, avail, err));
            st = pk_thrift_read_page_header(chunk_at(cr, cr->pos), (size_t)avail, &h, &hlen, err);
        }
        if (st != PLANK_OK) {
            if (err && err->byte_offset >= 0)
                err->byte_offset += (int64_t)(cr->chunk_start + cr->pos);
            pk_error_prefix(err, "page header");
            return st;
        }
        PK_RETURN_IF(h.compressed_page_size < 0 || h.uncompressed_page_size < 0, err,
                     PLANK_ERR_CORRUPT, "negative page size");
        PK_RETURN_IF((uint64_t)h.compressed_page_size > cr->chunk_len - cr->pos - hlen, err,
                     PLANK_ERR_CORRUPT,
                     "page of %d bytes runs past the end of the column chunk (%llu bytes left)",
                     (int)h.compressed_page_size,
                     (unsigned long long)(cr->chunk_len - cr->pos - hlen));
        uint64_t body_off = cr->pos + hlen;
        cr->pos += hlen + (uint64_t)h.compressed_page_size;
        if (hlen + (uint64_t)h.compressed_page_size > cr->page_span)
            cr->page_span = hlen + (uint64_t)h.compressed_page_size;
        bool data = h.type == PLANK_PAGE_DATA || h.type == PLANK_PAGE_DATA_V2;
        if (data) {
            bool v2 = h.type == PLANK_PAGE_DATA_V2;
            PK_RETURN_IF(v2 ? !h.has_data_header_v2 : !h.has_data_header, err, PLANK_ERR_CORRUPT,
                         "data page without its data page header");
            PK_RETURN_IF(h.num_values < 0, err, PLANK_ERR_CORRUPT, "data page with %d values",
                         (int)h.num_values);
            PK_RETURN_IF(h.num_values > cr->cc->num_values - cr->levels_done, err,
                         PLANK_ERR_CORRUPT,
                         "page holds %lld values but the chunk has only %lld left of %lld",
                         (long long)h.num_values,
                         (long long)(cr->cc->num_values - cr->levels_done),
                         (long long)cr->cc->num_values);
            int64_t recs = header_records(cr, &h);
            if (h.num_values > 0 && page_skippable(cr, recs, skip_to)) {
                /* Nothing of it is wanted: not even its checksum is computed. */
                cr->levels_done += h.num_values;
                cr->rows_started += recs;
                cr->counters.pages_skipped++;
                continue;
            }
        }
        PK_FORWARD(chunk_need(cr, body_off, (uint64_t)h.compressed_page_size, err));
        const uint8_t *stored = chunk_at(cr, body_off);
        if (h.has_crc && cr->r->verify_checksums && h.type != PLANK_PAGE_INDEX) {
            uint32_t crc = pk_crc32(0, stored, (size_t)h.compressed_page_size);
            PK_RETURN_IF(crc != h.crc, err, PLANK_ERR_CHECKSUM,
                         "page CRC32 mismatch (stored 0x%08x, computed 0x%08x)", h.crc, crc);
        }
        switch (h.type) {
        case PLANK_PAGE_DICTIONARY:
            if (cr->has_dict && cr->data_pos == cr->pos) continue; /* rewound past it */
            PK_RETURN_IF(cr->has_dict, err, PLANK_ERR_CORRUPT,
                         "a second dictionary page in the chunk");
            PK_FORWARD(load_dictionary(cr, &h, stored, err));
            cr->data_pos = cr->pos;
            continue;
        case PLANK_PAGE_DATA:
        case PLANK_PAGE_DATA_V2:
            PK_FORWARD(start_data_page(cr, &h, stored, err));
            if (cr->page_left == 0) {
                end_page(cr);
                continue;
            }
            return PLANK_OK;
        default:
            continue; /* index pages and unknown page types are skipped */
        }
    }
}

/* ---- Slots ------------------------------------------------------------------------------ */

static const int16_t *page_def(const plank_column_reader *cr) {
    return cr->max_def > 0 ? (const int16_t *)(const void *)cr->pdef.data + cr->lv_pos : NULL;
}

static const int16_t *page_rep(const plank_column_reader *cr) {
    return cr->max_rep > 0 ? (const int16_t *)(const void *)cr->prep.data + cr->lv_pos : NULL;
}

/* Consumes k level entries of the page (values already taken or skipped). */
static void consume_levels(plank_column_reader *cr, int64_t k) {
    const int16_t *rep = page_rep(cr);
    cr->rows_started += rep ? pk_count_eq16(cr->r->kernels, rep, (size_t)k, 0) : k;
    cr->lv_pos += k;
    cr->page_left -= k;
    cr->levels_done += k;
    if (cr->page_left == 0) end_page(cr);
}

/* Drops k level entries of the current page and their values. */
static plank_status skip_slots(plank_column_reader *cr, int64_t k, plank_error *err) {
    const int16_t *def = page_def(cr);
    int64_t nn = def && !cr->page_full ? pk_count_eq16(cr->r->kernels, def, (size_t)k, cr->max_def)
                                       : k;
    PK_FORWARD(pk_decoder_skip(&cr->dec, nn, err));
    consume_levels(cr, k);
    return PLANK_OK;
}

/* Entries of the current page before the start of record `target` (all of
 * the page's rest when that record starts later). */
static int64_t slots_before(const plank_column_reader *cr, int64_t target) {
    int64_t m = target - cr->rows_started; /* record starts to pass */
    if (m < 0) m = 0;
    const int16_t *rep = page_rep(cr);
    if (!rep) return m < cr->page_left ? m : cr->page_left;
    const pk_kernels *kn = cr->r->kernels;
    int64_t p = 0, n = cr->page_left;
    /* Whole blocks through the counting kernel while they cannot hold the
     * start sought, then entry by entry. */
    for (int64_t b; (b = n - p < 1024 ? n - p : 1024) > 0; p += b) {
        int64_t in = pk_count_eq16(kn, rep + p, (size_t)b, 0);
        if (in > m) break;
        m -= in;
    }
    for (; p < n; p++) {
        if (rep[p] != 0) continue;
        if (m == 0) return p;
        m--;
    }
    return n;
}

/* Skips to the start of record `target` (or the end of the chunk). */
static plank_status skip_to_record(plank_column_reader *cr, int64_t target, plank_error *err) {
    for (;;) {
        if (!cr->in_page) {
            plank_status st = next_page(cr, target, err);
            if (st == PLANK_ERR_END) return PLANK_OK;
            PK_FORWARD(st);
        }
        int64_t left = cr->page_left, k = slots_before(cr, target);
        if (k) PK_FORWARD(skip_slots(cr, k, err));
        if (k < left) return PLANK_OK;
    }
}

/* ---- Reading into a destination ---------------------------------------------------------- */

static plank_status put_offsets(const pk_read_dest *d, int64_t at, int64_t k, const int16_t *def,
                                int16_t max_def, const int64_t *ends, plank_error *err) {
    if (d->offset_width == 8) {
        int64_t *offs = (int64_t *)(void *)d->offsets->data;
        int64_t cur = offs[at], j = 0;
        for (int64_t i = 0; i < k; i++) {
            if (!def || def[i] == max_def) cur = ends[j++];
            offs[at + i + 1] = cur;
        }
        return PLANK_OK;
    }
    int32_t *offs = (int32_t *)(void *)d->offsets->data;
    int64_t last = d->data->size;
    PK_RETURN_IF(last > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "%lld bytes of string data in one batch do not fit 32-bit offsets; lower "
                 "batch_rows", (long long)last);
    int32_t cur = offs[at];
    int64_t j = 0;
    if (!def) {
        for (int64_t i = 0; i < k; i++) offs[at + i + 1] = (int32_t)ends[i];
        return PLANK_OK;
    }
    for (int64_t i = 0; i < k; i++) {
        if (def[i] == max_def) cur = (int32_t)ends[j++];
        offs[at + i + 1] = cur;
    }
    return PLANK_OK;
}

/* Dictionary mode: room for n more fallback values (a page that is not
 * dictionary-encoded), whose codes follow the chunk dictionary's entries
 * and the batch's fallback values so far; byte arrays' ends go to
 * offsets[fb_n + 1 ..]. */
static plank_status fallback_room(const plank_column_reader *cr, pk_read_dest *d, int64_t n,
                                  plank_error *err) {
    int64_t base = cr->has_dict ? cr->dict.count : 0;
    PK_RETURN_IF(base + d->fb_n + n > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "%lld dictionary and %lld fallback values do not fit int32 indices",
                 (long long)base, (long long)(d->fb_n + n));
    size_t need = ((size_t)(d->fb_n + n) + 1) * sizeof(int64_t);
    if (cr->type == PLANK_BYTE_ARRAY && d->offsets->size < need)
        PK_FORWARD(pk_buffer_resize(d->offsets, need, err));
    return PLANK_OK;
}

/* Dictionary mode: k slots (nn non-null) of the current page as int32
 * indices; see pk_read.h. */
static plank_status read_dict_slots(plank_column_reader *cr, pk_read_dest *d, int64_t at,
                                    int64_t k, int64_t nn, const int16_t *def,
                                    plank_error *err) {
    int32_t *ix = (int32_t *)(void *)d->values->data + at;
    int64_t base = cr->has_dict ? cr->dict.count : 0;
    bool dict_page = cr->dec.encoding == PLANK_ENC_PLAIN_DICTIONARY ||
                     cr->dec.encoding == PLANK_ENC_RLE_DICTIONARY;
    uint32_t *tmp = (uint32_t *)(void *)ix; /* no nulls to spread: the slots themselves */
    if (def || !dict_page) {
        PK_FORWARD(pk_buffer_reserve(&cr->scratch, (size_t)nn * 4 + 4, err));
        tmp = (uint32_t *)(void *)cr->scratch.data;
    }
    if (dict_page) {
        PK_RETURN_IF(nn > cr->dec.num_values - cr->dec.pos, err, PLANK_ERR_CORRUPT,
                     "%lld values requested, the page has %lld left", (long long)nn,
                     (long long)(cr->dec.num_values - cr->dec.pos));
        if (d->runs && !def)
            PK_FORWARD(pk_rle_get_u32_runs(&cr->dec.rle, tmp, nn, at, PK_RUN_LOG_MIN, d->runs,
                                           err));
        else
            PK_FORWARD(pk_rle_get_u32(&cr->dec.rle, tmp, nn, err));
        /* The largest index against the dictionary size, by the writer's
         * unsigned min/max kernel (a plain max loop compiles to SSE2's
         * emulated unsigned compares: half of a scan on codes). */
        int32_t smn = 0, smx = 0;
        if (nn > 0)
            cr->r->kernels->minmax_i32((const int32_t *)tmp, (size_t)nn, 0x80000000u, &smn, &smx);
        if (nn > 0 && (uint64_t)(uint32_t)smx >= (uint64_t)base)
            for (int64_t j = 0; j < nn; j++)
                PK_RETURN_IF(tmp[j] >= (uint64_t)base, err, PLANK_ERR_CORRUPT,
                             "dictionary index %u out of range (dictionary has %lld values)",
                             (unsigned)tmp[j], (long long)base);
        cr->dec.pos += nn;
    } else {
        PK_FORWARD(fallback_room(cr, d, nn, err));
        if (cr->type == PLANK_BYTE_ARRAY) {
            int64_t *offs = (int64_t *)(void *)d->offsets->data;
            PK_FORWARD(pk_decoder_get_binary(&cr->dec, nn, d->data, offs + d->fb_n + 1, err));
        } else {
            /* Fixed width: the fallback values one after another in data. */
            size_t w = (size_t)cr->width, from = (size_t)d->fb_n * w;
            PK_FORWARD(pk_buffer_resize(d->data, from + (size_t)nn * w, err));
            PK_FORWARD(pk_decoder_get_fixed(&cr->dec, nn, d->data->data + from, err));
        }
        for (int64_t j = 0; j < nn; j++) tmp[j] = (uint32_t)(base + d->fb_n + j);
        d->fb_n += nn;
    }
    if (!def) {
        if (tmp != (uint32_t *)(void *)ix) memcpy(ix, tmp, (size_t)k * 4);
        return PLANK_OK;
    }
    for (int64_t i = 0, j = 0; i < k; i++)
        ix[i] = def[i] == cr->max_def ? (int32_t)tmp[j++] : d->null_index;
    return PLANK_OK;
}

/* The fixed-width values buffer sized for the read's slots, once per read. */
static plank_status values_ready(pk_read_dest *d, size_t w, plank_error *err) {
    if (d->values_ready) return PLANK_OK;
    uint64_t bytes;
    PK_RETURN_IF(pk_mul_overflow_u64((uint64_t)d->capacity, (uint64_t)w, &bytes), err,
                 PLANK_ERR_INVALID_ARGUMENT, "batch too large");
    PK_FORWARD(pk_buffer_resize(d->values, (size_t)bytes, err));
    d->values_ready = true;
    return PLANK_OK;
}

/* The keep bits of slots [at, at + k) of the read, from bit 0 of the result. */
static const uint8_t *keep_bits(plank_column_reader *cr, const pk_read_dest *d, int64_t at,
                                int64_t k, plank_error *err) {
    int64_t b = d->keep_base + at;
    if (!(b & 7)) return d->keep + b / 8;
    if (pk_buffer_reserve(&cr->keepbits, (size_t)k / 8 + 8, err) != PLANK_OK) return NULL;
    cr->r->kernels->copy_bits(d->keep, b, cr->keepbits.data, 0, (size_t)k);
    return cr->keepbits.data;
}

/* A kept read's buffer grown to hold `slots` entries of w bytes. A kept
 * read writes only the kept values (from slot d->kept on), plus this call's
 * k slots decoded in place before they are compacted, so its buffers follow
 * what it keeps, not the span it reads: a selective read over a row group
 * used to fault in a buffer for every slot it passed (8 MiB per row group
 * for Q6's l_extendedprice, read at 2% of its rows), which on these
 * machines cost more than the read. pk_buffer_reserve doubles, so the
 * growth copies O(kept) bytes. The size only grows. */
static plank_status kept_room(pk_buffer *b, int64_t slots, size_t w, plank_error *err) {
    uint64_t bytes;
    PK_RETURN_IF(pk_mul_overflow_u64((uint64_t)slots, (uint64_t)w, &bytes) || bytes > SIZE_MAX / 2,
                 err, PLANK_ERR_INVALID_ARGUMENT, "batch too large");
    if ((size_t)bytes <= b->size) return PLANK_OK;
    return pk_buffer_resize(b, (size_t)bytes, err);
}

/* read_slots with d->keep: the kept ones of k slots of a flat required column,
 * written densely from slot d->kept. Values are dropped inside the decoder
 * where it can skip them (PLAIN fixed width compacted from the page, PLAIN,
 * dictionary and DELTA_LENGTH strings copied only when kept); other pages
 * are decoded into the slots and compacted there, while they are in cache. */
static plank_status read_kept_slots(plank_column_reader *cr, pk_read_dest *d, int64_t at,
                                    int64_t k, plank_error *err) {
    const pk_kernels *kn = cr->r->kernels;
    const uint8_t *kb = keep_bits(cr, d, at, k, err);
    if (!kb) return PLANK_ERR_OUT_OF_MEMORY;
    int64_t c = kn->count_bits(kb, 0, k);
    int64_t to = d->kept;
    d->kept += c;
    if (d->dict_mode) {
        PK_FORWARD(kept_room(d->values, to + k, 4, err));
        PK_FORWARD(read_dict_slots(cr, d, to, k, k, NULL, err));
        int32_t *ix = (int32_t *)(void *)d->values->data + to;
        kn->compact_fixed((uint8_t *)ix, (const uint8_t *)ix, 4, kb, (size_t)k);
        return PLANK_OK;
    }
    if (cr->type == PLANK_BYTE_ARRAY) {
        int64_t *ends, got; /* == c: the same keep bits */
        PK_FORWARD(kept_room(d->offsets, to + 1 + k, (size_t)d->offset_width, err));
        if (d->offset_width == 8) {
            ends = (int64_t *)(void *)d->offsets->data + to + 1;
        } else {
            PK_FORWARD(pk_buffer_reserve(&cr->ends, (size_t)k * sizeof(int64_t), err));
            ends = (int64_t *)(void *)cr->ends.data;
        }
        PK_FORWARD(pk_decoder_get_binary_keep(&cr->dec, k, kb, d->data, ends, &got, err));
        if (d->offset_width == 8) return PLANK_OK;
        PK_RETURN_IF(d->data->size > INT32_MAX, err, PLANK_ERR_LIMIT,
                     "%zu bytes of string data in one batch do not fit 32-bit offsets; lower "
                     "batch_rows", d->data->size);
        int32_t *offs = (int32_t *)(void *)d->offsets->data + to + 1;
        for (int64_t j = 0; j < got; j++) offs[j] = (int32_t)ends[j];
        return PLANK_OK;
    }
    if (cr->type == PLANK_BOOLEAN) {
        size_t nb = ((size_t)k + 7) / 8;
        PK_FORWARD(pk_buffer_reserve(&cr->scratch, nb + 1, err));
        uint8_t *tmp = cr->scratch.data;
        memset(tmp, 0, nb + 1);
        PK_FORWARD(pk_decoder_get_bits(&cr->dec, k, tmp, 0, err));
        kn->compact_bits(tmp, tmp, kb, (size_t)k);
        kn->copy_bits(tmp, 0, d->values->data, to, (size_t)c);
        return PLANK_OK;
    }
    size_t w = (size_t)cr->width;
    PK_FORWARD(kept_room(d->values, to + k, w, err));
    /* compact_fixed's writes stay in the to + k slots */
    uint8_t *dst = d->values->data + (size_t)to * w;
    if (cr->dec.encoding == PLANK_ENC_PLAIN) {
        const uint8_t *src;
        PK_FORWARD(pk_decoder_view_fixed(&cr->dec, k, &src, err));
        kn->compact_fixed(dst, src, w, kb, (size_t)k);
    } else {
        PK_FORWARD(pk_decoder_get_fixed(&cr->dec, k, dst, err));
        kn->compact_fixed(dst, dst, w, kb, (size_t)k);
    }
    return PLANK_OK;
}

/* Values decoded per block of this many into the stage buffer before their
 * conversion: 8-16 KiB, in the first-level cache. */
#define PK_CONVERT_BLOCK 1024

/* read_slots' nn fixed-width values (of k slots) converted to the caller's
 * width as they are decoded (pk_read_dest.convert): PLAIN values straight
 * from the page, other encodings a block at a time through the stage
 * buffer, so that no batch-sized copy at the physical width is written and
 * read back. Null slots are spread afterwards at the converted width. */
static plank_status read_converted(plank_column_reader *cr, pk_read_dest *d, int64_t at,
                                   int64_t k, int64_t nn, const uint8_t *validity,
                                   plank_error *err) {
    size_t w = (size_t)cr->width, ow = (size_t)d->out_width;
    PK_FORWARD(values_ready(d, ow, err));
    uint8_t *dst = d->values->data + (size_t)at * ow;
    bool plain = cr->dec.encoding == PLANK_ENC_PLAIN;
    if (!plain) PK_FORWARD(pk_buffer_reserve(&cr->stage, PK_CONVERT_BLOCK * w, err));
    for (int64_t i = 0; i < nn;) {
        int64_t b = plain || nn - i < PK_CONVERT_BLOCK ? nn - i : PK_CONVERT_BLOCK;
        const uint8_t *src = cr->stage.data;
        if (plain) PK_FORWARD(pk_decoder_view_fixed(&cr->dec, b, &src, err));
        else PK_FORWARD(pk_decoder_get_fixed(&cr->dec, b, cr->stage.data, err));
        PK_FORWARD(d->convert(d->convert_ctx, src, b, dst + (size_t)i * ow, err));
        i += b;
    }
    if (nn < k) cr->r->kernels->spread_fixed(dst, ow, (size_t)k, (size_t)nn, validity, at);
    return PLANK_OK;
}

/* Reads k slots of the current page into the destination at slot `at`;
 * `whole` tells that these k slots are the entire read. */
static plank_status read_slots(plank_column_reader *cr, pk_read_dest *d, int64_t at, int64_t k,
                               bool whole, plank_error *err) {
    if (d->keep) return read_kept_slots(cr, d, at, k, err);
    const int16_t *def = page_def(cr);
    const int16_t *rep = page_rep(cr);
    if (def && d->def) memcpy((int16_t *)(void *)d->def->data + at, def, (size_t)k * 2);
    if (rep && d->rep) memcpy((int16_t *)(void *)d->rep->data + at, rep, (size_t)k * 2);
    const pk_kernels *kn = cr->r->kernels;
    int64_t nn = k;
    uint8_t *validity = d->validity ? d->validity->data : NULL;
    if (def && cr->page_full) {
        /* A page without a null (DuckDB and Polars write every column
         * optional): its slots marked valid, not read level by level. */
        if (validity) pk_bits_set_range(validity, at, k);
    } else if (def) {
        nn = kn->def_to_bitmap(def, (size_t)k, cr->max_def, validity, at);
    }
    d->null_count += k - nn;
    /* The levels place values in slots only where some slot is null: slots
     * of an optional column without a null read as a required column's do
     * (DuckDB writes every column optional; its TPC-H files have no null,
     * and spreading their dictionary codes slot by slot was 17% of Q6). */
    if (nn == k) def = NULL;

    if (d->dict_mode) return read_dict_slots(cr, d, at, k, nn, def, err);
    if (cr->type == PLANK_BYTE_ARRAY) {
        int64_t *ends;
        if (!def && d->offset_width == 8) {
            /* No nulls to spread: the decoder writes the offsets in place. */
            ends = (int64_t *)(void *)d->offsets->data + at + 1;
        } else {
            PK_FORWARD(pk_buffer_reserve(&cr->ends, (size_t)nn * sizeof(int64_t), err));
            ends = (int64_t *)(void *)cr->ends.data;
        }
        if (d->live && nn == k) /* no nulls: slot i is value i */
            PK_FORWARD(pk_decoder_get_binary_live(&cr->dec, nn, d->live, d->live_base + at,
                                                  d->data, ends, err));
        else
            PK_FORWARD(pk_decoder_get_binary(&cr->dec, nn, d->data, ends, err));
        if (!def && d->offset_width == 8) return PLANK_OK;
        return put_offsets(d, at, k, def, cr->max_def, ends, err);
    }
    if (cr->type == PLANK_BOOLEAN) {
        /* Straight into the bitmap; with nulls, densely into scratch and
         * then spread over the valid slots. */
        uint8_t *bits = d->values->data;
        if (nn == k) return pk_decoder_get_bits(&cr->dec, k, bits, at, err);
        size_t nb = ((size_t)nn + 7) / 8;
        PK_FORWARD(pk_buffer_reserve(&cr->scratch, nb + 1, err));
        uint8_t *tmp = cr->scratch.data;
        memset(tmp, 0, nb + 1);
        PK_FORWARD(pk_decoder_get_bits(&cr->dec, nn, tmp, 0, err));
        kn->spread_bits(tmp, (size_t)nn, validity, bits, at, (size_t)k);
        return PLANK_OK;
    }
    size_t w = (size_t)cr->width;
    /* With a selection, one read may join ranges of a page: only a read that
     * is one run of slots can be a view. */
    if (d->view_ok && at == 0 && nn == k && (whole || (d->page_stop && !cr->nsel)) &&
        cr->dec.encoding == PLANK_ENC_PLAIN &&
        in_chunk_bytes(cr, cr->dec.start) &&
        (d->view_align <= 1 ||
         ((uintptr_t)cr->dec.start + (uintptr_t)cr->dec.pos * w) % (uintptr_t)d->view_align == 0)) {
        /* The values already sit in the chunk in Arrow layout: point at them. */
        return pk_decoder_view_fixed(&cr->dec, k, &d->view, err);
    }
    if (d->convert) return read_converted(cr, d, at, k, nn, validity, err);
    PK_FORWARD(values_ready(d, w, err));
    uint8_t *dst = d->values->data + (size_t)at * w;
    /* Dense values at the start of the slots, then spread over them in place
     * (null slots zeroed, so the batch never exposes stale bytes). */
    /* No nulls: slot i is value i, needed only where live says: dictionary
     * pages gather those values, DELTA pages decode only the blocks that
     * hold one (and, under bounds, pass over runs outside them too). */
    const uint8_t *live = d->live && nn == k ? d->live : NULL;
    bool delta = cr->dec.encoding == PLANK_ENC_DELTA_BINARY_PACKED;
    if (live && !delta &&
        (!cr->bounded || cr->dec.encoding == PLANK_ENC_PLAIN_DICTIONARY ||
         cr->dec.encoding == PLANK_ENC_RLE_DICTIONARY))
        return pk_decoder_get_fixed_live(&cr->dec, nn, dst, live, d->live_base + at, err);
    if (cr->bounded || (live && delta)) {
        cr->bound.skipped = 0;
        PK_FORWARD(pk_decoder_get_fixed_bounded(&cr->dec, nn, dst,
                                                cr->bounded ? &cr->bound : NULL, live,
                                                d->live_base + at, err));
        cr->counters.values_bound_skipped += cr->bound.skipped;
    } else {
        PK_FORWARD(pk_decoder_get_fixed(&cr->dec, nn, dst, err));
    }
    if (nn < k) kn->spread_fixed(dst, w, (size_t)k, (size_t)nn, validity, at);
    return PLANK_OK;
}

static plank_status prepare_dest(plank_column_reader *cr, pk_read_dest *d, int64_t n,
                                 plank_error *err) {
    size_t un = (size_t)n;
    d->capacity = n;
    d->length = d->null_count = d->fb_n = d->kept = 0;
    PK_RETURN_IF(d->keep && (cr->max_def > 0 || cr->max_rep > 0 || cr->nsel || d->runs), err,
                 PLANK_ERR_INVALID_ARGUMENT,
                 "kept slots: only a flat required column without a selection");
    d->view = NULL;
    d->values_ready = false;
    d->dict_mode = d->dict_mode && cr->type != PLANK_BOOLEAN;
    if (d->runs) d->runs->size = 0;
    if (cr->max_def > 0) {
        PK_RETURN_IF(!d->validity, err, PLANK_ERR_INVALID_ARGUMENT, "no validity buffer");
        PK_FORWARD(pk_buffer_resize(d->validity, (un + 7) / 8 + 1, err));
        memset(d->validity->data, 0, (un + 7) / 8 + 1);
    }
    if (cr->max_def > 0 && d->def)
        PK_FORWARD(pk_buffer_resize(d->def, un * sizeof(int16_t), err));
    if (cr->max_rep > 0 && d->rep)
        PK_FORWARD(pk_buffer_resize(d->rep, un * sizeof(int16_t), err));
    /* A kept read's buffers are sized for what it keeps, not for every slot
     * it reads: the kept count, plus room for a page's slots decoded in
     * place before their compaction (kept_room grows them past that). */
    size_t slots = un;
    if (d->keep) {
        int64_t all = cr->r->kernels->count_bits(d->keep, d->keep_base, d->keep_base + n);
        slots = n - all < 65536 ? un : (size_t)all + 65536;
        if (!d->dict_mode && cr->type != PLANK_BYTE_ARRAY && cr->type != PLANK_BOOLEAN)
            PK_FORWARD(pk_buffer_resize(d->values, slots * (size_t)cr->width, err));
    }
    if (d->dict_mode) {
        PK_FORWARD(pk_buffer_resize(d->values, slots * sizeof(int32_t), err));
        PK_FORWARD(pk_buffer_resize(d->offsets, sizeof(int64_t), err));
        ((int64_t *)(void *)d->offsets->data)[0] = 0;
        d->data->size = 0;
    } else if (cr->type == PLANK_BYTE_ARRAY) {
        size_t ow = (size_t)d->offset_width;
        PK_FORWARD(pk_buffer_resize(d->offsets, (slots + 1) * ow, err));
        memset(d->offsets->data, 0, ow);
        d->data->size = 0;
    } else if (cr->type == PLANK_BOOLEAN) {
        PK_FORWARD(pk_buffer_resize(d->values, (un + 7) / 8 + 1, err));
        memset(d->values->data, 0, (un + 7) / 8 + 1);
    }
    return PLANK_OK;
}

/* Entries left to read from the current position: the selection's, or the
 * chunk's. */
static int64_t entries_left(const plank_column_reader *cr, int64_t want) {
    if (cr->sel_done) return 0;
    int64_t left = cr->cc->num_values - cr->levels_done;
    if (want < left) left = want; /* counting the ranges stops there */
    if (!cr->nsel || cr->max_rep > 0) return left;
    /* Flat: one entry per record, so the selected records bound it. */
    int64_t sel = 0;
    for (int64_t i = cr->sel_i; i < cr->nsel && sel < left; i++) {
        int64_t from = cr->sel[i].first;
        if (cr->rows_started > from) from = cr->rows_started;
        int64_t end = cr->sel[i].first + cr->sel[i].count;
        if (end > from) sel += end - from;
    }
    return sel < left ? sel : left;
}

/* Moves the selection cursor to a range that has entries to read: skips to
 * the start of range sel_i when before it. Returns the record where the
 * current read must stop (INT64_MAX without a selection), or -1 when every
 * range was read. */
static plank_status selection_step(plank_column_reader *cr, int64_t *stop, plank_error *err) {
    *stop = INT64_MAX;
    if (!cr->nsel) return PLANK_OK;
    for (;;) {
        if (cr->sel_i >= cr->nsel) {
            /* The page is kept: dropping it would lose the position that a
             * later seek goes forward from. */
            cr->sel_done = true;
            *stop = -1;
            return PLANK_OK;
        }
        const plank_row_range *g = &cr->sel[cr->sel_i];
        if (!cr->sel_reading) {
            PK_FORWARD(skip_to_record(cr, g->first, err));
            cr->sel_reading = true;
        }
        int64_t end = g->first + g->count;
        if (!cr->in_page && cr->rows_started >= end) {
            /* A page end where every record before `end` has started: the
             * pages up to the next range hold none of the selection when
             * they start at a record (flat, v2), and are passed over by
             * their header; a v1 page of a nested column is loaded, and the
             * check below sees whether it goes on with record end - 1. */
            int64_t to = cr->sel_i + 1 < cr->nsel ? cr->sel[cr->sel_i + 1].first
                                                  : cr->r->md.row_groups[cr->rg].info.num_rows;
            plank_status st = next_page(cr, to, err);
            if (st != PLANK_ERR_END) PK_FORWARD(st);
        }
        /* The range is over once the next entry starts record `end`. */
        if (cr->in_page && slots_before(cr, end) == 0) {
            cr->sel_i++;
            cr->sel_reading = false;
            continue;
        }
        if (!cr->in_page && cr->levels_done >= cr->cc->num_values) {
            cr->sel_done = true;
            *stop = -1;
            return PLANK_OK;
        }
        *stop = end;
        return PLANK_OK;
    }
}

/* Copies the window slots idx[0..k) of g to slots at.. of d. */
/* o[j] = src[idx[j]] for k values of w bytes. */
static void gather_fixed(uint8_t *o, const uint8_t *src, const uint16_t *idx, int64_t k,
                         size_t w) {
    if (w == 4) {
        for (int64_t j = 0; j < k; j++) memcpy(o + j * 4, src + (size_t)idx[j] * 4, 4);
    } else if (w == 8) {
        for (int64_t j = 0; j < k; j++) memcpy(o + j * 8, src + (size_t)idx[j] * 8, 8);
    } else {
        for (int64_t j = 0; j < k; j++) memcpy(o + (size_t)j * w, src + (size_t)idx[j] * w, w);
    }
}

static plank_status gather_slots(plank_column_reader *cr, const pk_read_dest *g,
                                 const uint16_t *idx, int64_t k, pk_read_dest *d, int64_t at,
                                 plank_error *err) {
    if (cr->max_def > 0) {
        const int16_t *def = (const int16_t *)(const void *)g->def->data;
        uint8_t *vb = d->validity->data;
        int64_t valid = 0;
        for (int64_t j = 0; j < k; j++) {
            bool v = def[idx[j]] == cr->max_def;
            if (v) vb[(at + j) >> 3] |= (uint8_t)(1u << ((at + j) & 7));
            valid += v;
        }
        d->null_count += k - valid;
        if (d->def) {
            int16_t *o = (int16_t *)(void *)d->def->data + at;
            for (int64_t j = 0; j < k; j++) o[j] = def[idx[j]];
        }
    }
    if (d->dict_mode) {
        const int32_t *src = (const int32_t *)(const void *)g->values->data;
        int32_t *o = (int32_t *)(void *)d->values->data + at;
        for (int64_t j = 0; j < k; j++) o[j] = src[idx[j]];
        return PLANK_OK;
    }
    if (cr->type == PLANK_BYTE_ARRAY) {
        const int64_t *go = (const int64_t *)(const void *)g->offsets->data;
        int64_t bytes = 0;
        for (int64_t j = 0; j < k; j++) bytes += go[idx[j] + 1] - go[idx[j]];
        size_t base = d->data->size;
        PK_RETURN_IF(d->offset_width == 4 && base + (uint64_t)bytes > INT32_MAX, err,
                     PLANK_ERR_LIMIT,
                     "%llu bytes of string data in one batch do not fit 32-bit offsets; lower "
                     "batch_rows", (unsigned long long)(base + (uint64_t)bytes));
        PK_FORWARD(pk_buffer_reserve(d->data, base + (size_t)bytes, err));
        uint8_t *dst = d->data->data;
        int64_t end = (int64_t)base;
        for (int64_t j = 0; j < k; j++) {
            int64_t from = go[idx[j]], len = go[idx[j] + 1] - from;
            if (len) memcpy(dst + end, g->data->data + from, (size_t)len); /* data NULL if none */
            end += len;
            if (d->offset_width == 8) ((int64_t *)(void *)d->offsets->data)[at + j + 1] = end;
            else ((int32_t *)(void *)d->offsets->data)[at + j + 1] = (int32_t)end;
        }
        d->data->size = (size_t)end;
        return PLANK_OK;
    }
    if (cr->type == PLANK_BOOLEAN) {
        const uint8_t *src = g->values->data;
        uint8_t *o = d->values->data;
        for (int64_t j = 0; j < k; j++)
            if (pk_bit_get(src, idx[j])) o[(at + j) >> 3] |= (uint8_t)(1u << ((at + j) & 7));
        return PLANK_OK;
    }
    size_t w = (size_t)cr->width;
    if (!d->values_ready) {
        PK_FORWARD(pk_buffer_resize(d->values, (size_t)d->capacity * w, err));
        d->values_ready = true;
    }
    gather_fixed(d->values->data + (size_t)at * w, g->values->data, idx, k, w);
    return PLANK_OK;
}

/* A window of a PLAIN page of fixed-width values without levels: the
 * selected values are gathered straight from the page (no decode into the
 * window buffer first). False when the page or column is not of that kind. */
/* Whether the next W entries of the page hold no null: none of a required
 * column, else when all their definition levels are the maximum (DuckDB and
 * Polars write every column optional, most of them without a null). */
static bool window_no_null(const plank_column_reader *cr, int64_t W) {
    if (cr->max_def == 0 || cr->page_full) return true;
    const int16_t *def = page_def(cr);
    return def && pk_count_eq16(cr->r->kernels, def, (size_t)W, cr->max_def) == W;
}

/* Marks n slots from slot `at` of an optional column's destination valid
 * (their levels the maximum, where the caller wants levels). */
static void mark_valid(const plank_column_reader *cr, pk_read_dest *d, int64_t at, int64_t n) {
    if (cr->max_def == 0 || n <= 0) return;
    pk_bits_set_range(d->validity->data, at, n);
    if (d->def) {
        int16_t *lv = (int16_t *)(void *)d->def->data + at;
        for (int64_t j = 0; j < n; j++) lv[j] = (int16_t)cr->max_def;
    }
}

static bool gather_plain_direct(plank_column_reader *cr, const uint16_t *idx, int64_t k,
                                int64_t W, pk_read_dest *d, int64_t at, plank_error *err,
                                plank_status *st) {
    const pk_decoder *dec = &cr->dec;
    size_t w = (size_t)cr->width;
    *st = PLANK_OK;
    if (d->dict_mode || dec->encoding != PLANK_ENC_PLAIN || cr->type == PLANK_BYTE_ARRAY ||
        cr->type == PLANK_BOOLEAN || w == 0 || (size_t)dec->width != w ||
        dec->pos + W > dec->num_values ||
        (size_t)(dec->end - dec->start) / w < (size_t)(dec->pos + W) || !window_no_null(cr, W))
        return false;
    if (!d->values_ready) {
        *st = pk_buffer_resize(d->values, (size_t)d->capacity * w, err);
        if (*st != PLANK_OK) return true;
        d->values_ready = true;
    }
    /* Copied before the window is consumed: the page may be released then. */
    gather_fixed(d->values->data + (size_t)at * w, dec->start + (size_t)dec->pos * w, idx, k, w);
    mark_valid(cr, d, at, k);
    *st = pk_decoder_skip(&cr->dec, W, err);
    if (*st == PLANK_OK) consume_levels(cr, W);
    return true;
}

/* Decodes the next W entries of the page whole into the reader's window
 * buffers (g describes them) and consumes them. */
static plank_status read_window(plank_column_reader *cr, pk_read_dest *g, int64_t W,
                                bool dict_mode, int32_t null_index, const uint8_t *live,
                                plank_error *err) {
    memset(g, 0, sizeof *g);
    g->live = live;
    g->validity = &cr->g_validity;
    g->def = &cr->g_def;
    g->values = &cr->g_values;
    g->offsets = &cr->g_offsets;
    g->data = &cr->g_data;
    g->offset_width = 8;
    g->dict_mode = dict_mode;
    g->null_index = null_index;
    PK_FORWARD(prepare_dest(cr, g, W, err));
    PK_FORWARD(read_slots(cr, g, 0, W, false, err));
    consume_levels(cr, W);
    return PLANK_OK;
}

/* A window of W entries of a fixed-width column (or of dictionary codes)
 * most of which is selected: the selected runs (rs, rl) copied whole into d
 * at `at`, straight from a PLAIN page without levels, else from the window
 * decoded into the reader's window buffers (values, validity bits and
 * levels run by run). */
static plank_status copy_window_runs(plank_column_reader *cr, const uint16_t *rs,
                                     const uint16_t *rl, int64_t nr, int64_t W, pk_read_dest *d,
                                     int64_t at, plank_error *err) {
    /* Dictionary mode: int32 codes, in the buffer prepare_dest sized. */
    size_t w = d->dict_mode ? 4 : (size_t)cr->width;
    const pk_decoder *dec = &cr->dec;
    if (!d->dict_mode && !d->values_ready) {
        PK_FORWARD(pk_buffer_resize(d->values, (size_t)d->capacity * w, err));
        d->values_ready = true;
    }
    uint8_t *dst = d->values->data + (size_t)at * w;
    if (!d->dict_mode && dec->encoding == PLANK_ENC_PLAIN && (size_t)dec->width == w &&
        dec->pos + W <= dec->num_values &&
        (size_t)(dec->end - dec->start) / w >= (size_t)(dec->pos + W) && window_no_null(cr, W)) {
        const uint8_t *src = dec->start + (size_t)dec->pos * w;
        int64_t off = at;
        for (int64_t r = 0; r < nr; r++) {
            memcpy(dst, src + (size_t)rs[r] * w, (size_t)rl[r] * w);
            dst += (size_t)rl[r] * w;
            mark_valid(cr, d, off, rl[r]);
            off += rl[r];
        }
        PK_FORWARD(pk_decoder_skip(&cr->dec, W, err));
        consume_levels(cr, W);
        return PLANK_OK;
    }
    pk_read_dest g;
    PK_FORWARD(read_window(cr, &g, W, d->dict_mode, d->null_index, NULL, err));
    const uint8_t *src = g.values->data;
    const pk_kernels *kn = cr->r->kernels;
    const int16_t *def = cr->max_def > 0 ? (const int16_t *)(const void *)g.def->data : NULL;
    int64_t off = at;
    for (int64_t r = 0; r < nr; r++) {
        memcpy(dst, src + (size_t)rs[r] * w, (size_t)rl[r] * w);
        dst += (size_t)rl[r] * w;
        if (def) {
            kn->copy_bits(g.validity->data, rs[r], d->validity->data, off, rl[r]);
            d->null_count += rl[r] - pk_count_eq16(kn, def + rs[r], rl[r], cr->max_def);
            if (d->def)
                memcpy((int16_t *)(void *)d->def->data + off, def + rs[r], (size_t)rl[r] * 2);
        }
        off += rl[r];
    }
    return PLANK_OK;
}

/* The selected runs (rs, rl: k values) of the next W values of a page of
 * strings without levels, appended to d->data through the decoder's kept
 * read (DELTA_BYTE_ARRAY: only the selected values built); *ends receives
 * their k ends in d->data (the reader's buffer). The W entries are
 * consumed. */
static plank_status window_kept(plank_column_reader *cr, const uint16_t *rs, const uint16_t *rl,
                                int64_t nr, int64_t k, int64_t W, pk_read_dest *d,
                                const int64_t **ends_out, plank_error *err) {
    uint8_t kb[1024 / 8 + 8] = {0};
    for (int64_t r = 0; r < nr; r++)
        for (int64_t p = rs[r]; p < rs[r] + rl[r]; p++) kb[p >> 3] |= (uint8_t)(1u << (p & 7));
    PK_FORWARD(pk_buffer_reserve(&cr->ends, (size_t)W * sizeof(int64_t), err));
    int64_t *ends = (int64_t *)(void *)cr->ends.data, got = 0;
    PK_FORWARD(pk_decoder_get_binary_keep(&cr->dec, W, kb, d->data, ends, &got, err));
    PK_RETURN_IF(got != k, err, PLANK_ERR_CORRUPT, "%lld values kept of %lld selected",
                 (long long)got, (long long)k);
    consume_levels(cr, W);
    *ends_out = ends;
    return PLANK_OK;
}

/* window_kept into the string slots at `at` of d. */
static plank_status window_strings(plank_column_reader *cr, const uint16_t *rs,
                                   const uint16_t *rl, int64_t nr, int64_t k, int64_t W,
                                   pk_read_dest *d, int64_t at, plank_error *err) {
    const int64_t *ends;
    PK_FORWARD(window_kept(cr, rs, rl, nr, k, W, d, &ends, err));
    PK_RETURN_IF(d->offset_width == 4 && d->data->size > INT32_MAX, err, PLANK_ERR_LIMIT,
                 "%zu bytes of string data in one batch do not fit 32-bit offsets; lower "
                 "batch_rows", d->data->size);
    if (d->offset_width == 8) {
        memcpy((int64_t *)(void *)d->offsets->data + at + 1, ends, (size_t)k * sizeof *ends);
    } else {
        int32_t *o = (int32_t *)(void *)d->offsets->data + at + 1;
        for (int64_t j = 0; j < k; j++) o[j] = (int32_t)ends[j];
    }
    return PLANK_OK;
}

/* window_kept in dictionary mode, on a page that is not dictionary-encoded:
 * the selected values become fallback values (after the chunk dictionary's
 * entries and the fallback values so far, as read_dict_slots lays them
 * out), and the slots at `at` their codes. */
static plank_status window_fallback(plank_column_reader *cr, const uint16_t *rs,
                                    const uint16_t *rl, int64_t nr, int64_t k, int64_t W,
                                    pk_read_dest *d, int64_t at, plank_error *err) {
    int64_t base = cr->has_dict ? cr->dict.count : 0;
    PK_FORWARD(fallback_room(cr, d, k, err));
    const int64_t *ends;
    PK_FORWARD(window_kept(cr, rs, rl, nr, k, W, d, &ends, err));
    memcpy((int64_t *)(void *)d->offsets->data + d->fb_n + 1, ends, (size_t)k * sizeof *ends);
    int32_t *ix = (int32_t *)(void *)d->values->data + at;
    for (int64_t j = 0; j < k; j++) ix[j] = (int32_t)(base + d->fb_n + j);
    d->fb_n += k;
    return PLANK_OK;
}

/* Sparse selections of flat columns (the seed work's buffered path): when
 * the next window of up to 1024 entries of the page holds several selected
 * ranges, the window is decoded whole into a small buffer and the selected
 * rows gathered from it, instead of a skip and a short read per range.
 * *got receives the slots gathered, 0 when the window does not qualify. */
static plank_status gather_window(plank_column_reader *cr, pk_read_dest *d, int64_t at,
                                  int64_t room, int64_t *got, plank_error *err) {
    *got = 0;
    int64_t S = cr->rows_started;
    int64_t W = cr->page_left < 1024 ? cr->page_left : 1024;
    if (room < W) W = room; /* never more entries than the read has room for */
    /* The selected runs of the window (start in the window, length). */
    uint16_t rs[1024], rl[1024];
    int64_t k = 0, ranges = 0, i = cr->sel_i;
    for (; i < cr->nsel && cr->sel[i].first < S + W; i++) {
        int64_t a = cr->sel[i].first > S ? cr->sel[i].first : S;
        int64_t b = cr->sel[i].first + cr->sel[i].count;
        if (b > S + W) b = S + W;
        if (b > a) {
            rs[ranges] = (uint16_t)(a - S);
            rl[ranges++] = (uint16_t)(b - a);
            k += b - a;
        }
        if (cr->sel[i].first + cr->sel[i].count > S + W) break; /* goes on after */
    }
    if (ranges < 4) return PLANK_OK;
    bool dict_page = cr->dec.encoding == PLANK_ENC_PLAIN_DICTIONARY ||
                     cr->dec.encoding == PLANK_ENC_RLE_DICTIONARY;
    plank_status st;
    if (d->dict_mode && !dict_page) {
        /* Fallback values: strings without levels (a dictionary chunk's
         * plain pages, or a chunk read as codes that has no dictionary)
         * through the kept read; the others on the plain path. */
        if (cr->type != PLANK_BYTE_ARRAY || cr->max_def != 0) return PLANK_OK;
        PK_FORWARD(window_fallback(cr, rs, rl, ranges, k, W, d, at, err));
        cr->sel_i = i;
        cr->sel_reading = i < cr->nsel && cr->sel[i].first < S + W;
        *got = k;
        return PLANK_OK;
    }
    if (k * 2 >= W && cr->type != PLANK_BOOLEAN && (cr->type != PLANK_BYTE_ARRAY || d->dict_mode)) {
        /* Most of the window is selected: its runs are copied whole. */
        PK_FORWARD(copy_window_runs(cr, rs, rl, ranges, W, d, at, err));
        cr->sel_i = i;
        cr->sel_reading = i < cr->nsel && cr->sel[i].first < S + W;
        *got = k;
        return PLANK_OK;
    }
    if (cr->type == PLANK_BYTE_ARRAY && !d->dict_mode && cr->max_def == 0) {
        /* Strings without nulls: the decoder copies (DELTA_BYTE_ARRAY:
         * builds, where few are selected) only the selected values, straight
         * into d, instead of the whole window decoded and then gathered. */
        PK_FORWARD(window_strings(cr, rs, rl, ranges, k, W, d, at, err));
        cr->sel_i = i;
        cr->sel_reading = i < cr->nsel && cr->sel[i].first < S + W;
        *got = k;
        return PLANK_OK;
    }
    uint16_t idx[1024];
    for (int64_t r = 0, q = 0; r < ranges; r++)
        for (int64_t p = 0; p < rl[r]; p++) idx[q++] = (uint16_t)(rs[r] + p);
    if (gather_plain_direct(cr, idx, k, W, d, at, err, &st)) {
        PK_FORWARD(st);
        cr->sel_i = i;
        cr->sel_reading = i < cr->nsel && cr->sel[i].first < S + W;
        *got = k;
        return PLANK_OK;
    }
    /* Only the selected slots are needed: a DELTA page decodes only the
     * blocks that hold one, a dictionary page may gather only them. */
    uint8_t lb[1024 / 8 + 8] = {0};
    for (int64_t q = 0; q < k; q++) lb[idx[q] >> 3] |= (uint8_t)(1u << (idx[q] & 7));
    pk_read_dest g;
    PK_FORWARD(read_window(cr, &g, W, d->dict_mode, d->null_index, d->dict_mode ? NULL : lb, err));
    /* The ranges wholly inside the window are done; one that goes on stays
     * current (and is being read). */
    cr->sel_i = i;
    cr->sel_reading = i < cr->nsel && cr->sel[i].first < S + W;
    PK_FORWARD(gather_slots(cr, &g, idx, k, d, at, err));
    *got = k;
    return PLANK_OK;
}

/* Advances up to n selected slots; materialises them into d when d != NULL. */
static plank_status advance(plank_column_reader *cr, int64_t n, pk_read_dest *d,
                            int64_t *done_out, plank_error *err) {
    int64_t done = 0;
    int64_t left = entries_left(cr, n);
    if (n > left) n = left; /* buffers sized by what remains, not by the request */
    if (d) PK_FORWARD(prepare_dest(cr, d, n, err));
    while (done < n) {
        if (!cr->in_page && d && d->page_stop && done > 0) break; /* one page per read */
        int64_t stop = INT64_MAX;
        if (cr->nsel) {
            PK_FORWARD(selection_step(cr, &stop, err));
            if (stop < 0) break;
        }
        if (!cr->in_page) {
            plank_status st = next_page(cr, -1, err);
            if (st == PLANK_ERR_END) break;
            PK_FORWARD(st);
            if (cr->nsel) continue; /* the range may end before this page's first entry */
        }
        if (d && cr->nsel && cr->max_rep == 0) {
            int64_t got;
            PK_FORWARD(gather_window(cr, d, done, n - done, &got, err));
            if (got) {
                done += got;
                continue;
            }
        }
        int64_t k = n - done < cr->page_left ? n - done : cr->page_left;
        if (stop != INT64_MAX) {
            int64_t b = slots_before(cr, stop);
            if (b < k) k = b;
        }
        if (d) {
            PK_FORWARD(read_slots(cr, d, done, k, done == 0 && k == n, err));
            consume_levels(cr, k);
        } else {
            PK_FORWARD(skip_slots(cr, k, err));
        }
        done += k;
    }
    if (done_out) *done_out = done;
    if (d) d->length = done;
    return PLANK_OK;
}

plank_status pk_column_reader_read_dest(plank_column_reader *cr, int64_t max_values,
                                        pk_read_dest *d, plank_error *err) {
    if (d->convert && (cr->nsel || d->keep || d->live || cr->bounded || d->dict_mode ||
                       d->view_ok || cr->type == PLANK_BOOLEAN ||
                       cr->type == PLANK_BYTE_ARRAY || cr->max_rep > 0)) {
        /* The reads that write values by other paths (a selection's
         * gathers, kept slots): at the physical width into the stage
         * buffer, then converted whole. */
        pk_buffer *out = d->values;
        pk_convert_fn fn = d->convert;
        d->values = &cr->stage;
        d->convert = NULL;
        plank_status st = locate(cr, advance(cr, max_values, d, NULL, err), err);
        d->values = out;
        d->convert = fn;
        if (st != PLANK_OK) return st;
        int64_t n = d->keep ? d->kept : d->length;
        PK_FORWARD(pk_buffer_resize(out, (size_t)n * (size_t)d->out_width, err));
        if (n == 0) return PLANK_OK;
        PK_RETURN_IF(cr->stage.size < (size_t)n * (size_t)cr->width, err, PLANK_ERR_CORRUPT,
                     "column %d: %lld values to convert, %zu bytes staged", (int)cr->col,
                     (long long)n, cr->stage.size);
        return fn(d->convert_ctx, cr->stage.data, n, out->data, err);
    }
    return locate(cr, advance(cr, max_values, d, NULL, err), err);
}

/* ---- The plank_batch API ------------------------------------------------------------------ */

plank_status plank_column_reader_read(plank_column_reader *cr, int64_t max_values,
                                      plank_batch *given, plank_error *err) {
    plank_error_init(err);
    if (!cr || !given || max_values < 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    /* A batch of length 0 means the end, and only the end. */
    if (max_values == 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "max_values is 0: a read returns at least one slot before the end");
    /* The caller's layout is checked before anything is consumed. */
    if (pk_struct_extent(&pk_layout_batch, given->struct_size) == 0)
        return pk_struct_write(given, given, &pk_layout_batch, err);
    plank_batch res, *out = &res;
    if (max_values > (INT64_C(1) << 30)) max_values = INT64_C(1) << 30;
    pk_read_dest d = {0};
    d.validity = &cr->validity;
    d.def = &cr->def;
    d.rep = &cr->rep;
    d.values = &cr->values;
    d.offsets = &cr->offsets;
    d.data = &cr->data;
    d.offset_width = 8;
    d.dict_mode = cr->dict_mode;
    d.null_index = -1;
    d.view_ok = cr->view_mode;
    d.page_stop = cr->view_mode;
    d.runs = cr->log_runs && cr->dict_mode ? &cr->runs : NULL;
    d.live = cr->live;
    d.live_base = cr->live_base;
    cr->live = NULL;
    d.keep = cr->keep;
    d.keep_base = cr->keep_base;
    cr->keep = NULL;
    if (d.keep) {
        /* A kept read writes the kept values only: no views of pages, no
         * live bits (every kept value is built). */
        d.view_ok = false;
        d.page_stop = false;
        d.live = NULL;
    }
    cr->runs.size = 0;
    cr->view = NULL;
    plank_status st = locate(cr, advance(cr, max_values, &d, NULL, err), err);
    if (st != PLANK_OK) return st;
    cr->view = d.view;
    cr->fb_n = d.fb_n;
    cr->last_slots = d.length;
    memset(out, 0, sizeof *out);
    out->length = d.keep ? d.kept : d.length;
    out->null_count = d.null_count;
    out->validity = d.null_count ? cr->validity.data : NULL;
    out->physical_type = cr->type;
    out->def_levels = cr->max_def > 0 ? (const int16_t *)(const void *)cr->def.data : NULL;
    out->rep_levels = cr->max_rep > 0 ? (const int16_t *)(const void *)cr->rep.data : NULL;
    if (d.dict_mode) {
        out->offsets = cr->type == PLANK_BYTE_ARRAY ? (const int64_t *)(const void *)cr->offsets.data
                                                    : NULL;
        out->data = cr->data.data;
        out->values = cr->values.data;
        out->value_width = 4;
    } else if (cr->type == PLANK_BYTE_ARRAY) {
        out->offsets = (const int64_t *)(const void *)cr->offsets.data;
        out->data = cr->data.data;
        out->values = cr->data.data;
    } else {
        out->values = d.view ? d.view : cr->values.data;
        out->value_width = cr->type == PLANK_BOOLEAN ? 0 : cr->width;
    }
    return pk_struct_write(given, out, &pk_layout_batch, err);
}

plank_status plank_column_reader_skip(plank_column_reader *cr, int64_t n, int64_t *skipped,
                                      plank_error *err) {
    plank_error_init(err);
    if (skipped) *skipped = 0;
    if (!cr || n < 0) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    return locate(cr, advance(cr, n, NULL, skipped, err), err);
}

/* ---- Seeks and selections ------------------------------------------------------------------ */

plank_status plank_column_reader_seek(plank_column_reader *cr, int64_t row, plank_error *err) {
    plank_error_init(err);
    if (!cr || row < 0) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    int64_t rows = cr->r->md.row_groups[cr->rg].info.num_rows;
    if (row > rows)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "row %lld is past the end of the row group (%lld rows)",
                            (long long)row, (long long)rows);
    /* Backwards: from the first data page again (the dictionary is kept). */
    if (row < cr->rows_started || (row == cr->rows_started && cr->in_page && cr->max_rep > 0 &&
                                   page_rep(cr)[0] != 0)) {
        rewind_chunk(cr);
    }
    cr->sel_done = false;
    if (cr->nsel) {
        /* The selection resumes at the first range not wholly before row. */
        cr->sel_i = 0;
        while (cr->sel_i < cr->nsel &&
               cr->sel[cr->sel_i].first + cr->sel[cr->sel_i].count <= row)
            cr->sel_i++;
        cr->sel_reading = cr->sel_i < cr->nsel && cr->sel[cr->sel_i].first < row;
    }
    return locate(cr, skip_to_record(cr, row, err), err);
}

plank_status plank_column_reader_select(plank_column_reader *cr, const plank_row_range *ranges,
                                        int64_t num_ranges, plank_error *err) {
    plank_error_init(err);
    if (!cr || num_ranges < 0 || (num_ranges > 0 && !ranges))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "invalid argument");
    int64_t rows = cr->r->md.row_groups[cr->rg].info.num_rows;
    int64_t prev_end = 0, kept = 0;
    for (int64_t i = 0; i < num_ranges; i++) {
        const plank_row_range *g = &ranges[i];
        if (g->first < 0 || g->count < 0 || g->first < prev_end || g->count > INT64_MAX - g->first)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                "row range %lld ([%lld, +%lld)) is negative, overlaps or is not "
                                "after the previous one", (long long)i, (long long)g->first,
                                (long long)g->count);
        prev_end = g->first + g->count;
        kept += g->count > 0;
    }
    if (num_ranges > 0 && prev_end > rows)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "row range ends at %lld, past the row group's %lld rows",
                            (long long)prev_end, (long long)rows);
    if (cr->levels_done > 0 || cr->in_page) {
        rewind_chunk(cr);
    }
    /* An empty selection is one empty range: reads end at once. */
    int64_t need = kept ? kept : 1;
    if (need > cr->sel_cap) {
        plank_row_range *p = pk_realloc(cr->a, cr->sel, (size_t)cr->sel_cap * sizeof *p,
                                        (size_t)need * sizeof *p);
        if (!p) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        cr->sel = p;
        cr->sel_cap = need;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < num_ranges; i++)
        if (ranges[i].count > 0) cr->sel[j++] = ranges[i];
    if (!j) cr->sel[j++] = (plank_row_range){rows, 0};
    cr->nsel = j;
    cr->sel_rows = 0;
    for (int64_t i = 0; i < j; i++) cr->sel_rows += cr->sel[i].count;
    cr->sel_i = 0;
    cr->sel_reading = false;
    cr->sel_done = false;
    return PLANK_OK;
}

/* ---- Internal accessors ------------------------------------------------------------------- */

void pk_column_reader_set_dict_mode(plank_column_reader *cr, bool on) {
    if (cr && cr->type != PLANK_BOOLEAN) cr->dict_mode = on;
}

const pk_dict *pk_column_reader_dict(const plank_column_reader *cr) {
    return cr && cr->has_dict ? &cr->dict : NULL;
}

int64_t pk_column_reader_fallback_count(const plank_column_reader *cr) {
    return cr ? cr->fb_n : 0;
}

void pk_column_reader_set_live(plank_column_reader *cr, const uint8_t *live, int64_t base) {
    if (!cr) return;
    cr->live = live;
    cr->live_base = base;
}

void pk_column_reader_set_keep(plank_column_reader *cr, const uint8_t *keep, int64_t base) {
    if (!cr) return;
    cr->keep = keep;
    cr->keep_base = base;
}

int64_t pk_column_reader_slots(const plank_column_reader *cr) { return cr ? cr->last_slots : 0; }

void pk_column_reader_set_bound(plank_column_reader *cr, bool on, int64_t lo, int64_t hi) {
    if (!cr) return;
    cr->bounded = on && (cr->type == PLANK_INT32 || cr->type == PLANK_INT64);
    cr->bound.lo = lo;
    cr->bound.hi = hi;
    cr->bound.runs = cr->bound.misses = cr->bound.idle = 0;
}

void pk_column_reader_set_run_log(plank_column_reader *cr, bool on) {
    if (cr) cr->log_runs = on;
}

const int64_t *pk_column_reader_runs(const plank_column_reader *cr, int64_t *n) {
    *n = cr ? (int64_t)(cr->runs.size / (2 * sizeof(int64_t))) : 0;
    return *n ? (const int64_t *)(const void *)cr->runs.data : NULL;
}

void pk_column_reader_set_view_mode(plank_column_reader *cr, bool on) {
    if (cr) cr->view_mode = on;
}

bool pk_column_reader_batch_view(const plank_column_reader *cr, pk_shared **owner) {
    if (!cr || !cr->view) return false;
    *owner = cr->chunk_owned;
    return true;
}

pk_shared *pk_column_reader_chunk_owner(const plank_column_reader *cr) {
    return cr ? cr->chunk_owned : NULL;
}

bool pk_column_reader_at_page_end(const plank_column_reader *cr) {
    return cr && !cr->in_page;
}

/* Whether the chunk can hold a page that is a view: not compressed, and
 * PLAIN among its encodings (or no list). Asked before the next page is
 * loaded, so that a chunk that cannot have one is not made to load (and
 * decompress and check) its pages early on the caller's thread. A list that
 * lies only costs the view: the values are copied. */
static bool may_view(const plank_column_reader *cr) {
    if (cr->cc->codec != PLANK_CODEC_UNCOMPRESSED) return false;
    if (cr->cc->num_encodings <= 0) return true;
    for (int32_t k = 0; k < cr->cc->num_encodings; k++)
        if (cr->cc->encodings[k] == PLANK_ENC_PLAIN) return true;
    return false;
}

plank_status pk_column_reader_view_rows(plank_column_reader *cr, int64_t *rows,
                                        plank_error *err) {
    *rows = 0;
    if (cr->nsel || cr->type == PLANK_BOOLEAN || cr->type == PLANK_BYTE_ARRAY ||
        cr->max_rep > 0 || !may_view(cr))
        return PLANK_OK;
    if (!cr->in_page) {
        plank_status st = next_page(cr, -1, err);
        if (st == PLANK_ERR_END) return PLANK_OK;
        PK_FORWARD(locate(cr, st, err));
    }
    if (cr->dec.encoding == PLANK_ENC_PLAIN && in_chunk_bytes(cr, cr->dec.start))
        *rows = cr->page_left;
    return PLANK_OK;
}

int64_t pk_column_reader_rows_left(const plank_column_reader *cr) {
    return entries_left(cr, INT64_MAX);
}

void pk_column_reader_counters(const plank_column_reader *cr, pk_column_counters *out) {
    *out = cr->counters;
}
