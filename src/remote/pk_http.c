/* Remote files over HTTP(S) and S3 through libcurl (pk_remote.h).
 *
 * One pk_remote per open file:
 *  - identity: the size, ETag and Last-Modified of the first response; each
 *    later response must repeat them (a replaced file is an error, never a
 *    mix of two files' bytes);
 *  - a cache of entries, each one request's bytes: queued, running, done or
 *    failed. pk_remote_prefetch queues entries (merged and cut by
 *    pk_coalesce_ranges) that a background thread runs, up to max_requests
 *    at once, on one curl multi handle; pk_remote_read copies from done
 *    entries, waits for running ones, and fetches what no entry holds on the
 *    calling thread. Done entries stay until the cache exceeds max_cache
 *    (a column is often read twice: by a scan's filter and by its output);
 *    then read ones go first, oldest first;
 *  - connections, DNS and TLS sessions shared by all handles (CURLSH), so a
 *    retry or a later read reuses a warm connection.
 * Transient failures are retried with doubling delays, by the thread for
 * prefetched entries and in place for the others. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/pk_common.h"
#include "pk_remote.h"
#include "pk_sigv4.h"

#ifndef PLANK_HAVE_CURL

plank_status pk_remote_open(pk_remote **out, const char *url, const plank_remote_options *o,
                            const plank_allocator *a, plank_error *err) {
    (void)o;
    (void)a;
    *out = NULL;
    return pk_error_set(err, PLANK_ERR_UNSUPPORTED,
                        "%s: remote files need libcurl, which this build of plank lacks", url);
}
uint64_t pk_remote_size(const pk_remote *rm) {
    (void)rm;
    return 0;
}
plank_status pk_remote_read(pk_remote *rm, uint64_t offset, void *buf, size_t len,
                            plank_error *err) {
    (void)rm;
    (void)offset;
    (void)buf;
    (void)len;
    return pk_error_set(err, PLANK_ERR_UNSUPPORTED, "no remote support");
}
void pk_remote_prefetch(pk_remote *rm, const pk_byte_range *ranges, size_t n) {
    (void)rm;
    (void)ranges;
    (void)n;
}
void pk_remote_stats(pk_remote *rm, plank_io_stats *out) {
    (void)rm;
    (void)out;
}
void pk_remote_close(pk_remote *rm) { (void)rm; }

#else

#include <curl/curl.h>
#if PLANK_CURL_RUNTIME
#include <dlfcn.h>
#endif

enum { E_QUEUED, E_RUNNING, E_DONE, E_FAILED };

/* One HTTP exchange: a range (or the tail when `suffix`) into buf. */
typedef struct pk_xfer {
    struct pk_remote *rm;
    uint64_t off, len; /* asked; for a suffix read, len is the suffix */
    bool suffix;
    uint8_t *buf;      /* len bytes */
    uint64_t got;
    long status;
    bool have_cr;
    uint64_t cr_start, cr_end, cr_total; /* Content-Range */
    char etag[192];
    char lastmod[80];
    char body[512]; /* the start of an error response's body */
    size_t body_len;
    const char *abort_why; /* set when the write callback stopped the transfer */
    char curl_err[CURL_ERROR_SIZE];
    struct curl_slist *hdrs;
    CURL *easy;
} pk_xfer;

typedef struct pk_entry {
    uint64_t off, len;
    uint8_t *data;
    int state;
    uint64_t used, last_use;
    int attempts;
    uint64_t retry_at; /* ms, monotonic */
    pk_xfer x;
} pk_entry;

struct pk_remote {
    plank_allocator a;
    plank_remote_options o;
    char *url;     /* what is requested */
    char *display; /* what the caller gave, for messages */
    /* S3 signing (s3 && access key) */
    bool s3, sign;
    char *host_hdr, *canon_path, *region, *ak, *sk, *token;
    /* identity, fixed at open */
    uint64_t size;
    char etag[192];
    char lastmod[80];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    CURLSH *share;
    pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];
    CURL *idle[16];
    int nidle;
    pk_entry **ent;
    size_t nent, capent;
    uint64_t cached, tick;
    /* the prefetch thread */
    pthread_t th;
    bool th_started, stop;
    CURLM *multi;
    int running;
    atomic_uint_fast64_t requests, bytes, retries, prefetched;
};

/* libcurl's functions, as this file calls them. With PLANK_CURL_RUNTIME
 * (the default) libcurl is not linked: it is loaded with dlopen when the
 * first remote file opens. Linked, libcurl and the ~30 libraries it pulls
 * in (TLS, SSH, LDAP, Kerberos, HTTP/2, ...) were mapped and relocated at
 * every start of every program using plank, remote or not: `plank
 * --version` took 20 ms instead of 6 ms here. The table is written once,
 * under curl_once, before any remote handle exists, and only read after. */
typedef struct pk_libcurl {
    CURLcode (*global_init)(long);
    const char *(*easy_strerror)(CURLcode);
    CURL *(*easy_init)(void);
    void (*easy_reset)(CURL *);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_cleanup)(CURLM *);
    const char *(*multi_strerror)(CURLMcode);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
    CURLSHcode (*share_cleanup)(CURLSH *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} pk_libcurl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static pk_libcurl lc;
static CURLcode curl_init_code;
static char curl_load_error[256]; /* why libcurl could not be loaded; "" when it was */

#if PLANK_CURL_RUNTIME
/* Every symbol or none: a libcurl older than 7.68 (curl_multi_poll) is
 * refused as a whole rather than failing at its first call. */
