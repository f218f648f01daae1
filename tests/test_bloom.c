/*
 * test_bloom.c: split-block bloom filters. XXH64 against known values and
 * (when linked) libxxhash for every length up to 300 at every alignment;
 * every inserted value is found; the false-positive rate of a filter sized
 * by pk_bloom_optimal_bytes is near its target; sizing edge cases; and
 * filters written by parquet-mr (the parquet-testing bloom_filter.xxhash.bin
 * and data_index_bloom_encoding_*.parquet) find every value they were built
 * from, read both with the internal functions and through the public API.
 */
#include "encoding/pk_bloom.h"
#include "tharness.h"
#include "thrift/pk_compact.h"

#ifdef PLANK_HAVE_XXHASH
#include <xxhash.h>
#endif

static uint64_t th_rng = 0x13198A2E03707344ull;
static uint64_t rnd64(void) {
    th_rng ^= th_rng << 13;
    th_rng ^= th_rng >> 7;
    th_rng ^= th_rng << 17;
    return th_rng;
}

/* ---- XXH64 ---------------------------------------------------------------- */

static void test_xxh64(void) {
    /* Published values for seed 0. */
    CHECK(pk_bloom_hash("", 0) == 0xEF46DB3751D8E999ull);
    CHECK(pk_bloom_hash(NULL, 0) == 0xEF46DB3751D8E999ull);
    CHECK(pk_bloom_xxh64(NULL, 0) == 0xEF46DB3751D8E999ull);
    CHECK(pk_bloom_hash("a", 1) == 0xD24EC4F1A98C6E5Bull);
    CHECK(pk_bloom_hash("abc", 3) == 0x44BC2CF5AD770999ull);
    CHECK(pk_bloom_xxh64("a", 1) == 0xD24EC4F1A98C6E5Bull);
    CHECK(pk_bloom_xxh64("abc", 3) == 0x44BC2CF5AD770999ull);

    /* Every length through several 32-byte stripes and every tail shape, at
     * every alignment: plank's own XXH64, the one pk_bloom_hash uses, and
     * (when linked) the library's agree. */
    uint8_t buf[300 + 8];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)rnd64();
    for (size_t len = 0; len <= 300; len++) {
        for (size_t off = 0; off < 8; off++) {
            uint64_t mine = pk_bloom_xxh64(buf + off, len);
            CHECK_MSG(mine == pk_bloom_hash(buf + off, len), "len %zu off %zu", len, off);
#ifdef PLANK_HAVE_XXHASH
            CHECK_MSG(mine == (uint64_t)XXH64(buf + off, len, 0), "len %zu off %zu", len, off);
#endif
        }
    }
}

/* ---- sizing ------------------------------------------------------------------ */

static bool is_pow2(uint32_t n) { return n && (n & (n - 1)) == 0; }

