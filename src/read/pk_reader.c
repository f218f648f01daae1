/*
 * pk_reader.c: opening a Parquet file (path, callbacks or memory), the
 * footer, the schema tree and metadata access.
 *
 * Layout of a file: "PAR1" <column chunks...> <FileMetaData> <u32 LE footer
 * length> "PAR1". Files with an encrypted footer end in "PARE" instead.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#include "pk_read.h"
#include "../common/pk_struct.h"
#include "../remote/pk_remote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Sources -------------------------------------------------------------- */

typedef struct fd_source {
    int fd;
    plank_allocator alloc;
} fd_source;

static plank_status fd_read_at(void *opaque, uint64_t offset, void *buf, size_t len,
                               size_t *bytes_read) {
    fd_source *s = opaque;
    for (;;) {
        ssize_t n = pread(s->fd, buf, len, (off_t)offset);
        if (n >= 0) {
            *bytes_read = (size_t)n;
            return PLANK_OK;
        }
        if (errno != EINTR) return PLANK_ERR_IO;
    }
}

static void fd_close(void *opaque) {
    fd_source *s = opaque;
    close(s->fd);
    plank_allocator a = s->alloc;
    pk_free(&a, s, sizeof *s);
}

typedef struct mem_source {
    const uint8_t *data;
} mem_source;

static plank_status mem_read_at(void *opaque, uint64_t offset, void *buf, size_t len,
                                size_t *bytes_read) {
    const uint8_t *data = opaque;
    memcpy(buf, data + offset, len);
    *bytes_read = len;
    return PLANK_OK;
}

plank_status pk_reader_read_at(const plank_reader *r, uint64_t offset, void *buf, size_t len,
                               plank_error *err) {
    uint64_t end;
    if (pk_add_overflow_u64(offset, len, &end) || end > r->file_size) {
        pk_error_set(err, PLANK_ERR_CORRUPT,
                     "range of %zu bytes at offset %llu is outside the file (%llu bytes)", len,
                     (unsigned long long)offset, (unsigned long long)r->file_size);
        pk_error_locate(err, (int64_t)offset, -1, -1, -1);
        return PLANK_ERR_CORRUPT;
    }
    if (r->remote) {
        plank_status st = pk_remote_read(r->remote, offset, buf, len, err);
        if (st != PLANK_OK) {
            pk_error_prefix(err, "reading %zu bytes at offset %llu", len,
                            (unsigned long long)offset);
            pk_error_locate(err, (int64_t)offset, -1, -1, -1);
        }
        return st;
    }
    plank_reader *rw = (plank_reader *)r; /* the counters are the only thing written */
    atomic_fetch_add_explicit(&rw->io_bytes, len, memory_order_relaxed);
    uint8_t *p = buf;
    size_t done = 0;
    while (done < len) {
        size_t n = 0;
        atomic_fetch_add_explicit(&rw->io_reads, 1, memory_order_relaxed);
        plank_status st = r->src.read_at(r->src.opaque, offset + done, p + done, len - done, &n);
        const char *why = "the source returned an error";
        if (st == PLANK_OK && n == 0) {
            st = PLANK_ERR_IO;
            why = "unexpected end of data";
        } else if (st == PLANK_OK && n > len - done) {
            st = PLANK_ERR_IO;
            why = "the source returned more bytes than asked";
        }
        if (st != PLANK_OK) {
            pk_error_set(err, st, "reading %zu bytes at offset %llu: %s after %zu bytes", len,
                         (unsigned long long)offset, why, done);
            pk_error_locate(err, (int64_t)(offset + done), -1, -1, -1);
            return st;
        }
        done += n;
    }
    return PLANK_OK;
}

/* ---- Options ---------------------------------------------------------------- */

void plank_reader_options_init(plank_reader_options *opts) {
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    opts->struct_size = sizeof *opts;
    opts->verify_checksums = true;
}

/* The caller's options (NULL: defaults) as this build's struct. */
static plank_status load_options(plank_reader_options *o, const plank_reader_options *given,
                                 plank_error *err) {
    plank_reader_options_init(o);
    return given ? pk_struct_read(o, given, &pk_layout_reader_options, err) : PLANK_OK;
}