static bool load_curl(void) {
    const char *names[] = {"libcurl.so.4", "libcurl.so"};
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof names / sizeof *names; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(curl_load_error, sizeof curl_load_error, "libcurl could not be loaded (%s)",
                 why ? why : "libcurl.so.4 not found");
        return false;
    }
    struct {
        void **slot;
        const char *sym;
    } fns[] = {
#define PK_CURL_SYM(f) {(void **)&lc.f, "curl_" #f}
        PK_CURL_SYM(global_init),    PK_CURL_SYM(easy_strerror),  PK_CURL_SYM(easy_init),
        PK_CURL_SYM(easy_reset),     PK_CURL_SYM(easy_cleanup),   PK_CURL_SYM(easy_setopt),
        PK_CURL_SYM(easy_getinfo),   PK_CURL_SYM(multi_init),     PK_CURL_SYM(multi_add_handle),
        PK_CURL_SYM(multi_remove_handle), PK_CURL_SYM(multi_perform), PK_CURL_SYM(multi_poll),
        PK_CURL_SYM(multi_wakeup),   PK_CURL_SYM(multi_info_read), PK_CURL_SYM(multi_cleanup),
        PK_CURL_SYM(multi_strerror), PK_CURL_SYM(share_init),     PK_CURL_SYM(share_setopt),
        PK_CURL_SYM(share_cleanup),  PK_CURL_SYM(slist_append),   PK_CURL_SYM(slist_free_all),
#undef PK_CURL_SYM
    };
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
        void *f = dlsym(h, fns[i].sym);
        if (!f) {
            snprintf(curl_load_error, sizeof curl_load_error,
                     "the libcurl loaded has no %s (7.68 or later is needed)", fns[i].sym);
            memset(&lc, 0, sizeof lc);
            dlclose(h);
            return false;
        }
        /* POSIX guarantees a data pointer from dlsym converts to the
         * function's pointer; memcpy says so without a cast warning */
        memcpy(fns[i].slot, &f, sizeof f);
    }
    return true; /* never closed: libcurl's global state lives to the end */
}
#else
static bool load_curl(void) {
    lc = (pk_libcurl){
        curl_global_init,    curl_easy_strerror,  curl_easy_init,        curl_easy_reset,
        curl_easy_cleanup,   curl_easy_setopt,    curl_easy_getinfo,     curl_multi_init,
        curl_multi_add_handle, curl_multi_remove_handle, curl_multi_perform, curl_multi_poll,
        curl_multi_wakeup,   curl_multi_info_read, curl_multi_cleanup,   curl_multi_strerror,
        curl_share_init,     curl_share_setopt,   curl_share_cleanup,    curl_slist_append,
        curl_slist_free_all,
    };
    return true;
}
#endif

/* libcurl is loaded, and curl_global_init run, once before any handle;
 * pthread_once makes that safe however many threads open files at once. */