static void test_optimal_bytes(void) {
    const uint64_t ndvs[] = {0, 1, 2, 100, 1000, 1000000, 100000000, UINT32_MAX, UINT64_MAX};
    const double fpps[] = {1e-300, 1e-9, 0.001, 0.01, 0.05, 0.5, 0.999999};
    for (size_t i = 0; i < sizeof ndvs / sizeof ndvs[0]; i++) {
        uint32_t prev = UINT32_MAX;
        for (size_t j = 0; j < sizeof fpps / sizeof fpps[0]; j++) {
            uint32_t n = pk_bloom_optimal_bytes(ndvs[i], fpps[j]);
            CHECK_MSG(is_pow2(n) && n >= PK_BLOOM_MIN_BYTES && n <= PK_BLOOM_MAX_BYTES,
                      "ndv %llu fpp %g: %u", (unsigned long long)ndvs[i], fpps[j], n);
            /* A looser rate never needs more space. */
            CHECK(n <= prev);
            prev = n;
        }
    }
    CHECK_EQ_I64(pk_bloom_optimal_bytes(0, 0.01), PK_BLOOM_MIN_BYTES);
    CHECK_EQ_I64(pk_bloom_optimal_bytes(1, 0.01), PK_BLOOM_MIN_BYTES);
    CHECK_EQ_I64(pk_bloom_optimal_bytes(UINT64_MAX, 0.01), PK_BLOOM_MAX_BYTES);
    CHECK_EQ_I64(pk_bloom_optimal_bytes(100000000, 0.01), PK_BLOOM_MAX_BYTES);
    /* The format's numbers: 1% costs about 9.6 bits per value, so a million
     * values take 1.2 MB, rounded up to 2 MiB. */
    CHECK_EQ_I64(pk_bloom_optimal_bytes(1000000, 0.01), 2u << 20);
    CHECK_EQ_I64(pk_bloom_optimal_bytes(1000, 0.01), 2048);
    /* Out-of-range rates are clamped. */
    CHECK_EQ_I64(pk_bloom_optimal_bytes(1000, 0.0), PK_BLOOM_MAX_BYTES);
    CHECK_EQ_I64(pk_bloom_optimal_bytes(1000, -1.0), PK_BLOOM_MAX_BYTES);
    CHECK_EQ_I64(pk_bloom_optimal_bytes(1000, 0.0 / 0.0), PK_BLOOM_MAX_BYTES);
    CHECK_EQ_I64(pk_bloom_optimal_bytes(1000, 1.0), PK_BLOOM_MIN_BYTES);
    CHECK_EQ_I64(pk_bloom_optimal_bytes(1000, 2.0), PK_BLOOM_MIN_BYTES);
}

/* ---- insert and check ----------------------------------------------------------- */

static void test_insert_check(void) {
    /* The bits the format's Mask() sets, by hand: one per word. */
    uint8_t one[32] = {0};
    pk_bloom_insert(one, 32, 0x0000000100000001ull);
    static const uint32_t salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                     0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};
    for (int i = 0; i < 8; i++) CHECK(pk_load_u32(one + 4 * i) == 1u << (salt[i] >> 27));
    /* Block choice: the upper half of the hash scales to the block count. */
    uint8_t four[128] = {0};
    pk_bloom_insert(four, 128, 0xC000000000000000ull); /* (0xC0000000 * 4) >> 32 = 3 */
    for (int i = 0; i < 96; i++) CHECK(four[i] == 0);
    CHECK(pk_bloom_check(four, 128, 0xC000000000000000ull));
    /* No block: nothing to set, nothing ruled out. */
    pk_bloom_insert(NULL, 0, 1);
    CHECK(pk_bloom_check(NULL, 0, 1));

    enum { N = 10000, ABSENT = 100000 };
    uint32_t nbytes = pk_bloom_optimal_bytes(N, 0.01);
    uint8_t *bits = calloc(nbytes, 1);
    uint64_t *vals = malloc(N * sizeof *vals);
    for (int i = 0; i < N; i++) {
        vals[i] = rnd64() | 1; /* odd: the absent values below are even */
        pk_bloom_insert(bits, nbytes, pk_bloom_hash(&vals[i], 8));
    }
    int missing = 0;
    for (int i = 0; i < N; i++) missing += !pk_bloom_check(bits, nbytes, pk_bloom_hash(&vals[i], 8));
    CHECK_EQ_I64(missing, 0);
    int fp = 0;
    for (int i = 0; i < ABSENT; i++) {
        uint64_t v = rnd64() & ~(uint64_t)1;
        fp += pk_bloom_check(bits, nbytes, pk_bloom_hash(&v, 8));
    }
    double rate = (double)fp / ABSENT;
    fprintf(stderr, "bloom: %d values in %u bytes, false positives %.3f%%\n", N, nbytes,
            100 * rate);
    /* Rounding up to a power of two only lowers the rate. */
    CHECK_MSG(rate < 0.02, "false-positive rate %.4f", rate);
    free(bits);

    /* The formula's own size (9.59 bits per value at 1%), not rounded up to
     * a power of two: the rate is close to the target. */
    nbytes = (uint32_t)((N * 9.585 / 8 + 31) / 32) * 32;
    bits = calloc(nbytes, 1);
    for (int i = 0; i < N; i++) pk_bloom_insert(bits, nbytes, pk_bloom_hash(&vals[i], 8));
    fp = 0;
    for (int i = 0; i < ABSENT; i++) {
        uint64_t v = rnd64() & ~(uint64_t)1;
        fp += pk_bloom_check(bits, nbytes, pk_bloom_hash(&v, 8));
    }
    rate = (double)fp / ABSENT;
    fprintf(stderr, "bloom: %d values in %u bytes, false positives %.3f%%\n", N, nbytes,
            100 * rate);
    CHECK_MSG(rate > 0.005 && rate < 0.02, "false-positive rate %.4f", rate);
    free(vals);
    free(bits);
}

