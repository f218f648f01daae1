/* test_sigv4.c: remote's request signing (pk_sigv4) against published known
 * answers: SHA-256 on the FIPS 180-4 / NIST examples, and streamed in pieces
 * of every awkward size equal to one-shot; HMAC-SHA-256 on RFC 4231's test
 * cases 1-4, 6 and 7; the Authorization header of AWS's S3 examples "GET
 * Object" and "GET Bucket (List Objects)" (Signature Calculations for the
 * Authorization Header: Transferring Payload in a Single Chunk), with the
 * intermediate values the same page publishes; pk_uri_encode on the
 * characters SigV4 treats specially; and every refusal (missing field, a
 * line break in a value, an output one byte too small). */
#include "tharness.h"

#include "remote/pk_sigv4.h"

static void check_digest_hex(const uint8_t d[32], const char *want, const char *what) {
    char hex[65];
    pk_hex32(d, hex);
    CHECK_MSG(strcmp(hex, want) == 0, "%s: got %s, want %s", what, hex, want);
}

static void check_sha(const char *msg, size_t len, const char *want, const char *what) {
    uint8_t d[32];
    pk_sha256_digest(msg, len, d);
    check_digest_hex(d, want, what);
    /* the same message one byte at a time */
    pk_sha256 s;
    pk_sha256_init(&s);
    for (size_t i = 0; i < len; i++) pk_sha256_update(&s, msg + i, 1);
    pk_sha256_final(&s, d);
    check_digest_hex(d, want, what);
}

/* FIPS 180-4 examples (NIST "SHA256.pdf" and the one-million-'a' message). */
static void test_sha256_vectors(void) {
    check_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty");
    check_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "abc");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_sha(m448, strlen(m448),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "448-bit");
    /* the empty string's digest is the constant the signer sends */
    uint8_t d[32];
    char hex[65];
    pk_sha256_digest(NULL, 0, d);
    pk_hex32(d, hex);
    CHECK(strcmp(hex, PK_SIGV4_EMPTY_SHA256) == 0);

    const char *million = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    size_t n = 1000000;
    char *a = malloc(n);
    CHECK(a != NULL);
    if (!a) return;
    memset(a, 'a', n);
    pk_sha256_digest(a, n, d);
    check_digest_hex(d, million, "million a, one-shot");
    pk_sha256 s;
    pk_sha256_init(&s);
    for (size_t i = 0; i < n; i += 1000) pk_sha256_update(&s, a + i, 1000);
    pk_sha256_final(&s, d);
    check_digest_hex(d, million, "million a, 1000-byte pieces");
    pk_sha256_init(&s);
    for (size_t i = 0; i < n;) { /* pieces of 1, 2, ... 200 bytes, round and round */
        size_t piece = 1 + i % 200;
        if (piece > n - i) piece = n - i;
        pk_sha256_update(&s, a + i, piece);
        i += piece;
    }
    pk_sha256_final(&s, d);
    check_digest_hex(d, million, "million a, ragged pieces");
    free(a);
}

/* Streaming in pieces of 1, 63, 64 and 65 bytes (and a zero-length update
 * between pieces) equals one-shot, for every message length around the
 * padding boundaries (55/56 bytes: the length field fits or spills) and
 * past a few blocks. */
static void test_sha256_streaming(void) {
    uint8_t msg[300];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 167 + 13);
    static const size_t pieces[] = {1, 63, 64, 65, 7, 129};
    for (size_t len = 0; len <= sizeof msg; len++) {
        uint8_t want[32];
        pk_sha256_digest(msg, len, want);
        for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
            pk_sha256 s;
            pk_sha256_init(&s);
            for (size_t at = 0; at < len;) {
                size_t p = pieces[k] < len - at ? pieces[k] : len - at;
                pk_sha256_update(&s, msg + at, p);
                pk_sha256_update(&s, msg, 0);
                at += p;
            }
            uint8_t got[32];
            pk_sha256_final(&s, got);
            CHECK_MSG(memcmp(got, want, 32) == 0, "len %zu in pieces of %zu", len, pieces[k]);
        }
    }
    /* a 65-byte piece after a 63-byte one: the buffered tail plus a whole block */
    uint8_t want[32], got[32];
    pk_sha256_digest(msg, 128, want);
    pk_sha256 s;
    pk_sha256_init(&s);
    pk_sha256_update(&s, msg, 63);
    pk_sha256_update(&s, msg + 63, 65);
    pk_sha256_final(&s, got);
    CHECK(memcmp(got, want, 32) == 0);
}