static void init_curl(void) {
    if (load_curl()) curl_init_code = lc.global_init(CURL_GLOBAL_DEFAULT);
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(uint64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static char *dup_str(const plank_allocator *a, const char *s, size_t n) {
    char *d = pk_malloc(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* A formatted string allocated to its exact length (free_str frees it). */
static char *fmt_str(const plank_allocator *a, const char *fmt, ...) PK_PRINTF(2, 3);
static char *fmt_str(const plank_allocator *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *d = pk_malloc(a, (size_t)n + 1);
    if (!d) return NULL;
    va_start(ap, fmt);
    vsnprintf(d, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return d;
}

static void free_str(const plank_allocator *a, char *s) {
    if (s) pk_free(a, s, strlen(s) + 1);
}

static const char *env_or(const char *given, const char *e1, const char *e2) {
    if (given && *given) return given;
    const char *v = e1 ? getenv(e1) : NULL;
    if (v && *v) return v;
    v = e2 ? getenv(e2) : NULL;
    return v && *v ? v : NULL;
}

/* ---- Shared connections --------------------------------------------------------- */

static void share_lock(CURL *h, curl_lock_data d, curl_lock_access acc, void *p) {
    (void)h;
    (void)acc;
    struct pk_remote *rm = p;
    pthread_mutex_lock(&rm->share_mu[d < CURL_LOCK_DATA_LAST ? d : 0]);
}

static void share_unlock(CURL *h, curl_lock_data d, void *p) {
    (void)h;
    struct pk_remote *rm = p;
    pthread_mutex_unlock(&rm->share_mu[d < CURL_LOCK_DATA_LAST ? d : 0]);
}

static CURL *take_handle(struct pk_remote *rm) {
    CURL *h = NULL;
    pthread_mutex_lock(&rm->mu);
    if (rm->nidle) h = rm->idle[--rm->nidle];
    pthread_mutex_unlock(&rm->mu);
    if (h) lc.easy_reset(h);
    else h = lc.easy_init();
    return h;
}

static void give_handle(struct pk_remote *rm, CURL *h) {
    if (!h) return;
    pthread_mutex_lock(&rm->mu);
    if (rm->nidle < (int)(sizeof rm->idle / sizeof rm->idle[0])) {
        rm->idle[rm->nidle++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&rm->mu);
    if (h) lc.easy_cleanup(h);
}

/* ---- One exchange ------------------------------------------------------------------ */

static bool header_is(const char *line, size_t n, const char *name, const char **val,
                      size_t *vlen) {
    size_t k = strlen(name);
    if (n <= k || line[k] != ':') return false;
    for (size_t i = 0; i < k; i++) {
        char c = line[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != name[i]) return false;
    }
    const char *v = line + k + 1, *e = line + n;
    while (v < e && (*v == ' ' || *v == '\t')) v++;
    while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ')) e--;
    *val = v;
    *vlen = (size_t)(e - v);
    return true;
}

static void copy_field(char *dst, size_t cap, const char *v, size_t n) {
    if (n >= cap) n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = 0;
}

static bool parse_u64(const char **p, const char *e, uint64_t *out) {
    const char *s = *p;
    uint64_t v = 0;
    if (s >= e || *s < '0' || *s > '9') return false;
    while (s < e && *s >= '0' && *s <= '9') {
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*s++ - '0');
    }
    *p = s;
    *out = v;
    return true;
}

static size_t on_header(char *line, size_t size, size_t nitems, void *p) {
    pk_xfer *x = p;
    size_t n = size * nitems;
    const char *v;
    size_t vn;
    if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        /* a new response (after a redirect or a 100): forget the last one's */
        x->have_cr = false;
        x->etag[0] = x->lastmod[0] = 0;
        x->got = 0;
        x->body_len = 0;
    } else if (header_is(line, n, "content-range", &v, &vn)) {
        const char *e = v + vn;
        if (vn > 6 && memcmp(v, "bytes ", 6) == 0) {
            const char *q = v + 6;
            uint64_t a, b, t;
            if (parse_u64(&q, e, &a) && q < e && *q == '-' && (q++, parse_u64(&q, e, &b)) &&
                q < e && *q == '/' && (q++, parse_u64(&q, e, &t)) && a <= b && b < t) {
                x->have_cr = true;
                x->cr_start = a;
                x->cr_end = b;
                x->cr_total = t;
            }
        }
    } else if (header_is(line, n, "etag", &v, &vn)) {
        copy_field(x->etag, sizeof x->etag, v, vn);
    } else if (header_is(line, n, "last-modified", &v, &vn)) {
        copy_field(x->lastmod, sizeof x->lastmod, v, vn);
    }
    return n;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *p) {
    pk_xfer *x = p;
    size_t n = size * nmemb;
    long status = 0;
    lc.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200 && status != 206) {
        size_t k = sizeof x->body - 1 - x->body_len;
        if (k > n) k = n;
        memcpy(x->body + x->body_len, data, k);
        x->body_len += k;
        x->body[x->body_len] = 0;
        return n;
    }
    if (status == 206 && !x->have_cr) {
        x->abort_why = "a 206 response without a Content-Range";
        return 0;
    }
    if (status == 206 && !x->suffix && x->cr_start != x->off) {
        x->abort_why = "a Content-Range that does not start where asked";
        return 0;
    }
    if (status == 200 && !x->suffix && x->off != 0) {
        x->abort_why = "the whole file instead of the range asked (the server ignored Range)";
        return 0;
    }
    if (n > x->len - x->got) {
        x->abort_why = status == 200
                           ? "the whole file instead of the range asked (the server ignored Range)"
                           : "more bytes than asked";
        return 0;
    }
    memcpy(x->buf + x->got, data, n);
    x->got += n;
    return n;
}

static void amz_date(char out[17]) {
    time_t t = time(NULL);
    struct tm tmv;
    gmtime_r(&t, &tmv);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tmv);
}

/* Prepares x->easy for one attempt at x (a fresh signature each time: a
 * retry may cross a second boundary). */
static bool setup(struct pk_remote *rm, pk_xfer *x) {
    CURL *h = x->easy;
    char range[64];
    if (x->suffix) snprintf(range, sizeof range, "bytes=-%llu", (unsigned long long)x->len);
    else
        snprintf(range, sizeof range, "bytes=%llu-%llu", (unsigned long long)x->off,
                 (unsigned long long)(x->off + x->len - 1));
    lc.slist_free_all(x->hdrs);
    x->hdrs = NULL;
    char line[2300];
    snprintf(line, sizeof line, "Range: %s", range);
    x->hdrs = lc.slist_append(x->hdrs, line);
    if (rm->s3) {
        snprintf(line, sizeof line, "Host: %s", rm->host_hdr);
        x->hdrs = lc.slist_append(x->hdrs, line);
    }
    if (rm->sign) {
        char date[17];
        amz_date(date);
        pk_sigv4_request rq = {.method = "GET",
                               .host = rm->host_hdr,
                               .path = rm->canon_path,
                               .query = "",
                               .range = range,
                               .amz_date = date,
                               .region = rm->region,
                               .service = "s3",
                               .access_key = rm->ak,
                               .secret_key = rm->sk,
                               .session_token = rm->token};
        char auth[1024];
        if (!pk_sigv4_authorization(&rq, auth, sizeof auth, NULL)) return false;
        snprintf(line, sizeof line, "Authorization: %s", auth);
        x->hdrs = lc.slist_append(x->hdrs, line);
        x->hdrs = lc.slist_append(x->hdrs, "x-amz-content-sha256: " PK_SIGV4_EMPTY_SHA256);
        snprintf(line, sizeof line, "x-amz-date: %s", date);
        x->hdrs = lc.slist_append(x->hdrs, line);
        if (rm->token) {
            snprintf(line, sizeof line, "x-amz-security-token: %s", rm->token);
            x->hdrs = lc.slist_append(x->hdrs, line);
        }
    }
    if (!x->hdrs) return false;
    x->got = 0;
    x->status = 0;
    x->have_cr = false;
    x->etag[0] = x->lastmod[0] = 0;
    x->body_len = 0;
    x->body[0] = 0;
    x->abort_why = NULL;
    x->curl_err[0] = 0;
    lc.easy_setopt(h, CURLOPT_URL, rm->url);
    lc.easy_setopt(h, CURLOPT_HTTPHEADER, x->hdrs);
    lc.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    lc.easy_setopt(h, CURLOPT_SHARE, rm->share);
    lc.easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    lc.easy_setopt(h, CURLOPT_HEADERDATA, x);
    lc.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    lc.easy_setopt(h, CURLOPT_WRITEDATA, x);
    lc.easy_setopt(h, CURLOPT_ERRORBUFFER, x->curl_err);
    lc.easy_setopt(h, CURLOPT_FOLLOWLOCATION, rm->sign ? 0L : 1L);
    lc.easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    lc.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)rm->o.connect_timeout_ms);
    long stall = (long)((rm->o.stall_timeout_ms + 999) / 1000);
    lc.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    lc.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, stall < 1 ? 1L : stall);
    lc.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, rm->o.verify_tls ? 1L : 0L);
    lc.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, rm->o.verify_tls ? 2L : 0L);
    if (rm->o.ca_file) lc.easy_setopt(h, CURLOPT_CAINFO, rm->o.ca_file);
    lc.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    lc.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    lc.easy_setopt(h, CURLOPT_USERAGENT, "plank/" "0.1");
    lc.easy_setopt(h, CURLOPT_PRIVATE, x);
    return true;
}