/* ---- Schema ------------------------------------------------------------------- */

static plank_status build_schema(plank_reader *r, plank_error *err) {
    PK_FORWARD(pk_schema_tree_build(r->md.schema, r->md.num_schema, &r->arena, &r->nodes,
                                    &r->num_columns, &r->leaf_nodes, err));
    r->num_nodes = r->md.num_schema;
    r->selected = pk_arena_alloc(&r->arena, (size_t)r->num_columns + 1);
    if (!r->selected) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    return PLANK_OK;
}

/* Checks every row group against the schema and names the chunks. */
static plank_status check_row_groups(plank_reader *r, plank_error *err) {
    pk_file_metadata *md = &r->md;
    if (md->num_rows < 0) return PK_CORRUPT(err, "footer: negative num_rows %lld",
                                            (long long)md->num_rows);
    for (int32_t g = 0; g < md->num_row_groups; g++) {
        pk_row_group *rg = &md->row_groups[g];
        if (rg->num_columns != r->num_columns) {
            pk_error_set(err, PLANK_ERR_CORRUPT,
                         "row group %d has %d column chunks but the schema has %d leaf columns",
                         (int)g, (int)rg->num_columns, (int)r->num_columns);
            pk_error_locate(err, -1, g, -1, -1);
            return PLANK_ERR_CORRUPT;
        }
        if (rg->info.num_rows < 0) {
            pk_error_set(err, PLANK_ERR_CORRUPT, "row group %d: negative num_rows", (int)g);
            pk_error_locate(err, -1, g, -1, -1);
            return PLANK_ERR_CORRUPT;
        }
        for (int32_t c = 0; c < rg->num_columns; c++) {
            plank_column_chunk_info *cc = &rg->columns[c];
            const plank_schema_node *n = &r->nodes[r->leaf_nodes[c]];
            cc->column = c;
            cc->path = n->path;
        }
    }
    return PLANK_OK;
}

/* ---- Open / close ---------------------------------------------------------------- */

