/* SHA-256, HMAC-SHA-256 and AWS Signature Version 4 for S3 GET/HEAD
 * requests. Self-contained (no libcrypto): the remote module signs its own
 * requests, and the functions are pure, so they are tested against the
 * published vectors (FIPS 180-4 examples, RFC 4231, AWS's SigV4 examples). */
#ifndef PK_SIGV4_H
#define PK_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pk_sha256 {
    uint32_t h[8];
    uint64_t total; /* bytes hashed so far */
    uint8_t buf[64];
    size_t used;
} pk_sha256;

void pk_sha256_init(pk_sha256 *s);
void pk_sha256_update(pk_sha256 *s, const void *data, size_t len);
void pk_sha256_final(pk_sha256 *s, uint8_t out[32]);
void pk_sha256_digest(const void *data, size_t len, uint8_t out[32]);
void pk_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                    uint8_t out[32]);
/* 64 lowercase hex digits and a NUL. */
void pk_hex32(const uint8_t in[32], char out[65]);

/* RFC 3986 percent-encoding as SigV4 wants it: unreserved characters
 * (A-Z a-z 0-9 - . _ ~) kept, '/' kept when keep_slash, every other byte
 * %XX with uppercase hex. Returns the length written (out NUL-terminated),
 * or (size_t)-1 when out_size is too small. */
size_t pk_uri_encode(const char *s, size_t len, bool keep_slash, char *out, size_t out_size);

/* One request to sign. Every string NUL-terminated; optional ones NULL. */
typedef struct pk_sigv4_request {
    const char *method;        /* "GET" or "HEAD" */
    const char *host;          /* the Host header as sent: "bucket.s3.amazonaws.com" or
                                  "127.0.0.1:9000" (with the port when not the default) */
    const char *path;          /* the request path, already URI-encoded ("/bucket/a%20b") */
    const char *query;         /* the canonical query string (names sorted, encoded) or "" */
    const char *range;         /* the Range header value, signed when not NULL */
    const char *amz_date;      /* ISO 8601 basic, "20130524T000000Z" */
    const char *region;        /* "us-east-1" */
    const char *service;       /* "s3" */
    const char *access_key;
    const char *secret_key;
    const char *session_token; /* x-amz-security-token, signed when not NULL */
} pk_sigv4_request;

/* The payload hash sent as x-amz-content-sha256 for requests without a
 * body (the SHA-256 of the empty string). */
#define PK_SIGV4_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Writes the value of the Authorization header ("AWS4-HMAC-SHA256
 * Credential=..., SignedHeaders=..., Signature=...") for a request that sends
 * Host, Range (when given), x-amz-content-sha256 (PK_SIGV4_EMPTY_SHA256),
 * x-amz-date and x-amz-security-token (when given). Returns false when out
 * is too small or an argument is missing. signature_out (65 bytes, may be
 * NULL) receives the hex signature alone, for tests. */
bool pk_sigv4_authorization(const pk_sigv4_request *rq, char *out, size_t out_size,
                            char signature_out[65]);

#endif
