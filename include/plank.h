/*
 * plank.h: the one public header of plank, an Apache Parquet library in C11.
 *
 * Conventions
 *  - Every function that can fail returns a plank_status (PLANK_OK == 0) and
 *    takes an optional `plank_error *err` last, which it resets on entry;
 *    when err is not NULL it receives a message naming what was wrong and
 *    where (byte offset, row group, column, page). Passing NULL is always
 *    allowed.
 *  - Argument order: a function that opens or creates a handle (the _open
 *    and _new functions) takes its `**out` first (plank_reader_open_path(&r,
 *    ...), plank_column_reader_open(&cr, r, ...)) and sets *out to NULL on
 *    failure; every other function takes the object it works on (or its
 *    input) first and its results last, before err (plank_expr_parse(text,
 *    a, &e, err), plank_reader_column_index(r, g, c, &ci, err)). Functions
 *    that only read an object take it const.
 *  - Handles (plank_reader, plank_column_reader, plank_writer, plank_scan,
 *    ...) are opaque. Close and free functions accept NULL.
 *  - Memory is allocated through the plank_allocator given in the options, or
 *    malloc/realloc/free when none is given. There is no global mutable
 *    state. The process-wide values are the SIMD level of the kernels:
 *    the CPU's, capped by the environment variable PLANK_SIMD=scalar|avx2
 *    (to test or compare the levels), and the default of
 *    plank_reader_options.read_window, which PLANK_READ_WINDOW=BYTES sets
 *    (to test the windowed reads with tiny windows, or to measure), all read
 *    once, at the first open of a reader or writer in the process.
 *  - Hostile-input contract: every size, count, offset and bit width read from
 *    a file is checked before use. A malformed file yields PLANK_ERR_CORRUPT
 *    (or PLANK_ERR_LIMIT when a configured bound is exceeded), never a read or
 *    write outside a buffer.
 *  - Struct-size convention (ABI): every struct that may gain fields in a
 *    later minor version begins with `size_t struct_size`, the size the
 *    caller was compiled with. Options and other structs the caller passes in
 *    get it from their _init function (or `= {.struct_size = sizeof(type)}`,
 *    which leaves every other field 0); structs the library fills
 *    (plank_row_group_info, plank_column_chunk_info, plank_batch,
 *    plank_scan_stats) must have it set by the caller before the call. The library reads and writes only the
 *    fields the caller's size holds: fields newer than the caller keep their
 *    defaults, fields newer than the library are ignored, and a struct_size
 *    smaller than the first published layout is PLANK_ERR_INVALID_ARGUMENT.
 *    Arrays of such structs (schema fields, column options, batches) are
 *    stepped through by their first element's struct_size. Fields are only
 *    ever appended, and the first field of each new layout is declared
 *    PLANK_LAYOUT_START so that it lies past the older layout's sizeof (an
 *    older struct's tail padding is never taken for a newer field). Structs without struct_size (plank_error, plank_allocator,
 *    plank_logical_type, plank_statistics, plank_geospatial_statistics,
 *    plank_encoding_stat,
 *    plank_key_value, plank_sorting_column, plank_page_location,
 *    plank_row_range and the Arrow structs) are frozen until the next major
 *    version; what they would gain goes into the structs around them.
 *    Structs the library allocates and returns by pointer (plank_schema_node,
 *    plank_column_index, plank_offset_index) may grow at their end.
 *  - Thread safety: handles are not synchronised unless their section says
 *    so: one thread at a time per handle. Functions on different handles may
 *    run at once on different threads, and so may the calls a section names
 *    as safe on one handle (e.g. column readers over one reader).
 */
#ifndef PLANK_H
#define PLANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define PLANK_API
#elif defined(__GNUC__)
#define PLANK_API __attribute__((visibility("default")))
#else
#define PLANK_API
#endif

/* Starts a new layout of an extensible struct (see the struct-size convention). */
#if defined(__cplusplus)
#define PLANK_LAYOUT_START alignas(max_align_t)
#else
#define PLANK_LAYOUT_START _Alignas(max_align_t)
#endif

#define PLANK_VERSION_MAJOR 0
#define PLANK_VERSION_MINOR 1
#define PLANK_VERSION_PATCH 0
#define PLANK_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH (MINOR and PATCH stay below 100), for
 * #if tests at compile time; plank_version_number() is the library's at run
 * time. README.md, "ABI policy", says what each part promises. */
#define PLANK_VERSION_NUMBER \
    (PLANK_VERSION_MAJOR * 10000 + PLANK_VERSION_MINOR * 100 + PLANK_VERSION_PATCH)

/* Embedding (README.md): with PLANK_NAMESPACE defined (e.g. -DPLANK_NAMESPACE=MyApp),
 * every function plank_x is declared and called as MyApp_plank_x, the name a
 * library built with the CMake option PLANK_NAMESPACE=MyApp defines. */
#ifdef PLANK_NAMESPACE
#include "plank_namespace.h"
#endif

/* ------------------------------------------------------------------------ */
/* Status and errors                                                        */
/* ------------------------------------------------------------------------ */

/* Values are pinned: they never change meaning between versions. */
typedef enum plank_status {
    PLANK_OK = 0,
    PLANK_ERR_INVALID_ARGUMENT = 1, /* the caller passed something wrong */
    PLANK_ERR_IO = 2,               /* open/read failed or the source is short */
    PLANK_ERR_OUT_OF_MEMORY = 3,    /* the allocator returned NULL */
    PLANK_ERR_CORRUPT = 4,          /* the file violates the format */
    PLANK_ERR_UNSUPPORTED = 5,      /* valid, but not supported by this build */
    PLANK_ERR_CHECKSUM = 6,         /* a page CRC32 did not match */
    PLANK_ERR_LIMIT = 7,            /* a configured resource bound was exceeded */
    PLANK_ERR_ENCRYPTED = 8,        /* the file (or a column) is encrypted */
    PLANK_ERR_END = 9               /* no more data (end of a column chunk) */
} plank_status;

#define PLANK_ERROR_MESSAGE_SIZE 512

/* Optional error detail. Location fields are -1 when unknown. */
typedef struct plank_error {
    plank_status code;
    int64_t byte_offset; /* absolute offset in the file */
    int32_t row_group;
    int32_t column;      /* leaf column index */
    int64_t page;        /* page ordinal within the column chunk */
    char message[PLANK_ERROR_MESSAGE_SIZE];
} plank_error;

/* Sets every location to -1, code to PLANK_OK and the message to "". */
PLANK_API void plank_error_init(plank_error *err);
/* A short constant name for a status ("corrupt file", ...). */
PLANK_API const char *plank_status_string(plank_status status);
/* The version of the library linked (which may be newer than this header). */
PLANK_API const char *plank_version_string(void);
/* PLANK_VERSION_NUMBER of the library linked: a program that needs what a
 * later minor version added checks it at run time. */
PLANK_API int32_t plank_version_number(void);

/* ------------------------------------------------------------------------ */
/* Allocation                                                               */
/* ------------------------------------------------------------------------ */

/* reallocate(opaque, NULL, 0, n) allocates; reallocate(opaque, p, old, n)
 * grows or shrinks; free(opaque, p, size) releases (p may be NULL).
 * Alignment must be at least 16 bytes. */
typedef struct plank_allocator {
    void *(*reallocate)(void *opaque, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *opaque, void *ptr, size_t size);
    void *opaque;
} plank_allocator;

/* ------------------------------------------------------------------------ */
/* Enumerations from the Parquet format (values are the format's own)       */
/* ------------------------------------------------------------------------ */

typedef enum plank_physical_type {
    PLANK_BOOLEAN = 0,
    PLANK_INT32 = 1,
    PLANK_INT64 = 2,
    PLANK_INT96 = 3,
    PLANK_FLOAT = 4,
    PLANK_DOUBLE = 5,
    PLANK_BYTE_ARRAY = 6,
    PLANK_FIXED_LEN_BYTE_ARRAY = 7,
    PLANK_PHYSICAL_NONE = -1 /* group nodes */
} plank_physical_type;

typedef enum plank_repetition {
    PLANK_REQUIRED = 0,
    PLANK_OPTIONAL = 1,
    PLANK_REPEATED = 2
} plank_repetition;

/* Legacy ConvertedType; PLANK_CONVERTED_NONE when absent. */
typedef enum plank_converted_type {
    PLANK_CONVERTED_NONE = -1,
    PLANK_CONVERTED_UTF8 = 0,
    PLANK_CONVERTED_MAP = 1,
    PLANK_CONVERTED_MAP_KEY_VALUE = 2,
    PLANK_CONVERTED_LIST = 3,
    PLANK_CONVERTED_ENUM = 4,
    PLANK_CONVERTED_DECIMAL = 5,
    PLANK_CONVERTED_DATE = 6,
    PLANK_CONVERTED_TIME_MILLIS = 7,
    PLANK_CONVERTED_TIME_MICROS = 8,
    PLANK_CONVERTED_TIMESTAMP_MILLIS = 9,
    PLANK_CONVERTED_TIMESTAMP_MICROS = 10,
    PLANK_CONVERTED_UINT_8 = 11,
    PLANK_CONVERTED_UINT_16 = 12,
    PLANK_CONVERTED_UINT_32 = 13,
    PLANK_CONVERTED_UINT_64 = 14,
    PLANK_CONVERTED_INT_8 = 15,
    PLANK_CONVERTED_INT_16 = 16,
    PLANK_CONVERTED_INT_32 = 17,
    PLANK_CONVERTED_INT_64 = 18,
    PLANK_CONVERTED_JSON = 19,
    PLANK_CONVERTED_BSON = 20,
    PLANK_CONVERTED_INTERVAL = 21
} plank_converted_type;

typedef enum plank_encoding {
    PLANK_ENC_PLAIN = 0,
    PLANK_ENC_PLAIN_DICTIONARY = 2,
    PLANK_ENC_RLE = 3,
    PLANK_ENC_BIT_PACKED = 4,
    PLANK_ENC_DELTA_BINARY_PACKED = 5,
    PLANK_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PLANK_ENC_DELTA_BYTE_ARRAY = 7,
    PLANK_ENC_RLE_DICTIONARY = 8,
    PLANK_ENC_BYTE_STREAM_SPLIT = 9
} plank_encoding;

typedef enum plank_codec {
    PLANK_CODEC_UNCOMPRESSED = 0,
    PLANK_CODEC_SNAPPY = 1,
    PLANK_CODEC_GZIP = 2,
    PLANK_CODEC_LZO = 3,
    PLANK_CODEC_BROTLI = 4,
    PLANK_CODEC_LZ4 = 5, /* deprecated Hadoop-framed (or raw, by fallback) LZ4 */
    PLANK_CODEC_ZSTD = 6,
    PLANK_CODEC_LZ4_RAW = 7
} plank_codec;

typedef enum plank_page_type {
    PLANK_PAGE_DATA = 0,
    PLANK_PAGE_INDEX = 1,
    PLANK_PAGE_DICTIONARY = 2,
    PLANK_PAGE_DATA_V2 = 3
} plank_page_type;

/* Name of an enum value as the format spells it ("RLE_DICTIONARY"), or
 * "UNKNOWN(n)"-style text is not produced: unknown values give "UNKNOWN". */
PLANK_API const char *plank_physical_type_name(plank_physical_type t);
PLANK_API const char *plank_converted_type_name(plank_converted_type t);
PLANK_API const char *plank_encoding_name(plank_encoding e);
PLANK_API const char *plank_codec_name(plank_codec c);
PLANK_API const char *plank_page_type_name(plank_page_type t);
/* Whether this build can decompress the codec (read pages in it).
 * UNCOMPRESSED and SNAPPY always (plank's own SNAPPY codec); the others
 * need their library at build time. */
PLANK_API bool plank_codec_available(plank_codec c);
/* Whether this build can compress the codec (write pages in it):
 * UNCOMPRESSED and SNAPPY always; the others need their library at build
 * time (LZO never). */
PLANK_API bool plank_codec_writable(plank_codec c);

/* ------------------------------------------------------------------------ */
/* Logical types                                                            */
/* ------------------------------------------------------------------------ */