static plank_status open_common(plank_reader *r, const plank_reader_options *opts,
                                plank_error *err) {
    if (r->file_size < 12)
        return PK_CORRUPT(err, "file of %llu bytes is too small to be Parquet (at least 12)",
                          (unsigned long long)r->file_size);
    uint8_t tail[8], head[4];
    PK_FORWARD(pk_reader_read_at(r, r->file_size - 8, tail, 8, err));
    PK_FORWARD(pk_reader_read_at(r, 0, head, 4, err));
    if (memcmp(tail + 4, "PARE", 4) == 0)
        return pk_error_set(err, PLANK_ERR_ENCRYPTED,
                            "file has an encrypted footer (PARE); encryption is not supported yet");
    if (memcmp(tail + 4, "PAR1", 4) != 0) {
        pk_error_set(err, PLANK_ERR_CORRUPT, "missing PAR1 magic at the end of the file");
        pk_error_locate(err, (int64_t)r->file_size - 4, -1, -1, -1);
        return PLANK_ERR_CORRUPT;
    }
    if (memcmp(head, "PAR1", 4) != 0 && memcmp(head, "PARE", 4) != 0) {
        pk_error_set(err, PLANK_ERR_CORRUPT, "missing PAR1 magic at the start of the file");
        pk_error_locate(err, 0, -1, -1, -1);
        return PLANK_ERR_CORRUPT;
    }
    uint32_t flen = pk_load_u32(tail);
    uint64_t max_footer = opts && opts->max_footer_size ? opts->max_footer_size
                                                         : PK_DEFAULT_MAX_FOOTER;
    if ((uint64_t)flen > r->file_size - 12) {
        pk_error_set(err, PLANK_ERR_CORRUPT,
                     "footer length %u is larger than the file allows (%llu bytes)", flen,
                     (unsigned long long)(r->file_size - 12));
        pk_error_locate(err, (int64_t)r->file_size - 8, -1, -1, -1);
        return PLANK_ERR_CORRUPT;
    }
    if (flen > max_footer)
        return pk_error_set(err, PLANK_ERR_LIMIT, "footer of %u bytes exceeds the limit of %llu",
                            flen, (unsigned long long)max_footer);
    r->footer_len = flen;
    uint64_t foff = r->file_size - 8 - flen;
    const uint8_t *fbuf;
    uint8_t *owned = NULL;
    if (r->mem) {
        fbuf = r->mem + foff;
    } else {
        owned = pk_malloc(&r->alloc, flen ? flen : 1);
        if (!owned) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory for footer");
        plank_status st = pk_reader_read_at(r, foff, owned, flen, err);
        if (st != PLANK_OK) {
            pk_free(&r->alloc, owned, flen ? flen : 1);
            return st;
        }
        fbuf = owned;
    }
    int32_t max_cols = opts && opts->max_columns > 0 ? opts->max_columns : PK_DEFAULT_MAX_COLUMNS;
    int32_t max_rgs = opts && opts->max_row_groups > 0 ? opts->max_row_groups
                                                       : PK_DEFAULT_MAX_ROW_GROUPS;
    /* The counts are bounded while decoding, before their lists are allocated. */
    plank_status st = pk_thrift_read_file_metadata_limited(fbuf, flen, &r->alloc, max_cols,
                                                           max_rgs, &r->md, err);
    pk_free(&r->alloc, owned, flen ? flen : 1);
    if (st != PLANK_OK) {
        if (err && err->byte_offset >= 0) err->byte_offset += (int64_t)foff;
        pk_error_prefix(err, "footer");
        return st;
    }
    r->md_loaded = true;
    /* Checked while decoding already; kept as the documented contract. */
    PK_RETURN_IF(r->md.num_schema > max_cols, err, PLANK_ERR_LIMIT,
                 "footer has %d schema elements, above the limit of %d columns",
                 (int)r->md.num_schema, (int)max_cols);
    PK_RETURN_IF(r->md.num_row_groups > max_rgs, err, PLANK_ERR_LIMIT,
                 "footer has %d row groups, above the limit of %d", (int)r->md.num_row_groups,
                 (int)max_rgs);
    PK_FORWARD(build_schema(r, err));
    PK_FORWARD(check_row_groups(r, err));
    if (opts && opts->columns && opts->num_columns > 0) {
        for (int32_t i = 0; i < opts->num_columns; i++) {
            int32_t c = opts->columns[i];
            if (c < 0 || c >= r->num_columns)
                return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                    "selected column %d does not exist (file has %d)", (int)c,
                                    (int)r->num_columns);
            r->selected[c] = true;
        }
    } else {
        for (int32_t i = 0; i < r->num_columns; i++) r->selected[i] = true;
    }
    return PLANK_OK;
}