/* ---- filters written by parquet-mr ----------------------------------------------- */

/* A BloomFilterHeader (compact protocol): numBytes is field 1; the
 * algorithm, hash and compression unions are skipped. 0 when malformed. */
static uint32_t parse_header(const uint8_t *p, size_t n, size_t *header_len) {
    pk_tc r;
    pk_tc_init(&r, p, n, NULL);
    int64_t num_bytes = 0;
    int32_t id = 0;
    int type;
    for (;;) {
        if (pk_tc_field(&r, &id, &type) != PLANK_OK) return 0;
        if (type == PK_TC_STOP) break;
        if (id == 1) {
            if (pk_tc_int(&r, type, 1, INT32_MAX, &num_bytes) != PLANK_OK) return 0;
        } else if (pk_tc_skip(&r, type) != PLANK_OK) {
            return 0;
        }
    }
    *header_len = r.pos;
    return (uint32_t)num_bytes;
}

static int count_found(const uint8_t *bits, uint32_t nbytes, const char *const *strs, int n) {
    int found = 0;
    for (int i = 0; i < n; i++)
        found += pk_bloom_check(bits, nbytes, pk_bloom_hash(strs[i], strlen(strs[i])));
    return found;
}

/* Made-up strings that no test file holds. */
static int count_absent_positives(const uint8_t *bits, uint32_t nbytes) {
    int fp = 0;
    for (int i = 0; i < 1000; i++) {
        char s[32];
        int len = snprintf(s, sizeof s, "absent-%d-%x", i, i * 7919);
        fp += pk_bloom_check(bits, nbytes, pk_bloom_hash(s, (size_t)len));
    }
    return fp;
}

static void test_xxhash_bin(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/bloom_filter.xxhash.bin", dir);
    size_t n = 0;
    uint8_t *f = th_read_file(path, &n);
    CHECK_MSG(f != NULL, "cannot read %s", path);
    if (!f) return;
    size_t hl = 0;
    uint32_t nbytes = parse_header(f, n, &hl);
    CHECK_EQ_I64(nbytes, 1024);
    CHECK_EQ_I64(hl + nbytes, n);
    if (nbytes && hl + nbytes == n) {
        static const char *const in[] = {"hello", "parquet", "bloom", "filter"};
        CHECK_EQ_I64(count_found(f + hl, nbytes, in, 4), 4);
        int fp = count_absent_positives(f + hl, nbytes);
        CHECK_MSG(fp < 10, "%d of 1000 absent strings pass", fp);
    }
    free(f);
}

/* Reads every non-null value of the file's only column and checks the bloom
 * filter at its bloom_filter_offset finds them all. */