/* The value between <tag> and </tag> in an S3 error body, if any. */
static void xml_field(const char *body, const char *tag, char *out, size_t cap) {
    out[0] = 0;
    char open[32], close[32];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *a = strstr(body, open);
    if (!a) return;
    a += strlen(open);
    const char *b = strstr(a, close);
    if (!b) return;
    copy_field(out, cap, a, (size_t)(b - a));
}

enum { R_OK, R_RETRY, R_FAIL };

/* Judges a finished attempt: R_OK, R_RETRY (transient) or R_FAIL, with the
 * message in err. `first` is the open's tail read, which sets the identity
 * instead of checking it. */
static int judge(struct pk_remote *rm, pk_xfer *x, CURLcode cc, bool first, plank_error *err) {
    lc.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
    const char *u = rm->display;
    if (cc != CURLE_OK) {
        if (x->abort_why) {
            pk_error_set(err, PLANK_ERR_IO, "%s: HTTP %ld with %s", u, x->status, x->abort_why);
            return R_FAIL;
        }
        const char *what = x->curl_err[0] ? x->curl_err : lc.easy_strerror(cc);
        pk_error_set(err, PLANK_ERR_IO, "%s: %s", u, what);
        switch (cc) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
        case CURLE_PARTIAL_FILE:
        case CURLE_GOT_NOTHING:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM:
        case CURLE_SSL_CONNECT_ERROR:
            return R_RETRY;
        default:
            return R_FAIL;
        }
    }
    long s = x->status;
    if (s != 200 && s != 206) {
        char code[64], msg[160];
        xml_field(x->body, "Code", code, sizeof code);
        xml_field(x->body, "Message", msg, sizeof msg);
        const char *what = s == 404 ? "not found" : s == 403 ? "access denied" : s == 416
                               ? "range not satisfiable" : s >= 500 ? "server error" : "refused";
        if (code[0])
            pk_error_set(err, PLANK_ERR_IO, "%s: HTTP %ld (%s): %s%s%s", u, s, what, code,
                         msg[0] ? ": " : "", msg);
        else pk_error_set(err, PLANK_ERR_IO, "%s: HTTP %ld (%s)", u, s, what);
        return s >= 500 || s == 408 || s == 429 ? R_RETRY : R_FAIL;
    }
    uint64_t total = s == 206 ? x->cr_total : x->got;
    if (first) {
        rm->size = total;
        snprintf(rm->etag, sizeof rm->etag, "%s", x->etag);
        snprintf(rm->lastmod, sizeof rm->lastmod, "%s", x->lastmod);
    } else {
        bool changed = total != rm->size;
        if (rm->etag[0] && x->etag[0]) changed |= strcmp(rm->etag, x->etag) != 0;
        else if (rm->lastmod[0] && x->lastmod[0]) changed |= strcmp(rm->lastmod, x->lastmod) != 0;
        if (changed) {
            pk_error_set(err, PLANK_ERR_IO,
                         "%s: the file changed while being read (size %llu, ETag %s, "
                         "Last-Modified %s at open; now %llu, %s, %s)",
                         u, (unsigned long long)rm->size, rm->etag[0] ? rm->etag : "none",
                         rm->lastmod[0] ? rm->lastmod : "none", (unsigned long long)total,
                         x->etag[0] ? x->etag : "none", x->lastmod[0] ? x->lastmod : "none");
            return R_FAIL;
        }
    }
    if (x->suffix) {
        if (s == 206) x->off = x->cr_start;
        if (x->got != total - x->off) {
            pk_error_set(err, PLANK_ERR_IO, "%s: short response (%llu of %llu bytes)", u,
                         (unsigned long long)x->got, (unsigned long long)(total - x->off));
            return R_RETRY;
        }
        x->len = x->got;
        return R_OK;
    }
    if (x->got != x->len) {
        pk_error_set(err, PLANK_ERR_IO, "%s: short response (%llu of %llu bytes at offset %llu)",
                     u, (unsigned long long)x->got, (unsigned long long)x->len,
                     (unsigned long long)x->off);
        return R_RETRY;
    }
    return R_OK;
}

static uint64_t backoff(const struct pk_remote *rm, int attempt) {
    uint64_t d = rm->o.retry_delay_ms;
    for (int i = 1; i < attempt && d < 60000; i++) d *= 2;
    return d;
}

/* Runs transfers xs[0..n) at once on the calling thread, retrying the
 * transient failures; the first lasting failure is the result. */