static plank_status reader_new(plank_reader **out, const plank_reader_options *opts,
                               plank_error *err) {
    const plank_allocator *a = opts && opts->allocator ? opts->allocator : pk_default_allocator();
    plank_reader *r = pk_calloc(a, sizeof *r);
    if (!r) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    r->alloc = *a;
    r->default_alloc = !(opts && opts->allocator);
    atomic_init(&r->refs, 1);
    pk_arena_init(&r->arena, &r->alloc);
    r->verify_checksums = opts ? opts->verify_checksums : true;
    r->max_page_size = opts && opts->max_page_size ? opts->max_page_size : PK_DEFAULT_MAX_PAGE;
    pk_cpu cpu;
    pk_cpu_detect(&cpu);
    r->kernels = pk_kernels_for_cpu(&cpu);
    r->max_dictionary_size = opts && opts->max_dictionary_size ? opts->max_dictionary_size
                                                               : PK_DEFAULT_MAX_DICTIONARY;
    r->max_chunk_buffer = opts && opts->max_chunk_buffer ? opts->max_chunk_buffer
                                                         : PK_DEFAULT_MAX_CHUNK_BUFFER;
    r->read_window = opts && opts->read_window ? opts->read_window : pk_env_read_window();
    if (!r->read_window) r->read_window = PK_DEFAULT_READ_WINDOW;
    if (r->read_window > ((uint64_t)1 << 40)) r->read_window = (uint64_t)1 << 40;
    /* 64 blocks: a few windows for each of a dozen or two columns */
    r->pool = pk_bufpool_new(&r->alloc, (size_t)64 << 20, 64);
    if (!r->pool) {
        pk_free(&r->alloc, r, sizeof *r);
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    pk_bufpool_allocator(r->pool, &r->pool_alloc);
    *out = r;
    return PLANK_OK;
}

static plank_status finish_open(plank_reader *r, plank_reader **out,
                                const plank_reader_options *opts, plank_error *err) {
    plank_status st = open_common(r, opts, err);
    if (st != PLANK_OK) {
        plank_reader_close(r);
        *out = NULL;
        return st;
    }
    *out = r;
    return PLANK_OK;
}

plank_status plank_reader_open_source(plank_reader **out, const plank_source *source,
                                      const plank_reader_options *given, plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!source) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL source");
    /* The source is read by its layout before anything else, so that even a
     * refused call can close it. */
    plank_source src = {sizeof src, NULL, NULL, 0, NULL, NULL};
    plank_status st = pk_struct_read(&src, source, &pk_layout_source, err);
    if (st != PLANK_OK) return st; /* its close callback cannot be trusted either */
    plank_reader_options o;
    const plank_reader_options *opts = &o;
    st = load_options(&o, given, err);
    if (st == PLANK_OK && (!out || !src.read_at))
        st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL reader or read_at callback");
    plank_reader *r = NULL;
    if (st == PLANK_OK) st = reader_new(&r, opts, err);
    if (st != PLANK_OK) {
        if (src.close) src.close(src.opaque);
        return st;
    }
    r->src = src;
    r->src_open = true;
    r->file_size = source->size;
    r->hints = src.prefetch != NULL;
    return finish_open(r, out, opts, err);
}

plank_status plank_reader_open_memory(plank_reader **out, const void *data, size_t size,
                                      const plank_reader_options *given, plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!out || (!data && size))
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL reader or data");
    plank_reader_options o;
    const plank_reader_options *opts = &o;
    PK_FORWARD(load_options(&o, given, err));
    plank_reader *r = NULL;
    PK_FORWARD(reader_new(&r, opts, err));
    r->src.read_at = mem_read_at;
    r->src.opaque = (void *)data;
    r->src.size = size;
    r->mem = data;
    r->file_size = size;
    r->own_source = true;
    return finish_open(r, out, opts, err);
}

void pk_reader_map_populate(const plank_reader *r, const uint8_t *p, size_t len) {
#if defined(__linux__)
    /* MADV_POPULATE_READ (Linux 5.14); older kernels refuse it, which only
     * leaves the faults. */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
    if (!r->map || len == 0) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)p & ~(page - 1);
    (void)madvise((void *)a, (size_t)((uintptr_t)p + len - a), MADV_POPULATE_READ);
#else
    (void)r;
    (void)p;
    (void)len;
#endif
}

static void unmap_file(void *ctx, void *data, size_t size) {
    (void)ctx;
    munmap(data, size);
}

