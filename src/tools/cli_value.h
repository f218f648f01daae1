/*
 * cli_value.h: text formatting of single Parquet values for the plank CLI
 * (cat, meta statistics). Pure functions over bytes: they depend only on
 * plank.h (for the type enums) and libc, so tests can compile cli_value.c
 * directly. The output format is the one of `plank cat --format jsonl`
 * (see the CLI documentation): JSON style quotes what is not a JSON number,
 * text style (CSV, tables) writes the same text unquoted.
 *
 * Hostile-input contract: every function reads exactly the bytes it is
 * given (p[0..len)) and nothing else; malformed values (wrong length for the
 * type) are reported by a false return without writing anything.
 */
#ifndef PLANK_CLI_VALUE_H
#define PLANK_CLI_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "plank.h"

/* ---- Growable output text ------------------------------------------------- */

/* The CLI's text buffer. Growth failure ends the process with a message:
 * the formatters never have to handle a partial write. */
typedef struct cli_buf {
    char *data;
    size_t len;
    size_t cap;
} cli_buf;

void cli_buf_init(cli_buf *b);
void cli_buf_free(cli_buf *b);
/* Makes room for `extra` more bytes; returns the write position. */
char *cli_buf_grow(cli_buf *b, size_t extra);

static inline char *cli_buf_reserve(cli_buf *b, size_t extra) {
    if (b->data && b->cap - b->len >= extra) return b->data + b->len;
    return cli_buf_grow(b, extra);
}
static inline void cli_buf_put(cli_buf *b, const void *p, size_t n) {
    char *w = cli_buf_reserve(b, n);
    if (n) memcpy(w, p, n);
    b->len += n;
}
static inline void cli_buf_putc(cli_buf *b, char c) {
    char *w = cli_buf_reserve(b, 1);
    *w = c;
    b->len++;
}
void cli_buf_puts(cli_buf *b, const char *s);
void cli_buf_printf(cli_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void cli_buf_put_i64(cli_buf *b, int64_t v);
void cli_buf_put_u64(cli_buf *b, uint64_t v);

/* ---- How a column's values are printed ------------------------------------ */

typedef enum cli_value_kind {
    CLI_V_NULL,     /* UNKNOWN logical type: always null */
    CLI_V_BOOL,     /* one byte, 0 or not */
    CLI_V_INT,      /* signed, int_bits wide (truncated from the physical value) */
    CLI_V_UINT,     /* unsigned, int_bits wide */
    CLI_V_FLOAT,
    CLI_V_DOUBLE,
    CLI_V_FLOAT16,  /* FLBA(2), little-endian IEEE half */
    CLI_V_DECIMAL,  /* INT32/INT64 little-endian, FLBA/BYTE_ARRAY big-endian */
    CLI_V_DATE,
    CLI_V_TIME,
    CLI_V_TIMESTAMP,
    CLI_V_INT96,    /* legacy nanosecond timestamp */
    CLI_V_STRING,
    CLI_V_UUID,
    CLI_V_INTERVAL,
    CLI_V_BINARY    /* base64 */
} cli_value_kind;

typedef struct cli_value_format {
    cli_value_kind kind;
    plank_physical_type physical;
    int32_t width;        /* bytes per value; 0 = any length (BYTE_ARRAY) */
    int int_bits;         /* CLI_V_INT, CLI_V_UINT */
    int32_t scale;        /* CLI_V_DECIMAL */
    plank_time_unit unit; /* CLI_V_TIME, CLI_V_TIMESTAMP */
    bool utc;             /* CLI_V_TIMESTAMP: append "Z" */
} cli_value_format;

/* Decimal scales above this are treated as unannotated (a hostile file must
 * not make one value print gigabytes of zeros). */
#define CLI_MAX_DECIMAL_SCALE 4096
/* Decimal conversion of byte arrays is quadratic in their length; longer
 * values (far beyond any real precision) are printed as base64 instead. */
#define CLI_MAX_DECIMAL_BYTES 1024

/* Chooses how values of a column are printed. `logical` is the effective
 * logical type (may be NULL); when its kind is NONE the legacy converted
 * type (with converted_scale for DECIMAL) is used instead. Annotations that
 * do not fit the physical type are ignored. */
void cli_value_format_init(cli_value_format *f, plank_physical_type physical, int32_t type_length,
                           const plank_logical_type *logical, plank_converted_type converted,
                           int32_t converted_scale);

typedef enum cli_style {
    CLI_STYLE_JSON, /* a JSON value: strings quoted and escaped */
    CLI_STYLE_TEXT  /* the same text without quotes or escapes */
} cli_style;

/* Appends one non-null value stored in p[0..len) in the column's physical
 * layout (BOOLEAN: one byte; INT32/FLOAT: 4 LE bytes; INT64/DOUBLE: 8;
 * INT96: 12; FLBA: type_length; BYTE_ARRAY: the bytes). Returns false and
 * writes nothing when len does not fit the physical type. */
bool cli_format_value(cli_buf *b, const cli_value_format *f, const uint8_t *p, size_t len,
                      cli_style style);

/* ---- The individual formatters (exposed for tests) ------------------------ */

/* "YYYY-MM-DD", proleptic Gregorian; negative years as "-YYYY".
 * |days| must be below 2^60 (every caller derives it from 64-bit units). */
void cli_format_date(cli_buf *b, int64_t days);
/* "HH:MM:SS" plus 3/6/9 fraction digits. */
void cli_format_time(cli_buf *b, int64_t v, plank_time_unit unit);
/* "YYYY-MM-DDTHH:MM:SS.f..." (+"Z" when utc), flooring negative values. */
void cli_format_timestamp(cli_buf *b, int64_t v, plank_time_unit unit, bool utc);
/* The 12 INT96 bytes: LE nanoseconds of day, then LE uint32 Julian day. */
void cli_format_int96(cli_buf *b, const uint8_t p[12]);
/* Shortest text that reads back to the same value; NaN/Infinity/-Infinity
 * as bare words (callers quote them for JSON). Returns whether the value was
 * finite. */
bool cli_format_double(cli_buf *b, double v);
bool cli_format_float(cli_buf *b, float v);
bool cli_format_float16(cli_buf *b, uint16_t half);
/* Converts to the nearest half (ties to even); used to check round trips. */
uint16_t cli_half_from_double(double d);
double cli_half_to_double(uint16_t h);
/* Decimal text of a signed integer with `scale` fraction digits. */
void cli_format_decimal_i64(cli_buf *b, int64_t v, int32_t scale);
/* The same for a big-endian two's complement integer of any length. */
void cli_format_decimal_be(cli_buf *b, const uint8_t *p, size_t len, int32_t scale);
/* Standard base64 with '=' padding. */
void cli_format_base64(cli_buf *b, const uint8_t *p, size_t len);
/* 8-4-4-4-12 lowercase hex of 16 bytes. */
void cli_format_uuid(cli_buf *b, const uint8_t p[16]);
/* {"months":m,"days":d,"millis":ms} from three LE uint32. */
void cli_format_interval(cli_buf *b, const uint8_t p[12]);
/* A JSON string literal (with quotes): escapes '"', '\\' and control
 * characters, keeps valid UTF-8, writes \uFFFD for each invalid byte. */
void cli_json_string(cli_buf *b, const uint8_t *p, size_t len);

#endif /* PLANK_CLI_VALUE_H */