static void test_corpus_file(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", dir, name);
    size_t n = 0;
    uint8_t *f = th_read_file(path, &n);
    CHECK_MSG(f != NULL, "cannot read %s", path);
    if (!f) return;
    plank_reader *r = NULL;
    plank_error e;
    plank_error_init(&e);
    CHECK(plank_reader_open_memory(&r, f, n, NULL, &e) == PLANK_OK);
    if (!r) {
        free(f);
        return;
    }
    plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
    CHECK(plank_reader_column_chunk(r, 0, 0, &cc, &e) == PLANK_OK);
    CHECK(cc.physical_type == PLANK_BYTE_ARRAY);
    CHECK(cc.bloom_filter_offset > 0 && (uint64_t)cc.bloom_filter_offset < n);
    size_t hl = 0;
    uint32_t nbytes = 0;
    if (cc.bloom_filter_offset > 0 && (uint64_t)cc.bloom_filter_offset < n) {
        const uint8_t *p = f + cc.bloom_filter_offset;
        size_t avail = n - (size_t)cc.bloom_filter_offset;
        nbytes = parse_header(p, avail, &hl);
        CHECK(nbytes >= 32 && nbytes % 32 == 0 && hl + nbytes <= avail);
        if (cc.bloom_filter_length >= 0) CHECK_EQ_I64(cc.bloom_filter_length, hl + nbytes);
        if (hl + nbytes > avail) nbytes = 0;
    }
    /* The values are GZIP pages: a build without GZIP checks the filter's
     * header only. */
    bool readable = plank_codec_available(cc.codec);
    plank_column_reader *cr = NULL;
    CHECK(plank_column_reader_open(&cr, r, 0, 0, &e) == PLANK_OK);
    int64_t values = 0, found = 0;
    while (cr && nbytes && readable) {
        plank_batch b = {.struct_size = sizeof(plank_batch)};
        plank_status st = plank_column_reader_read(cr, 5, &b, &e);
        CHECK_MSG(st == PLANK_OK, "%s: %s", name, e.message);
        if (st != PLANK_OK || b.length == 0) break;
        for (int64_t i = 0; i < b.length; i++) {
            if (b.validity && !pk_bit_get(b.validity, i)) continue;
            const uint8_t *v = b.data + b.offsets[i];
            size_t len = (size_t)(b.offsets[i + 1] - b.offsets[i]);
            values++;
            found += pk_bloom_check(f + cc.bloom_filter_offset + hl, nbytes,
                                    pk_bloom_hash(v, len));
        }
    }
    CHECK(values > 5 || !readable);
    CHECK_EQ_I64(found, values);
    if (nbytes) {
        int fp = count_absent_positives(f + cc.bloom_filter_offset + hl, nbytes);
        CHECK_MSG(fp < 50, "%s: %d of 1000 absent strings pass", name, fp);
    }

    /* The public API loads the same bitset. */
    plank_bloom_filter *bf = NULL;
    plank_status st = plank_reader_bloom_filter(r, 0, 0, &bf, &e);
    CHECK_MSG(st == PLANK_OK && bf != NULL, "%s: status %d: %s", name, (int)st, e.message);
    CHECK_EQ_I64(plank_bloom_filter_size(bf), nbytes);
    int differ = 0;
    for (int i = 0; bf && nbytes && i < 10000; i++) {
        char v[24];
        int len = snprintf(v, sizeof v, "v%d", i * 31);
        differ += plank_bloom_filter_check(bf, v, (size_t)len) !=
                  pk_bloom_check(f + cc.bloom_filter_offset + hl, nbytes,
                                 pk_bloom_hash(v, (size_t)len));
    }
    CHECK_EQ_I64(differ, 0);
    static const char *const present[] = {"Hello", "This is", "a", "test"};
    CHECK_EQ_I64(plank_bloom_filter_check(bf, present[0], 5), true);
    for (int i = 0; readable && i < 4; i++)
        CHECK_MSG(plank_bloom_filter_check(bf, present[i], strlen(present[i])), "%s", present[i]);
    CHECK(!plank_bloom_filter_check(bf, "certainly-not-in-it", 19) ||
          !plank_bloom_filter_check(bf, "nor-this-one", 12));
    plank_bloom_filter_free(bf);
    /* Bad chunk coordinates. */
    bf = (plank_bloom_filter *)&e;
    CHECK_EQ_I64(plank_reader_bloom_filter(r, 1, 0, &bf, &e), PLANK_ERR_INVALID_ARGUMENT);
    CHECK(bf == NULL);
    CHECK_EQ_I64(plank_reader_bloom_filter(r, 0, -1, &bf, NULL), PLANK_ERR_INVALID_ARGUMENT);
    plank_column_reader_close(cr);
    plank_reader_close(r);
    free(f);
}

