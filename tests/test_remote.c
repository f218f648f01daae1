/* Remote files (plank_reader_open_url) against real servers on loopback,
 * started by tests/remote/remote_test.sh: nginx (HTTP and HTTPS with a
 * certificate made for the run), the fault-injecting Node server
 * (tests/remote/fault_server.mjs) and s3rver (signatures checked).
 *
 * The reference for every read is the same file on disk
 * ($PLANK_REMOTE_ROOT): bytes read through pk_remote equal the file's, and
 * a remote Arrow stream or scan renders (tests/arrow_json.h) exactly as the
 * local file's does. Request counts are checked against the fault server's
 * own count. Built without libcurl, only the refusal is checked.
 *
 * Without the servers' environment the test is skipped (a failure under
 * PLANK_REQUIRE_CORPUS=1). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "arrow_json.h"
#include "plank.h"
#include "remote/pk_remote.h"
#include "tharness.h"

/* ---- Range merging (no server) ------------------------------------------------------- */

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) {
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static void check_coalesce(void) {
    /* known answers */
    pk_byte_range in[4] = {{100, 10}, {0, 10}, {15, 5}, {50, 10}};
    pk_byte_range out[8];
    size_t n = pk_coalesce_ranges(in, 4, 5, 1000, out, 8);
    CHECK_EQ_I64(n, 3); /* [0,20) [50,60) [100,110) */
    CHECK(out[0].offset == 0 && out[0].length == 20);
    CHECK(out[1].offset == 50 && out[1].length == 10);
    CHECK(out[2].offset == 100 && out[2].length == 10);
    pk_byte_range big[1] = {{7, 100}};
    n = pk_coalesce_ranges(big, 1, 0, 30, out, 8);
    CHECK_EQ_I64(n, 4); /* 100 bytes cut into 4 equal pieces of 25 */
    CHECK(out[0].offset == 7 && out[0].length == 25 && out[3].offset == 82 &&
          out[3].length == 25);
    pk_byte_range far[2] = {{0, 10}, {30, 10}};
    CHECK_EQ_I64(pk_coalesce_ranges(far, 2, 20, 30, out, 8), 2); /* merged would be 40 > 30 */
    CHECK_EQ_I64(pk_coalesce_ranges(far, 2, 20, 40, out, 8), 1);
    CHECK_EQ_I64(pk_coalesce_ranges(far, 0, 20, 40, out, 8), 0);
    /* random: every input byte covered, nothing outside [min, max), pieces
     * within the size limit, and distinct requests further apart than the gap
     * unless merging them would exceed the limit */
    for (int t = 0; t < 2000; t++) {
        size_t k = (size_t)(rnd() % 12);
        pk_byte_range r[12], copy[12];
        uint8_t want[512] = {0}, got[512] = {0};
        for (size_t i = 0; i < k; i++) {
            uint64_t o = rnd() % 400, l = rnd() % 60;
            r[i] = (pk_byte_range){o, l};
            for (uint64_t b = o; b < o + l; b++) want[b] = 1;
        }
        memcpy(copy, r, sizeof r);
        uint64_t gap = rnd() % 40, maxs = 1 + rnd() % 120;
        pk_byte_range o2[600];
        size_t m = pk_coalesce_ranges(copy, k, gap, maxs, o2, 600);
        CHECK(m <= 600);
        bool ok = true;
        for (size_t i = 0; i < m; i++) {
            ok &= o2[i].length > 0 && o2[i].length <= maxs;
            for (uint64_t b = o2[i].offset; b < o2[i].offset + o2[i].length; b++) got[b] = 1;
            if (i > 0) ok &= o2[i].offset >= o2[i - 1].offset + o2[i - 1].length;
        }
        for (int b = 0; b < 512; b++) ok &= !want[b] || got[b];
        /* a byte fetched is inside a merged run of inputs and gaps <= gap */
        for (size_t i = 0; i < m; i++) {
            uint64_t lo = o2[i].offset, hi = lo + o2[i].length;
            ok &= want[lo] && want[hi - 1];
            (void)hi;
        }
        CHECK_MSG(ok, "coalesce case %d", t);
        if (!ok) break;
    }
}

/* ---- Rendering ---------------------------------------------------------------------- */

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s) abort();
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Every row of a stream, as JSON lines (released here). */
static char *render(struct ArrowArrayStream *st, int *rc, char *msg, size_t msg_size) {
    aj_buf b = {0};
    struct ArrowSchema sc;
    *rc = st->get_schema(st, &sc);
    if (*rc == 0) {
        for (;;) {
            struct ArrowArray a;
            *rc = st->get_next(st, &a);
            if (*rc != 0) {
                const char *m = st->get_last_error(st);
                snprintf(msg, msg_size, "%s", m ? m : "");
                break;
            }
            if (!a.release) break;
            for (int64_t i = 0; i < a.length; i++) {
                aj_row(&b, &sc, &a, i);
                aj_str(&b, "\n");
            }
            a.release(&a);
        }
        sc.release(&sc);
    }
    st->release(st);
    return b.p ? b.p : strdup("");
}