static plank_status run_now(struct pk_remote *rm, pk_xfer **xs, int n, bool first,
                            plank_error *err) {
    if (n < 1 || n > 8) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "run_now: n");
    CURLM *m = lc.multi_init();
    if (!m) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory (curl multi)");
    int left = n;
    bool done[8] = {false};
    int attempts = 0;
    plank_status st = PLANK_OK;
    while (left > 0 && st == PLANK_OK) {
        for (int i = 0; i < n && st == PLANK_OK; i++) {
            if (done[i]) continue;
            if (!xs[i]->easy) xs[i]->easy = take_handle(rm);
            if (!xs[i]->easy || !setup(rm, xs[i]))
                st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory (curl request)");
            else lc.multi_add_handle(m, xs[i]->easy);
            atomic_fetch_add(&rm->requests, 1);
        }
        if (st != PLANK_OK) break;
        int still = 1;
        while (still) {
            CURLMcode mc = lc.multi_perform(m, &still);
            if (mc == CURLM_OK && still) mc = lc.multi_poll(m, NULL, 0, 1000, NULL);
            if (mc != CURLM_OK) {
                st = pk_error_set(err, PLANK_ERR_IO, "%s: %s", rm->display,
                                  lc.multi_strerror(mc));
                break;
            }
        }
        /* Judged in index order once all have finished: at open, the tail
         * (index 0) fixes the identity the others are checked against. */
        CURLcode codes[8] = {CURLE_OK};
        bool fin[8] = {false};
        CURLMsg *msg;
        int q;
        while ((msg = lc.multi_info_read(m, &q)) != NULL) {
            if (msg->msg != CURLMSG_DONE) continue;
            for (int i = 0; i < n; i++)
                if (!done[i] && xs[i]->easy == msg->easy_handle) {
                    fin[i] = true;
                    codes[i] = msg->data.result;
                }
            lc.multi_remove_handle(m, msg->easy_handle);
        }
        for (int i = 0; i < n && st == PLANK_OK; i++) {
            if (done[i]) continue;
            pk_xfer *x = xs[i];
            plank_error e2;
            plank_error_init(&e2);
            int v;
            if (!fin[i]) {
                pk_error_set(&e2, PLANK_ERR_IO, "%s: a transfer ended without a result",
                             rm->display);
                v = R_FAIL;
            } else {
                atomic_fetch_add(&rm->bytes, x->got);
                v = judge(rm, x, codes[i], first && i == 0, &e2);
            }
            if (v == R_OK) {
                done[i] = true;
                left--;
            } else if (v != R_RETRY || attempts >= rm->o.max_retries) {
                if (err) *err = e2;
                st = e2.code ? e2.code : PLANK_ERR_IO;
                if (v == R_RETRY && attempts > 0 && err)
                    pk_error_prefix(err, "after %d retries", attempts);
            }
        }
        if (st == PLANK_OK && left > 0) {
            attempts++;
            atomic_fetch_add(&rm->retries, 1);
            sleep_ms(backoff(rm, attempts));
        }
    }
    for (int i = 0; i < n; i++) {
        if (xs[i]->easy) {
            lc.multi_remove_handle(m, xs[i]->easy);
            give_handle(rm, xs[i]->easy);
            xs[i]->easy = NULL;
        }
        lc.slist_free_all(xs[i]->hdrs);
        xs[i]->hdrs = NULL;
    }
    lc.multi_cleanup(m);
    return st;
}

/* ---- The cache ----------------------------------------------------------------------- */

static void entry_free(struct pk_remote *rm, pk_entry *e) {
    if (e->data) pk_free(&rm->a, e->data, (size_t)e->len);
    lc.slist_free_all(e->x.hdrs);
    pk_free(&rm->a, e, sizeof *e);
}

static void entry_remove(struct pk_remote *rm, size_t i) {
    pk_entry *e = rm->ent[i];
    rm->cached -= e->len;
    entry_free(rm, e);
    rm->ent[i] = rm->ent[--rm->nent];
}

/* An entry holding byte `off` (done ones first: a failed or evicted range
 * may have been fetched again), or NULL. */
static pk_entry *entry_at(struct pk_remote *rm, uint64_t off, size_t *idx) {
    pk_entry *best = NULL;
    for (size_t i = 0; i < rm->nent; i++) {
        pk_entry *e = rm->ent[i];
        if (off < e->off || off - e->off >= e->len) continue;
        if (!best || (e->state == E_DONE && best->state != E_DONE)) {
            best = e;
            *idx = i;
        }
    }
    return best;
}

/* Makes room for `need` more bytes: evicts done entries, read ones first,
 * least recently used first. False when pending entries fill the cache. */
static bool make_room(struct pk_remote *rm, uint64_t need) {
    while (rm->cached + need > rm->o.max_cache) {
        size_t pick = SIZE_MAX;
        for (size_t i = 0; i < rm->nent; i++) {
            pk_entry *e = rm->ent[i];
            if (e->state != E_DONE && e->state != E_FAILED) continue;
            if (pick == SIZE_MAX) {
                pick = i;
                continue;
            }
            pk_entry *p = rm->ent[pick];
            bool eu = e->used >= e->len, pu = p->used >= p->len;
            if ((eu && !pu) || (eu == pu && e->last_use < p->last_use)) pick = i;
        }
        if (pick == SIZE_MAX) return false;
        entry_remove(rm, pick);
    }
    return true;
}

static bool entry_add(struct pk_remote *rm, pk_entry *e) {
    if (rm->nent == rm->capent) {
        size_t nc = rm->capent ? rm->capent * 2 : 32;
        pk_entry **p = pk_realloc(&rm->a, rm->ent, rm->capent * sizeof *p, nc * sizeof *p);
        if (!p) return false;
        rm->ent = p;
        rm->capent = nc;
    }
    rm->ent[rm->nent++] = e;
    rm->cached += e->len;
    return true;
}

static pk_entry *entry_new(struct pk_remote *rm, uint64_t off, uint64_t len) {
    pk_entry *e = pk_calloc(&rm->a, sizeof *e);
    if (!e) return NULL;
    e->data = pk_malloc(&rm->a, (size_t)len);
    if (!e->data) {
        pk_free(&rm->a, e, sizeof *e);
        return NULL;
    }
    e->off = off;
    e->len = len;
    e->x.rm = rm;
    e->x.off = off;
    e->x.len = len;
    e->x.buf = e->data;
    return e;
}

/* ---- The prefetch thread ----------------------------------------------------------- */

/* Starts queued entries while fewer than max_requests run; returns when the
 * next delayed retry is due (ms, monotonic). Called with rm->mu held. */
static uint64_t start_queued(struct pk_remote *rm) {
    uint64_t now = now_ms(), wake = now + 1000;
    for (size_t i = 0; i < rm->nent && rm->running < rm->o.max_requests; i++) {
        pk_entry *e = rm->ent[i];
        if (e->state != E_QUEUED) continue;
        if (e->retry_at > now) {
            if (e->retry_at < wake) wake = e->retry_at;
            continue;
        }
        if (!e->x.easy) e->x.easy = lc.easy_init();
        if (!e->x.easy || !setup(rm, &e->x)) {
            e->state = E_FAILED;
            pthread_cond_broadcast(&rm->cv);
            continue;
        }
        e->state = E_RUNNING;
        rm->running++;
        atomic_fetch_add(&rm->requests, 1);
        lc.multi_add_handle(rm->multi, e->x.easy);
    }
    return wake;
}

