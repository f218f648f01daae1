/*
 * pk_sigv4.c: SHA-256 (FIPS 180-4), HMAC-SHA-256 (RFC 2104) and the AWS
 * Signature Version 4 Authorization header for bodiless S3 requests.
 *
 * Nothing here allocates: the canonical request and the string to sign are
 * never materialised but streamed into the hash, so no length limit applies
 * to the path, the query or a session token (which can be kilobytes), and
 * the only bounded buffer is the caller's `out`.
 */
#include "pk_sigv4.h"

#include <stdio.h>
#include <string.h>

/* ---- SHA-256 ------------------------------------------------------------ */

static const uint32_t pk_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t pk_rotr32(uint32_t x, unsigned n) { return (x >> n) | (x << (32u - n)); }

/* One 64-byte block into the state (FIPS 180-4 section 6.2.2). */
static void pk_sha256_block(uint32_t h[8], const uint8_t *p) {
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = pk_rotr32(w[t - 15], 7) ^ pk_rotr32(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = pk_rotr32(w[t - 2], 17) ^ pk_rotr32(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t S1 = pk_rotr32(e, 6) ^ pk_rotr32(e, 11) ^ pk_rotr32(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = hh + S1 + ch + pk_sha256_k[t] + w[t];
        uint32_t S0 = pk_rotr32(a, 2) ^ pk_rotr32(a, 13) ^ pk_rotr32(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

void pk_sha256_init(pk_sha256 *s) {
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->total = 0;
    s->used = 0;
}

void pk_sha256_update(pk_sha256 *s, const void *data, size_t len) {
    if (len == 0) return; /* data may then be NULL */
    const uint8_t *p = data;
    s->total += len;
    if (s->used) {
        size_t take = 64 - s->used < len ? 64 - s->used : len;
        memcpy(s->buf + s->used, p, take);
        s->used += take;
        p += take;
        len -= take;
        if (s->used < 64) return;
        pk_sha256_block(s->h, s->buf);
        s->used = 0;
    }
    /* Whole blocks straight from the caller's memory, no copy. */
    for (; len >= 64; p += 64, len -= 64) pk_sha256_block(s->h, p);
    if (len) {
        memcpy(s->buf, p, len);
        s->used = len;
    }
}

void pk_sha256_final(pk_sha256 *s, uint8_t out[32]) {
    uint64_t bits = s->total * 8; /* the length field is mod 2^64 bits */
    s->buf[s->used++] = 0x80;
    if (s->used > 56) {
        memset(s->buf + s->used, 0, 64 - s->used);
        pk_sha256_block(s->h, s->buf);
        s->used = 0;
    }
    memset(s->buf + s->used, 0, 56 - s->used);
    for (int i = 0; i < 8; i++) s->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    pk_sha256_block(s->h, s->buf);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
    s->used = 0;
}

void pk_sha256_digest(const void *data, size_t len, uint8_t out[32]) {
    pk_sha256 s;
    pk_sha256_init(&s);
    pk_sha256_update(&s, data, len);
    pk_sha256_final(&s, out);
}

/* ---- HMAC-SHA-256 ------------------------------------------------------- */

/* Zeroes key material through a volatile pointer, so that the stores are not
 * dropped as dead (memset before a return may be). */
static void pk_wipe(void *p, size_t n) {
    volatile uint8_t *v = p;
    while (n--) *v++ = 0;
}

/* A streaming HMAC, so the string to sign need not be assembled in a buffer. */
typedef struct pk_hmac {
    pk_sha256 inner;
    uint8_t okey[64]; /* the key block xor opad */
} pk_hmac;

/* The key is k1 followed by k2: SigV4's first key is "AWS4" + secret, and
 * taking it in two parts saves copying a secret of any length. */
static void pk_hmac_init(pk_hmac *m, const void *k1, size_t n1, const void *k2, size_t n2) {
    uint8_t k[64] = {0};
    if (n1 > 64 || n2 > 64 - n1) { /* longer than a block: hashed first (RFC 2104) */
        pk_sha256 s;
        pk_sha256_init(&s);
        pk_sha256_update(&s, k1, n1);
        pk_sha256_update(&s, k2, n2);
        pk_sha256_final(&s, k);
        pk_wipe(&s, sizeof s);
    } else {
        if (n1) memcpy(k, k1, n1);
        if (n2) memcpy(k + n1, k2, n2);
    }
    uint8_t ipad[64];
    for (int i = 0; i < 64; i++) {
        ipad[i] = (uint8_t)(k[i] ^ 0x36);
        m->okey[i] = (uint8_t)(k[i] ^ 0x5c);
    }
    pk_sha256_init(&m->inner);
    pk_sha256_update(&m->inner, ipad, sizeof ipad);
    pk_wipe(k, sizeof k);
    pk_wipe(ipad, sizeof ipad);
}

static void pk_hmac_update(pk_hmac *m, const void *data, size_t len) {
    pk_sha256_update(&m->inner, data, len);
}

static void pk_hmac_final(pk_hmac *m, uint8_t out[32]) {
    uint8_t ih[32];
    pk_sha256_final(&m->inner, ih);
    pk_sha256 outer;
    pk_sha256_init(&outer);
    pk_sha256_update(&outer, m->okey, sizeof m->okey);
    pk_sha256_update(&outer, ih, sizeof ih);
    pk_sha256_final(&outer, out);
    pk_wipe(m, sizeof *m);
    pk_wipe(&outer, sizeof outer);
}

void pk_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                    uint8_t out[32]) {
    pk_hmac m;
    pk_hmac_init(&m, key, key_len, NULL, 0);
    pk_hmac_update(&m, msg, msg_len);
    pk_hmac_final(&m, out);
}

void pk_hex32(const uint8_t in[32], char out[65]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[64] = '\0';
}

/* ---- URI encoding ------------------------------------------------------- */

static bool pk_uri_unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

size_t pk_uri_encode(const char *s, size_t len, bool keep_slash, char *out, size_t out_size) {
    static const char digits[] = "0123456789ABCDEF";
    if (!out || out_size == 0 || (!s && len)) return (size_t)-1;
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        bool keep = pk_uri_unreserved(c) || (keep_slash && c == '/');
        size_t need = keep ? 1 : 3;
        if (need >= out_size - w) { /* leaves no room for the NUL */
            out[0] = '\0';
            return (size_t)-1;
        }
        if (keep) {
            out[w++] = (char)c;
        } else {
            out[w++] = '%';
            out[w++] = digits[c >> 4];
            out[w++] = digits[c & 15];
        }
    }
    out[w] = '\0';
    return w;
}

/* ---- Signature Version 4 ------------------------------------------------ */

/* CR or LF would end a line of the canonical request early (two requests
 * could then share one signature), and in a header value they would split
 * the header on the wire, so such input is refused rather than signed. */
static bool pk_sigv4_one_line(const char *v) { return strpbrk(v, "\r\n") == NULL; }

static bool pk_sigv4_present(const char *v) { return v && *v && pk_sigv4_one_line(v); }

/* Feeds a header value as SigV4 canonicalises it: leading and trailing
 * blanks dropped, each inner run of blanks turned into one space. */
static void pk_sigv4_hash_value(pk_sha256 *s, const char *v) {
    bool pending = false, any = false;
    for (; *v; v++) {
        if (*v == ' ' || *v == '\t') {
            pending = any;
            continue;
        }
        if (pending) pk_sha256_update(s, " ", 1);
        pending = false;
        any = true;
        pk_sha256_update(s, v, 1);
    }
}

static void pk_sigv4_hash_header(pk_sha256 *s, const char *name, const char *value) {
    pk_sha256_update(s, name, strlen(name));
    pk_sha256_update(s, ":", 1);
    pk_sigv4_hash_value(s, value);
    pk_sha256_update(s, "\n", 1);
}

static void pk_hmac_str(const uint8_t key[32], const char *msg, uint8_t out[32]) {
    pk_hmac_sha256(key, 32, msg, strlen(msg), out);
}

bool pk_sigv4_authorization(const pk_sigv4_request *rq, char *out, size_t out_size,
                            char signature_out[65]) {
    if (!out || out_size == 0) return false;
    out[0] = '\0';
    if (!rq || !pk_sigv4_present(rq->method) || !pk_sigv4_present(rq->host) ||
        !pk_sigv4_present(rq->path) || !rq->query || !pk_sigv4_one_line(rq->query) ||
        !pk_sigv4_present(rq->amz_date) || !pk_sigv4_present(rq->region) ||
        !pk_sigv4_present(rq->service) || !pk_sigv4_present(rq->access_key) ||
        !rq->secret_key || !*rq->secret_key || (rq->range && !pk_sigv4_one_line(rq->range)) ||
        (rq->session_token && !pk_sigv4_one_line(rq->session_token)))
        return false;
    /* The canonical URI is the request path itself, which is absolute. */
    if (rq->path[0] != '/') return false;
    /* The scope's date is the first 8 characters of x-amz-date (YYYYMMDD). */
    for (int i = 0; i < 8; i++)
        if (rq->amz_date[i] < '0' || rq->amz_date[i] > '9') return false;
    char date[9];
    memcpy(date, rq->amz_date, 8);
    date[8] = '\0';

    /* Sorted by name, as SigV4 requires: the optional ones fall in place. */
    char signed_headers[80] = "host";
    if (rq->range) strcat(signed_headers, ";range");
    strcat(signed_headers, ";x-amz-content-sha256;x-amz-date");
    if (rq->session_token) strcat(signed_headers, ";x-amz-security-token");

    pk_sha256 cr;
    pk_sha256_init(&cr);
    pk_sha256_update(&cr, rq->method, strlen(rq->method));
    pk_sha256_update(&cr, "\n", 1);
    pk_sha256_update(&cr, rq->path, strlen(rq->path));
    pk_sha256_update(&cr, "\n", 1);
    pk_sha256_update(&cr, rq->query, strlen(rq->query));
    pk_sha256_update(&cr, "\n", 1);
    pk_sigv4_hash_header(&cr, "host", rq->host);
    if (rq->range) pk_sigv4_hash_header(&cr, "range", rq->range);
    pk_sigv4_hash_header(&cr, "x-amz-content-sha256", PK_SIGV4_EMPTY_SHA256);
    pk_sigv4_hash_header(&cr, "x-amz-date", rq->amz_date);
    if (rq->session_token) pk_sigv4_hash_header(&cr, "x-amz-security-token", rq->session_token);
    pk_sha256_update(&cr, "\n", 1); /* the header block ends with an empty line */
    pk_sha256_update(&cr, signed_headers, strlen(signed_headers));
    pk_sha256_update(&cr, "\n", 1);
    pk_sha256_update(&cr, PK_SIGV4_EMPTY_SHA256, strlen(PK_SIGV4_EMPTY_SHA256));
    uint8_t cr_hash[32];
    pk_sha256_final(&cr, cr_hash);
    char cr_hex[65];
    pk_hex32(cr_hash, cr_hex);

    /* Signing key: HMAC chain from "AWS4" + secret over the scope's parts. */
    uint8_t k[32], k2[32];
    pk_hmac m;
    pk_hmac_init(&m, "AWS4", 4, rq->secret_key, strlen(rq->secret_key));
    pk_hmac_update(&m, date, 8);
    pk_hmac_final(&m, k);
    pk_hmac_str(k, rq->region, k2);
    pk_hmac_str(k2, rq->service, k);
    pk_hmac_str(k, "aws4_request", k2);

    /* String to sign, streamed: algorithm, date, scope, canonical hash. */
    pk_hmac_init(&m, k2, 32, NULL, 0);
    pk_hmac_update(&m, "AWS4-HMAC-SHA256\n", 17);
    pk_hmac_update(&m, rq->amz_date, strlen(rq->amz_date));
    pk_hmac_update(&m, "\n", 1);
    pk_hmac_update(&m, date, 8);
    pk_hmac_update(&m, "/", 1);
    pk_hmac_update(&m, rq->region, strlen(rq->region));
    pk_hmac_update(&m, "/", 1);
    pk_hmac_update(&m, rq->service, strlen(rq->service));
    pk_hmac_update(&m, "/aws4_request\n", 14);
    pk_hmac_update(&m, cr_hex, 64);
    uint8_t sig[32];
    pk_hmac_final(&m, sig);
    pk_wipe(k, sizeof k);
    pk_wipe(k2, sizeof k2);
    char sig_hex[65];
    pk_hex32(sig, sig_hex);

    int n = snprintf(out, out_size,
                     "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=%s, "
                     "Signature=%s",
                     rq->access_key, date, rq->region, rq->service, signed_headers, sig_hex);
    if (n < 0 || (size_t)n >= out_size) {
        out[0] = '\0';
        return false;
    }
    if (signature_out) memcpy(signature_out, sig_hex, 65);
    return true;
}