static char *read_all(plank_reader *r, int32_t threads, int *rc, char *msg, size_t msg_size) {
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.threads = threads;
    ao.batch_rows = 3000;
    struct ArrowArrayStream st;
    plank_error err;
    if (plank_reader_arrow_stream(r, NULL, 0, &ao, &st, &err) != PLANK_OK) {
        *rc = -1;
        snprintf(msg, msg_size, "%s", err.message);
        return strdup("");
    }
    return render(&st, rc, msg, msg_size);
}

/* ---- A caller's source with a prefetch callback (no server) ------------------------ */

typedef struct hint_src {
    const unsigned char *data;
    size_t len;
    plank_byte_range ann[1 << 14];
    size_t nann;
    bool opened;
    int64_t reads, outside, bad_hints;
} hint_src;

static plank_status hs_read(void *o, uint64_t off, void *buf, size_t len, size_t *got) {
    hint_src *h = o;
    memcpy(buf, h->data + off, len);
    *got = len;
    if (!h->opened) return PLANK_OK;
    h->reads++;
    bool in = false;
    for (size_t i = 0; i < h->nann && !in; i++)
        in = off >= h->ann[i].offset && off + len <= h->ann[i].offset + h->ann[i].length;
    h->outside += !in;
    return PLANK_OK;
}

static void hs_prefetch(void *o, const plank_byte_range *r, size_t n) {
    hint_src *h = o;
    for (size_t i = 0; i < n; i++) {
        h->bad_hints += r[i].length == 0 || r[i].offset + r[i].length > h->len;
        if (h->nann < sizeof h->ann / sizeof h->ann[0]) h->ann[h->nann++] = r[i];
    }
}

/* Every read a stream makes after the open lies in a range announced to the
 * source's prefetch callback; a source of the first layout (no callback)
 * reads the same rows. */