plank_status plank_reader_open_path(plank_reader **out, const char *path,
                                    const plank_reader_options *given, plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!out || !path) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL reader or path");
    plank_reader_options o;
    const plank_reader_options *opts = &o;
    PK_FORWARD(load_options(&o, given, err));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pk_error_set(err, PLANK_ERR_IO, "cannot open: %s", PK_STRERROR(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pk_error_set(err, PLANK_ERR_IO, "not a regular file");
    }
    const plank_allocator *a = opts && opts->allocator ? opts->allocator : pk_default_allocator();
    if (opts && opts->memory_map && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            close(fd); /* the mapping stays valid */
            pk_shared *blk = pk_shared_wrap(a, m, (size_t)st.st_size, unmap_file, NULL);
            if (!blk) {
                munmap(m, (size_t)st.st_size);
                return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            }
            plank_reader *r = NULL;
            plank_status rs = reader_new(&r, opts, err);
            if (rs != PLANK_OK) {
                pk_shared_release(blk);
                return rs;
            }
            r->src.read_at = mem_read_at;
            r->src.opaque = m;
            r->src.size = (uint64_t)st.st_size;
            r->mem = m;
            r->map = blk;
            r->file_size = (uint64_t)st.st_size;
            r->own_source = true;
            return finish_open(r, out, opts, err);
        }
        /* no mapping (a special file system): read as usual */
    }
    fd_source *s = pk_malloc(a, sizeof *s);
    if (!s) {
        close(fd);
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    s->fd = fd;
    s->alloc = *a;
    plank_source src = {sizeof src, fd_read_at, fd_close, (uint64_t)st.st_size, s, NULL};
    plank_status rs = plank_reader_open_source(out, &src, opts, err);
    if (rs == PLANK_OK) (*out)->own_source = true; /* pread is thread-safe */
    return rs;
}

/* The source of a remote reader: the reader calls pk_remote directly
 * (for its messages and hints); read_at serves nothing else. */
static plank_status remote_read_at(void *opaque, uint64_t offset, void *buf, size_t len,
                                   size_t *bytes_read) {
    plank_status st = pk_remote_read(opaque, offset, buf, len, NULL);
    *bytes_read = st == PLANK_OK ? len : 0;
    return st;
}

plank_status plank_reader_open_url(plank_reader **out, const char *url,
                                   const plank_remote_options *ropts,
                                   const plank_reader_options *given, plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!out || !url) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL reader or url");
    if (!plank_is_url(url)) {
        const char *path = strncmp(url, "file://", 7) == 0 ? url + 7 : url;
        return plank_reader_open_path(out, path, given, err);
    }
    plank_remote_options ro;
    pk_remote_options_default(&ro);
    if (ropts) PK_FORWARD(pk_struct_read(&ro, ropts, &pk_layout_remote_options, err));
    plank_reader_options o;
    const plank_reader_options *opts = &o;
    PK_FORWARD(load_options(&o, given, err));
    const plank_allocator *a = opts->allocator ? opts->allocator : pk_default_allocator();
    pk_remote *rm = NULL;
    PK_FORWARD(pk_remote_open(&rm, url, &ro, a, err));
    plank_reader *r = NULL;
    plank_status st = reader_new(&r, opts, err);
    if (st != PLANK_OK) {
        pk_remote_close(rm);
        return st;
    }
    r->remote = rm;
    r->hints = true;
    r->src.read_at = remote_read_at;
    r->src.opaque = rm;
    r->src.size = pk_remote_size(rm);
    r->file_size = r->src.size;
    r->own_source = true; /* thread-safe */
    return finish_open(r, out, opts, err);
}