typedef enum plank_logical_kind {
    PLANK_LOGICAL_NONE = 0,
    PLANK_LOGICAL_STRING,
    PLANK_LOGICAL_MAP,
    PLANK_LOGICAL_LIST,
    PLANK_LOGICAL_ENUM,
    PLANK_LOGICAL_DECIMAL,
    PLANK_LOGICAL_DATE,
    PLANK_LOGICAL_TIME,
    PLANK_LOGICAL_TIMESTAMP,
    PLANK_LOGICAL_INTEGER,
    PLANK_LOGICAL_UNKNOWN, /* the format's NullType: always null */
    PLANK_LOGICAL_JSON,
    PLANK_LOGICAL_BSON,
    PLANK_LOGICAL_UUID,
    PLANK_LOGICAL_FLOAT16,
    PLANK_LOGICAL_VARIANT,
    PLANK_LOGICAL_GEOMETRY,
    PLANK_LOGICAL_GEOGRAPHY,
    PLANK_LOGICAL_INTERVAL,  /* only as a legacy ConvertedType */
    PLANK_LOGICAL_MAP_KEY_VALUE, /* only as a legacy ConvertedType */
    PLANK_LOGICAL_UNRECOGNIZED /* a LogicalType union member this version does not know */
} plank_logical_kind;

typedef enum plank_time_unit {
    PLANK_UNIT_MILLIS = 0,
    PLANK_UNIT_MICROS = 1,
    PLANK_UNIT_NANOS = 2
} plank_time_unit;

/* The effective logical type of a schema node: taken from the LogicalType
 * field when present, otherwise derived from the legacy ConvertedType the way
 * the format's LogicalTypes.md maps them (e.g. TIMESTAMP_MILLIS becomes
 * TIMESTAMP(MILLIS, isAdjustedToUTC=true), UINT_16 becomes INTEGER(16, false)). */
typedef struct plank_logical_type {
    plank_logical_kind kind;
    int32_t precision;          /* DECIMAL */
    int32_t scale;              /* DECIMAL */
    plank_time_unit unit;       /* TIME, TIMESTAMP */
    bool is_adjusted_to_utc;    /* TIME, TIMESTAMP */
    int8_t bit_width;           /* INTEGER: 8, 16, 32, 64 */
    bool is_signed;             /* INTEGER */
    const char *crs;            /* GEOMETRY, GEOGRAPHY: NULL when absent */
    int32_t edge_algorithm;     /* GEOGRAPHY: -1 when absent */
    int32_t variant_version;    /* VARIANT: -1 when absent */
} plank_logical_type;

/* "STRING", "DECIMAL", "TIMESTAMP", ... */
PLANK_API const char *plank_logical_kind_name(plank_logical_kind k);
/* Writes a full description, e.g. "TIMESTAMP(MICROS,utc=true)" or
 * "DECIMAL(9,2)", into buf (always NUL-terminated); returns buf. */