static void check_source_hints(void) {
    const char *dir = th_testing_dir();
    if (!dir) {
        TEST_SKIP_PART("no parquet-testing corpus");
        return;
    }
    char *path = str_printf("%s/data/alltypes_tiny_pages.parquet", dir);
    size_t len = 0;
    unsigned char *data = th_read_file(path, &len);
    free(path);
    CHECK(data != NULL);
    if (!data) return;
    hint_src *h = calloc(1, sizeof *h);
    h->data = data;
    h->len = len;
    char *rows[2] = {NULL, NULL};
    for (int layout = 0; layout < 2; layout++) {
        plank_source src = {sizeof src, hs_read, NULL, len, h, hs_prefetch};
        if (layout == 0) src.struct_size = offsetof(plank_source, prefetch);
        h->opened = false;
        h->nann = 0;
        h->reads = h->outside = 0;
        plank_reader *r = NULL;
        plank_error err;
        CHECK_MSG(plank_reader_open_source(&r, &src, NULL, &err) == PLANK_OK, "%s", err.message);
        if (!r) break;
        h->opened = true;
        int rc;
        char msg[600] = "";
        rows[layout] = read_all(r, 1, &rc, msg, sizeof msg);
        CHECK_MSG(rc == 0, "%s", msg);
        plank_reader_close(r);
        if (layout == 0) {
            CHECK_EQ_I64(h->nann, 0); /* the older layout has no callback */
        } else {
            CHECK(h->nann > 0 && h->reads > 0);
            CHECK_EQ_I64(h->outside, 0);
            CHECK_EQ_I64(h->bad_hints, 0);
        }
    }
    CHECK(rows[0] && rows[1] && strlen(rows[0]) > 0 && strcmp(rows[0], rows[1]) == 0);
    free(rows[0]);
    free(rows[1]);
    free(h);
    free(data);
}

#ifndef PLANK_HAVE_CURL
int main(void) {
    check_coalesce();
    check_source_hints();
    plank_reader *r = NULL;
    plank_error err;
    plank_status st = plank_reader_open_url(&r, "http://127.0.0.1:9/x.parquet", NULL, NULL, &err);
    CHECK(st == PLANK_ERR_UNSUPPORTED && r == NULL);
    CHECK(strstr(err.message, "libcurl") != NULL);
    TEST_END();
}
#else

/* ---- Helpers ------------------------------------------------------------------------- */

static const char *g_root, *g_http, *g_https, *g_ca, *g_fault, *g_s3;

static char *scan_all(plank_reader *r, const char *where, int32_t threads, int *rc, char *msg,
                      size_t msg_size) {
    plank_expr *e = NULL;
    plank_error err;
    *rc = -1;
    if (plank_expr_parse(where, NULL, &e, &err) != PLANK_OK) {
        snprintf(msg, msg_size, "%s", err.message);
        return strdup("");
    }
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.threads = threads;
    plank_scan_options so;
    plank_scan_options_init(&so);
    so.filter = e;
    so.arrow = &ao;
    plank_scan *s = NULL;
    char *out = NULL;
    if (plank_scan_open(&s, r, &so, &err) == PLANK_OK) {
        struct ArrowArrayStream st;
        if (plank_scan_arrow_stream(s, &st, &err) == PLANK_OK) out = render(&st, rc, msg, msg_size);
        else snprintf(msg, msg_size, "%s", err.message);
    } else {
        snprintf(msg, msg_size, "%s", err.message);
    }
    plank_scan_close(s);
    plank_expr_free(e);
    return out ? out : strdup("");
}

static plank_reader *open_local(const char *name) {
    char *p = str_printf("%s/%s", g_root, name);
    plank_reader *r = NULL;
    plank_error err;
    if (plank_reader_open_path(&r, p, NULL, &err) != PLANK_OK)
        fprintf(stderr, "open %s: %s\n", p, err.message);
    free(p);
    return r;
}