/* A copy of the file with its bloom filter header changed: status expected. */
static void expect_mutant(const uint8_t *f, size_t n, size_t at, uint8_t byte,
                          plank_status want, const char *what) {
    uint8_t *m = malloc(n);
    memcpy(m, f, n);
    m[at] = byte;
    plank_reader *r = NULL;
    plank_error e;
    plank_error_init(&e);
    CHECK(plank_reader_open_memory(&r, m, n, NULL, &e) == PLANK_OK);
    plank_bloom_filter *bf = NULL;
    plank_status st = r ? plank_reader_bloom_filter(r, 0, 0, &bf, &e) : PLANK_ERR_IO;
    CHECK_MSG(st == want, "%s: status %d, want %d: %s", what, (int)st, (int)want, e.message);
    CHECK(bf == NULL || st == PLANK_OK);
    if (st != PLANK_OK) CHECK(strstr(e.message, "bloom filter") != NULL);
    plank_bloom_filter_free(bf);
    plank_reader_close(r);
    free(m);
}

/* The public API on damaged headers (parquet-mr's at byte 192: numBytes
 * 15 80 10 = 1024, then the algorithm, hash and compression unions, each
 * 1c 1c 00 00) and on a file without bloom filters. */
static void test_public_api_errors(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/data_index_bloom_encoding_stats.parquet", dir);
    size_t n = 0;
    uint8_t *f = th_read_file(path, &n);
    CHECK_MSG(f != NULL, "cannot read %s", path);
    if (!f) return;
    static const uint8_t want[] = {0x15, 0x80, 0x10, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c};
    CHECK(n > 300 && memcmp(f + 192, want, sizeof want) == 0);
    if (n > 300 && memcmp(f + 192, want, sizeof want) == 0) {
        expect_mutant(f, n, 194, 0x08, PLANK_OK, "numBytes 512");
        expect_mutant(f, n, 193, 0xa0, PLANK_ERR_CORRUPT, "numBytes 1040, not whole blocks");
        expect_mutant(f, n, 194, 0x20, PLANK_ERR_CORRUPT, "numBytes 2048, past the file");
        expect_mutant(f, n, 193, 0x00, PLANK_ERR_CORRUPT, "numBytes 1024 + 0 (bad varint)");
        expect_mutant(f, n, 193, 0x01, PLANK_ERR_CORRUPT, "numBytes negative");
        expect_mutant(f, n, 196, 0x2c, PLANK_ERR_UNSUPPORTED, "algorithm member 2");
        expect_mutant(f, n, 200, 0x2c, PLANK_ERR_UNSUPPORTED, "hash member 2");
        expect_mutant(f, n, 195, 0x00, PLANK_ERR_CORRUPT, "no algorithm");
        expect_mutant(f, n, 192, 0x25, PLANK_ERR_CORRUPT, "no numBytes");
    }
    free(f);

    snprintf(path, sizeof path, "%s/data/alltypes_plain.parquet", dir);
    plank_reader *r = NULL;
    CHECK_EQ_I64(plank_reader_open_path(&r, path, NULL, NULL), PLANK_OK);
    if (!r) return;
    plank_bloom_filter *bf = (plank_bloom_filter *)&r;
    CHECK_EQ_I64(plank_reader_bloom_filter(r, 0, 0, &bf, NULL), PLANK_OK);
    CHECK(bf == NULL);
    /* No filter: nothing is ruled out. */
    CHECK(plank_bloom_filter_check(NULL, "x", 1));
    CHECK_EQ_I64(plank_bloom_filter_size(NULL), 0);
    plank_bloom_filter_free(NULL);
    plank_reader_close(r);
}

int main(void) {
    test_xxh64();
    test_optimal_bytes();
    test_insert_check();
    const char *dir = th_testing_dir();
    if (dir) {
        test_xxhash_bin(dir);
        test_corpus_file(dir, "data_index_bloom_encoding_stats.parquet");
        test_corpus_file(dir, "data_index_bloom_encoding_with_length.parquet");
        test_public_api_errors(dir);
    } else {
        TEST_SKIP_PART("corpus bloom filters: parquet-testing not found (set PLANK_TESTING_DIR)");
    }
    TEST_END();
}
