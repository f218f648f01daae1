/*
 * fuzz_common.h: helpers shared by the fuzz targets (header-only, static).
 *
 * Every target is one LLVMFuzzerTestOneInput. Built with
 * -fsanitize=fuzzer it is a libFuzzer binary; linked with replay_main.c it
 * is a plain program that replays corpus files (the ctest registration).
 *
 * fz_alloc is an allocator that keeps the size of each block in a header and
 * aborts when plank frees or grows a block with a size other than the one it
 * allocated: AddressSanitizer cannot see that class of bug, because plank's
 * allocator interface passes sizes explicitly.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plank.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FZ_HEADER = 16 };

static inline void fz_check_size(void *ptr, size_t size, const char *what) {
    size_t stored;
    memcpy(&stored, (uint8_t *)ptr - FZ_HEADER, sizeof stored);
    if (stored != size) {
        fprintf(stderr, "fz_alloc: %s of a %zu-byte block with size %zu\n", what, stored, size);
        abort();
    }
}

static inline void *fz_reallocate(void *opaque, void *ptr, size_t old_size, size_t new_size) {
    (void)opaque;
    if (new_size > SIZE_MAX - FZ_HEADER) return NULL;
    uint8_t *base = NULL;
    if (ptr) {
        fz_check_size(ptr, old_size, "realloc");
        base = (uint8_t *)ptr - FZ_HEADER;
    }
    uint8_t *p = realloc(base, new_size + FZ_HEADER);
    if (!p) return NULL;
    memcpy(p, &new_size, sizeof new_size);
    return p + FZ_HEADER;
}

static inline void fz_free(void *opaque, void *ptr, size_t size) {
    (void)opaque;
    if (!ptr) return;
    fz_check_size(ptr, size, "free");
    free((uint8_t *)ptr - FZ_HEADER);
}

static const plank_allocator fz_allocator = {fz_reallocate, fz_free, NULL};

/* Reads fuzzer-chosen parameters from the front of the input. */
typedef struct fz_input {
    const uint8_t *p;
    size_t n;
} fz_input;

static inline uint32_t fz_take(fz_input *in, int bytes) {
    uint32_t v = 0;
    for (int i = 0; i < bytes && in->n > 0; i++) {
        v |= (uint32_t)in->p[0] << (8 * i);
        in->p++;
        in->n--;
    }
    return v;
}

/* A small deterministic generator for chunk sizes (xorshift32). */
static inline uint32_t fz_next(uint32_t *s) {
    uint32_t x = *s ? *s : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

/* A growing memory buffer behind a plank_sink (the write targets). */
typedef struct fz_sinkbuf {
    uint8_t *p;
    size_t n, cap;
} fz_sinkbuf;

static inline plank_status fz_sink_write(void *o, const void *buf, size_t len) {
    fz_sinkbuf *s = o;
    if (s->n + len > s->cap) {
        size_t nc = (s->n + len) * 2;
        uint8_t *np = realloc(s->p, nc);
        if (!np) return PLANK_ERR_IO;
        s->p = np;
        s->cap = nc;
    }
    memcpy(s->p + s->n, buf, len);
    s->n += len;
    return PLANK_OK;
}

/* Reads a stream over an honest file to its end and releases it: the rows
 * it held. Any error there aborts, naming `what`. */
static inline int64_t fz_stream_rows(struct ArrowArrayStream *s, const char *what) {
    int64_t rows = 0;
    for (;;) {
        struct ArrowArray a;
        if (s->get_next(s, &a) != 0) {
            fprintf(stderr, "%s: %s\n", what, s->get_last_error(s));
            abort();
        }
        if (!a.release) break;
        rows += a.length;
        a.release(&a);
    }
    s->release(s);
    return rows;
}

/* Every failure must carry its status in err and a message. With
 * PLANK_FUZZ_VERBOSE set in the environment, failures are printed (to see
 * what a seed exercises). */
static inline void fz_check_error(plank_status st, const plank_error *err) {
    if (st == PLANK_OK) return;
    if (getenv("PLANK_FUZZ_VERBOSE")) fprintf(stderr, "  -> %s\n", err->message);
    if (err->code != st || err->message[0] == '\0') {
        fprintf(stderr, "status %d but err.code %d, message \"%s\"\n", (int)st, (int)err->code,
                err->message);
        abort();
    }
}

/* The input of the whole-file targets (fuzz_file, fuzz_scan): a plain
 * file ("PAR1..."), whose selector bytes come from its size (k1, k2), or two
 * selector bytes and then the file. Returns a copy of the file bytes (free
 * with free(); never NULL unless malloc fails) and its size in *n. */
static inline uint8_t *fz_file_input(const uint8_t *data, size_t size, uint8_t k1, uint8_t k2,
                                     uint8_t *sel1, uint8_t *sel2, size_t *n) {
    if (size >= 4 && memcmp(data, "PAR1", 4) == 0) {
        *sel1 = (uint8_t)(size * k1);
        *sel2 = (uint8_t)(size * k2);
    } else {
        fz_input in = {data, size};
        *sel1 = (uint8_t)fz_take(&in, 1);
        *sel2 = (uint8_t)fz_take(&in, 1);
        data = in.p;
        size = in.n;
    }
    uint8_t *file = malloc(size ? size : 1);
    if (file && size) memcpy(file, data, size);
    *n = size;
    return file;
}

/* Opens the file bytes as a memory reader on the checking allocator
 * (NULL when the file is refused, which must come with a message). */
static inline plank_reader *fz_open_reader(const uint8_t *file, size_t size) {
    plank_reader_options opts;
    plank_reader_options_init(&opts);
    opts.allocator = &fz_allocator;
    plank_reader *r = NULL;
    plank_error err;
    plank_status st = plank_reader_open_memory(&r, file, size, &opts, &err);
    fz_check_error(st, &err);
    return st == PLANK_OK ? r : NULL;
}

#endif
