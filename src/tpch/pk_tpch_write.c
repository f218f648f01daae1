/*
 * pk_tpch_write.c: plank_tpch_write, the tables to files on N threads.
 *
 * Work is split into chunks of units (a fixed number per table, whatever
 * the thread count, so the files do not depend on it), and tasks:
 *  - generate chunk k of a table into one of its batch buffers (any number
 *    at once: chunks are independent);
 *  - Parquet: write rows of a chunk for one group of columns
 *    (plank_writer_write_column, which may run concurrently for different
 *    columns). Each column group walks the chunks in order and stops at
 *    every row group boundary; once all groups are there, one thread ends
 *    the row group. Every column receives the same slices whatever the
 *    number of groups, so the bytes do not depend on the threads either;
 *  - .tbl: format and append a chunk, in order.
 * Orders and lineitem come from the same draws: when both are written, one
 * task generates a chunk of both.
 * Every thread (the caller's included) takes the most useful task there is:
 * a write that can run, else a row group end or the final close, else the
 * next generation of the table with the fewest chunks waiting. All tables
 * are open at once and the biggest come first. Memory is bounded by the
 * batch buffers (up to PK_BUFS per table, each made when a generation first
 * needs it and freed when its table is done: one thread uses one per table,
 * and the next table reuses the memory of the last instead of faulting in
 * fresh pages) and each writer's row group.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/pk_common.h" /* PK_STRERROR */
#include "../common/pk_struct.h"
#include "pk_tpch.h"

#define PK_BUFS 3
#define PK_MAX_GROUPS 8

/* A group of columns written together, and where it stands. */
typedef struct cgroup {
    int32_t ncols;
    int32_t cols[PK_TPCH_MAX_COLS];
    int64_t chunk, row; /* the next rows to write: chunk and row within it */
    int64_t rg_rows;    /* rows written into the current row group */
    bool busy;
} cgroup;

typedef struct tjob {
    plank_tpch_table table;
    char *path, *tmp_path;
    int64_t first, units;      /* unit range of this part */
    int64_t chunk;             /* units per chunk */
    int64_t nchunks, next_gen, next_write;
    plank_tpch_batch *buf[PK_BUFS]; /* NULL until a generation first takes the slot */
    int nbufs;                      /* slots: PK_BUFS, or fewer for fewer chunks */
    int64_t bufunits;               /* units each batch holds */
    int64_t buf_chunk[PK_BUFS]; /* chunk held, -1 free */
    bool buf_ready[PK_BUFS];
    bool writing, done;
    plank_writer *w;           /* Parquet */
    int32_t ngroups;
    cgroup grp[PK_MAX_GROUPS];
    int64_t rg_limit;          /* rows per row group */
    int fd;                    /* .tbl, -1 when closed */
    plank_column_options *colopts;
    int64_t rows_est;
    /* orders and lineitem, when both are written, are generated together:
     * lineitem's generation fills the orders buffer of the same index too,
     * and orders (the follower) generates nothing itself */
    struct tjob *partner;
    bool follower;
} tjob;

typedef struct tctx {
    const plank_tpch *g;
    const char *dir;
    const plank_tpch_options *o; /* &opt */
    plank_tpch_options opt;      /* the caller's, in this build's layout */
    plank_writer_options wopt;   /* opt.writer points here */
    plank_column_options *wcols; /* wopt.columns points here */
    tjob job[PLANK_TPCH_NUM_TABLES];
    int njobs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool failed;
    plank_error err;
    int64_t rows_done, rows_total;
} tctx;

/* Chunk sizes in units: about 64 Ki rows each. */
static int64_t chunk_units(plank_tpch_table t) {
    switch (t) {
    case PLANK_TPCH_LINEITEM:
    case PLANK_TPCH_ORDERS: return 16384; /* the same, so that they can be made together */
    case PLANK_TPCH_PARTSUPP: return 16384;
    default: return 65536;
    }
}

/* Scheduling preference: the biggest tables first. */
static const plank_tpch_table order_pref[PLANK_TPCH_NUM_TABLES] = {
    PLANK_TPCH_LINEITEM, PLANK_TPCH_ORDERS, PLANK_TPCH_PARTSUPP, PLANK_TPCH_CUSTOMER,
    PLANK_TPCH_PART, PLANK_TPCH_SUPPLIER, PLANK_TPCH_NATION, PLANK_TPCH_REGION,
};