/* RFC 4231 section 4 (case 5 is a truncated output and is left out). */
static void test_hmac_rfc4231(void) {
    uint8_t key[131], data[50], d[32];

    memset(key, 0x0b, 20);
    pk_hmac_sha256(key, 20, "Hi There", 8, d);
    check_digest_hex(d, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", "case 1");

    const char *c2 = "what do ya want for nothing?";
    pk_hmac_sha256("Jefe", 4, c2, strlen(c2), d);
    check_digest_hex(d, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "case 2");

    memset(key, 0xaa, 20);
    memset(data, 0xdd, 50);
    pk_hmac_sha256(key, 20, data, 50, d);
    check_digest_hex(d, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe", "case 3");

    for (int i = 0; i < 25; i++) key[i] = (uint8_t)(i + 1);
    memset(data, 0xcd, 50);
    pk_hmac_sha256(key, 25, data, 50, d);
    check_digest_hex(d, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b", "case 4");

    memset(key, 0xaa, 131);
    const char *c6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    pk_hmac_sha256(key, 131, c6, strlen(c6), d);
    check_digest_hex(d, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", "case 6");

    const char *c7 = "This is a test using a larger than block-size key and a larger than "
                     "block-size data. The key needs to be hashed before being used by the "
                     "HMAC algorithm.";
    pk_hmac_sha256(key, 131, c7, strlen(c7), d);
    check_digest_hex(d, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2", "case 7");

    /* RFC 2104: a key longer than a block is replaced by its digest */
    uint8_t hk[32], d2[32];
    pk_sha256_digest(key, 131, hk);
    pk_hmac_sha256(hk, 32, c7, strlen(c7), d2);
    CHECK(memcmp(d, d2, 32) == 0);

    /* RFC 2104 around the block size: a key up to 64 bytes is zero-padded
     * to 64 (so the padding bytes are no different from a shorter key),
     * a longer one is replaced by its digest. */
    uint8_t big[130], padded[64];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 29 + 1);
    for (size_t len = 0; len <= sizeof big; len++) {
        pk_hmac_sha256(big, len, "msg", 3, d);
        if (len <= 64) {
            memset(padded, 0, sizeof padded);
            memcpy(padded, big, len);
            pk_hmac_sha256(padded, 64, "msg", 3, d2);
        } else {
            pk_sha256_digest(big, len, hk);
            pk_hmac_sha256(hk, 32, "msg", 3, d2);
        }
        CHECK_MSG(memcmp(d, d2, 32) == 0, "key of %zu bytes", len);
    }
}

#define AWS_ACCESS "AKIAIOSFODNN7EXAMPLE"
#define AWS_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define AWS_HOST "examplebucket.s3.amazonaws.com"
#define AWS_DATE "20130524T000000Z"

static pk_sigv4_request aws_get_object(void) {
    pk_sigv4_request rq = {
        .method = "GET",
        .host = AWS_HOST,
        .path = "/test.txt",
        .query = "",
        .range = "bytes=0-9",
        .amz_date = AWS_DATE,
        .region = "us-east-1",
        .service = "s3",
        .access_key = AWS_ACCESS,
        .secret_key = AWS_SECRET,
        .session_token = NULL,
    };
    return rq;
}

/* out with the space after each comma removed (the page prints the header
 * without them; both forms are valid, see below). */
static void strip_comma_space(const char *in, char *out) {
    for (; *in; in++) {
        *out++ = *in;
        if (*in == ',' && in[1] == ' ') in++;
    }
    *out = '\0';
}

/* The intermediate values the AWS page publishes for its examples, through
 * the public hash functions: the canonical requests' hashes, the signing key,
 * and the signature over the string to sign. */
static void test_sigv4_published_steps(void) {
    const char *cr_get = "GET\n/test.txt\n\nhost:" AWS_HOST "\nrange:bytes=0-9\n"
                         "x-amz-content-sha256:" PK_SIGV4_EMPTY_SHA256 "\n"
                         "x-amz-date:" AWS_DATE "\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
                         PK_SIGV4_EMPTY_SHA256;
    uint8_t d[32];
    pk_sha256_digest(cr_get, strlen(cr_get), d);
    check_digest_hex(d, "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972",
                     "GET Object canonical request");
    const char *cr_list = "GET\n/\nmax-keys=2&prefix=J\nhost:" AWS_HOST "\n"
                          "x-amz-content-sha256:" PK_SIGV4_EMPTY_SHA256 "\n"
                          "x-amz-date:" AWS_DATE "\n\nhost;x-amz-content-sha256;x-amz-date\n"
                          PK_SIGV4_EMPTY_SHA256;
    pk_sha256_digest(cr_list, strlen(cr_list), d);
    check_digest_hex(d, "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7",
                     "List Objects canonical request");

    uint8_t k[32], k2[32];
    const char *k0 = "AWS4" AWS_SECRET;
    pk_hmac_sha256(k0, strlen(k0), "20130524", 8, k);
    pk_hmac_sha256(k, 32, "us-east-1", 9, k2);
    pk_hmac_sha256(k2, 32, "s3", 2, k);
    pk_hmac_sha256(k, 32, "aws4_request", 12, k2);
    memcpy(k, k2, 32);
    check_digest_hex(k, "dbb893acc010964918f1fd433add87c70e8b0db6be30c1fbeafefa5ec6ba8378",
                     "signing key");
    const char *sts = "AWS4-HMAC-SHA256\n" AWS_DATE "\n20130524/us-east-1/s3/aws4_request\n"
                      "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972";
    pk_hmac_sha256(k, 32, sts, strlen(sts), d);
    check_digest_hex(d, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
                     "GET Object signature");
}

static void test_sigv4_aws_examples(void) {
    char out[512], sig[65];

    /* "Example: GET Object" */
    pk_sigv4_request rq = aws_get_object();
    CHECK(pk_sigv4_authorization(&rq, out, sizeof out, sig));
    CHECK(strcmp(sig, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41") == 0);
    /* The header exactly as the signer writes it: ", " between the parts,
     * as in the form the S3 "Using the Authorization Header" page gives. */
    const char *want_get =
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";
    CHECK_MSG(strcmp(out, want_get) == 0, "got %s", out);
    /* The example's "Authorization header" literal, byte for byte (the
     * page prints it with bare commas). */
    const char *page_get =
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";
    char bare[512];
    strip_comma_space(out, bare);
    CHECK_MSG(strcmp(bare, page_get) == 0, "got %s", bare);

    /* signature_out may be NULL */
    char out2[512];
    CHECK(pk_sigv4_authorization(&rq, out2, sizeof out2, NULL));
    CHECK(strcmp(out, out2) == 0);

    /* HEAD signs a different canonical request */
    rq.method = "HEAD";
    char sig_head[65];
    CHECK(pk_sigv4_authorization(&rq, out2, sizeof out2, sig_head));
    CHECK(strcmp(sig_head, sig) != 0);

    /* Header values are trimmed (and inner blank runs squeezed) before
     * signing, so padding around them changes nothing. */
    rq = aws_get_object();
    rq.host = "  " AWS_HOST "\t ";
    rq.range = " bytes=0-9  ";
    char sig_trim[65];
    CHECK(pk_sigv4_authorization(&rq, out2, sizeof out2, sig_trim));
    CHECK(strcmp(sig_trim, sig) == 0);

    /* "Example: GET Bucket (List Objects)": a query, no Range */
    rq = aws_get_object();
    rq.path = "/";
    rq.query = "max-keys=2&prefix=J";
    rq.range = NULL;
    CHECK(pk_sigv4_authorization(&rq, out, sizeof out, sig));
    CHECK(strcmp(sig, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == 0);
    const char *page_list =
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
        "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7";
    strip_comma_space(out, bare);
    CHECK_MSG(strcmp(bare, page_list) == 0, "got %s", bare);
}

/* A session token, a host with a port, a query and a secret long enough
 * that "AWS4" + secret is hashed before use as a key. AWS publishes no S3
 * example with a token, so the expected signature was computed with
 * Python's hashlib/hmac from the canonical request spelled out below. */
static void test_sigv4_session_token(void) {
    char secret[101];
    memset(secret, 'x', 100);
    secret[100] = '\0';
    pk_sigv4_request rq = {
        .method = "HEAD",
        .host = "127.0.0.1:9000",
        .path = "/bucket/a%20b.parquet",
        .query = "part=1",
        .range = NULL,
        .amz_date = "20240229T235959Z",
        .region = "eu-west-3",
        .service = "s3",
        .access_key = "AKIDEXAMPLE",
        .secret_key = secret,
        .session_token = "FwoGZXIvYXdzEXAMPLE//token+with/slashes==",
    };
    /* HEAD\n/bucket/a%20b.parquet\npart=1\nhost:127.0.0.1:9000\n
     * x-amz-content-sha256:<empty>\nx-amz-date:20240229T235959Z\n
     * x-amz-security-token:<token>\n\n
     * host;x-amz-content-sha256;x-amz-date;x-amz-security-token\n<empty> */
    char out[512], sig[65];
    CHECK(pk_sigv4_authorization(&rq, out, sizeof out, sig));
    const char *want =
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240229/eu-west-3/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, "
        "Signature=b2f7356056150260fc9e9119580549871e92ccf5b3343d5e86e8edbe4a1c5f87";
    CHECK_MSG(strcmp(out, want) == 0, "got %s", out);

    /* the token is signed: another token, another signature */
    char sig2[65];
    rq.session_token = "FwoGZXIvYXdzEXAMPLE//token+with/slashes=!";
    CHECK(pk_sigv4_authorization(&rq, out, sizeof out, sig2));
    CHECK(strcmp(sig, sig2) != 0);
}

/* The signer takes its first key as "AWS4" and the secret in two parts;
 * for secrets of every length across the 64-byte block (60 + "AWS4"), the
 * List Objects request signed through the public hash functions with the
 * key assembled in one piece gives the same signature. */
static void test_sigv4_secret_lengths(void) {
    const char *cr = "GET\n/\nmax-keys=2&prefix=J\nhost:" AWS_HOST "\n"
                     "x-amz-content-sha256:" PK_SIGV4_EMPTY_SHA256 "\n"
                     "x-amz-date:" AWS_DATE "\n\nhost;x-amz-content-sha256;x-amz-date\n"
                     PK_SIGV4_EMPTY_SHA256;
    uint8_t d[32];
    char cr_hex[65], sts[256];
    pk_sha256_digest(cr, strlen(cr), d);
    pk_hex32(d, cr_hex);
    snprintf(sts, sizeof sts, "AWS4-HMAC-SHA256\n%s\n20130524/us-east-1/s3/aws4_request\n%s",
             AWS_DATE, cr_hex);
    for (size_t len = 1; len <= 100; len++) {
        char secret[101], key[105];
        for (size_t i = 0; i < len; i++) secret[i] = (char)('A' + (i * 7 + len) % 26);
        secret[len] = '\0';
        memcpy(key, "AWS4", 4);
        memcpy(key + 4, secret, len);
        uint8_t k[32], k2[32];
        pk_hmac_sha256(key, 4 + len, "20130524", 8, k);
        pk_hmac_sha256(k, 32, "us-east-1", 9, k2);
        pk_hmac_sha256(k2, 32, "s3", 2, k);
        pk_hmac_sha256(k, 32, "aws4_request", 12, k2);
        pk_hmac_sha256(k2, 32, sts, strlen(sts), d);
        char want[65], sig[65], out[512];
        pk_hex32(d, want);
        pk_sigv4_request rq = aws_get_object();
        rq.path = "/";
        rq.query = "max-keys=2&prefix=J";
        rq.range = NULL;
        rq.secret_key = secret;
        CHECK(pk_sigv4_authorization(&rq, out, sizeof out, sig));
        CHECK_MSG(strcmp(sig, want) == 0, "secret of %zu bytes", len);
    }
}

static void test_sigv4_refusals(void) {
    char out[512], sig[65];
    pk_sigv4_request rq = aws_get_object();
    CHECK(!pk_sigv4_authorization(NULL, out, sizeof out, sig));
    CHECK(!pk_sigv4_authorization(&rq, NULL, sizeof out, sig));
    CHECK(!pk_sigv4_authorization(&rq, out, 0, sig));

    /* each required field missing in turn */
    const char **fields[] = {&rq.method,   &rq.host,    &rq.path,       &rq.query,
                             &rq.amz_date, &rq.region,  &rq.service,    &rq.access_key,
                             &rq.secret_key};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        rq = aws_get_object();
        *fields[i] = NULL; /* the pointers point into rq, refilled above */
        memset(out, 'z', sizeof out);
        CHECK_MSG(!pk_sigv4_authorization(&rq, out, sizeof out, sig), "field %zu NULL", i);
        CHECK(out[0] == '\0');
    }

    /* line breaks would forge canonical-request lines or split headers */
    rq = aws_get_object();
    rq.range = "bytes=0-9\r\nx-evil: 1";
    CHECK(!pk_sigv4_authorization(&rq, out, sizeof out, sig));
    rq = aws_get_object();
    rq.path = "/test.txt\nGET";
    CHECK(!pk_sigv4_authorization(&rq, out, sizeof out, sig));
    rq = aws_get_object();
    rq.session_token = "tok\nen";
    CHECK(!pk_sigv4_authorization(&rq, out, sizeof out, sig));

    /* a relative path, a date that is not YYYYMMDD..., an empty host */
    rq = aws_get_object();
    rq.path = "test.txt";
    CHECK(!pk_sigv4_authorization(&rq, out, sizeof out, sig));
    rq = aws_get_object();
    rq.amz_date = "2013-05-24T00:00:00Z";
    CHECK(!pk_sigv4_authorization(&rq, out, sizeof out, sig));
    rq = aws_get_object();
    rq.amz_date = "2013052";
    CHECK(!pk_sigv4_authorization(&rq, out, sizeof out, sig));
    rq = aws_get_object();
    rq.host = "";
    CHECK(!pk_sigv4_authorization(&rq, out, sizeof out, sig));

    /* every output size short of the header fails, leaving "" and no
     * signature; the exact size succeeds */
    rq = aws_get_object();
    CHECK(pk_sigv4_authorization(&rq, out, sizeof out, sig));
    size_t need = strlen(out) + 1;
    char want[512];
    memcpy(want, out, need);
    for (size_t size = 1; size < need; size++) {
        char small[512], s2[65] = "untouched";
        memset(small, 'z', sizeof small);
        bool ok = pk_sigv4_authorization(&rq, small, size, s2);
        CHECK_MSG(!ok, "size %zu", size);
        CHECK(small[0] == '\0');
        CHECK(small[size] == 'z'); /* nothing written past out_size */
        CHECK(strcmp(s2, "untouched") == 0);
    }
    char exact[512];
    memset(exact, 'z', sizeof exact);
    CHECK(pk_sigv4_authorization(&rq, exact, need, sig));
    CHECK(strcmp(exact, want) == 0);
    CHECK(exact[need] == 'z');
}

static void check_enc(const char *in, size_t len, bool keep_slash, const char *want) {
    char out[128];
    size_t n = pk_uri_encode(in, len, keep_slash, out, sizeof out);
    CHECK_MSG(n == strlen(want) && strcmp(out, want) == 0, "encode(%s): got %s (%zu), want %s",
              in, n == (size_t)-1 ? "(fail)" : out, n, want);
    /* the exact size fits; one byte less does not */
    char exact[128];
    CHECK(pk_uri_encode(in, len, keep_slash, exact, strlen(want) + 1) == strlen(want));
    CHECK(strcmp(exact, want) == 0);
    CHECK(pk_uri_encode(in, len, keep_slash, exact, strlen(want)) == (size_t)-1);
}

static void test_uri_encode(void) {
    check_enc("", 0, false, "");
    check_enc("AZaz09-._~", 10, false, "AZaz09-._~");
    check_enc("a b", 3, false, "a%20b"); /* %20, never '+' */
    check_enc("a/b c", 5, true, "a/b%20c");
    check_enc("a/b c", 5, false, "a%2Fb%20c");
    check_enc("~user/x", 7, true, "~user/x");
    check_enc("+=&?%*!'()", 10, false, "%2B%3D%26%3F%25%2A%21%27%28%29");
    check_enc("caf\xc3\xa9 \xe2\x82\xac", 9, true, "caf%C3%A9%20%E2%82%AC"); /* UTF-8: each byte */
    check_enc("\xff\x80", 2, false, "%FF%80");
    check_enc("a\0b", 3, false, "a%00b"); /* len, not the NUL, ends the input */
    check_enc("a/b", 1, false, "a");

    char out[8];
    CHECK(pk_uri_encode("abc", 3, false, out, 0) == (size_t)-1);
    CHECK(pk_uri_encode("abc", 3, false, NULL, 8) == (size_t)-1);
    CHECK(pk_uri_encode(NULL, 0, false, out, sizeof out) == 0 && out[0] == '\0');
    CHECK(pk_uri_encode(NULL, 1, false, out, sizeof out) == (size_t)-1);
    /* a percent escape is never cut in half */
    CHECK(pk_uri_encode("ab ", 3, false, out, 5) == (size_t)-1);
    CHECK(out[0] == '\0');
    CHECK(pk_uri_encode("ab ", 3, false, out, 6) == 5 && strcmp(out, "ab%20") == 0);
}

int main(void) {
    test_sha256_vectors();
    test_sha256_streaming();
    test_hmac_rfc4231();
    test_sigv4_published_steps();
    test_sigv4_aws_examples();
    test_sigv4_session_token();
    test_sigv4_secret_lengths();
    test_sigv4_refusals();
    test_uri_encode();
    TEST_END();
}