PLANK_API char *plank_logical_type_format(const plank_logical_type *t, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct plank_reader plank_reader;
typedef struct plank_column_reader plank_column_reader;

/* A random-access byte source. read_at reads up to `len` bytes at `offset`
 * into buf, stores how many in *bytes_read and returns PLANK_OK, or returns
 * an error status. Short reads are allowed (plank asks again for the rest);
 * a read of 0 bytes before `len` is reached is an unexpected end of file
 * (PLANK_ERR_IO). plank never asks for bytes beyond `size`. read_at may be called from several threads only if
 * the caller's implementation allows it. close (may be NULL) is called once
 * by plank_reader_close. */
typedef struct plank_byte_range {
    uint64_t offset, length;
} plank_byte_range;

typedef struct plank_source {
    size_t struct_size; /* sizeof(plank_source) */
    plank_status (*read_at)(void *opaque, uint64_t offset, void *buf, size_t len,
                            size_t *bytes_read);
    void (*close)(void *opaque);
    uint64_t size;
    void *opaque;
    /* Optional (NULL: none). Arrow streams and scans announce the byte
     * ranges they are about to read (whole column chunks of the row group
     * they open and of the next one, the page indexes of a scan's filter
     * columns, a sparse selection's page headers and pages), so that a
     * source with a slow round trip can fetch them ahead, merged and in
     * parallel, as plank's own remote files do. A hint only: the bytes are
     * still asked for by read_at, maybe in other pieces, maybe never (a row
     * group pruned later). Called from the threads that call read_at;
     * ranges are within `size`; the array is valid during the call. */
    PLANK_LAYOUT_START void (*prefetch)(void *opaque, const plank_byte_range *ranges,
                                        size_t num_ranges);
} plank_source;

typedef struct plank_reader_options {
    size_t struct_size;               /* sizeof(plank_reader_options); set by _init */
    const plank_allocator *allocator; /* NULL: malloc/realloc/free */
    bool verify_checksums;            /* verify page CRC32 when present (default true) */
    /* Columns to read, as leaf column indexes; NULL/0 = all. Column readers
     * can only be opened for selected columns. */
    const int32_t *columns;
    int32_t num_columns;
    /* Bounds on what a file may make plank allocate (0 = default). A file
     * that exceeds one fails with PLANK_ERR_LIMIT and a message naming the
     * bound. Defaults accept every valid file of sane shape. Independently of
     * these, a page's declared uncompressed size is checked against what its
     * codec can yield from its stored bytes before anything is allocated
     * (lying sizes are PLANK_ERR_CORRUPT), and BROTLI/ZSTD output buffers
     * grow with the data actually produced. */
    uint64_t max_footer_size;       /* bytes of the footer; default 256 MiB */
    uint64_t max_page_size;         /* uncompressed bytes of one page, and bytes of the
                                       lengths a DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY
                                       page expands to (8 / 16 per value), and of a scan's
                                       row bitmaps (a bit per row of a row group);
                                       default 2 GiB - 1 */
    uint64_t max_dictionary_size;   /* bytes of one decoded dictionary page (uncompressed
                                       page plus 8 per value for BYTE_ARRAY offsets);
                                       default 6 GiB, what the largest valid page
                                       can decode to) */
    int32_t max_columns;            /* schema elements (leaf columns and groups) in the
                                       footer; default 1,000,000 */
    int32_t max_row_groups;         /* row groups in the footer; default 1,000,000 */
    uint64_t max_chunk_buffer;      /* bytes of one column chunk read into memory by a
                                       column reader (sources other than open_memory,
                                       which is read in place); default 2 GiB */
    /* plank_reader_open_path: map the file into memory (mmap) instead of
     * reading each chunk into a buffer: chunks are read in place and Arrow
     * arrays may point into the mapping, which they keep alive (default
     * false). The file must not shrink while mapped: reading a truncated
     * mapping raises SIGBUS, which is why it is not the default. */
    bool memory_map;
    /* Added in 0.2. A column chunk read front to back (no row selection,
     * or one that keeps half its rows or more) is read through a window of
     * this many bytes that slides over it, a page at least, rather than
     * into a buffer for the whole chunk: each byte is then checked and
     * decoded while still in the core's cache, and a column reader holds a
     * few windows instead of a chunk. A window also holds two of the
     * chunk's largest pages met so far (up to 4 MiB), so that a page that
     * runs past its end is rarely moved. Chunks up to twice the window are
     * read at once. 0 = default (256 KiB, or PLANK_READ_WINDOW: see the
     * top). */
    uint64_t read_window;
} plank_reader_options;

/* Fills the defaults. Always call it before setting fields. */
PLANK_API void plank_reader_options_init(plank_reader_options *opts);

/* Opens a Parquet file. opts may be NULL for defaults. On failure *out is
 * NULL and err says why (encrypted files: PLANK_ERR_ENCRYPTED). */
PLANK_API plank_status plank_reader_open_path(plank_reader **out, const char *path,
                                              const plank_reader_options *opts, plank_error *err);
/* As above over caller-supplied read callbacks. The source is copied; its
 * close callback is called by plank_reader_close (also when opening fails,
 * unless the source's own struct_size is invalid: then nothing in it is
 * trusted). */
PLANK_API plank_status plank_reader_open_source(plank_reader **out, const plank_source *source,
                                                const plank_reader_options *opts, plank_error *err);
/* As above over a memory buffer that must outlive the reader. */
PLANK_API plank_status plank_reader_open_memory(plank_reader **out, const void *data, size_t size,
                                                const plank_reader_options *opts, plank_error *err);
/* ---- Remote files: HTTP, HTTPS and S3 --------------------------------------
 *
 * plank_reader_open_url reads a file by HTTP range requests (libcurl; a
 * build without it returns PLANK_ERR_UNSUPPORTED for URLs):
 *  - opening costs one round trip: the last `footer_read` bytes (which
 *    usually hold the whole footer and page index) and the leading magic are
 *    fetched by two requests in flight together; the file's size comes from
 *    the tail's Content-Range;
 *  - Arrow streams and scans announce the column chunks (and page-index
 *    ranges) they are about to read; neighbouring ranges closer than
 *    `coalesce_gap` are merged into one request, requests larger than
 *    `max_request_size` are split, and up to `max_requests` are in flight at
 *    once on a background thread while the caller decodes; what they return
 *    is kept (at most `max_cache` bytes) until read;
 *  - transient failures (HTTP 5xx, 408, 429, connection resets, short
 *    bodies, a transfer stalled for `stall_timeout_ms`) are retried
 *    `max_retries` times with doubling delays from `retry_delay_ms`; other
 *    failures (404, 403, TLS, a Range the server ignores past the first
 *    request) are PLANK_ERR_IO at once, with the status, the S3 error code when
 *    there is one, and the URL in the message;
 *  - every response must name the ETag (else the Last-Modified date) and
 *    total size the first one did: a file replaced while it is read is
 *    PLANK_ERR_IO ("changed"), never a mix of two files.
 * URLs: http://host[:port]/path, https://..., and s3://bucket/key. S3
 * requests are signed with AWS Signature Version 4 when credentials are
 * given (options, else AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
 * AWS_SESSION_TOKEN), and sent unsigned otherwise (public buckets). The
 * endpoint is `endpoint`, else AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL,
 * else https://s3.<region>.amazonaws.com; the region `region`, else
 * AWS_REGION, AWS_DEFAULT_REGION, else us-east-1. The reader's source is
 * thread-safe: parallel streams read it from several threads. */
typedef enum plank_s3_url_style {
    PLANK_S3_URL_AUTO = 0,    /* path-style with an endpoint, virtual-hosted on AWS */
    PLANK_S3_URL_PATH = 1,    /* endpoint/bucket/key */
    PLANK_S3_URL_VIRTUAL = 2  /* bucket.endpoint-host/key */
} plank_s3_url_style;

typedef struct plank_remote_options {
    size_t struct_size;               /* sizeof(plank_remote_options); set by _init */
    const char *endpoint;             /* S3: "http://127.0.0.1:9000"; NULL: see above */
    const char *region;
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;
    plank_s3_url_style url_style;
    const char *ca_file;              /* PEM bundle for HTTPS; NULL: the system's */
    bool verify_tls;                  /* check the server's certificate (default true) */
    /* announced ranges fetched ahead, merged and in parallel (default true);
       false: each read is one request, in turn (the baseline to compare) */
    bool prefetch;
    int32_t max_requests;             /* requests in flight at once (default 8, 1..64) */
    uint64_t coalesce_gap;            /* bytes; default 1 MiB (20 ms x 50 MB/s: a gap
                                         cheaper to read than to wait another round trip for) */
    uint64_t max_request_size;        /* bytes of one merged request (default 16 MiB) */
    uint32_t footer_read;             /* speculative tail read (default 64 KiB) */
    uint64_t max_cache;               /* bytes fetched ahead and kept (default 256 MiB) */
    int32_t max_retries;              /* default 4 */
    uint32_t retry_delay_ms;          /* first delay, doubled per retry (default 100) */
    uint32_t connect_timeout_ms;      /* default 10000 */
    uint32_t stall_timeout_ms;        /* no byte for this long: a transient failure
                                         (default 30000; whole seconds, at least 1) */
} plank_remote_options;

/* Fills the defaults. Always call it before setting fields. */
PLANK_API void plank_remote_options_init(plank_remote_options *opts);

/* True for the URLs plank_reader_open_url reads remotely (http://,
 * https://, s3://); anything else it opens as a local path. */
PLANK_API bool plank_is_url(const char *path);

/* Opens a Parquet file at a URL (see above), or a local path. ropts and
 * opts may be NULL for defaults. */
PLANK_API plank_status plank_reader_open_url(plank_reader **out, const char *url,
                                             const plank_remote_options *ropts,
                                             const plank_reader_options *opts, plank_error *err);

/* What a reader's source has done so far. For a remote file: the HTTP
 * requests sent (retries included), the body bytes received, the retries,
 * and the bytes served from ranges fetched ahead. For other sources:
 * requests = the source's read calls, bytes = the bytes they returned. */
typedef struct plank_io_stats {
    size_t struct_size; /* sizeof(plank_io_stats) */
    uint64_t requests;
    uint64_t bytes;
    uint64_t retries;
    uint64_t bytes_prefetched;
} plank_io_stats;
PLANK_API plank_status plank_reader_io_stats(const plank_reader *reader, plank_io_stats *out,
                                             plank_error *err);

/* Closes the caller's handle. Streams and scans over the reader hold their
 * own reference and keep it alive; column readers must be closed first.
 *
 * Thread safety: after open, a reader may be used from several threads at
 * once for everything but plank_reader_close: metadata and schema calls,
 * plank_column_reader_open, plank_reader_arrow_stream(_rows),
 * plank_scan_open, the page index and bloom filter calls. Each object they
 * create (column reader, stream, scan) is used by one thread at a time;
 * objects over one reader may run on different threads. With
 * plank_reader_open_source, those threads call read_at concurrently, so the
 * source must allow it if the reader is shared. */
PLANK_API void plank_reader_close(plank_reader *reader);

/* File-level metadata. Strings live as long as the reader. */
PLANK_API int64_t plank_reader_num_rows(const plank_reader *reader);
PLANK_API int32_t plank_reader_num_row_groups(const plank_reader *reader);
PLANK_API int32_t plank_reader_num_columns(const plank_reader *reader); /* leaf columns */
PLANK_API int32_t plank_reader_format_version(const plank_reader *reader);
PLANK_API const char *plank_reader_created_by(const plank_reader *reader); /* NULL if absent */
PLANK_API uint64_t plank_reader_file_size(const plank_reader *reader);
PLANK_API uint32_t plank_reader_footer_size(const plank_reader *reader);
PLANK_API int32_t plank_reader_num_key_values(const plank_reader *reader);
/* value may be NULL (a key without value). */
PLANK_API void plank_reader_key_value(const plank_reader *reader, int32_t i, const char **key,
                                      const char **value);

/* ---- Schema ------------------------------------------------------------ */

/* One node of the schema tree, in the file's depth-first order; node 0 is the
 * root. All pointers live as long as the reader. */
typedef struct plank_schema_node {
    const char *name;
    const char *path;            /* dotted path from below the root, "a.b.c" */
    int32_t index;               /* position in depth-first order */
    int32_t parent;              /* -1 for the root */
    int32_t num_children;        /* 0 for leaves */
    const int32_t *children;     /* node indexes of the children */
    plank_physical_type physical_type; /* PLANK_PHYSICAL_NONE for groups */
    int32_t type_length;         /* FIXED_LEN_BYTE_ARRAY width, else 0 */
    plank_repetition repetition; /* root: REQUIRED */
    bool has_field_id;
    int32_t field_id;
    plank_converted_type converted_type;
    int32_t converted_precision; /* legacy DECIMAL precision/scale fields */
    int32_t converted_scale;
    bool has_logical_type;       /* the file has a LogicalType field */
    plank_logical_type logical;  /* effective logical type (see above) */
    int32_t column;              /* leaf column index, -1 for groups */
    int16_t max_definition_level;
    int16_t max_repetition_level;
    /* name made unique among the siblings, as DuckDB names columns: a later
     * name equal to an earlier one ignoring ASCII case becomes name_1, name_2
     * ... (the first unused), then an empty name "C<position>". The name of
     * JSON keys, CSV headers and Arrow fields (see plank_reader_arrow_schema);
     * equal to name when the siblings' names are distinct and not empty. */
    const char *output_name;
} plank_schema_node;

PLANK_API int32_t plank_reader_num_schema_nodes(const plank_reader *reader);
PLANK_API const plank_schema_node *plank_reader_schema_node(const plank_reader *reader, int32_t i);
/* The node of leaf column `column` (0 <= column < num_columns). */
PLANK_API const plank_schema_node *plank_reader_column_node(const plank_reader *reader,
                                                            int32_t column);
/* Leaf column index by dotted path or, if unambiguous, by leaf name; -1 if none. */
PLANK_API int32_t plank_reader_find_column(const plank_reader *reader, const char *path);

/* ---- Row groups and column chunks --------------------------------------- */

typedef struct plank_row_group_info {
    size_t struct_size;            /* set by the caller: sizeof(plank_row_group_info) */
    int64_t num_rows;
    int64_t total_byte_size;
    int64_t total_compressed_size; /* -1 when absent */
    int64_t file_offset;           /* -1 when absent */
    int32_t ordinal;               /* -1 when absent */
    int32_t num_sorting_columns;
    const struct plank_sorting_column *sorting_columns;
} plank_row_group_info;

typedef struct plank_sorting_column {
    int32_t column;
    bool descending;
    bool nulls_first;
} plank_sorting_column;

/* Statistics as stored: min/max are the PLAIN encoding of the value (for
 * BYTE_ARRAY the bytes without the length prefix). */
typedef struct plank_statistics {
    bool has_min, has_max;
    const uint8_t *min;
    const uint8_t *max;
    uint32_t min_len, max_len;
    bool min_max_deprecated;  /* taken from the old signed-order min/max fields */
    bool has_null_count, has_distinct_count, has_nan_count;
    int64_t null_count, distinct_count, nan_count;
    bool has_is_min_exact, has_is_max_exact;
    bool is_min_exact, is_max_exact;
} plank_statistics;

typedef struct plank_encoding_stat {
    plank_page_type page_type;
    plank_encoding encoding;
    int32_t count;
} plank_encoding_stat;

typedef struct plank_key_value {
    const char *key;
    const char *value; /* NULL when absent */
} plank_key_value;

/* GeospatialStatistics of a GEOMETRY or GEOGRAPHY column chunk (the
 * format's Geospatial.md): the bounding box of every coordinate of its
 * values, NaN coordinates skipped, and their WKB geometry type codes. X is
 * longitude/easting and Y latitude/northing; xmin > xmax means the box
 * wraps across the antimeridian (x >= xmin or x <= xmax). Z and M are
 * present only when both of their bounds are. geospatial_types are ISO WKB
 * codes (1..7 Point..GeometryCollection, plus 1000 for Z, 2000 for M, 3000
 * for ZM) as the file lists them, valid as long as the reader; an empty
 * list means the types are not known. */
typedef struct plank_geospatial_statistics {
    bool has_bbox;
    double xmin, xmax, ymin, ymax;
    bool has_z, has_m;
    double zmin, zmax, mmin, mmax;
    bool has_geospatial_types;     /* the list is present (possibly empty) */
    int32_t num_geospatial_types;
    const int32_t *geospatial_types;
} plank_geospatial_statistics;

typedef struct plank_column_chunk_info {
    size_t struct_size;            /* set by the caller: sizeof(plank_column_chunk_info) */
    int32_t column;                /* leaf index */
    const char *path;              /* dotted path */
    const char *file_path;         /* NULL: this file */
    plank_physical_type physical_type;
    plank_codec codec;
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    int64_t data_page_offset;
    int64_t index_page_offset;      /* -1 when absent */
    int64_t dictionary_page_offset; /* -1 when absent */
    int32_t num_encodings;
    const plank_encoding *encodings;
    bool has_statistics;
    plank_statistics statistics;
    int32_t num_encoding_stats;
    const plank_encoding_stat *encoding_stats;
    int64_t bloom_filter_offset, column_index_offset, offset_index_offset; /* -1 absent */
    int32_t bloom_filter_length, column_index_length, offset_index_length; /* -1 absent */
    /* SizeStatistics */
    int64_t unencoded_byte_array_data_bytes; /* -1 when absent */
    int32_t num_repetition_level_histogram;
    const int64_t *repetition_level_histogram;
    int32_t num_definition_level_histogram;
    const int64_t *definition_level_histogram;
    int32_t num_key_values;
    const plank_key_value *key_values;
    bool encrypted;                /* column crypto metadata present */
    /* Since 0.2: */
    PLANK_LAYOUT_START bool has_geospatial_statistics; /* GEOMETRY/GEOGRAPHY columns */
    plank_geospatial_statistics geospatial_statistics;
} plank_column_chunk_info;

PLANK_API plank_status plank_reader_row_group(const plank_reader *reader, int32_t row_group,
                                              plank_row_group_info *out, plank_error *err);
PLANK_API plank_status plank_reader_column_chunk(const plank_reader *reader, int32_t row_group,
                                                 int32_t column, plank_column_chunk_info *out,
                                                 plank_error *err);

/* ---- Column batches ------------------------------------------------------ */

/* One batch of a column, in Arrow layout. Buffers are owned by the column
 * reader and stay valid until the next read, skip or close on it.
 *
 * A batch has `length` slots, one per level entry read (for a flat column:
 * one per row). Null slots are present in the value buffers with unspecified
 * contents.
 *  - validity: bitmap, bit i (LSB first) set when slot i is non-null; NULL
 *    when the batch has no nulls.
 *  - BOOLEAN: values is a bitmap of `length` bits.
 *  - INT32/FLOAT (4 bytes), INT64/DOUBLE (8), INT96 (12), FIXED_LEN_BYTE_ARRAY
 *    (type_length): values holds length * value_width bytes.
 *  - BYTE_ARRAY: offsets holds length + 1 int64 offsets into data
 *    (offsets[0] == 0); null slots have empty ranges.
 *  - def_levels / rep_levels: one per slot when the column's max level is
 *    above 0, else NULL (for the nested reader). */
typedef struct plank_batch {
    size_t struct_size; /* sizeof(plank_batch): set by the caller, for reads too */
    int64_t length;
    int64_t null_count;
    const uint8_t *validity;
    const void *values;
    const int64_t *offsets;
    const uint8_t *data;
    const int16_t *def_levels;
    const int16_t *rep_levels;
    plank_physical_type physical_type;
    int32_t value_width; /* bytes per value for fixed-width types, 0 otherwise */
} plank_batch;

/* Opens a reader over one column chunk. The column must be selected in the
 * options. The column reader must be closed before the file reader. Several
 * column readers over one file may be used from different threads. The
 * chunk's bytes are read from the source at the first read or skip (all of
 * them, or with a sparse selection only what it needs), not at open. */
PLANK_API plank_status plank_column_reader_open(plank_column_reader **out, plank_reader *reader,
                                                int32_t row_group, int32_t column,
                                                plank_error *err);
PLANK_API void plank_column_reader_close(plank_column_reader *cr);
/* Reads up to max_values slots into *out (out->struct_size set by the caller;
 * buffers sized by what remains of the chunk or selection, not by
 * max_values). At the end of the chunk (or of the selection) returns
 * PLANK_OK with out->length == 0, and only then: max_values must be at
 * least 1 (0 is PLANK_ERR_INVALID_ARGUMENT). */
PLANK_API plank_status plank_column_reader_read(plank_column_reader *cr, int64_t max_values,
                                                plank_batch *out, plank_error *err);
/* Skips up to n slots; *skipped (may be NULL) receives how many. */
PLANK_API plank_status plank_column_reader_skip(plank_column_reader *cr, int64_t n,
                                                int64_t *skipped, plank_error *err);

/* A range of records (rows) of a row group: [first, first + count). */
typedef struct plank_row_range {
    int64_t first;
    int64_t count;
} plank_row_range;

/* Restricts the column reader to the given rows of its row group: ranges
 * sorted, disjoint, within the row group (else PLANK_ERR_INVALID_ARGUMENT;
 * empty ranges are ignored, no range selects nothing). Reads and skips then
 * see only the level entries of the selected records, in order, and restart
 * from the first one: pages wholly outside the selection are passed over
 * by their header without being decompressed (flat columns, and v2 pages of
 * nested ones), values inside a page are skipped without being
 * materialised. Set before the first read, a selection that keeps under
 * half the row group's rows also limits what is read from the source to the
 * 4 KiB blocks holding the page headers and the pages it needs. Sparse
 * ranges of flat columns are decoded by windows of up to 1024 entries and
 * gathered. The ranges are copied. */
PLANK_API plank_status plank_column_reader_select(plank_column_reader *cr,
                                                  const plank_row_range *ranges,
                                                  int64_t num_ranges, plank_error *err);
/* Positions the reader at the first entry of record `row` of the row group
 * (0 <= row <= num_rows; num_rows is the end), backwards too; with a
 * selection, reads go on with the selected records from `row` on. */
PLANK_API plank_status plank_column_reader_seek(plank_column_reader *cr, int64_t row,
                                                plank_error *err);
/* Builds the ranges of the set bits of bits[0 .. ceil(num_bits / 8)) (LSB
 * first; bit i is row first_row + i), allocated with a (NULL: malloc) and
 * freed with plank_row_ranges_free. */
PLANK_API plank_status plank_row_ranges_from_bitmap(const uint8_t *bits, int64_t num_bits,
                                                    int64_t first_row,
                                                    const plank_allocator *a,
                                                    plank_row_range **ranges,
                                                    int64_t *num_ranges, plank_error *err);
PLANK_API void plank_row_ranges_free(const plank_allocator *a, plank_row_range *ranges,
                                     int64_t num_ranges);

/* ------------------------------------------------------------------------ */
/* Arrow C Data Interface export                                            */
/* ------------------------------------------------------------------------ */

/* The three structs exactly as the Arrow C Data Interface specification
 * (https://arrow.apache.org/docs/format/CDataInterface.html) gives them,
 * guarded so that a program also including another copy compiles. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};
#endif
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};
#endif

/* A caller's thread pool, for plank's parallel reads (plank_arrow_options.
 * executor): plank then runs its tasks there instead of on threads of its own.
 *
 * submit schedules fn(arg) to run once, on any thread, and returns a handle
 * (not NULL), or NULL when it cannot take the task (plank then runs fn on
 * the submitting thread). wait blocks until the task of a handle has run and
 * releases the handle; plank calls it exactly once for every handle, from
 * the thread that submitted the task. Tasks may submit and wait for tasks of
 * their own (a row group's columns read in parallel), so a pool whose
 * threads can all be waiting must run a task that has not started on the
 * thread that waits for it (as plank's own pool does). A task blocks on
 * nothing but such waits, and the read's byte source. */
typedef struct plank_executor {
    size_t struct_size; /* sizeof(plank_executor) */
    void *ctx;          /* passed to submit and wait */
    int32_t threads;    /* tasks the pool runs at once (1..1024): the parallelism plank plans */
    void *(*submit)(void *ctx, void (*fn)(void *arg), void *arg);
    void (*wait)(void *ctx, void *handle);
} plank_executor;

typedef struct plank_arrow_options {
    size_t struct_size;     /* sizeof(plank_arrow_options); set by _init */
    int64_t batch_rows;     /* top-level records per ArrowArray; default 16384 */
    bool dictionary_arrays; /* export BYTE_ARRAY (string/binary) leaves as Arrow dictionary
                               arrays: int32 indices ("i") with a per-batch dictionary made of
                               the chunk's dictionary page plus any values of non-dictionary
                               (fallback) pages; dictionary pages are never expanded
                               (default false). Other types are exported decoded. */
    bool int96_as_binary;   /* INT96 as fixed_size_binary(12) (raw) instead of timestamp[ns]
                               (default false) */
    bool zero_copy;         /* export values without copying where the page already holds
                               them in Arrow layout (default true); see
                               plank_reader_arrow_stream */
    bool borrow_memory;     /* with plank_reader_open_memory: zero-copy arrays may point into
                               the caller's buffer, which must then outlive every array, not
                               only the reader (default false: arrays of a memory reader
                               are copies) */
    bool narrow_decimals;   /* DECIMAL stored as INT32 (precision <= 9) / INT64 (<= 18) as
                               Arrow decimal32 "d:P,S,32" / decimal64 "d:P,S,64": the stored
                               values, zero copy where the page allows, instead of converted
                               to decimal128 (default false: many consumers, DuckDB among
                               them, import only decimal128) */
    bool large_offsets;     /* 64-bit offsets for every string, binary and list ("U", "Z",
                               "+L"), as Polars uses, instead of only for the columns whose
                               chunks could overflow 32-bit offsets (default false) */
    /* Since 0.2: */
    PLANK_LAYOUT_START bool variant_shredded;
                            /* VARIANT groups are exported as the canonical extension type
                               "arrow.parquet.variant" (field metadata ARROW:extension:name).
                               Its storage is struct<metadata: binary, value: binary>, and a
                               shredded group's values are reassembled into it (default
                               false). With this option, a shredded group keeps its storage
                               as the file has it: metadata, value and the typed_value tree,
                               marked with the same extension name. A group whose leaves are
                               only partly selected is a plain struct either way */
    /* Since 0.3: parallel reads (plank_reader_arrow_stream(_rows) and
     * plank_scan, its count included). */
    PLANK_LAYOUT_START int32_t threads;
                            /* threads that decode at once, the caller's excluded (it only
                               waits in get_next). 0 (default): automatic, one per
                               processor of the process's affinity mask (taskset, cpusets)
                               for a reader opened on a path or memory with the
                               default allocator, and 1 otherwise: a caller's source or
                               allocator may not be thread-safe, so plank calls them from
                               several threads only when threads (or executor) is set. 1:
                               every batch is decoded by get_next on the caller's thread.
                               n > 1: the Arrow streams decode the columns of each batch
                               on n threads (in file order, the memory of one batch);
                               with any_order, or a single column, row groups are decoded
                               on n threads at once, whole batches ahead of get_next.
                               Scans decode row groups on n threads (their filters run
                               per row group), the projection's columns in parallel when
                               a row group is alone. The arrays, their order and the
                               statistics do not depend on the thread count. Range 0..1024 */
    int32_t batches_in_flight; /* with threads > 1: decoded batches held for get_next at
                               most, beyond those of the row group get_next is at (0,
                               default: the batches of 2 x 65536 records a thread, that
                               is 2 x ceil(65536 / batch_rows) batches a thread, at least
                               2 and at most 32).
                               Memory is bounded by it */
    bool any_order;         /* with threads > 1: batches in the order they are ready,
                               instead of file order (default false). Each row group's
                               batches stay in order */
    const plank_executor *executor; /* run the tasks on the caller's pool (its threads
                               give the parallelism unless threads is set) instead of on
                               threads plank starts for the stream (NULL, default) */
} plank_arrow_options;

/* Fills the defaults. Always call it before setting fields. */
PLANK_API void plank_arrow_options_init(plank_arrow_options *o);

/* The schema of the selected columns as a struct ("+s") ArrowSchema with one
 * child per top-level field that contains at least one selected leaf
 * (partially selected groups keep only the selected children). o may be NULL
 * for defaults. The caller releases *out (out->release(out)).
 *
 * Type mapping: BOOLEAN "b"; INT32 "i" (INTEGER(8|16, signed) "c"/"s",
 * unsigned "C"/"S"/"I"); INT64 "l" (unsigned "L"); FLOAT "f"; DOUBLE "g";
 * FLOAT16 "e"; DATE "tdD"; TIME "ttm"/"ttu"/"ttn"; TIMESTAMP "tsm:"/"tsu:"/
 * "tsn:" with "UTC" when adjusted to UTC; INT96 "tsn:" (or "w:12" raw);
 * DECIMAL "d:P,S" (decimal128, "d:P,S,256" above precision 38; "d:P,S,32" /
 * "d:P,S,64" for INT32 / INT64 decimals with narrow_decimals); STRING, ENUM,
 * JSON "u"; other BYTE_ARRAY "z" ("U" / "Z" and lists "+L" with large_offsets,
 * or for a column whose chunks' bytes or values could exceed 32-bit
 * offsets); FIXED_LEN_BYTE_ARRAY "w:N"; UUID "w:16" with
 * the arrow.uuid extension metadata; UNKNOWN "n"; lists "+l", maps "+m"
 * (entries "+s" of key and value), groups "+s"; VARIANT groups as the
 * "arrow.parquet.variant" extension type (see variant_shredded). Lists follow every
 * backward-compatibility rule of the format's LogicalTypes.md; a map without
 * a value field (or with its value not selected) becomes a list of its keys,
 * a map whose key is not selected a list of its values. Field metadata
 * carries "PARQUET:field_id". ARROW_FLAG_NULLABLE is set for OPTIONAL fields.
 * Field names are the nodes' output_name: siblings whose names repeat
 * (ignoring ASCII case) are renamed as DuckDB renames columns, the later
 * ones name_1, name_2, ... (the first unused), and an empty name becomes
 * "C<position>" ("a","a","A","" -> "a","a_1","A_2","C3"), so that consumers
 * keyed by name lose no column (plank cat and plank schema use the same). */
PLANK_API plank_status plank_reader_arrow_schema(const plank_reader *r, const plank_arrow_options *o,
                                                 struct ArrowSchema *out, plank_error *err);

/* A stream of struct arrays over the given row groups (NULL/0 = all, in file
 * order): each batch holds whole top-level records (at most batch_rows, fewer
 * at the end of a row group or when a batch's byte data or list entries
 * would not fit int32 offsets). Arrays own their memory (allocated through
 * the reader's allocator) and may outlive the stream and the reader. The
 * stream holds a reference on the reader: plank_reader_close may come
 * first, and the reader is freed with the last of the two. The Arrow schema
 * is the same whatever row groups the stream covers (that of
 * plank_reader_arrow_schema).
 *
 * Leaves that are top-level fields without lists or structs are decoded
 * straight into their arrays' buffers (each value copied once from the
 * page); with dictionary_arrays, the batches of a chunk whose values all
 * come from its dictionary share one dictionary array (reference counted).
 *
 * Zero copy (options.zero_copy, the default): a leaf that is not inside a
 * list or map (top level or in structs), whose Arrow values are the Parquet bytes
 * (INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY as "w:N" or float16,
 * the integer, date, time and timestamp types stored as such; not narrowed
 * 8/16-bit integers, decimals or INT96 timestamps), and whose slots of a
 * batch are all non-null and lie in one PLAIN data page that is not
 * compressed, is exported as a pointer into the column chunk's bytes when
 * that pointer is aligned to the value width (up to 8). The chunk buffer is
 * reference counted: each such array holds a reference, dropped by its
 * release callback (on any thread), so these arrays too may outlive the
 * stream and the reader. A memory reader's chunk is the caller's buffer:
 * its arrays point into it only with options.borrow_memory, and are copies
 * otherwise. To let more batches be zero-copy, a batch may end early at the
 * end of such a page (never below batch_rows / 8 records). Every other
 * leaf is copied once into an array-owned buffer.
 *
 * Errors surface through get_next's
 * errno-style return (EIO corrupt or unreadable file, ENOMEM, EINVAL, ENOSYS
 * unsupported) and get_last_error (message with location).
 *
 * Thread safety: a stream is used by one thread at a time (the Arrow
 * stream contract); the arrays it returns are independent of it and of each
 * other, and may be read and released on any thread. */
PLANK_API plank_status plank_reader_arrow_stream(plank_reader *r, const int32_t *row_groups,
                                                 int32_t num_row_groups,
                                                 const plank_arrow_options *o,
                                                 struct ArrowArrayStream *out, plank_error *err);
/* The stream of plank_reader_arrow_stream over the selected rows of the
 * file only: ranges of file row numbers (the rows of the row groups in file
 * order), sorted and disjoint (else PLANK_ERR_INVALID_ARGUMENT). Row groups
 * without a selected row are not read, pages without one are not
 * decompressed, and inside a page unselected rows are skipped without being
 * materialised. Batches hold whole selected records, in order. The ranges
 * are copied. */
PLANK_API plank_status plank_reader_arrow_stream_rows(plank_reader *r,
                                                      const plank_row_range *rows,
                                                      int64_t num_ranges,
                                                      const plank_arrow_options *o,
                                                      struct ArrowArrayStream *out,
                                                      plank_error *err);


/* ------------------------------------------------------------------------ */
/* Predicates                                                               */
/* ------------------------------------------------------------------------ */

/* A predicate over the columns of one row: an expression tree with SQL's
 * semantics (three-valued logic: a comparison with a NULL operand is NULL,
 * NOT NULL is NULL, FALSE AND NULL is FALSE, TRUE OR NULL is TRUE; a row
 * passes a filter only when the predicate is TRUE), as DuckDB evaluates the
 * same WHERE clause.
 *
 * Nodes are built bottom up; a node that takes operands takes ownership of
 * them, and is allocated with the allocator of its first operand. When an
 * operand is NULL (an earlier allocation failed) the builder frees the other
 * operands and returns NULL, so a tree can be built in one expression and
 * checked once. plank_expr_free frees a node and everything below it. A
 * finished tree is never modified by plank (plank_scan_open copies what it
 * binds), so one tree may be given to scans on several threads at once.
 *
 * Literals are converted to the column's type when the predicate is bound to
 * a file (plank_scan_open): integers and decimals compare exactly with
 * integer and decimal columns (DECIMAL at its scale; 1.5 against an integer
 * column is never equal), doubles compare as doubles; dates and timestamps
 * (microseconds, no time zone; against a UTC-adjusted column they are read
 * as UTC) convert to the column's unit; string literals compare by bytes
 * with string and binary columns and are parsed against DATE and TIMESTAMP
 * columns. Anything else (a string against an integer column, a boolean
 * against a double) is PLANK_ERR_INVALID_ARGUMENT naming the column, never
 * a silent FALSE. Floating-point NaN is equal to itself and greater than
 * every other value (DuckDB's order); -0.0 equals 0.0. Each literal of an
 * IN list or BETWEEN is compared in its own type (DuckDB first casts all of
 * them to one type, DOUBLE when any is a double: `int_col IN (1, 2.5e0)`
 * agrees, `int_col BETWEEN 1 AND 2.5e0` may differ from DuckDB's at values
 * beyond 2^53). */
typedef struct plank_expr plank_expr;

typedef enum plank_compare_op {
    PLANK_CMP_EQ = 0,
    PLANK_CMP_NE = 1,
    PLANK_CMP_LT = 2,
    PLANK_CMP_LE = 3,
    PLANK_CMP_GT = 4,
    PLANK_CMP_GE = 5
} plank_compare_op;

/* A column by dotted path ("a.b" for field b of struct a) or, when
 * unambiguous, by leaf name. The path is copied. a may be NULL (malloc). */
PLANK_API plank_expr *plank_expr_column(const plank_allocator *a, const char *path);
/* Literals. */
PLANK_API plank_expr *plank_expr_null(const plank_allocator *a);
PLANK_API plank_expr *plank_expr_bool(const plank_allocator *a, bool v);
PLANK_API plank_expr *plank_expr_int(const plank_allocator *a, int64_t v);
PLANK_API plank_expr *plank_expr_uint(const plank_allocator *a, uint64_t v);
/* The exact decimal (high * 2^64 + low) / 10^scale, 0 <= scale <= 38:
 * a 128-bit two's-complement unscaled value. */
PLANK_API plank_expr *plank_expr_decimal(const plank_allocator *a, int64_t high, uint64_t low,
                                         int32_t scale);
PLANK_API plank_expr *plank_expr_double(const plank_allocator *a, double v);
/* Bytes s[0..len) (copied; need not be NUL-terminated). */
PLANK_API plank_expr *plank_expr_string(const plank_allocator *a, const char *s, size_t len);
/* Days since 1970-01-01. */
PLANK_API plank_expr *plank_expr_date(const plank_allocator *a, int32_t days);
/* Microseconds since 1970-01-01 00:00:00. */
PLANK_API plank_expr *plank_expr_timestamp(const plank_allocator *a, int64_t micros);
/* left op right: a column and a literal (either side), or two columns of
 * the same kind of type (both numeric, both strings or binary, both dates,
 * both timestamps, both booleans). */
PLANK_API plank_expr *plank_expr_compare(plank_compare_op op, plank_expr *left,
                                         plank_expr *right);
/* value IN (list[0], ..., list[n-1]): value a column, the list literals (n >= 1).
 * The list array itself is not kept; its nodes are. */
PLANK_API plank_expr *plank_expr_in(plank_expr *value, plank_expr *const *list, int32_t n);
/* value BETWEEN lo AND hi (both inclusive; literals). */
PLANK_API plank_expr *plank_expr_between(plank_expr *value, plank_expr *lo, plank_expr *hi);
/* value IS NULL, or IS NOT NULL when negated. */
PLANK_API plank_expr *plank_expr_is_null(plank_expr *value, bool negated);
/* value LIKE 'prefix%': value a string or binary column, prefix a string literal. */
PLANK_API plank_expr *plank_expr_starts_with(plank_expr *value, plank_expr *prefix);
PLANK_API plank_expr *plank_expr_and(plank_expr *left, plank_expr *right);
PLANK_API plank_expr *plank_expr_or(plank_expr *left, plank_expr *right);
PLANK_API plank_expr *plank_expr_not(plank_expr *e);
PLANK_API void plank_expr_free(plank_expr *e);

/* Parses the text of a SQL WHERE clause (the subset below) into *out, freed
 * with plank_expr_free; a may be NULL (malloc).
 *   expr    := or ; or := and (OR and)* ; and := not (AND not)* ;
 *   not     := NOT not | pred ;
 *   pred    := side [ cmp side | [NOT] IN '(' literal, ... ')'
 *              | [NOT] BETWEEN literal AND literal | IS [NOT] NULL
 *              | [NOT] LIKE 'prefix%' ] ;
 *   side    := operand | '(' expr ')' (an operand in parentheses, (a) = 1,
 *              is still an operand; other sides stand alone) ;
 *   cmp     := = | == | != | <> | < | <= | > | >= ;
 *   operand := column | literal ;
 *   column  := name ('.' name)* ; name := [A-Za-z_][A-Za-z0-9_]* | "double ""quoted""" ;
 *   literal := [-]integer | [-]decimal (1.25) | [-]float (1e3, 1.5e-2) | 'string' ('' is a quote)
 *              | DATE 'YYYY-MM-DD' | TIMESTAMP 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]'
 *              | TRUE | FALSE | NULL .
 * Keywords are case-insensitive; a column alone is a boolean column. LIKE
 * takes only a pattern with one trailing % and no other % or _ (a prefix).
 * Integers beyond int64 are uint64 when they fit, decimals keep up to 38
 * digits. A syntax error is PLANK_ERR_INVALID_ARGUMENT whose message names
 * the byte position ("at 12: expected ')'"), and err->byte_offset holds it. */
PLANK_API plank_status plank_expr_parse(const char *text, const plank_allocator *a,
                                        plank_expr **out, plank_error *err);
/* Writes e as text that plank_expr_parse reads back to the same tree (and
 * DuckDB reads as the same predicate) into buf (NUL-terminated when size >
 * 0); returns the length the whole text needs, excluding the NUL. */
PLANK_API size_t plank_expr_format(const plank_expr *e, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* The pushdown scan                                                        */
/* ------------------------------------------------------------------------ */

/* A scan reads the rows of a file that pass a predicate, and of them only
 * the projected columns. The predicate is pushed down as far as the file
 * allows: row groups are pruned by their column statistics and bloom
 * filters, pages by the page index, string columns are filtered on their
 * dictionary codes (the predicate evaluated once per dictionary entry),
 * filter columns are decoded one after the other, each only at the rows the
 * earlier ones left, and the projected columns only at the surviving rows
 * (pages without one are neither read nor decompressed). Statistics and
 * indexes that contradict themselves (a min above its max, a null count
 * above the row count or "all null" next to a min/max, NaN bounds, an
 * all-null page whose null count disagrees) are ignored, and byte-array
 * maxima are always taken as possibly truncated, so such metadata never
 * makes the scan drop a row the data holds. Metadata that is consistent
 * but false about the data (bounds that exclude values present) cannot be
 * told from true metadata without reading the data, and is trusted, as
 * every reader trusts it.
 *
 * Struct-size convention: options and statistics structs begin with
 * struct_size, set by their _init function to the size the caller was
 * compiled with; the library reads (and writes) only the fields that size
 * holds, so newer fields keep their defaults for older callers. */
typedef struct plank_scan plank_scan;

typedef struct plank_scan_options {
    size_t struct_size;          /* sizeof(plank_scan_options); set by _init */
    const plank_expr *filter;    /* NULL: every row passes. Bound (and copied) at open */
    /* Projected fields by dotted path: a group (struct, list, map) selects every
     * leaf below it. NULL/0: every column the reader selects. Filter columns
     * need not be projected. */
    const char *const *columns;
    int32_t num_columns;
    const plank_arrow_options *arrow; /* batch size and export options; NULL: defaults */
    /* Pruning levels, each on by default; off only to measure or test them. */
    bool use_statistics;         /* row groups by column-chunk statistics */
    bool use_bloom_filters;      /* row groups by bloom filters (= and IN) */
    bool use_page_index;         /* pages by ColumnIndex / OffsetIndex */
    bool use_dictionaries;       /* string filters on dictionary codes */
    /* Evaluate filters inside the scan (the default). false: decode every
     * projected and filter column whole and filter afterwards, the plain
     * read the scan is measured against. */
    bool pushdown;
    /* The row groups to scan, strictly ascending (NULL/0: all). Splitting a
     * file's row groups among scans is how a caller spreads one file over
     * threads or machines: scans over one reader may run on different
     * threads at once (each scan on one thread). The statistics count only
     * these row groups (row_groups, rows). */
    const int32_t *row_groups;
    int32_t num_row_groups;
} plank_scan_options;

PLANK_API void plank_scan_options_init(plank_scan_options *o);

/* What a scan skipped at each level, and what it did. */
typedef struct plank_scan_stats {
    size_t struct_size;                 /* sizeof(plank_scan_stats); set by _init */
    int64_t row_groups;                 /* scanned: in the file, or those the options name */
    int64_t row_groups_pruned_statistics;
    int64_t row_groups_pruned_bloom;
    int64_t row_groups_pruned_page_index; /* every page of some filter excluded */
    int64_t row_groups_pruned_dictionary; /* no dictionary entry of a filter column passes
                                           (and the chunk has no other pages) */
    int64_t row_groups_no_match;        /* read, but no row passed: projection not read */
    int64_t pages;                      /* data pages of the filter columns whose page
                                           index the scan used (OffsetIndex entries) */
    int64_t pages_pruned_page_index;    /* of those, without a candidate row */
    int64_t pages_skipped;              /* passed over without being decompressed (page
                                           index, or no selected row), filter and
                                           projected columns (the projection's once its
                                           stream ends or is released) */
    int64_t pages_decoded;              /* the same columns' pages decoded */
    int64_t bytes_read;                 /* column chunk bytes fetched from the source */
    int64_t bytes_not_read;             /* compressed bytes of the filter and projected
                                           columns' chunks in the row groups pruned whole
                                           (pages skipped inside the others are in
                                           pages_skipped) */
    int64_t rows;                       /* in the scanned row groups */
    int64_t rows_candidate;             /* rows left after pruning by statistics, bloom
                                           filters and page index */
    int64_t rows_matched;
    int64_t values_evaluated;           /* filter values compared (after pruning) */
    int64_t dictionary_entries_evaluated;
    /* Since 0.2: */
    PLANK_LAYOUT_START int64_t values_decided_by_run; /* filter values decided once for
                                           a whole RLE run of one dictionary code */
    int64_t values_reused;              /* projected values taken from a filter column's
                                           values the scan had decoded, instead of
                                           decoded again (a column both filtered and
                                           projected is decoded once) */
    int64_t row_groups_masked;          /* row groups whose surviving rows (runs of a few
                                           rows) were projected by reading every row and
                                           dropping the others, a bitmap instead of ranges
                                           (lists among the projected columns: ranges) */
    /* Since 0.3: */
    PLANK_LAYOUT_START int64_t values_skipped_delta; /* filter values in
                                           DELTA_BINARY_PACKED runs whose range (from the
                                           run's first value, min delta and bit width)
                                           lies outside the interval a range or IN filter
                                           allows: summed to carry the running value on,
                                           not decoded (their rows fail the filter) */
} plank_scan_stats;

PLANK_API void plank_scan_stats_init(plank_scan_stats *s);

/* Opens a scan over the reader's file: binds the filter to the schema
 * (columns resolved, literals converted; PLANK_ERR_INVALID_ARGUMENT names
 * what does not fit) and resolves the projection. The scan holds a
 * reference on the reader (plank_reader_close may come first). A scan is
 * used by one thread at a time. */
PLANK_API plank_status plank_scan_open(plank_scan **out, plank_reader *r,
                                       const plank_scan_options *o, plank_error *err);
PLANK_API void plank_scan_close(plank_scan *s);
/* The surviving rows of the projected columns, in file order, as a stream of
 * struct arrays with the schema of plank_reader_arrow_schema restricted to
 * the projection (batches of at most batch_rows rows; empty row groups
 * produce no batch). One stream per scan; the stream holds a reference on
 * the scan, whose statistics grow as the stream is read. */
PLANK_API plank_status plank_scan_arrow_stream(plank_scan *s, struct ArrowArrayStream *out,
                                               plank_error *err);
/* Counts the matching rows without reading any projected column (instead of
 * a stream). */
PLANK_API plank_status plank_scan_count(plank_scan *s, int64_t *count, plank_error *err);
/* Copies the statistics so far (out->struct_size bytes at most). */
PLANK_API void plank_scan_get_stats(const plank_scan *s, plank_scan_stats *out);
/* Writes the bound plan as text (the filter as bound, with each column's
 * type, the order of the filter steps, the projection) into buf
 * (NUL-terminated when size > 0); returns the length it needs. */
PLANK_API size_t plank_scan_explain(const plank_scan *s, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Datasets: many files, hive partitions                                    */
/* ------------------------------------------------------------------------ */

/* A dataset is the files named by a list of sources, each a file, a
 * directory (every regular file below it, recursively, whose name ends in
 * ".parquet", skipping names that start with '.' or '_') or a glob ('*', '?'
 * and [...] inside one path component; a component that is exactly '**'
 * matches any number of directories). Links to directories are followed,
 * except into a directory the walk is already inside (a cycle of links);
 * a file reached by two paths is two files. Files are taken in byte order
 * of their paths, each path once. Their footers are read when the dataset opens (in parallel,
 * on `threads` threads); each file stays open while the dataset lives.
 *
 * Hive partitions: directories named key=value between a source directory
 * (or the non-wildcard start of a glob) and a file become columns, after
 * the files' own columns, in the order their keys first appear. A value is
 * percent-decoded; __HIVE_DEFAULT_PARTITION__ is null; the type is the
 * narrowest of int64 ("l"), date ("tdD", YYYY-MM-DD) and string ("u") that
 * holds every value of the key. A file whose directories lack a key has null
 * there. A key that is also a column of a file is an error.
 *
 * Schema: the top-level fields of every file, unified by name in order of
 * first appearance (files in path order). A field missing from a file is
 * null in its rows. A field whose Arrow type differs between files is an
 * error naming both files, unless it widens losslessly: int32 to int64,
 * float to double, string to binary (and to the large variants). */
typedef struct plank_dataset plank_dataset;

typedef struct plank_dataset_options {
    size_t struct_size;                 /* sizeof(plank_dataset_options); set by _init */
    const plank_reader_options *reader; /* for every file (NULL: defaults) */
    const plank_arrow_options *arrow;   /* the Arrow types the schema is unified in
                                           (NULL: defaults); scans use their own */
    bool hive_partitioning;             /* default true */
    int32_t threads;                    /* footers read at once: 0 (default) one per
                                           processor, 16 when a source is a URL */
    /* Sources that are URLs (plank_is_url) are files read remotely with
       these options (NULL: defaults); remote directories and globs are not
       listed (PLANK_ERR_UNSUPPORTED). */
    const plank_remote_options *remote;
    /* Since 0.4: */
    /* Directories that listing the sources may open, in all (0: 1,048,576):
     * walks follow links to directories, never into one they are already
     * inside, but links can still make a tree of paths far larger than the
     * directories behind it; past the bound, PLANK_ERR_LIMIT. */
    PLANK_LAYOUT_START int64_t max_directories;
} plank_dataset_options;

PLANK_API void plank_dataset_options_init(plank_dataset_options *o);
PLANK_API plank_status plank_dataset_open(plank_dataset **out, const char *const *sources,
                                          int32_t num_sources, const plank_dataset_options *o,
                                          plank_error *err);
PLANK_API void plank_dataset_close(plank_dataset *d);
PLANK_API int32_t plank_dataset_num_files(const plank_dataset *d);
PLANK_API const char *plank_dataset_file_path(const plank_dataset *d, int32_t i);
/* The file's reader (owned by the dataset; NULL when i is out of range). */
PLANK_API plank_reader *plank_dataset_file_reader(const plank_dataset *d, int32_t i);
PLANK_API int64_t plank_dataset_num_rows(const plank_dataset *d);
/* The unified schema, a struct ("+s") with the partition columns last. */
PLANK_API plank_status plank_dataset_arrow_schema(const plank_dataset *d, struct ArrowSchema *out,
                                                  plank_error *err);

/* A piece of a dataset that one task reads: row groups [first_row_group,
 * + num_row_groups) of one file. */
typedef struct plank_split {
    size_t struct_size;        /* sizeof(plank_split) */
    int32_t file;              /* plank_dataset_file_path(d, file) */
    int32_t first_row_group;
    int32_t num_row_groups;
    int64_t rows;
    int64_t bytes;             /* compressed bytes of its column chunks */
} plank_split;

/* The splits of the files whose partition values can satisfy filter (NULL:
 * every file): each file's row groups cut into runs of about target_bytes
 * compressed bytes (0: 128 MiB), never splitting a row group, from the
 * footers alone. *splits is allocated with the dataset's allocator and
 * freed with plank_splits_free. A distributed engine plans on one machine
 * and hands each task a split and the same filter (plank_dataset_scan
 * with options.split). */
PLANK_API plank_status plank_dataset_plan(const plank_dataset *d, const plank_expr *filter,
                                          int64_t target_bytes, plank_split **splits,
                                          int64_t *num_splits, plank_error *err);
PLANK_API void plank_splits_free(const plank_dataset *d, plank_split *splits, int64_t n);

typedef struct plank_dataset_scan_options {
    size_t struct_size;           /* sizeof(plank_dataset_scan_options); set by _init */
    /* The scan of each file: filter, columns (dotted paths of the unified
     * schema; partition columns by name), arrow, pruning levels and
     * pushdown; row_groups must be NULL. */
    const plank_scan_options *scan;
    const plank_split *split;     /* only this split (NULL: every file) */
} plank_dataset_scan_options;

PLANK_API void plank_dataset_scan_options_init(plank_dataset_scan_options *o);

/* What a dataset scan skipped, over every file it opened: the files'
 * plank_scan_stats summed, and the files left out whole. */
typedef struct plank_dataset_stats {
    size_t struct_size;           /* sizeof(plank_dataset_stats); set by _init */
    int64_t files;                /* in the dataset (or 1 for a split) */
    int64_t files_pruned_partitions; /* by their partition values */
    int64_t files_pruned_statistics; /* every row group pruned from the footer */
    plank_scan_stats scan;        /* summed over the files scanned */
} plank_dataset_stats;

PLANK_API void plank_dataset_stats_init(plank_dataset_stats *s);

/* The rows of every file that pass the filter, in file order (each file's
 * rows in its order), as struct arrays of the unified schema restricted to
 * the projection: missing columns null, widened columns converted,
 * partition columns filled from the file's directories. The filter is
 * evaluated on partition values first (a file whose values make it FALSE
 * or NULL is not scanned) and what is left is pushed into each file's scan.
 * A comparison between a partition column and another column is
 * PLANK_ERR_UNSUPPORTED. The stream holds a reference on the dataset (close
 * may come first). stats (may be NULL) is filled when the stream ends. */
PLANK_API plank_status plank_dataset_scan(plank_dataset *d, const plank_dataset_scan_options *o,
                                          struct ArrowArrayStream *out, plank_error *err);
/* The number of rows that pass (no stream); stats may be NULL. */
PLANK_API plank_status plank_dataset_count(plank_dataset *d, const plank_dataset_scan_options *o,
                                           int64_t *count, plank_dataset_stats *stats,
                                           plank_error *err);
/* The statistics of the stream's scans so far (complete once it ended). */
PLANK_API void plank_dataset_stream_stats(struct ArrowArrayStream *stream,
                                          plank_dataset_stats *out);

/* ------------------------------------------------------------------------ */
/* Page index and bloom filters (read side)                                 */
/* ------------------------------------------------------------------------ */

/* The OffsetIndex of one column chunk: where each data page is. */
typedef struct plank_page_location {
    int64_t offset;               /* absolute file offset of the page header */
    int32_t compressed_page_size; /* header included */
    int64_t first_row_index;      /* row index, within the row group, of the page's first row */
} plank_page_location;

typedef struct plank_offset_index {
    int32_t num_pages;
    const plank_page_location *pages;
    /* Per page, from SizeStatistics; NULL when absent. */
    const int64_t *unencoded_byte_array_data_bytes;
} plank_offset_index;

typedef enum plank_boundary_order {
    PLANK_BOUNDARY_UNORDERED = 0,
    PLANK_BOUNDARY_ASCENDING = 1,
    PLANK_BOUNDARY_DESCENDING = 2
} plank_boundary_order;

/* The ColumnIndex of one column chunk: per-page statistics. min/max are as in
 * plank_statistics (PLAIN bytes; BYTE_ARRAY without length prefix); for a page
 * with null_pages[i] set they are empty and meaningless. */
typedef struct plank_column_index {
    int32_t num_pages;
    const bool *null_pages;
    const uint8_t *const *min_values;
    const uint32_t *min_lens;
    const uint8_t *const *max_values;
    const uint32_t *max_lens;
    plank_boundary_order boundary_order;
    const int64_t *null_counts;                 /* NULL when absent */
    /* num_pages * (max level + 1) counts, page-major; NULL when absent. */
    int32_t num_repetition_level_histograms;
    const int64_t *repetition_level_histograms;
    int32_t num_definition_level_histograms;
    const int64_t *definition_level_histograms;
} plank_column_index;

/* Reads and decodes the chunk's ColumnIndex / OffsetIndex. When the chunk has
 * none, returns PLANK_OK with *out = NULL. The result is independent of the
 * reader's lifetime and is freed with the matching _free (NULL allowed).
 * Safe to call from several threads. */
PLANK_API plank_status plank_reader_column_index(const plank_reader *r, int32_t row_group,
                                                 int32_t column, plank_column_index **out,
                                                 plank_error *err);
PLANK_API void plank_column_index_free(plank_column_index *ci);
PLANK_API plank_status plank_reader_offset_index(const plank_reader *r, int32_t row_group,
                                                 int32_t column, plank_offset_index **out,
                                                 plank_error *err);
PLANK_API void plank_offset_index_free(plank_offset_index *oi);

/* A split-block bloom filter (the format's BloomFilter.md: XXH64, seed 0). */
typedef struct plank_bloom_filter plank_bloom_filter;
/* Loads the chunk's bloom filter; PLANK_OK with *out = NULL when it has none. */
PLANK_API plank_status plank_reader_bloom_filter(const plank_reader *r, int32_t row_group,
                                                 int32_t column, plank_bloom_filter **out,
                                                 plank_error *err);
/* False when the value is certainly not in the chunk (read-only: any
 * number of threads may check one filter at once). value is the PLAIN
 * encoding of one value (INT32: 4 little-endian bytes; BYTE_ARRAY: the bytes
 * without length prefix; FIXED_LEN_BYTE_ARRAY: type_length bytes). */
PLANK_API bool plank_bloom_filter_check(const plank_bloom_filter *bf, const void *value,
                                        size_t len);
PLANK_API uint32_t plank_bloom_filter_size(const plank_bloom_filter *bf); /* bitset bytes */
PLANK_API void plank_bloom_filter_free(plank_bloom_filter *bf);

/* ------------------------------------------------------------------------ */
/* VARIANT values                                                           */
/* ------------------------------------------------------------------------ */

/* A VARIANT value is a pair of byte strings, metadata (the key dictionary)
 * and value, encoded as the format's VariantEncoding.md describes. The Arrow
 * export gives a VARIANT column as the canonical extension type
 * "arrow.parquet.variant" (storage struct<metadata: binary, value: binary>;
 * see plank_arrow_options.variant_shredded); these functions work on one
 * such pair. Both treat the bytes as hostile: malformed ones are
 * PLANK_ERR_CORRUPT with a message naming what is wrong and at which byte of
 * the value. */

/* Checks the metadata and the value whole (headers, sizes, offsets, field
 * ids, nesting at most 128 deep). */
PLANK_API plank_status plank_variant_validate(const uint8_t *metadata, size_t metadata_len,
                                              const uint8_t *value, size_t value_len,
                                              plank_error *err);

/* Writes the value's JSON text into buf (size bytes, always NUL-terminated
 * when size > 0, truncated like snprintf) and its full length, without the
 * NUL, into *length (may be NULL): call again with a larger buffer when
 * *length >= size. The text is the one `plank cat` prints: objects in key
 * order, integers, floats and doubles in their shortest round-trip form
 * (NaN and infinities as the strings "NaN", "Infinity", "-Infinity"),
 * decimals as strings with their scale ("12.30"), dates "YYYY-MM-DD", times
 * "HH:MM:SS.ffffff", timestamps "YYYY-MM-DDTHH:MM:SS.ffffff" (9 digits for
 * nanosecond ones, "Z" appended when adjusted to UTC), binary as base64,
 * UUIDs as 8-4-4-4-12 hex. Bytes of strings and keys that are not UTF-8
 * are written as U+FFFD. a (NULL: malloc) is used for scratch memory. */
PLANK_API plank_status plank_variant_to_json(const uint8_t *metadata, size_t metadata_len,
                                             const uint8_t *value, size_t value_len, char *buf,
                                             size_t size, size_t *length,
                                             const plank_allocator *a, plank_error *err);

/* Builds VARIANT values from JSON text. A builder keeps its buffers from one
 * value to the next; one thread at a time. */
typedef struct plank_variant_builder plank_variant_builder;

/* A builder whose memory comes from a (NULL: malloc/realloc/free). */
PLANK_API plank_status plank_variant_builder_new(plank_variant_builder **out,
                                                 const plank_allocator *a, plank_error *err);
PLANK_API void plank_variant_builder_free(plank_variant_builder *b);

/* Encodes the JSON text json[0..len) (RFC 8259, UTF-8; one value of any
 * type, surrounded by whitespace only) as a metadata and value pair,
 * replacing the builder's previous result. Objects keep their keys (the
 * metadata lists each distinct key once, in first-use order, flagged sorted
 * when that order is sorted), arrays their elements, strings their text;
 * null, true and false are the variant's own. Numbers follow Spark's
 * parse_json:
 *  - an integer that fits int64: the smallest of int8, int16, int32, int64;
 *  - a number without an exponent that has a fraction or exceeds int64,
 *    with at most 38 significant digits and at most 38 digits after the
 *    point: a decimal of scale = those digits ("1.50": 150 at scale 2),
 *    decimal4 when digits and scale are both <= 9, decimal8 when <= 18,
 *    else decimal16 ("-0.0" is the decimal 0.0);
 *  - any other number (an exponent, or too many digits): the nearest
 *    double (beyond its range: +-infinity).
 * Errors: PLANK_ERR_INVALID_ARGUMENT for malformed JSON, invalid UTF-8, an
 * escaped surrogate without its pair, or a key given twice in one object;
 * PLANK_ERR_LIMIT for objects and arrays nested deeper than 128 or a
 * container over 4 GiB; each message names the byte offset (from 0) in the
 * text. After an error the result is empty. */
PLANK_API plank_status plank_variant_from_json(plank_variant_builder *b, const char *json,
                                               size_t len, plank_error *err);
/* The last result (both lengths 0 when there is none), valid until the next
 * call on b. */
PLANK_API void plank_variant_builder_result(const plank_variant_builder *b,
                                            const uint8_t **metadata, size_t *metadata_len,
                                            const uint8_t **value, size_t *value_len);

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct plank_writer plank_writer;

/* One node of the schema to write. The schema is an array of nodes in
 * depth-first order, as Parquet's own SchemaElement list: node 0 is the root
 * group (its name is written as given, "schema" when NULL), and every group
 * is followed by its num_children subtrees. Leaves get column indexes in this
 * order. LIST and MAP groups must have the layout the format's
 * LogicalTypes.md requires of new files (three-level lists, key_value maps). */
typedef struct plank_schema_field {
    size_t struct_size;                /* sizeof(plank_schema_field); set by _init */
    const char *name;
    plank_physical_type physical_type; /* PLANK_PHYSICAL_NONE for groups */
    int32_t type_length;               /* FIXED_LEN_BYTE_ARRAY width */
    plank_repetition repetition;       /* ignored for the root */
    int32_t num_children;              /* groups: > 0 (the root may have 0) */
    /* The logical type (kind PLANK_LOGICAL_NONE: none). The matching legacy
     * ConvertedType is written along with it where one exists (UTF8, DECIMAL,
     * TIMESTAMP_MILLIS, INT_8, ...). INTERVAL and MAP_KEY_VALUE exist only as
     * ConvertedTypes and are written as such. */
    plank_logical_type logical;
    bool has_field_id;
    int32_t field_id;
} plank_schema_field;

/* Zeroes f, with struct_size set, physical_type PLANK_PHYSICAL_NONE and
 * repetition REQUIRED. */
PLANK_API void plank_schema_field_init(plank_schema_field *f);

/* Per-column overrides of the writer options. */
typedef struct plank_column_options {
    size_t struct_size;        /* sizeof(plank_column_options); set by _init */
    const char *path;          /* dotted path ("a.b.c") or, if unambiguous, leaf name */
    int32_t encoding;          /* plank_encoding of data pages when the dictionary is off or
                                  has fallen back; -1: the writer's default */
    int8_t dictionary;         /* -1 default, 0 off, 1 on */
    int8_t statistics;         /* -1 default, 0 off, 1 on */
    bool bloom_filter;         /* write a bloom filter for this column */
    double bloom_fpp;          /* false-positive rate; 0: the writer's bloom_fpp */
    int64_t bloom_ndv;         /* expected distinct values per chunk; 0: the exact number of
                                  distinct values of each chunk, counted while writing */
} plank_column_options;

/* Fills the defaults (everything "default", no bloom filter). */
PLANK_API void plank_column_options_init(plank_column_options *o);

typedef struct plank_writer_options {
    size_t struct_size;         /* sizeof(plank_writer_options); set by _init */
    const plank_allocator *allocator; /* NULL: malloc/realloc/free */
    plank_codec codec;          /* default SNAPPY (in every build); LZ4 means
                                   the deprecated Hadoop-framed codec, only if asked */
    int32_t codec_level;        /* GZIP 1..12, ZSTD 1..22, BROTLI 0..11; 0: codec default
                                   (GZIP 6, ZSTD 1 as in Arrow C++ and arrow-rs, BROTLI 8).
                                   ZSTD compresses pages of bit-packed data (dictionary
                                   indices, DELTA_BINARY_PACKED) at level 1 whatever the
                                   level: higher levels gain under 1% there at 2-3x the
                                   time; PLAIN and dictionary pages get this level */
    int32_t page_version;       /* 1 (DataPage, default) or 2 (DataPageV2) */
    int32_t format_version;     /* 2 (default; RLE_DICTIONARY) or 1 (PLAIN_DICTIONARY) */
    int64_t page_size;          /* target bytes of encoded values per data page, default 1 MiB */
    int64_t page_rows;          /* rows per data page at most, default 20000 */
    int64_t row_group_rows;     /* rows per row group at most (plank_writer_write_rows and
                                   the Arrow writers), default 1,048,576 */
    int64_t row_group_bytes;    /* encoded bytes buffered per row group at most, default
                                   128 MiB: bounds the writer's memory */
    bool dictionary;            /* dictionary-encode every column but BOOLEAN (default true) */
    int32_t encoding;           /* plank_encoding of data pages without (or after) the
                                   dictionary; -1 (default): DELTA_BINARY_PACKED for INT32 and
                                   INT64 columns of format_version 2 files, RLE for BOOLEAN in
                                   v2 pages, PLAIN otherwise. A given encoding applies to the
                                   columns it can encode; the others keep their default */
    int64_t dictionary_page_size; /* a chunk's dictionary falls back to the column's
                                   encoding past this many PLAIN bytes (default 1 MiB), or
                                   after a page whose indices plus new entries take more than
                                   that encoding would (estimated) */
    bool statistics;            /* chunk Statistics (default true) */
    bool page_index;            /* ColumnIndex + OffsetIndex (default true) */
    bool size_statistics;       /* SizeStatistics in chunks and the page index (default true) */
    bool crc;                   /* page CRC32 (default true) */
    int32_t max_statistics_size; /* BYTE_ARRAY/FLBA min and max longer than this are
                                   truncated (and flagged inexact), default 64 */
    double bloom_fpp;           /* default false-positive rate of bloom filters, 0.01 */
    bool fsync;                 /* fsync the file and its directory on close (paths only) */
    const char *created_by;     /* NULL: "plank version X.Y.Z" */
    const plank_key_value *key_values; /* file key-value metadata, copied at open */
    int32_t num_key_values;
    const plank_column_options *columns; /* per-column overrides, copied at open */
    int32_t num_column_options;
    /* Since 0.2: */
    /* Threads that encode and compress (plank_writer_write_rows, the Arrow
     * writers, and the last pages of each row group): the columns of a row
     * group are split among them, the caller's thread included, and their
     * pages written in column order, so the file's bytes are the same for
     * every thread count. 1 (default): the caller's thread only; 0: one per
     * processor the process may run on (its affinity mask); at most 1024. With more than 1, the allocator is
     * called from several threads at once. */
    PLANK_LAYOUT_START int32_t threads;
    /* Since 0.3: */
    /* true (default): a chunk's first page of 4096 values or more is
     * judged on its first 1024 before the rest is hashed, and a dictionary
     * that already loses there (nearly every value distinct, or indices
     * wider than the fallback encoding's values) is not started: the chunk
     * has no dictionary page. false: every chunk of a dictionary column
     * starts with a dictionary, which can fall back after its first page
     * at the earliest (`plank tpch gen --encoding dictionary`), as for a
     * column whose plank_column_options.encoding names RLE_DICTIONARY or
     * PLAIN_DICTIONARY. */
    PLANK_LAYOUT_START bool dictionary_sample;
    /* Since 0.4: */
    /* DataPageV2 only (v1 pages have no flag for it): a page whose
     * compressed values do not come out at least this fraction smaller
     * than its encoded values is written with its values uncompressed
     * (is_compressed false). Such pages hold near-random bits (DELTA,
     * bit-packed dictionary indices: ZSTD saves about 4% there), and every
     * reader decodes them several times faster without the codec:
     * bench/README.md, "V2 pages that compression barely shrinks".
     * Default 0.1; 0 keeps every page that compression shrinks at all
     * (arrow-rs' default); 1 stores every v2 page uncompressed.
     * Range 0..1. */
    PLANK_LAYOUT_START double v2_min_saving;
} plank_writer_options;

/* Fills the defaults. Always call it before setting fields. */
PLANK_API void plank_writer_options_init(plank_writer_options *o);

/* Where the bytes go. write must take all len bytes or fail; finish (may be
 * NULL) is called once after the footer when the file is complete; close
 * (may be NULL) is called exactly once, by plank_writer_close or
 * plank_writer_abort, after finish or instead of it. */
typedef struct plank_sink {
    size_t struct_size; /* sizeof(plank_sink) */
    plank_status (*write)(void *opaque, const void *buf, size_t len);
    plank_status (*finish)(void *opaque);
    void (*close)(void *opaque);
    void *opaque;
} plank_sink;

/* Opens a writer of a file at `path`. The bytes go to a temporary file in the
 * same directory, renamed to `path` by a successful plank_writer_close; an
 * error or plank_writer_abort removes it, so `path` only ever holds complete
 * files. The schema and options are copied. A writer is used by one
 * thread at a time, except plank_writer_write_column (below); writers of
 * different files are independent. */
PLANK_API plank_status plank_writer_open_path(plank_writer **out, const char *path,
                                              const plank_schema_field *schema,
                                              int32_t num_fields,
                                              const plank_writer_options *opts,
                                              plank_error *err);
/* As above over a caller's sink (copied; its close is called also when
 * opening fails, unless the sink's own struct_size is invalid). */
PLANK_API plank_status plank_writer_open_sink(plank_writer **out, const plank_sink *sink,
                                              const plank_schema_field *schema,
                                              int32_t num_fields,
                                              const plank_writer_options *opts,
                                              plank_error *err);

PLANK_API int32_t plank_writer_num_columns(const plank_writer *w); /* leaf columns */
/* The schema as the reader would see it (levels, paths, column indexes). */
PLANK_API int32_t plank_writer_num_schema_nodes(const plank_writer *w);
PLANK_API const plank_schema_node *plank_writer_schema_node(const plank_writer *w, int32_t i);
PLANK_API const plank_schema_node *plank_writer_column_node(const plank_writer *w,
                                                            int32_t column);

/* Appends `batch->length` slots to leaf `column` of the current row group.
 * The batch has the layout plank_column_reader_read produces, so a batch read
 * can be written as it is:
 *  - one slot per level entry (for a flat column one per row);
 *  - rep_levels: required when the column's max repetition level is > 0;
 *  - def_levels: required when the column is repeated or has a max
 *    definition level > 1; for a flat OPTIONAL column either def_levels or
 *    validity (bit clear = null; NULL = no nulls) may be given;
 *  - values at the slots whose definition level is the maximum, in Arrow
 *    layout (BOOLEAN: bitmap; fixed width: slot * value width; BYTE_ARRAY:
 *    offsets[slot]..offsets[slot+1] into data); other slots are ignored.
 * physical_type and value_width are ignored (the schema decides). Levels
 * out of range or a first rep level != 0 are PLANK_ERR_INVALID_ARGUMENT.
 * Thread safety: calls for different columns may run at the same time on
 * different threads (each column is encoded and compressed in its own
 * state); no other call on the writer may run meanwhile. */
PLANK_API plank_status plank_writer_write_column(plank_writer *w, int32_t column,
                                                 const plank_batch *batch, plank_error *err);
/* Ends the current row group (written to the file now). Every column must
 * have received the same number of records. A row group with no rows is not
 * written. */
PLANK_API plank_status plank_writer_end_row_group(plank_writer *w, plank_error *err);
/* Writes num_rows whole records: cols[i] holds them for leaf column i (all
 * columns; the array is stepped by cols[0].struct_size, the same in every
 * element). Row groups are cut at row_group_rows and row_group_bytes, and a
 * batch is split across row groups where needed. */
PLANK_API plank_status plank_writer_write_rows(plank_writer *w, const plank_batch *cols,
                                               int64_t num_rows, plank_error *err);

/* Finishes the file: flushes the last row group, writes the page indexes,
 * bloom filters and footer, and (paths) renames the file into place. Frees
 * the writer in every case; on failure no file is left at the path. */
PLANK_API plank_status plank_writer_close(plank_writer *w, plank_error *err);
/* Abandons the file (removes the temporary file) and frees the writer. */
PLANK_API void plank_writer_abort(plank_writer *w);

/* ---- Writing from Arrow --------------------------------------------------- */

/* Builds the Parquet schema of an Arrow struct schema (the type mapping of
 * plank_reader_arrow_schema in reverse: lists become three-level LIST groups,
 * maps MAP groups with key_value, "PARQUET:field_id" metadata field ids;
 * non-nullable fields REQUIRED). *fields is allocated with `a` (NULL:
 * malloc) and freed with plank_schema_fields_free; names point into `schema`,
 * which must outlive the fields. Types without a Parquet equivalent are
 * PLANK_ERR_UNSUPPORTED naming the field. */
PLANK_API plank_status plank_schema_from_arrow(const struct ArrowSchema *schema,
                                               const plank_allocator *a,
                                               plank_schema_field **fields,
                                               int32_t *num_fields, plank_error *err);
PLANK_API void plank_schema_fields_free(const plank_allocator *a, plank_schema_field *fields,
                                        int32_t num_fields);
/* Writes one struct array (a record batch) whose schema is `schema`, the
 * schema the writer was opened with through plank_schema_from_arrow. The
 * array is not released. Row groups are cut as in plank_writer_write_rows.
 * Columns directly under the record (fixed widths as stored, strings,
 * binaries, decimals) are encoded from the array's own buffers, which must
 * not change during the call; nothing of the array is kept after it. */
PLANK_API plank_status plank_writer_write_arrow(plank_writer *w, const struct ArrowSchema *schema,
                                                const struct ArrowArray *array,
                                                plank_error *err);
/* Opens a writer at path for the stream's schema and writes every batch of
 * the stream, then closes it (the stream is released). */
PLANK_API plank_status plank_write_arrow_stream(const char *path,
                                                struct ArrowArrayStream *stream,
                                                const plank_writer_options *opts,
                                                plank_error *err);

/* ------------------------------------------------------------------------ */
/* TPC-H data generator                                                     */
/* ------------------------------------------------------------------------ */

/* Rows byte-identical to the reference dbgen 2.17.3 (`dbgen -s SF`), as
 * Parquet with TPC-H types (identifiers INT64, line numbers and small
 * integers INT32, prices and quantities DECIMAL(15,2) in INT64, dates DATE,
 * text STRING, every column REQUIRED) or as dbgen's .tbl text. Any range of
 * rows is generated without generating the rows before it, so chunks can be
 * made in any order and on any thread with the same result. */
typedef enum plank_tpch_table {
    PLANK_TPCH_PART = 0,
    PLANK_TPCH_PARTSUPP = 1,
    PLANK_TPCH_SUPPLIER = 2,
    PLANK_TPCH_CUSTOMER = 3,
    PLANK_TPCH_ORDERS = 4,
    PLANK_TPCH_LINEITEM = 5,
    PLANK_TPCH_NATION = 6,
    PLANK_TPCH_REGION = 7,
    PLANK_TPCH_NUM_TABLES = 8
} plank_tpch_table;

typedef struct plank_tpch plank_tpch;
typedef struct plank_tpch_batch plank_tpch_batch;

/* Opens a generator at scale factor sf: above 0, fractions below 1 as dbgen
 * takes them (row counts scaled by thousandths), integers from 1 up to
 * 29999 (dbgen switches to another random generator for keys at 30000).
 * Builds dbgen's 300 MiB text pool, which every table's comments are cut
 * from (about half a second; on `threads` threads, the caller's included,
 * with 1.2x the pool in temporary buffers, and the same bytes). The handle
 * is read-only afterwards: any number of threads may generate from it at
 * once. */
PLANK_API plank_status plank_tpch_open(plank_tpch **out, double sf, int32_t threads,
                                       const plank_allocator *a, plank_error *err);
PLANK_API void plank_tpch_close(plank_tpch *g);

/* "lineitem", ...; NULL outside the enum. */
PLANK_API const char *plank_tpch_table_name(plank_tpch_table t);
/* The table of a name, or -1. */
PLANK_API int plank_tpch_table_from_name(const char *name);
/* Units of a table: the rows dbgen generates one at a time. A unit is a row,
 * except for partsupp (a part: 4 rows) and lineitem (an order: 1 to 7 rows). */
PLANK_API int64_t plank_tpch_units(const plank_tpch *g, plank_tpch_table t);
/* The table's schema as a writer takes it (root first); *num_fields gets
 * the number of fields. Owned by g. */
PLANK_API const plank_schema_field *plank_tpch_schema(const plank_tpch *g, plank_tpch_table t,
                                                     int32_t *num_fields);

/* A reusable buffer for the rows of up to max_units units of one table. */
PLANK_API plank_status plank_tpch_batch_new(plank_tpch_batch **out, const plank_tpch *g,
                                            plank_tpch_table t, int64_t max_units,
                                            plank_error *err);
PLANK_API void plank_tpch_batch_free(plank_tpch_batch *b);
/* Generates units [first, first + count) (0-based; count <= max_units) into
 * b, replacing what it held. */
PLANK_API plank_status plank_tpch_generate(plank_tpch_batch *b, int64_t first, int64_t count,
                                           plank_error *err);
PLANK_API int64_t plank_tpch_batch_rows(const plank_tpch_batch *b);
/* The batch of column `column` (0 <= column < the table's leaf columns; else
 * NULL), in plank_writer_write_rows layout; valid until the next generate
 * or free. */
PLANK_API const plank_batch *plank_tpch_batch_column(const plank_tpch_batch *b,
                                                     int32_t column);
/* The rows as dbgen's text ('|' between fields, '\n' after each row); the
 * text is owned by b and valid until the next generate or free (it is made
 * once per generate: calling again returns the same text). */
PLANK_API plank_status plank_tpch_batch_tbl(plank_tpch_batch *b, const char **text, size_t *len,
                                            plank_error *err);

typedef enum plank_tpch_format {
    PLANK_TPCH_PARQUET = 0,
    PLANK_TPCH_TBL = 1
} plank_tpch_format;

/* Encoding presets of plank_tpch_write (on top of the writer options). */
typedef enum plank_tpch_encoding {
    PLANK_TPCH_ENC_DEFAULT = 0,    /* the writer options as given */
    PLANK_TPCH_ENC_PLAIN = 1,      /* no dictionary, PLAIN */
    PLANK_TPCH_ENC_DICTIONARY = 2, /* dictionary on every column, PLAIN fallback */
    PLANK_TPCH_ENC_DELTA = 3       /* no dictionary; DELTA_BINARY_PACKED integers,
                                      DELTA_LENGTH_BYTE_ARRAY free text (comments, names,
                                      addresses), DELTA_BYTE_ARRAY the other strings;
                                      data pages v2 */
} plank_tpch_encoding;

typedef struct plank_tpch_options {
    size_t struct_size;           /* sizeof(plank_tpch_options); set by _init */
    uint32_t tables;              /* bit (1 << plank_tpch_table) per table; 0: all eight */
    plank_tpch_format format;     /* default PARQUET */
    plank_tpch_encoding encoding; /* default PLANK_TPCH_ENC_DEFAULT */
    /* Parquet: codec, level, page version, row group rows, ... (the allocator
     * is the generator's); NULL: the writer's defaults. */
    const plank_writer_options *writer;
    int32_t threads;              /* worker threads, default 1; the output does not depend
                                     on it */
    int32_t parts, part;          /* parts > 1: write slice `part` (1..parts) of every table,
                                     to DIR/<table>.<part>.<ext>, rows split as dbgen -C/-S
                                     split them (nation and region whole in part 1, empty in
                                     the others); the slices' .tbl text concatenates to the
                                     whole table's */
    /* Called from the calling thread between chunks (may be NULL). */
    void (*progress)(void *opaque, int64_t rows_done, int64_t rows_total);
    void *progress_opaque;
} plank_tpch_options;

/* Fills the defaults. */
PLANK_API void plank_tpch_options_init(plank_tpch_options *o);
/* Writes the selected tables into directory dir (which must exist) as
 * DIR/<table>.parquet or DIR/<table>.tbl. Each file is written to a
 * temporary name and renamed into place once complete, so a failure never
 * leaves a partial file. */
PLANK_API plank_status plank_tpch_write(const plank_tpch *g, const char *dir,
                                        const plank_tpch_options *o, plank_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PLANK_H */