/* Judges the transfers curl has finished; true when there was one. Called
 * with rm->mu held. */
static bool collect_done(struct pk_remote *rm) {
    bool any = false;
    CURLMsg *msg;
    int q;
    while ((msg = lc.multi_info_read(rm->multi, &q)) != NULL) {
        if (msg->msg != CURLMSG_DONE) continue;
        any = true;
        pk_xfer *x = NULL;
        CURL *h = msg->easy_handle;
        lc.easy_getinfo(h, CURLINFO_PRIVATE, (char **)&x);
        CURLcode cc = msg->data.result;
        lc.multi_remove_handle(rm->multi, h);
        pk_entry *e = (pk_entry *)((char *)x - offsetof(pk_entry, x));
        rm->running--;
        atomic_fetch_add(&rm->bytes, x->got);
        plank_error e2;
        plank_error_init(&e2);
        int v = judge(rm, x, cc, false, &e2);
        if (v == R_OK) {
            e->state = E_DONE;
        } else if (v == R_RETRY && e->attempts < rm->o.max_retries) {
            e->attempts++;
            atomic_fetch_add(&rm->retries, 1);
            e->state = E_QUEUED;
            e->retry_at = now_ms() + backoff(rm, e->attempts);
        } else {
            /* a reader that needs these bytes fetches them itself, with its
             * own retries and the error message */
            e->state = E_FAILED;
        }
        if (e->state != E_QUEUED) {
            lc.slist_free_all(x->hdrs);
            x->hdrs = NULL;
            lc.easy_cleanup(x->easy);
            x->easy = NULL;
        }
        pthread_cond_broadcast(&rm->cv);
    }
    return any;
}

/* The prefetch thread: runs the queued entries on the multi handle. A
 * finished transfer is collected right after the curl_multi_perform that
 * finished it (polling first would sleep on a connection with nothing more
 * to say); it sleeps in curl_multi_poll only when nothing finished, until a
 * socket is ready, a retry is due or pk_remote_prefetch wakes it. */
static void *io_main(void *p) {
    struct pk_remote *rm = p;
    pthread_mutex_lock(&rm->mu);
    while (!rm->stop) {
        uint64_t wake = start_queued(rm);
        pthread_mutex_unlock(&rm->mu);
        int still = 0;
        lc.multi_perform(rm->multi, &still);
        pthread_mutex_lock(&rm->mu);
        if (collect_done(rm)) continue;
        pthread_mutex_unlock(&rm->mu);
        uint64_t t = now_ms();
        lc.multi_poll(rm->multi, NULL, 0, wake > t ? (int)(wake - t) : 0, NULL);
        pthread_mutex_lock(&rm->mu);
    }
    pthread_mutex_unlock(&rm->mu);
    return NULL;
}

void pk_remote_prefetch(pk_remote *rm, const pk_byte_range *ranges, size_t n) {
    if (!rm || !rm->o.prefetch || n == 0) return;
    /* What no entry holds yet, clipped to the file. */
    pk_byte_range stack[64], *want = stack;
    size_t cap = 64, k = 0;
    pthread_mutex_lock(&rm->mu);
    for (size_t i = 0; i < n; i++) {
        uint64_t o = ranges[i].offset, e = o + ranges[i].length;
        if (e > rm->size) e = rm->size;
        while (o < e) {
            size_t idx;
            pk_entry *h = entry_at(rm, o, &idx);
            if (h && h->state != E_FAILED) {
                o = h->off + h->len;
                continue;
            }
            uint64_t stop = e;
            for (size_t j = 0; j < rm->nent; j++) {
                pk_entry *x = rm->ent[j];
                if (x->state != E_FAILED && x->off > o && x->off < stop) stop = x->off;
            }
            if (k == cap) {
                size_t nc = cap * 2;
                pk_byte_range *p = pk_malloc(&rm->a, nc * sizeof *p);
                if (!p) break;
                memcpy(p, want, k * sizeof *p);
                if (want != stack) pk_free(&rm->a, want, cap * sizeof *want);
                want = p;
                cap = nc;
            }
            want[k++] = (pk_byte_range){o, stop - o};
            o = stop;
        }
    }
    size_t nr = pk_coalesce_ranges(want, k, rm->o.coalesce_gap, rm->o.max_request_size, NULL, 0);
    pk_byte_range *req = nr ? pk_malloc(&rm->a, nr * sizeof *req) : NULL;
    if (req) pk_coalesce_ranges(want, k, rm->o.coalesce_gap, rm->o.max_request_size, req, nr);
    bool queued = false;
    for (size_t i = 0; req && i < nr; i++) {
        if (!make_room(rm, req[i].length)) break;
        pk_entry *e = entry_new(rm, req[i].offset, req[i].length);
        if (!e) break;
        if (!entry_add(rm, e)) {
            entry_free(rm, e);
            break;
        }
        e->last_use = rm->tick++;
        queued = true;
    }
    if (queued && !rm->th_started) {
        rm->multi = lc.multi_init();
        if (rm->multi && pthread_create(&rm->th, NULL, io_main, rm) == 0) rm->th_started = true;
        else {
            /* no thread: the reads fetch for themselves */
            if (rm->multi) lc.multi_cleanup(rm->multi);
            rm->multi = NULL;
            for (size_t i = 0; i < rm->nent; i++)
                if (rm->ent[i]->state == E_QUEUED) rm->ent[i]->state = E_FAILED;
        }
    }
    pthread_mutex_unlock(&rm->mu);
    if (queued && rm->multi) lc.multi_wakeup(rm->multi);
    if (req) pk_free(&rm->a, req, nr * sizeof *req);
    if (want != stack) pk_free(&rm->a, want, cap * sizeof *want);
}