void plank_tpch_options_init(plank_tpch_options *o) {
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->format = PLANK_TPCH_PARQUET;
    o->encoding = PLANK_TPCH_ENC_DEFAULT;
    o->threads = 1;
    o->parts = 1;
    o->part = 1;
}

static char *dup_path(const plank_allocator *a, const char *dir, const char *name, int part,
                      const char *ext) {
    size_t n = strlen(dir) + strlen(name) + strlen(ext) + 32;
    char *p = pk_tpch_alloc(a, n);
    if (!p) return NULL;
    if (part > 0)
        snprintf(p, n, "%s/%s.%d.%s", dir, name, part, ext);
    else
        snprintf(p, n, "%s/%s.%s", dir, name, ext);
    return p;
}

static void free_str(const plank_allocator *a, char *s) {
    if (s) pk_tpch_free(a, s, strlen(s) + 1);
}

/* The column of table t named path (a TPC-H column name is its whole
 * path), or -1. */
static int find_col(plank_tpch_table t, const char *path) {
    const pk_tpch_tabledef *td = &pk_tpch_tables[t];
    for (int k = 0; path && k < td->num_cols; k++)
        if (strcmp(td->cols[k].name, path) == 0) return k;
    return -1;
}

/* The caller's per-column options over the preset's: the fields it sets. */
static void merge_column(plank_column_options *dst, const plank_column_options *src) {
    if (src->encoding >= 0) dst->encoding = src->encoding;
    if (src->dictionary >= 0) dst->dictionary = src->dictionary;
    if (src->statistics >= 0) dst->statistics = src->statistics;
    if (src->bloom_filter) {
        dst->bloom_filter = true;
        dst->bloom_fpp = src->bloom_fpp;
        dst->bloom_ndv = src->bloom_ndv;
    }
}

/* The writer options of a table: the caller's, the encoding preset on top,
 * then the caller's per-column options for this table's columns (a table
 * gets only its own: the writer refuses a path it does not have). */
