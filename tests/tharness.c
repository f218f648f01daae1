#include "tharness.h"

#include <pthread.h>
#include <stdarg.h>
#include <sys/stat.h>

int th_failures = 0;
int th_checks = 0;

/* The counting allocator may be called from a parallel read's threads: one
 * lock for every th_alloc (tests only; the library has no global state). */
static pthread_mutex_t th_alloc_mu = PTHREAD_MUTEX_INITIALIZER;

static void *th_realloc_locked(void *opaque, void *p, size_t old_n, size_t n) {
    th_alloc *a = opaque;
    a->calls++;
    if ((int64_t)n > a->max_single) a->max_single = (int64_t)n;
    if (a->fail_at && a->calls == a->fail_at) {
        a->failed = true;
        return NULL;
    }
    void *q = realloc(p, n ? n : 1);
    if (!q) return NULL;
    if (!p) {
        a->allocs++;
        a->live_blocks++;
        a->live_bytes += (int64_t)n;
    } else {
        a->live_bytes += (int64_t)n - (int64_t)old_n;
    }
    return q;
}

static void *th_realloc(void *opaque, void *p, size_t old_n, size_t n) {
    pthread_mutex_lock(&th_alloc_mu);
    void *q = th_realloc_locked(opaque, p, old_n, n);
    pthread_mutex_unlock(&th_alloc_mu);
    return q;
}

static void th_free(void *opaque, void *p, size_t n) {
    th_alloc *a = opaque;
    if (!p) return;
    pthread_mutex_lock(&th_alloc_mu);
    a->frees++;
    a->live_blocks--;
    a->live_bytes -= (int64_t)n;
    pthread_mutex_unlock(&th_alloc_mu);
    free(p);
}

plank_allocator th_alloc_init(th_alloc *a) {
    memset(a, 0, sizeof *a);
    plank_allocator al = {th_realloc, th_free, a};
    return al;
}

const char *th_testing_dir(void) {
    const char *d = getenv("PLANK_TESTING_DIR");
#ifdef PLANK_TESTING_DIR_DEFAULT
    if (!d || !*d) d = PLANK_TESTING_DIR_DEFAULT;
#endif
    if (!d) return NULL;
    struct stat st;
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return d;
}

unsigned char *th_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) *len = (size_t)n;
    return buf;
}

bool th_require_inputs(void) {
    const char *e = getenv("PLANK_REQUIRE_CORPUS");
    return e && *e && strcmp(e, "0") != 0;
}

static void th_skip_vprint(const char *fmt, va_list ap) {
    bool req = th_require_inputs();
    fprintf(stderr, req ? "FAIL: " : "SKIP: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, req ? " (a missing input fails under PLANK_REQUIRE_CORPUS=1)\n" : "\n");
}

void th_skip_test(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    th_skip_vprint(fmt, ap);
    va_end(ap);
    fflush(stdout);
    exit(th_require_inputs() ? 1 : 77);
}

void th_skip_part(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    th_skip_vprint(fmt, ap);
    va_end(ap);
    if (th_require_inputs()) th_failures++;
}

plank_status th_membuf_write(void *opaque, const void *buf, size_t len) {
    th_membuf *m = opaque;
    if (m->len + len > m->cap) {
        size_t cap = (m->len + len) * 2;
        uint8_t *d = realloc(m->data, cap);
        if (!d) return PLANK_ERR_OUT_OF_MEMORY;
        m->data = d;
        m->cap = cap;
    }
    memcpy(m->data + m->len, buf, len);
    m->len += len;
    return PLANK_OK;
}