plank_status pk_remote_read(pk_remote *rm, uint64_t offset, void *buf, size_t len,
                            plank_error *err) {
    uint8_t *p = buf;
    pthread_mutex_lock(&rm->mu);
    while (len > 0) {
        size_t idx = 0;
        pk_entry *e = entry_at(rm, offset, &idx);
        if (e && (e->state == E_QUEUED || e->state == E_RUNNING)) {
            pthread_cond_wait(&rm->cv, &rm->mu);
            continue;
        }
        if (e && e->state == E_DONE) {
            uint64_t n = e->off + e->len - offset;
            if (n > len) n = len;
            memcpy(p, e->data + (offset - e->off), (size_t)n);
            e->used += n;
            e->last_use = rm->tick++;
            atomic_fetch_add(&rm->prefetched, n);
            p += n;
            offset += n;
            len -= (size_t)n;
            continue;
        }
        if (e) {
            entry_remove(rm, idx); /* failed: fetched again below */
            continue;
        }
        /* Not in the cache: up to the next entry, on this thread. */
        uint64_t n = len;
        for (size_t j = 0; j < rm->nent; j++) {
            pk_entry *x = rm->ent[j];
            if (x->off > offset && x->off - offset < n) n = x->off - offset;
        }
        pthread_mutex_unlock(&rm->mu);
        pk_xfer x;
        memset(&x, 0, sizeof x);
        x.rm = rm;
        x.off = offset;
        x.len = n;
        x.buf = p;
        pk_xfer *xs[1] = {&x};
        plank_status st = run_now(rm, xs, 1, false, err);
        if (st != PLANK_OK) return st;
        p += n;
        offset += n;
        len -= (size_t)n;
        pthread_mutex_lock(&rm->mu);
    }
    pthread_mutex_unlock(&rm->mu);
    return PLANK_OK;
}

/* ---- Open and close ------------------------------------------------------------------ */

uint64_t pk_remote_size(const pk_remote *rm) { return rm->size; }

void pk_remote_stats(pk_remote *rm, plank_io_stats *out) {
    out->requests = atomic_load(&rm->requests);
    out->bytes = atomic_load(&rm->bytes);
    out->retries = atomic_load(&rm->retries);
    out->bytes_prefetched = atomic_load(&rm->prefetched);
}

void pk_remote_close(pk_remote *rm) {
    if (!rm) return;
    if (rm->th_started) {
        pthread_mutex_lock(&rm->mu);
        rm->stop = true;
        pthread_mutex_unlock(&rm->mu);
        lc.multi_wakeup(rm->multi);
        pthread_join(rm->th, NULL);
    }
    for (size_t i = 0; i < rm->nent; i++) {
        pk_entry *e = rm->ent[i];
        if (e->x.easy) {
            if (rm->multi) lc.multi_remove_handle(rm->multi, e->x.easy);
            lc.easy_cleanup(e->x.easy);
        }
        entry_free(rm, e);
    }
    if (rm->ent) pk_free(&rm->a, rm->ent, rm->capent * sizeof *rm->ent);
    if (rm->multi) lc.multi_cleanup(rm->multi);
    for (int i = 0; i < rm->nidle; i++) lc.easy_cleanup(rm->idle[i]);
    if (rm->share) lc.share_cleanup(rm->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&rm->share_mu[i]);
    pthread_mutex_destroy(&rm->mu);
    pthread_cond_destroy(&rm->cv);
    const plank_allocator *a = &rm->a;
    char *strs[] = {rm->url, rm->display, rm->host_hdr, rm->canon_path, rm->region, rm->ak,
                    rm->sk, rm->token, (char *)rm->o.ca_file};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) free_str(a, strs[i]);
    plank_allocator copy = rm->a;
    pk_free(&copy, rm, sizeof *rm);
}