static plank_status job_writer_options(tctx *c, tjob *j, plank_writer_options *wo) {
    const plank_tpch_options *o = c->o;
    const pk_tpch_tabledef *td = &pk_tpch_tables[j->table];
    *wo = *o->writer;
    /* The generator's allocator when the caller gave one; else the
     * writer's default, which asks for huge pages on the large blocks a
     * row group's pages fill (first touches of 4 KiB pages cost a fault
     * each: about a tenth of SF 1's time on this project's machines). */
    if (c->g->caller_alloc) wo->allocator = &c->g->alloc;
    wo->columns = NULL;
    wo->num_column_options = 0;
    bool delta = false;
    switch (o->encoding) {
    case PLANK_TPCH_ENC_DEFAULT: break;
    case PLANK_TPCH_ENC_PLAIN:
        wo->dictionary = false;
        wo->encoding = PLANK_ENC_PLAIN;
        break;
    case PLANK_TPCH_ENC_DICTIONARY:
        wo->dictionary = true;
        wo->dictionary_sample = false; /* every chunk starts with a dictionary */
        wo->encoding = PLANK_ENC_PLAIN;
        break;
    case PLANK_TPCH_ENC_DELTA:
        wo->dictionary = false;
        wo->page_version = 2;
        delta = true;
        break;
    default:
        return pk_tpch_fail(&c->err, PLANK_ERR_INVALID_ARGUMENT, "tpch: unknown encoding %d",
                            (int)o->encoding);
    }
    j->colopts = pk_tpch_alloc(&c->g->alloc, sizeof(plank_column_options) * (size_t)td->num_cols);
    if (!j->colopts) return pk_tpch_fail(&c->err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory");
    bool used[PK_TPCH_MAX_COLS] = {false};
    for (int k = 0; k < td->num_cols; k++) {
        plank_column_options *co = &j->colopts[k];
        plank_column_options_init(co);
        co->path = td->cols[k].name;
        if (!delta) continue;
        used[k] = true;
        co->dictionary = 0;
        if (td->cols[k].kind != PK_K_STR)
            co->encoding = PLANK_ENC_DELTA_BINARY_PACKED;
        else
            co->encoding = td->cols[k].free_text ? PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY
                                                 : PLANK_ENC_DELTA_BYTE_ARRAY;
    }
    for (int32_t i = 0; i < o->writer->num_column_options; i++) {
        int k = find_col(j->table, o->writer->columns[i].path);
        if (k < 0) continue;
        merge_column(&j->colopts[k], &o->writer->columns[i]);
        used[k] = true;
    }
    int32_t n = 0; /* the used entries, packed */
    for (int k = 0; k < td->num_cols; k++)
        if (used[k]) j->colopts[n++] = j->colopts[k];
    wo->columns = j->colopts;
    wo->num_column_options = n;
    return PLANK_OK;
}

/* ".<name>.plank-<pid>-<n>" beside the target, as the writer names its own. */
static plank_status open_tbl(tctx *c, tjob *j) {
    const plank_allocator *a = &c->g->alloc;
    const char *slash = strrchr(j->path, '/');
    size_t dir_len = slash ? (size_t)(slash - j->path) + 1 : 0;
    size_t n = strlen(j->path) + 48;
    j->tmp_path = pk_tpch_alloc(a, n);
    if (!j->tmp_path) return pk_tpch_fail(&c->err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory");
    for (int attempt = 0; attempt < 64; attempt++) {
        snprintf(j->tmp_path, n, "%.*s.%s.plank-%ld-%08x", (int)dir_len, j->path,
                 j->path + dir_len, (long)getpid(),
                 (unsigned)(((uintptr_t)j >> 4) ^ (uintptr_t)time(NULL) ^
                            ((unsigned)attempt * 2654435761u)));
        j->fd = open(j->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (j->fd >= 0) return PLANK_OK;
        if (errno != EEXIST) break;
    }
    plank_status st = pk_tpch_fail(&c->err, PLANK_ERR_IO, "tpch: create %s: %s", j->tmp_path,
                                   PK_STRERROR(errno));
    free_str(a, j->tmp_path);
    j->tmp_path = NULL;
    return st;
}

static plank_status write_all(int fd, const char *p, size_t n, const char *path,
                              plank_error *err) {
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return pk_tpch_fail(err, PLANK_ERR_IO, "tpch: write %s: %s", path, PK_STRERROR(errno));
        }
        p += k;
        n -= (size_t)k;
    }
    return PLANK_OK;
}

/* Splits the columns into up to `threads` groups of about equal encoding
 * cost (longest first onto the lightest group): free text weighs its
 * length, other strings and numbers a few bytes. */
static void make_groups(tjob *j, int threads) {
    const pk_tpch_tabledef *td = &pk_tpch_tables[j->table];
    int n = threads < td->num_cols ? threads : td->num_cols;
    if (n > PK_MAX_GROUPS) n = PK_MAX_GROUPS;
    if (n < 1) n = 1;
    j->ngroups = n;
    int weight[PK_TPCH_MAX_COLS], order[PK_TPCH_MAX_COLS], load[PK_MAX_GROUPS] = {0};
    for (int k = 0; k < td->num_cols; k++) {
        const pk_tpch_coldef *cd = &td->cols[k];
        weight[k] = cd->kind != PK_K_STR ? 4 : cd->free_text ? cd->max_len : 6;
        order[k] = k;
    }
    for (int a = 1; a < td->num_cols; a++) /* heaviest first, stable */
        for (int b = a; b > 0 && weight[order[b]] > weight[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int k = 0; k < td->num_cols; k++) {
        int best = 0;
        for (int gi = 1; gi < n; gi++)
            if (load[gi] < load[best]) best = gi;
        cgroup *cg = &j->grp[best];
        cg->cols[cg->ncols++] = order[k];
        load[best] += weight[order[k]];
    }
}

static plank_status job_open(tctx *c, tjob *j) {
    const plank_tpch_options *o = c->o;
    const plank_tpch *g = c->g;
    const char *name = pk_tpch_tables[j->table].name;
    j->fd = -1;
    for (int b = 0; b < PK_BUFS; b++) j->buf_chunk[b] = -1;
    j->path = dup_path(&g->alloc, c->dir, name, o->parts > 1 ? o->part : 0,
                       o->format == PLANK_TPCH_TBL ? "tbl" : "parquet");
    if (!j->path) return pk_tpch_fail(&c->err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory");
    /* dbgen -C parts -S part: equal shares, the remainder to the last part;
     * nation and region are not split (whole in part 1) */
    int64_t units = plank_tpch_units(g, j->table);
    if (j->table == PLANK_TPCH_NATION || j->table == PLANK_TPCH_REGION) {
        j->first = 0;
        j->units = o->part == 1 ? units : 0;
    } else {
        int64_t share = units / o->parts;
        j->first = share * (o->part - 1);
        j->units = o->part == o->parts ? units - j->first : share;
    }
    j->chunk = chunk_units(j->table);
    j->nchunks = (j->units + j->chunk - 1) / j->chunk;
    j->rows_est = j->units * (j->table == PLANK_TPCH_LINEITEM ? 4
                              : j->table == PLANK_TPCH_PARTSUPP ? 4 : 1);
    j->bufunits = j->units < j->chunk ? (j->units > 0 ? j->units : 1) : j->chunk;
    j->nbufs = j->nchunks < PK_BUFS ? (j->nchunks > 0 ? (int)j->nchunks : 1) : PK_BUFS;
    if (o->format == PLANK_TPCH_TBL) return open_tbl(c, j);
    plank_writer_options wo;
    plank_status st = job_writer_options(c, j, &wo);
    if (st) return st;
    int32_t nf;
    const plank_schema_field *f = plank_tpch_schema(g, j->table, &nf);
    j->rg_limit = wo.row_group_rows > 0 ? wo.row_group_rows : 1048576;
    make_groups(j, o->threads);
    return plank_writer_open_path(&j->w, j->path, f, nf, &wo, &c->err);
}

/* Frees a job's batches (none is in use: every chunk of it is written). */
static void job_free_bufs(tjob *j) {
    for (int b = 0; b < PK_BUFS; b++) {
        plank_tpch_batch_free(j->buf[b]);
        j->buf[b] = NULL;
    }
}

/* Finishes a table's file: the writer's close (renames), or close + rename.
 * Runs on a worker, outside the lock: errors go to the thread's own err
 * (work() copies it to c->err under the lock). */
static plank_status job_finish(tctx *c, tjob *j, plank_error *err) {
    job_free_bufs(j); /* for the tables still being written to reuse */
    if (c->o->format != PLANK_TPCH_TBL) {
        plank_writer *w = j->w;
        j->w = NULL;
        return plank_writer_close(w, err);
    }
    int fd = j->fd;
    j->fd = -1;
    if (close(fd) != 0)
        return pk_tpch_fail(err, PLANK_ERR_IO, "tpch: close %s: %s", j->tmp_path,
                            PK_STRERROR(errno));
    if (rename(j->tmp_path, j->path) != 0)
        return pk_tpch_fail(err, PLANK_ERR_IO, "tpch: rename %s to %s: %s", j->tmp_path,
                            j->path, PK_STRERROR(errno));
    free_str(&c->g->alloc, j->tmp_path);
    j->tmp_path = NULL;
    return PLANK_OK;
}

/* Frees what a job holds; an unfinished file is removed. */
static void job_release(tctx *c, tjob *j) {
    const plank_allocator *a = &c->g->alloc;
    if (j->w) plank_writer_abort(j->w);
    j->w = NULL;
    if (j->fd >= 0) close(j->fd);
    j->fd = -1;
    if (j->tmp_path) unlink(j->tmp_path);
    free_str(a, j->tmp_path);
    free_str(a, j->path);
    job_free_bufs(j);
    if (j->colopts)
        pk_tpch_free(a, j->colopts,
                     sizeof(plank_column_options) * (size_t)pk_tpch_tables[j->table].num_cols);
}

typedef enum { T_NONE, T_GEN, T_WRITE, T_COLS, T_END_RG, T_FINISH } task_kind;

typedef struct task {
    task_kind kind;
    tjob *j;
    int buf;
    int64_t chunk;
    int grp;
    int64_t r0, r1; /* T_COLS: rows of the chunk */
} task;

static int find_buf(const tjob *j, int64_t chunk) {
    for (int b = 0; b < PK_BUFS; b++)
        if (j->buf_chunk[b] == chunk && j->buf_ready[b]) return b;
    return -1;
}

/* A Parquet table's next write, row group end or close; T_NONE if none. */
static task pick_parquet(tjob *j) {
    task t = {T_NONE, j, -1, -1, -1, 0, 0};
    bool busy = false, at_end = true, at_boundary = true;
    for (int gi = 0; gi < j->ngroups; gi++) {
        const cgroup *cg = &j->grp[gi];
        busy |= cg->busy;
        at_end &= cg->chunk == j->nchunks;
        at_boundary &= cg->rg_rows == j->rg_limit;
    }
    if (!busy && !j->writing) {
        if (at_boundary) {
            t.kind = T_END_RG;
            j->writing = true;
            return t;
        }
        if (at_end) {
            t.kind = T_FINISH;
            j->writing = true;
            return t;
        }
    }
    if (j->writing) return t; /* a row group end or the close is running */
    for (int gi = 0; gi < j->ngroups; gi++) {
        cgroup *cg = &j->grp[gi];
        if (cg->busy || cg->chunk == j->nchunks || cg->rg_rows == j->rg_limit) continue;
        int b = find_buf(j, cg->chunk);
        if (b < 0) continue;
        int64_t n = plank_tpch_batch_rows(j->buf[b]);
        int64_t r1 = n - cg->row < j->rg_limit - cg->rg_rows ? n : cg->row + j->rg_limit - cg->rg_rows;
        t.kind = T_COLS;
        t.buf = b;
        t.chunk = cg->chunk;
        t.grp = gi;
        t.r0 = cg->row;
        t.r1 = r1;
        cg->busy = true;
        return t;
    }
    return t;
}

/* Picks a task under the lock; T_NONE when nothing can run now. */
static task pick_task(tctx *c) {
    task t = {T_NONE, NULL, -1, -1, -1, 0, 0};
    bool tbl = c->o->format == PLANK_TPCH_TBL;
    /* 1. a write, row group end or close that can run */
    for (int i = 0; i < c->njobs; i++) {
        tjob *j = &c->job[i];
        if (j->done) continue;
        if (!tbl) {
            t = pick_parquet(j);
            if (t.kind != T_NONE) return t;
            continue;
        }
        if (j->writing) continue;
        if (j->next_write == j->nchunks) {
            t.kind = T_FINISH;
            t.j = j;
            j->writing = true;
            return t;
        }
        int b = find_buf(j, j->next_write);
        if (b >= 0) {
            t.kind = T_WRITE;
            t.j = j;
            t.buf = b;
            t.chunk = j->next_write;
            j->writing = true;
            return t;
        }
    }
    /* 2. the next generation of the table with the fewest chunks ahead */
    tjob *best = NULL;
    int best_buf = -1;
    int64_t best_ahead = 0;
    for (int i = 0; i < c->njobs; i++) {
        tjob *j = &c->job[i];
        if (j->done || j->follower || j->next_gen == j->nchunks) continue;
        /* a free slot, one whose batch exists first (a slot not yet used
         * costs a batch of fresh memory) */
        int free_buf = -1;
        for (int b = 0; b < j->nbufs; b++)
            if (j->buf_chunk[b] < 0 && (!j->partner || j->partner->buf_chunk[b] < 0) &&
                (free_buf < 0 || (j->buf[b] && !j->buf[free_buf])))
                free_buf = b;
        if (free_buf < 0) continue;
        int64_t ahead = j->next_gen - j->next_write;
        if (!best || ahead < best_ahead) {
            best = j;
            best_buf = free_buf;
            best_ahead = ahead;
        }
    }
    if (best) {
        t.kind = T_GEN;
        t.j = best;
        t.buf = best_buf;
        t.chunk = best->next_gen++;
        best->buf_chunk[best_buf] = t.chunk;
        best->buf_ready[best_buf] = false;
        if (best->partner) {
            best->partner->buf_chunk[best_buf] = t.chunk;
            best->partner->buf_ready[best_buf] = false;
            best->partner->next_gen = best->next_gen;
        }
    }
    return t;
}

static bool all_done(const tctx *c) {
    for (int i = 0; i < c->njobs; i++)
        if (!c->job[i].done) return false;
    return true;
}

/* Rows [r0, r1) of batch column `in`. */
static plank_batch slice(const plank_batch *in, int64_t r0, int64_t r1) {
    plank_batch b = *in;
    b.length = r1 - r0;
    if (in->offsets) b.offsets = in->offsets + r0;
    else b.values = (const uint8_t *)in->values + r0 * in->value_width;
    return b;
}

static plank_status run_task(tctx *c, const task *t, plank_error *err) {
    tjob *j = t->j;
    switch (t->kind) {
    case T_FINISH: return job_finish(c, j, err);
    case T_END_RG: return plank_writer_end_row_group(j->w, err);
    case T_GEN: {
        int64_t first = t->chunk * j->chunk;
        int64_t n = j->units - first < j->chunk ? j->units - first : j->chunk;
        plank_status st = PLANK_OK;
        /* the slot's batches, made on first use (the partner's at the same
         * slot too); this task holds the slot, so no other thread looks at it */
        if (!j->buf[t->buf])
            st = plank_tpch_batch_new(&j->buf[t->buf], c->g, j->table, j->bufunits, err);
        if (st == PLANK_OK && j->partner && !j->partner->buf[t->buf])
            st = plank_tpch_batch_new(&j->partner->buf[t->buf], c->g, j->partner->table,
                                      j->partner->bufunits, err);
        if (st == PLANK_OK && j->partner)
            st = pk_tpch_generate_orders_lines(j->partner->buf[t->buf], j->buf[t->buf],
                                               j->first + first, n, err);
        else if (st == PLANK_OK)
            st = plank_tpch_generate(j->buf[t->buf], j->first + first, n, err);
        /* .tbl: the text is made here, where chunks run in parallel; the
         * write, which must go in order, only appends it */
        if (st == PLANK_OK && c->o->format == PLANK_TPCH_TBL) {
            const char *text;
            size_t len;
            st = plank_tpch_batch_tbl(j->buf[t->buf], &text, &len, err);
            if (st == PLANK_OK && j->partner)
                st = plank_tpch_batch_tbl(j->partner->buf[t->buf], &text, &len, err);
        }
        return st;
    }
    case T_COLS: {
        const cgroup *cg = &j->grp[t->grp];
        for (int k = 0; k < cg->ncols; k++) {
            plank_batch b = slice(plank_tpch_batch_column(j->buf[t->buf], cg->cols[k]), t->r0,
                                  t->r1);
            plank_status st = plank_writer_write_column(j->w, cg->cols[k], &b, err);
            if (st) return st;
        }
        return PLANK_OK;
    }
    case T_WRITE: {
        const char *text;
        size_t len;
        plank_status st = plank_tpch_batch_tbl(j->buf[t->buf], &text, &len, err);
        return st ? st : write_all(j->fd, text, len, j->tmp_path, err);
    }
    default: return PLANK_OK;
    }
}

/* Frees the buffers of chunks every column group has passed. */
static void release_passed(tjob *j) {
    int64_t low = j->nchunks;
    for (int gi = 0; gi < j->ngroups; gi++)
        if (j->grp[gi].chunk < low) low = j->grp[gi].chunk;
    for (int b = 0; b < PK_BUFS; b++)
        if (j->buf_chunk[b] >= 0 && j->buf_chunk[b] < low && j->buf_ready[b]) {
            j->buf_chunk[b] = -1;
            j->buf_ready[b] = false;
        }
    j->next_write = low;
}

/* Records a finished task under the lock. */
static void task_done(tctx *c, const task *t) {
    tjob *j = t->j;
    switch (t->kind) {
    case T_GEN:
        j->buf_ready[t->buf] = true;
        if (j->partner) j->partner->buf_ready[t->buf] = true;
        break;
    case T_WRITE:
        c->rows_done += plank_tpch_batch_rows(j->buf[t->buf]);
        j->buf_chunk[t->buf] = -1;
        j->buf_ready[t->buf] = false;
        j->next_write++;
        j->writing = false;
        break;
    case T_COLS: {
        cgroup *cg = &j->grp[t->grp];
        int64_t n = plank_tpch_batch_rows(j->buf[t->buf]);
        cg->busy = false;
        cg->rg_rows += t->r1 - t->r0;
        cg->row = t->r1;
        if (t->grp == 0) c->rows_done += t->r1 - t->r0;
        if (cg->row == n) {
            cg->chunk++;
            cg->row = 0;
            release_passed(j);
        }
        break;
    }
    case T_END_RG:
        for (int gi = 0; gi < j->ngroups; gi++) j->grp[gi].rg_rows = 0;
        j->writing = false;
        break;
    case T_FINISH:
        j->done = true;
        j->writing = false;
        break;
    default: break;
    }
}

/* The loop every thread runs until all tables are written or one fails. */
static void work(tctx *c, bool caller) {
    plank_error err;
    plank_error_init(&err);
    pthread_mutex_lock(&c->mu);
    for (;;) {
        if (c->failed || all_done(c)) break;
        task t = pick_task(c);
        if (t.kind == T_NONE) {
            pthread_cond_wait(&c->cv, &c->mu);
            continue;
        }
        pthread_mutex_unlock(&c->mu);
        plank_status st = run_task(c, &t, &err);
        pthread_mutex_lock(&c->mu);
        if (st != PLANK_OK) {
            if (!c->failed) {
                c->failed = true;
                c->err = err;
                c->err.code = st;
            }
            pthread_cond_broadcast(&c->cv);
            break;
        }
        task_done(c, &t);
        pthread_cond_broadcast(&c->cv);
        if (caller && c->o->progress && (t.kind == T_WRITE || t.kind == T_COLS)) {
            int64_t done = c->rows_done, total = c->rows_total;
            pthread_mutex_unlock(&c->mu);
            c->o->progress(c->o->progress_opaque, done, total);
            pthread_mutex_lock(&c->mu);
        }
    }
    pthread_mutex_unlock(&c->mu);
}

static void *worker_main(void *arg) {
    work(arg, false);
    return NULL;
}

/* The caller's options, their writer options and those's column options in
 * this build's layouts (c->o, c->wopt, c->wcols). */
static plank_status load_options(tctx *c, const plank_tpch_options *given, plank_error *err) {
    plank_tpch_options_init(&c->opt);
    plank_writer_options_init(&c->wopt);
    c->o = &c->opt;
    plank_status st = pk_struct_read(&c->opt, given, &pk_layout_tpch_options, err);
    if (st == PLANK_OK && c->opt.writer)
        st = pk_struct_read(&c->wopt, c->opt.writer, &pk_layout_writer_options, err);
    c->opt.writer = &c->wopt;
    if (st != PLANK_OK) return st;
    int32_t n = c->wopt.num_column_options;
    if (n <= 0) {
        c->wopt.columns = NULL;
        c->wopt.num_column_options = 0;
        return PLANK_OK;
    }
    if (!c->wopt.columns)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: NULL column options");
    size_t stride;
    st = pk_struct_stride(c->wopt.columns, n, &pk_layout_column_options, &stride, err);
    if (st != PLANK_OK) return st;
    c->wcols = pk_tpch_alloc(&c->g->alloc, sizeof *c->wcols * (size_t)n);
    if (!c->wcols) return pk_tpch_fail(err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory");
    for (int32_t i = 0; i < n; i++) {
        plank_column_options_init(&c->wcols[i]);
        st = pk_struct_read(&c->wcols[i], pk_struct_at(c->wopt.columns, stride, i),
                            &pk_layout_column_options, err);
        if (st != PLANK_OK) return st;
    }
    c->wopt.columns = c->wcols;
    return PLANK_OK;
}

static void ctx_free(tctx *c) {
    if (c->wcols)
        pk_tpch_free(&c->g->alloc, c->wcols,
                     sizeof *c->wcols * (size_t)c->wopt.num_column_options);
    pk_tpch_free(&c->g->alloc, c, sizeof *c);
}

/* The options' values, checked before anything is opened. */
static plank_status check_options(const plank_tpch_options *o, plank_error *err) {
    if (o->parts < 1 || o->part < 1 || o->part > o->parts)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT,
                            "tpch: part %d outside 1..%d", o->part, o->parts);
    if (o->threads < 1 || o->threads > 1024)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: %d threads", o->threads);
    if (o->format != PLANK_TPCH_PARQUET && o->format != PLANK_TPCH_TBL)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: unknown format %d",
                            (int)o->format);
    uint32_t tables = o->tables ? o->tables : (1u << PLANK_TPCH_NUM_TABLES) - 1;
    if (tables >> PLANK_TPCH_NUM_TABLES)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: table mask 0x%x", tables);
    for (int32_t i = 0; i < o->writer->num_column_options; i++) {
        const char *path = o->writer->columns ? o->writer->columns[i].path : NULL;
        bool found = false;
        for (int t = 0; t < PLANK_TPCH_NUM_TABLES && !found; t++)
            found = (tables & (1u << t)) && find_col((plank_tpch_table)t, path) >= 0;
        if (!found)
            return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT,
                                "tpch: column options name '%s', a column of none of the tables "
                                "written", path ? path : "(null)");
    }
    return PLANK_OK;
}

plank_status plank_tpch_write(const plank_tpch *g, const char *dir,
                              const plank_tpch_options *given, plank_error *err) {
    if (err) plank_error_init(err);
    if (!g || !dir || !given)
        return pk_tpch_fail(err, PLANK_ERR_INVALID_ARGUMENT, "tpch: NULL argument");
    tctx *c = pk_tpch_alloc(&g->alloc, sizeof *c);
    if (!c) return pk_tpch_fail(err, PLANK_ERR_OUT_OF_MEMORY, "tpch: out of memory");
    memset(c, 0, sizeof *c);
    c->g = g;
    plank_status lst = load_options(c, given, err);
    if (lst != PLANK_OK) {
        ctx_free(c);
        return lst;
    }
    const plank_tpch_options *o = c->o;
    plank_status vst = check_options(o, err);
    if (vst != PLANK_OK) {
        ctx_free(c);
        return vst;
    }
    uint32_t tables = o->tables ? o->tables : (1u << PLANK_TPCH_NUM_TABLES) - 1;
    c->dir = dir;
    plank_error_init(&c->err);
    plank_status st = PLANK_OK;
    for (int i = 0; i < PLANK_TPCH_NUM_TABLES; i++) {
        plank_tpch_table t = order_pref[i];
        if (!(tables & (1u << t))) continue;
        tjob *j = &c->job[c->njobs++];
        j->table = t;
        st = job_open(c, j);
        if (st) {
            c->err.code = st;
            break;
        }
        c->rows_total += j->rows_est;
    }
    tjob *orders = NULL, *lines = NULL;
    for (int i = 0; i < c->njobs; i++) {
        if (c->job[i].table == PLANK_TPCH_ORDERS) orders = &c->job[i];
        if (c->job[i].table == PLANK_TPCH_LINEITEM) lines = &c->job[i];
    }
    if (st == PLANK_OK && orders && lines && orders->nchunks == lines->nchunks &&
        orders->chunk == lines->chunk && orders->first == lines->first) {
        lines->partner = orders;
        orders->follower = true;
    }
    int started = 0;
    pthread_t th[1024];
    if (st == PLANK_OK) {
        pthread_mutex_init(&c->mu, NULL);
        pthread_cond_init(&c->cv, NULL);
        for (int i = 1; i < o->threads; i++) {
            if (pthread_create(&th[started], NULL, worker_main, c) != 0) break;
            started++;
        }
        work(c, true);
        for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
        pthread_cond_destroy(&c->cv);
        pthread_mutex_destroy(&c->mu);
        if (c->failed) st = c->err.code ? c->err.code : PLANK_ERR_IO;
    }
    if (st != PLANK_OK && err) *err = c->err;
    if (err && st != PLANK_OK) err->code = st;
    for (int i = 0; i < c->njobs; i++) job_release(c, &c->job[i]);
    ctx_free(c);
    return st;
}