plank_status plank_reader_io_stats(const plank_reader *r, plank_io_stats *out, plank_error *err) {
    plank_error_init(err);
    if (!r || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL reader or output");
    plank_io_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    if (r->remote) {
        pk_remote_stats(r->remote, &s);
    } else {
        s.requests = atomic_load_explicit(&r->io_reads, memory_order_relaxed);
        s.bytes = atomic_load_explicit(&r->io_bytes, memory_order_relaxed);
    }
    return pk_struct_write(out, &s, &pk_layout_io_stats, err);
}

void pk_reader_prefetch(const plank_reader *r, const pk_byte_range *ranges, size_t n) {
    if (!r || n == 0) return;
    if (r->remote) pk_remote_prefetch(r->remote, ranges, n);
    else if (r->src.prefetch) r->src.prefetch(r->src.opaque, ranges, n);
}

int32_t pk_reader_read_threads(const plank_reader *r, const plank_arrow_options *o) {
    int32_t t = o->threads;
    if (t == 0 && o->executor) {
        plank_executor ex;
        memset(&ex, 0, sizeof ex);
        ex.struct_size = sizeof ex;
        if (pk_struct_read(&ex, o->executor, &pk_layout_executor, NULL) == PLANK_OK)
            t = ex.threads;
    }
    if (t == 0) t = r->default_alloc && r->own_source ? pk_cpu_count() : 1;
    return t < 1 ? 1 : t > 1024 ? 1024 : t;
}

void pk_reader_retain(plank_reader *r) {
    atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}

void plank_reader_close(plank_reader *r) { pk_reader_release(r); }

void pk_reader_release(plank_reader *r) {
    if (!r) return;
    /* acq_rel: every owner's use of the reader happens before the free. */
    if (atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1) return;
    if (r->md_loaded) pk_file_metadata_free(&r->md);
    pk_arena_reset(&r->arena);
    if (r->src_open && r->src.close) r->src.close(r->src.opaque);
    pk_remote_close(r->remote);
    pk_shared_release(r->map); /* zero-copy arrays may keep the mapping */
    pk_bufpool_close(r->pool); /* blocks still out keep it until they return */
    plank_allocator a = r->alloc;
    pk_free(&a, r, sizeof *r);
}

/* ---- Accessors ---------------------------------------------------------------------- */

int64_t plank_reader_num_rows(const plank_reader *r) { return r->md.num_rows; }
int32_t plank_reader_num_row_groups(const plank_reader *r) { return r->md.num_row_groups; }
int32_t plank_reader_num_columns(const plank_reader *r) { return r->num_columns; }
int32_t plank_reader_format_version(const plank_reader *r) { return r->md.version; }
const char *plank_reader_created_by(const plank_reader *r) { return r->md.created_by; }
uint64_t plank_reader_file_size(const plank_reader *r) { return r->file_size; }
uint32_t plank_reader_footer_size(const plank_reader *r) { return r->footer_len; }
int32_t plank_reader_num_key_values(const plank_reader *r) { return r->md.num_key_values; }

void plank_reader_key_value(const plank_reader *r, int32_t i, const char **key,
                            const char **value) {
    if (i < 0 || i >= r->md.num_key_values) {
        if (key) *key = NULL;
        if (value) *value = NULL;
        return;
    }
    if (key) *key = r->md.key_values[i].key;
    if (value) *value = r->md.key_values[i].value;
}

int32_t plank_reader_num_schema_nodes(const plank_reader *r) { return r->num_nodes; }

const plank_schema_node *plank_reader_schema_node(const plank_reader *r, int32_t i) {
    if (i < 0 || i >= r->num_nodes) return NULL;
    return &r->nodes[i];
}

const plank_schema_node *plank_reader_column_node(const plank_reader *r, int32_t column) {
    if (column < 0 || column >= r->num_columns) return NULL;
    return &r->nodes[r->leaf_nodes[column]];
}

int32_t plank_reader_find_column(const plank_reader *r, const char *path) {
    if (!path) return -1;
    for (int32_t c = 0; c < r->num_columns; c++)
        if (strcmp(r->nodes[r->leaf_nodes[c]].path, path) == 0) return c;
    int32_t found = -1;
    for (int32_t c = 0; c < r->num_columns; c++) {
        if (strcmp(r->nodes[r->leaf_nodes[c]].name, path) == 0) {
            if (found >= 0) return -1; /* ambiguous */
            found = c;
        }
    }
    return found;
}

plank_status plank_reader_row_group(const plank_reader *r, int32_t g, plank_row_group_info *out,
                                    plank_error *err) {
    plank_error_init(err);
    if (!r || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL reader or output");
    if (g < 0 || g >= r->md.num_row_groups)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "row group %d does not exist",
                            (int)g);
    return pk_struct_write(out, &r->md.row_groups[g].info, &pk_layout_row_group_info, err);
}

plank_status plank_reader_column_chunk(const plank_reader *r, int32_t g, int32_t c,
                                       plank_column_chunk_info *out, plank_error *err) {
    plank_error_init(err);
    if (!r || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL reader or output");
    if (g < 0 || g >= r->md.num_row_groups || c < 0 || c >= r->num_columns)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "column chunk (row group %d, column %d) does not exist", (int)g,
                            (int)c);
    return pk_struct_write(out, &r->md.row_groups[g].columns[c], &pk_layout_column_chunk_info,
                           err);
}