/* The fault server's own count of file requests since the last reset. */
static int64_t server_requests(bool reset) {
    char *u = str_printf("%s/%s", g_fault, reset ? "_reset" : "_stats");
    /* one plain HTTP/1.0 GET over a socket: the count must not come from
     * plank's own client */
    const char *hp = strstr(u, "://") + 3;
    int port = atoi(strchr(hp, ':') + 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int64_t v = -1;
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
        char req[128];
        snprintf(req, sizeof req, "GET /%s HTTP/1.0\r\nHost: x\r\n\r\n",
                 reset ? "_reset" : "_stats");
        if (write(fd, req, strlen(req)) == (ssize_t)strlen(req)) {
            char buf[65536];
            size_t n = 0;
            ssize_t k;
            while (n < sizeof buf - 1 && (k = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
                n += (size_t)k;
            buf[n] = 0;
            const char *q = strstr(buf, "\"requests\":");
            v = reset ? 0 : q ? atoll(q + 11) : -1;
        }
    }
    if (fd >= 0) close(fd);
    free(u);
    return v;
}

/* ---- Bytes ----------------------------------------------------------------------------- */

/* Random ranges read through pk_remote equal the file's bytes, with and
 * without announcing them first. */
static void check_bytes(const char *url, const char *name, const plank_remote_options *o) {
    char *p = str_printf("%s/%s", g_root, name);
    size_t flen = 0;
    unsigned char *file = th_read_file(p, &flen);
    free(p);
    CHECK(file != NULL);
    if (!file) return;
    pk_remote *rm = NULL;
    plank_error err;
    plank_error_init(&err);
    plank_remote_options ro = *o;
    th_alloc ta;
    plank_allocator alloc = th_alloc_init(&ta); /* every block freed, with its size */
    plank_status st = pk_remote_open(&rm, url, &ro, &alloc, &err);
    CHECK_MSG(st == PLANK_OK, "%s: %s", url, err.message);
    if (st != PLANK_OK) {
        free(file);
        return;
    }
    CHECK_EQ_I64(pk_remote_size(rm), flen);
    unsigned char *buf = malloc(flen + 1);
    for (int t = 0; t < 60; t++) {
        uint64_t off = rnd() % flen, len = 1 + rnd() % (flen - off);
        if (t % 3 == 0) len = len % 5000 + 1 < flen - off ? len % 5000 + 1 : flen - off;
        if (t % 4 == 1) {
            pk_byte_range hint[3] = {{off, len}, {rnd() % flen, 100}, {flen - 10, 10}};
            pk_remote_prefetch(rm, hint, 3);
        }
        memset(buf, 0xa5, len);
        st = pk_remote_read(rm, off, buf, (size_t)len, &err);
        CHECK_MSG(st == PLANK_OK, "%s at %llu+%llu: %s", url, (unsigned long long)off,
                  (unsigned long long)len, err.message);
        CHECK_MSG(st != PLANK_OK || memcmp(buf, file + off, (size_t)len) == 0,
                  "%s: bytes at %llu+%llu differ", url, (unsigned long long)off,
                  (unsigned long long)len);
    }
    free(buf);
    pk_remote_close(rm);
    CHECK_EQ_I64(ta.live_blocks, 0);
    CHECK_EQ_I64(ta.live_bytes, 0);
    free(file);
}

/* ---- Whole reads ------------------------------------------------------------------------ */

/* The remote file renders as the local one: full stream on 1 and 2 threads,
 * and a scan with a filter. */
static void check_same(const char *url, const char *name, const plank_remote_options *o,
                       const char *where) {
    plank_reader *lr = open_local(name);
    CHECK(lr != NULL);
    if (!lr) return;
    plank_reader *rr = NULL;
    plank_error err;
    plank_status st = plank_reader_open_url(&rr, url, o, NULL, &err);
    CHECK_MSG(st == PLANK_OK, "%s: %s", url, err.message);
    if (st == PLANK_OK) {
        CHECK_EQ_I64(plank_reader_num_rows(rr), plank_reader_num_rows(lr));
        int lrc, rrc;
        char lm[600] = "", rmsg[600] = "";
        char *want = read_all(lr, 1, &lrc, lm, sizeof lm);
        for (int32_t threads = 1; threads <= 2; threads++) {
            char *got = read_all(rr, threads, &rrc, rmsg, sizeof rmsg);
            CHECK_MSG(lrc == 0 && rrc == 0, "%s: %s / %s", url, lm, rmsg);
            CHECK_MSG(strcmp(want, got) == 0, "%s: %d threads: rows differ from the local file",
                      url, threads);
            free(got);
        }
        free(want);
        if (where) {
            want = scan_all(lr, where, 1, &lrc, lm, sizeof lm);
            char *got = scan_all(rr, where, 2, &rrc, rmsg, sizeof rmsg);
            CHECK_MSG(lrc == 0 && rrc == 0, "%s: scan: %s / %s", url, lm, rmsg);
            CHECK_MSG(strlen(want) > 0 && strcmp(want, got) == 0,
                      "%s: scan rows differ from the local file", url);
            free(want);
            free(got);
        }
        plank_io_stats io = {.struct_size = sizeof io};
        CHECK(plank_reader_io_stats(rr, &io, NULL) == PLANK_OK);
        CHECK(io.requests >= 1 && io.bytes > 0);
        plank_reader_close(rr);
    }
    plank_reader_close(lr);
}

/* An open that must fail with PLANK_ERR_IO whose message holds `needle`;
 * or, with read_too, one that opens and fails when the data is read. */
static void check_fails(const char *url, const plank_remote_options *o, const char *needle,
                        bool read_too) {
    plank_reader *r = NULL;
    plank_error err;
    plank_status st = plank_reader_open_url(&r, url, o, NULL, &err);
    if (read_too && st == PLANK_OK) {
        int rc;
        char msg[600] = "";
        char *got = read_all(r, 1, &rc, msg, sizeof msg);
        free(got);
        CHECK_MSG(rc != 0, "%s: read did not fail", url);
        CHECK_MSG(strstr(msg, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", url, msg,
                  needle);
        plank_reader_close(r);
        return;
    }
    CHECK_MSG(st == PLANK_ERR_IO && r == NULL, "%s: status %d", url, (int)st);
    CHECK_MSG(strstr(err.message, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", url,
              err.message, needle);
    plank_reader_close(r);
}

static void check_faults(void) {
    plank_remote_options o;
    plank_remote_options_init(&o);
    o.retry_delay_ms = 5;
    const char *name = "lineitem.parquet";
    const char *modes[] = {"flaky500", "flaky503", "reset", "truncate", "slow"};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        char *u = str_printf("%s/%s/%s", g_fault, modes[i], name);
        plank_reader *r = NULL;
        plank_error err;
        plank_status st = plank_reader_open_url(&r, u, &o, NULL, &err);
        CHECK_MSG(st == PLANK_OK, "%s: %s", u, err.message);
        if (st == PLANK_OK) {
            plank_reader_close(r);
            check_same(u, name, &o, NULL);
            /* a fresh reader: its own counters */
            st = plank_reader_open_url(&r, u, &o, NULL, &err);
            int rc;
            char msg[600] = "";
            server_requests(true);
            free(read_all(r, 1, &rc, msg, sizeof msg));
            CHECK_MSG(rc == 0, "%s: %s", u, msg);
            plank_io_stats io = {.struct_size = sizeof io};
            plank_reader_io_stats(r, &io, NULL);
            if (strcmp(modes[i], "slow") == 0) CHECK_EQ_I64(io.retries, 0);
            else CHECK_MSG(io.retries > 0, "%s: no retry counted", u);
            plank_reader_close(r);
        }
        free(u);
    }
    /* lasting failures: a clear error, after the retries where they apply */
    char *u = str_printf("%s/always500/%s", g_fault, name);
    o.max_retries = 2;
    server_requests(true);
    check_fails(u, &o, "HTTP 500", false);
    /* the open's two requests, each tried three times */
    CHECK_EQ_I64(server_requests(false), 6);
    free(u);
    u = str_printf("%s/forbidden/%s", g_fault, name);
    server_requests(true);
    check_fails(u, &o, "HTTP 403", false);
    CHECK_EQ_I64(server_requests(false), 2); /* not retried */
    free(u);
    u = str_printf("%s/ok/missing.parquet", g_fault);
    check_fails(u, &o, "HTTP 404", false);
    free(u);
    u = str_printf("%s/change/%s", g_fault, name);
    check_fails(u, &o, "changed", false);
    free(u);
    /* replaced after the open: the read fails, whichever request sees it */
    server_requests(true);
    u = str_printf("%s/change-after-3/%s", g_fault, name);
    check_fails(u, &o, "changed", true);
    free(u);
    /* servers that answer something else than asked: refused at once */
    const char *hostile[][2] = {
        {"norange", "ignored Range"},
        {"badrange", "does not start where asked"},
        {"nocr", "without a Content-Range"},
        {"sizechange", "changed"},
    };
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        u = str_printf("%s/%s/%s", g_fault, hostile[i][0], name);
        server_requests(true);
        check_fails(u, &o, hostile[i][1], true);
        /* not retried: the open's two requests and at most one read's */
        CHECK_MSG(server_requests(false) <= 3, "%s", u);
        free(u);
    }
    /* a transfer that stalls: the stall timeout, then the retries, then the error */
    o.stall_timeout_ms = 1000;
    o.max_retries = 1;
    u = str_printf("%s/stall/%s", g_fault, name);
    check_fails(u, &o, "after 1 retries", false);
    free(u);
    /* a server that refuses the connection */
    o.max_retries = 1;
    check_fails("http://127.0.0.1:9/x.parquet", &o, "127.0.0.1", false);
    /* a corrupt file read remotely fails as it does locally */
    plank_reader *lr = NULL;
    plank_error le;
    char *lp = str_printf("%s/PARQUET-1481.parquet", g_root);
    plank_status ls = plank_reader_open_path(&lr, lp, NULL, &le);
    free(lp);
    plank_reader_close(lr);
    u = str_printf("%s/ok/PARQUET-1481.parquet", g_fault);
    plank_reader *rr = NULL;
    plank_error re;
    plank_status rs = plank_reader_open_url(&rr, u, NULL, NULL, &re);
    CHECK_MSG(rs == ls && strcmp(re.message, le.message) == 0, "%d %s / %d %s", (int)rs,
              re.message, (int)ls, le.message);
    plank_reader_close(rr);
    free(u);
}

/* Announced ranges are merged: a full read with prefetching makes fewer
 * requests than one request per read, and the counts agree with the
 * server's. */
/* One read of url with prefetching on or off: a full Arrow read (where NULL)
 * or a scan; returns the server's request count, with the rows (malloc'd)
 * and the reader's own counters. */
static int64_t counted_read(const char *url, bool prefetch, const char *where, char **rows,
                            plank_io_stats *io) {
    plank_remote_options o;
    plank_remote_options_init(&o);
    o.prefetch = prefetch;
    server_requests(true);
    plank_reader *r = NULL;
    plank_error err;
    *rows = NULL;
    if (plank_reader_open_url(&r, url, &o, NULL, &err) != PLANK_OK) {
        CHECK_MSG(false, "%s: %s", url, err.message);
        return -1;
    }
    int rc;
    char msg[600] = "";
    *rows = where ? scan_all(r, where, 1, &rc, msg, sizeof msg)
                  : read_all(r, 1, &rc, msg, sizeof msg);
    CHECK_MSG(rc == 0, "%s: %s", url, msg);
    io->struct_size = sizeof *io;
    plank_reader_io_stats(r, io, NULL);
    plank_reader_close(r);
    int64_t n = server_requests(false);
    fprintf(stderr, "%s of %s: %lld requests with prefetch %s\n", where ? "scan" : "full read",
            url, (long long)n, prefetch ? "on" : "off");
    return n;
}

/* Announced ranges are merged: a full read and a selective scan with
 * prefetching make far fewer requests than one request per read, the rows
 * are the same, and the reader's count agrees with the server's. */
static void check_requests(void) {
    const char *name = "lineitem.parquet";
    char *u = str_printf("%s/ok/%s", g_fault, name);
    int64_t counts[2];
    char *rows[2];
    plank_io_stats io[2];
    for (int pf = 0; pf < 2; pf++) {
        counts[pf] = counted_read(u, pf == 1, NULL, &rows[pf], &io[pf]);
        CHECK_EQ_I64(io[pf].requests, counts[pf]);
    }
    /* without prefetching, only the open's speculative tail is read ahead */
    CHECK(io[1].bytes_prefetched > 64 * 1024 + 4);
    CHECK(io[0].bytes_prefetched <= 64 * 1024 + 4);
    CHECK(rows[0] && rows[1] && strcmp(rows[0], rows[1]) == 0);
    free(rows[0]);
    free(rows[1]);
    int32_t rgs = 0;
    plank_reader *lr = open_local(name);
    if (lr) rgs = plank_reader_num_row_groups(lr);
    plank_reader_close(lr);
    /* without: a request per column chunk (but those the open's tail read
     * holds); with: one per row group at most (its chunks are adjacent),
     * plus the open's two */
    CHECK(rgs > 1);
    CHECK(counts[0] >= (int64_t)rgs * 8);
    CHECK_MSG(counts[1] <= rgs + 2, "%lld requests for %d row groups", (long long)counts[1],
              (int)rgs);
    /* a selective scan: its filter steps and late-read columns announce their
     * pages (sparse selections through the offset index) */
    const char *q6 = "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND "
                     "l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24";
    for (int pf = 0; pf < 2; pf++) {
        counts[pf] = counted_read(u, pf == 1, q6, &rows[pf], &io[pf]);
        CHECK_EQ_I64(io[pf].requests, counts[pf]);
    }
    CHECK(rows[0] && rows[1] && strlen(rows[0]) > 0 && strcmp(rows[0], rows[1]) == 0);
    CHECK_MSG(counts[1] * 4 <= counts[0], "%lld vs %lld", (long long)counts[1],
              (long long)counts[0]);
    free(rows[0]);
    free(rows[1]);
    free(u);
}

static void check_s3(void) {
    plank_remote_options o;
    plank_remote_options_init(&o);
    o.endpoint = g_s3;
    o.access_key_id = "S3RVER";
    o.secret_access_key = "S3RVER";
    check_same("s3://plank-test/lineitem.parquet", "lineitem.parquet", &o,
               "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND "
               "l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24");
    check_same("s3://plank-test/dir with space/a+b.parquet", "dir with space/a+b.parquet", &o,
               NULL);
    check_bytes("s3://plank-test/lineitem.parquet", "lineitem.parquet", &o);
    /* virtual-hosted: bucket.localhost:port (curl resolves *.localhost) */
    plank_remote_options v = o;
    char *ep = str_printf("http://localhost:%s", strrchr(g_s3, ':') + 1);
    v.endpoint = ep;
    v.url_style = PLANK_S3_URL_VIRTUAL;
    check_same("s3://plank-test/alltypes_plain.parquet", "alltypes_plain.parquet", &v, NULL);
    free(ep);
    /* signatures are checked: a wrong secret is refused, and not retried */
    plank_remote_options w = o;
    w.secret_access_key = "not-the-secret";
    check_fails("s3://plank-test/lineitem.parquet", &w, "SignatureDoesNotMatch", false);
    check_fails("s3://plank-test/no-such-key.parquet", &o, "NoSuchKey", false);
    check_fails("s3://no-such-bucket/x.parquet", &o, "NoSuchBucket", false);
    /* the environment supplies what the options leave out */
    setenv("AWS_ENDPOINT_URL", g_s3, 1);
    setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
    plank_remote_options e;
    plank_remote_options_init(&e);
    check_same("s3://plank-test/alltypes_plain.parquet", "alltypes_plain.parquet", &e, NULL);
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    plank_reader *r = NULL;
    plank_error err;
    CHECK(plank_reader_open_url(&r, "s3://bucket-only", &o, NULL, &err) ==
          PLANK_ERR_INVALID_ARGUMENT);
}

static void check_https(void) {
    plank_remote_options o;
    plank_remote_options_init(&o);
    char *u = str_printf("%s/lineitem.parquet", g_https);
    /* the certificate is self-signed: refused without its CA ... */
    o.max_retries = 0;
    check_fails(u, &o, "certificate", false);
    /* ... read with it, or with verification off */
    o.ca_file = g_ca;
    check_same(u, "lineitem.parquet", &o, "l_returnflag = 'R' AND l_linenumber IN (1, 7)");
    check_bytes(u, "lineitem.parquet", &o);
    plank_remote_options_init(&o);
    o.verify_tls = false;
    check_same(u, "lineitem.parquet", &o, NULL);
    free(u);
}

static void check_dataset(void) {
    char *a = str_printf("%s/lineitem.parquet", g_http);
    char *b = str_printf("%s/ok/alltypes_plain.parquet", g_fault);
    const char *srcs[2] = {a, b};
    plank_dataset *d = NULL;
    plank_error err;
    plank_status st = plank_dataset_open(&d, srcs, 2, NULL, &err);
    /* the two files have no column in common but that is fine: a union */
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    if (st == PLANK_OK) {
        plank_reader *l1 = open_local("lineitem.parquet"), *l2 = open_local("alltypes_plain.parquet");
        CHECK_EQ_I64(plank_dataset_num_files(d), 2);
        CHECK_EQ_I64(plank_dataset_num_rows(d),
                     plank_reader_num_rows(l1) + plank_reader_num_rows(l2));
        plank_reader_close(l1);
        plank_reader_close(l2);
        plank_dataset_close(d);
    }
    char *g = str_printf("%s/*.parquet", g_http);
    const char *gs[1] = {g};
    CHECK(plank_dataset_open(&d, gs, 1, NULL, &err) == PLANK_ERR_UNSUPPORTED);
    free(g);
    free(a);
    free(b);
}

int main(void) {
    check_coalesce();
    check_source_hints();
    g_root = getenv("PLANK_REMOTE_ROOT");
    g_http = getenv("PLANK_REMOTE_HTTP");
    g_https = getenv("PLANK_REMOTE_HTTPS");
    g_ca = getenv("PLANK_REMOTE_CA");
    g_fault = getenv("PLANK_REMOTE_FAULT");
    g_s3 = getenv("PLANK_REMOTE_S3");
    if (!g_root || !g_http || !g_https || !g_ca || !g_fault || !g_s3) {
        if (th_failures) TEST_END(); /* what ran without servers failed */
        TEST_SKIP("no loopback servers (run through tests/remote/remote_test.sh)");
    }
    plank_remote_options o;
    plank_remote_options_init(&o);
    char *u = str_printf("%s/lineitem.parquet", g_http);
    check_same(u, "lineitem.parquet", &o,
               "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND "
               "l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24");
    check_bytes(u, "lineitem.parquet", &o);
    o.prefetch = false;
    check_same(u, "lineitem.parquet", &o, "l_orderkey < 100");
    check_bytes(u, "lineitem.parquet", &o);
    free(u);
    plank_remote_options_init(&o);
    o.max_request_size = 1000; /* many small requests in flight */
    o.coalesce_gap = 0;
    o.max_cache = 200000;      /* and evictions */
    u = str_printf("%s/ok/lineitem.parquet", g_fault);
    check_same(u, "lineitem.parquet", &o, "l_orderkey < 100");
    free(u);
    u = str_printf("%s/dir%%20with%%20space/a%%2Bb.parquet", g_http);
    plank_remote_options_init(&o);
    check_same(u, "dir with space/a+b.parquet", &o, NULL);
    free(u);
    check_requests();
    check_faults();
    check_https();
    check_s3();
    check_dataset();
    TEST_END();
}
#endif