/* s3://bucket/key -> the request URL, Host header and canonical path. */
static plank_status resolve_s3(struct pk_remote *rm, const char *url,
                              const plank_remote_options *o, plank_error *err) {
    const plank_allocator *a = &rm->a;
    const char *b = url + 5; /* after "s3://" */
    const char *slash = strchr(b, '/');
    if (!slash || slash == b || !slash[1])
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "%s: an S3 URL is s3://bucket/key", url);
    size_t blen = (size_t)(slash - b);
    const char *key = slash + 1;
    const char *region = env_or(o->region, "AWS_REGION", "AWS_DEFAULT_REGION");
    if (!region) region = "us-east-1";
    const char *endpoint = env_or(o->endpoint, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
    const char *ak = env_or(o->access_key_id, "AWS_ACCESS_KEY_ID", NULL);
    const char *sk = env_or(o->secret_access_key, "AWS_SECRET_ACCESS_KEY", NULL);
    const char *tok = env_or(o->session_token, "AWS_SESSION_TOKEN", NULL);
    if (ak && !sk)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                            "%s: an access key id without a secret access key", url);
    char scheme[8] = "https", hostport[512];
    if (endpoint) {
        const char *h = strstr(endpoint, "://");
        if (h) {
            size_t sl = (size_t)(h - endpoint);
            if (sl >= sizeof scheme)
                return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "bad S3 endpoint %s",
                                    endpoint);
            memcpy(scheme, endpoint, sl);
            scheme[sl] = 0;
            h += 3;
        } else {
            h = endpoint;
        }
        size_t hl = strcspn(h, "/");
        if (hl == 0 || hl >= sizeof hostport)
            return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "bad S3 endpoint %s", endpoint);
        memcpy(hostport, h, hl);
        hostport[hl] = 0;
        /* the Host header is signed: send what curl would, without a default port */
        size_t L = strlen(hostport);
        if ((strcmp(scheme, "http") == 0 && L > 3 && strcmp(hostport + L - 3, ":80") == 0))
            hostport[L - 3] = 0;
        else if (strcmp(scheme, "https") == 0 && L > 4 && strcmp(hostport + L - 4, ":443") == 0)
            hostport[L - 4] = 0;
    } else {
        snprintf(hostport, sizeof hostport, "s3.%s.amazonaws.com", region);
    }
    bool path_style = rm->o.url_style == PLANK_S3_URL_PATH ||
                      (rm->o.url_style == PLANK_S3_URL_AUTO && endpoint);
    size_t kl = strlen(key);
    size_t cap = 3 * (kl + blen) + 8;
    char *ekey = pk_malloc(a, cap), *ebucket = pk_malloc(a, 3 * blen + 1);
    plank_status st = PLANK_OK;
    if (!ekey || !ebucket) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    if (st == PLANK_OK) {
        pk_uri_encode(key, kl, true, ekey, cap);
        pk_uri_encode(b, blen, false, ebucket, 3 * blen + 1);
        if (path_style) {
            rm->host_hdr = fmt_str(a, "%s", hostport);
            rm->canon_path = fmt_str(a, "/%s/%s", ebucket, ekey);
        } else {
            rm->host_hdr = fmt_str(a, "%s.%s", ebucket, hostport);
            rm->canon_path = fmt_str(a, "/%s", ekey);
        }
        if (rm->host_hdr && rm->canon_path)
            rm->url = fmt_str(a, "%s://%s%s", scheme, rm->host_hdr, rm->canon_path);
        if (!rm->url) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (st == PLANK_OK) {
        rm->region = dup_str(a, region, strlen(region));
        if (ak) {
            rm->sign = true;
            rm->ak = dup_str(a, ak, strlen(ak));
            rm->sk = dup_str(a, sk, strlen(sk));
            if (tok) rm->token = dup_str(a, tok, strlen(tok));
            if (!rm->ak || !rm->sk || (tok && !rm->token))
                st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        if (!rm->region) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (ekey) pk_free(a, ekey, cap);
    if (ebucket) pk_free(a, ebucket, 3 * blen + 1);
    return st;
}

plank_status pk_remote_open(pk_remote **out, const char *url, const plank_remote_options *o,
                            const plank_allocator *a, plank_error *err) {
    *out = NULL;
    pthread_once(&curl_once, init_curl);
    if (curl_load_error[0]) return pk_error_set(err, PLANK_ERR_UNSUPPORTED, "%s", curl_load_error);
    if (curl_init_code != CURLE_OK)
        return pk_error_set(err, PLANK_ERR_IO, "libcurl failed to initialise: %s",
                            lc.easy_strerror(curl_init_code));
    struct pk_remote *rm = pk_calloc(a, sizeof *rm);
    if (!rm) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    rm->a = *a;
    rm->o = *o;
    if (rm->o.max_requests < 1) rm->o.max_requests = 1;
    if (rm->o.max_requests > 64) rm->o.max_requests = 64;
    if (rm->o.max_retries < 0) rm->o.max_retries = 0;
    if (rm->o.footer_read < 8) rm->o.footer_read = 8;
    /* the caller's strings are not kept (resolve_s3 copies what it needs) */
    rm->o.endpoint = rm->o.region = rm->o.access_key_id = rm->o.secret_access_key = NULL;
    rm->o.session_token = NULL;
    rm->o.ca_file = o->ca_file ? dup_str(a, o->ca_file, strlen(o->ca_file)) : NULL;
    pthread_mutex_init(&rm->mu, NULL);
    pthread_cond_init(&rm->cv, NULL);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&rm->share_mu[i], NULL);
    plank_status st = PLANK_OK;
    rm->display = dup_str(a, url, strlen(url));
    if (!rm->display || (o->ca_file && !rm->o.ca_file))
        st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    if (st == PLANK_OK && (url[0] == 's' || url[0] == 'S')) {
        rm->s3 = true;
        st = resolve_s3(rm, url, o, err); /* copies what it keeps of o's strings */
    } else if (st == PLANK_OK) {
        rm->url = dup_str(a, url, strlen(url));
        if (!rm->url) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (st == PLANK_OK) {
        rm->share = lc.share_init();
        if (!rm->share) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory (curl)");
    }
    if (st == PLANK_OK) {
        lc.share_setopt(rm->share, CURLSHOPT_LOCKFUNC, share_lock);
        lc.share_setopt(rm->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
        lc.share_setopt(rm->share, CURLSHOPT_USERDATA, rm);
        lc.share_setopt(rm->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
        lc.share_setopt(rm->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
        lc.share_setopt(rm->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    }
    /* One round trip: the tail (which fixes the size and identity) and the
     * leading magic, in flight together. */
    pk_entry *tail = NULL, *head = NULL;
    if (st == PLANK_OK) {
        tail = entry_new(rm, 0, rm->o.footer_read);
        head = entry_new(rm, 0, 4);
        if (!tail || !head) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (st == PLANK_OK) {
        tail->x.suffix = true;
        pk_xfer *xs[2] = {&tail->x, &head->x};
        st = run_now(rm, xs, 2, true, err);
        if (st != PLANK_OK && err && err->code == PLANK_ERR_IO && head->x.status == 416 &&
            tail->x.status == 206) {
            /* a file shorter than 4 bytes: the reader says so */
            st = PLANK_OK;
            plank_error_init(err);
        }
    }
    if (st == PLANK_OK) {
        /* the tail: what the response held, at the offset it named */
        uint64_t got = tail->x.len;
        if (got < tail->len) {
            uint8_t *d = got ? pk_realloc(a, tail->data, (size_t)tail->len, (size_t)got) : NULL;
            if (got && !d) {
                st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            } else {
                if (!got) pk_free(a, tail->data, (size_t)tail->len);
                tail->data = d;
                tail->len = got;
            }
        }
        tail->off = tail->x.off;
        tail->state = E_DONE;
        head->state = E_DONE;
    }
    if (st == PLANK_OK && tail->len) {
        if (!entry_add(rm, tail)) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        else tail = NULL;
    }
    if (st == PLANK_OK && head->x.got == 4) {
        if (!entry_add(rm, head)) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        else head = NULL;
    }
    if (tail) entry_free(rm, tail);
    if (head) entry_free(rm, head);
    if (st != PLANK_OK) {
        pk_remote_close(rm);
        return st;
    }
    *out = rm;
    return PLANK_OK;
}

#endif
