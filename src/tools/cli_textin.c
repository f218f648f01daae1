/*
 * cli_textin.c: CSV and JSON lines to Parquet for `plank convert`.
 *
 * Input is read record by record (CSV records may span lines inside quotes)
 * in one pass. The first --infer-rows records are kept, each column's type
 * is decided from them, then they and the rest of the file are converted
 * and written in batches (plank_writer_write_rows) of CLI_TEXTIN_BATCH rows,
 * fewer when the columns' fixed-width buffers would pass
 * CLI_TEXTIN_BATCH_BYTES (a header of thousands of columns), and cut early
 * when the batch's text passes it (long cells): memory stays bounded by the
 * widest row, not by the row count times the column count.
 * A later value that does not fit its column's type is an error naming the
 * line and the column: nothing is widened after the fact, so the file's
 * types never depend on how far the data was read (use --schema or a larger
 * --infer-rows).
 *
 * Inference, per column, over the non-null sampled values: BOOLEAN if all
 * are true/false, else INT64 if all are integers, else DOUBLE if all are
 * numbers, else DATE if all are YYYY-MM-DD, else TIMESTAMP if all are
 * dates or ISO 8601 date-times (MICROS, NANOS when a value has more than 6
 * fractional digits; adjusted to UTC when any value has a zone), else
 * STRING. A column without values is STRING. Every column is OPTIONAL.
 *
 * Nulls: in CSV an unquoted empty field or unquoted null/NULL (a quoted ""
 * is the empty string, as `plank cat --format csv` writes it); in JSON lines
 * null or a missing key. JSON strings only infer DATE, TIMESTAMP or STRING
 * (and "NaN"/"Infinity"/"-Infinity" may join numbers into DOUBLE), JSON
 * numbers INT64 or DOUBLE, JSON booleans BOOLEAN. Nested JSON objects and
 * arrays are stored as their JSON text in a STRING column. Every key of the
 * file must appear in the first --infer-rows lines (or in --schema).
 *
 * --variant columns: the JSON text of each value (JSON lines: the field's
 * raw text, whatever its JSON type; CSV: the cell's text) is encoded by
 * plank_variant_from_json into an OPTIONAL group annotated VARIANT(1) of
 * `required binary metadata` and `required binary value`. A missing key, or
 * a CSV cell that is null by the rules above, is a null group; an explicit
 * JSON null (in JSON lines, or a quoted "null" CSV cell) is the variant
 * null inside a present group.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cli.h"

#define CLI_TEXTIN_BATCH 65536
#define CLI_TEXTIN_BATCH_BYTES ((size_t)64 << 20)

/* ---- Cells --------------------------------------------------------------------- */

typedef enum tcell_kind {
    TC_NULL,
    TC_TEXT,   /* CSV, unquoted */
    TC_QUOTED, /* CSV, quoted (never null) */
    TC_JSTR,   /* JSON string, unescaped */
    TC_JNUM,   /* JSON number, its literal */
    TC_JBOOL,  /* "true" / "false" */
    TC_JRAW    /* nested JSON object or array, its text */
} tcell_kind;

typedef struct tcell {
    tcell_kind kind;
    int32_t col;
    size_t off, len; /* into the record's text */
} tcell;

/* ---- Columns --------------------------------------------------------------------- */

typedef enum ttype {
    T_BOOL, T_INT32, T_INT64, T_FLOAT, T_DOUBLE, T_STRING, T_BINARY, T_DATE, T_TIMESTAMP,
    T_DECIMAL, T_VARIANT
} ttype;

enum { CAND_BOOL = 1, CAND_INT = 2, CAND_DOUBLE = 4, CAND_DATE = 8, CAND_TS = 16 };

typedef struct tcol {
    char *name;
    size_t name_len;
    ttype type;
    plank_time_unit unit;
    bool utc;
    int32_t precision, scale;
    int32_t width;      /* bytes per value (fixed widths), FLBA width for wide decimals */
    bool from_schema;
    /* inference */
    unsigned cand;
    int max_frac;
    bool any_zone, any_value;
    /* the batch being built */
    uint8_t *validity;
    uint8_t *values;
    int64_t *offsets;
    cli_buf data;
    int64_t *offsets2; /* VARIANT: value (offsets/data hold the metadata) */
    cli_buf data2;
    int64_t seen; /* the last row naming this column */
    int64_t set;  /* the last row giving it a value */
} tcol;

typedef struct tin {
    const char *path;
    const cli_text_in *opt;
    FILE *f;
    int64_t file_size;
    char *line;
    size_t line_cap;
    cli_buf rec;  /* the record's bytes (CSV: possibly several lines) */
    cli_buf text; /* unescaped cell text */
    tcell *cells;
    size_t ncells, cap_cells;
    int64_t line_no, next_line;
    tcol *cols;
    int32_t ncols, cap_cols;
    bool columns_fixed; /* JSON: no new keys after the sample */
    int32_t hint;       /* JSON: where the next key is likely */
    int64_t row;        /* rows converted so far */
    int64_t batch_rows;
    int64_t batch_cap;  /* rows a batch holds at most */
    size_t batch_text;  /* cell bytes stored in the batch */
    plank_variant_builder *vb; /* --variant columns */
} tin;

static int tin_fail(tin *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int tin_fail(tin *t, const char *fmt, ...) {
    char msg[PLANK_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cli_fail(t->path, "%s", msg);
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("plank: out of memory\n", stderr);
        exit(CLI_EXIT_ERROR);
    }
    return q;
}

static void add_cell(tin *t, tcell_kind kind, int32_t col, size_t off, size_t len) {
    if (t->ncells == t->cap_cells) {
        t->cap_cells = t->cap_cells ? t->cap_cells * 2 : 64;
        t->cells = xrealloc(t->cells, t->cap_cells * sizeof *t->cells);
    }
    tcell *c = &t->cells[t->ncells++];
    c->kind = kind;
    c->col = col;
    c->off = off;
    c->len = len;
}

static int32_t add_column(tin *t, const char *name, size_t len) {
    if (t->ncols == t->cap_cols) {
        t->cap_cols = t->cap_cols ? t->cap_cols * 2 : 16;
        t->cols = xrealloc(t->cols, (size_t)t->cap_cols * sizeof *t->cols);
    }
    tcol *c = &t->cols[t->ncols];
    memset(c, 0, sizeof *c);
    c->name = xrealloc(NULL, len + 1);
    memcpy(c->name, name, len);
    c->name[len] = '\0';
    c->name_len = len;
    c->cand = CAND_BOOL | CAND_INT | CAND_DOUBLE | CAND_DATE | CAND_TS;
    c->seen = c->set = -1;
    for (int32_t k = 0; k < t->opt->num_variant; k++)
        if (strlen(t->opt->variant[k]) == len && memcmp(t->opt->variant[k], name, len) == 0) {
            c->type = T_VARIANT;
            c->from_schema = true;
        }
    return t->ncols++;
}

static int32_t find_column(tin *t, const char *name, size_t len) {
    for (int32_t k = 0; k < t->ncols; k++) {
        int32_t i = (t->hint + k) % t->ncols;
        if (t->cols[i].name_len == len && memcmp(t->cols[i].name, name, len) == 0) {
            t->hint = i + 1 == t->ncols ? 0 : i + 1;
            return i;
        }
    }
    return -1;
}

/* ---- Reading records ---------------------------------------------------------------- */

/* Appends the next line to t->rec; false at the end of the input. */
static bool read_line(tin *t) {
    ssize_t n = getline(&t->line, &t->line_cap, t->f);
    if (n < 0) return false;
    cli_buf_put(&t->rec, t->line, (size_t)n);
    t->next_line++;
    return true;
}

static void strip_newline(cli_buf *b) {
    if (b->len && b->data[b->len - 1] == '\n') b->len--;
    if (b->len && b->data[b->len - 1] == '\r') b->len--;
}

static bool blank(const cli_buf *b) {
    for (size_t i = 0; i < b->len; i++)
        if (b->data[i] != ' ' && b->data[i] != '\t' && b->data[i] != '\r' && b->data[i] != '\n')
            return false;
    return true;
}

/* Splits t->rec into cells (columns by position). */
static int parse_csv(tin *t) {
    const char *s = t->rec.data;
    size_t n = t->rec.len, i = 0;
    char d = t->opt->delimiter;
    int32_t col = 0;
    for (;;) {
        size_t off = t->text.len;
        if (i < n && s[i] == '"') {
            i++;
            for (;;) {
                if (i >= n) return tin_fail(t, "line %lld: unterminated quoted field", (long long)t->line_no);
                if (s[i] == '"') {
                    if (i + 1 < n && s[i + 1] == '"') {
                        cli_buf_putc(&t->text, '"');
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                cli_buf_putc(&t->text, s[i++]);
            }
            if (i < n && s[i] != d)
                return tin_fail(t, "line %lld, field %d: text after a closing quote",
                                (long long)t->line_no, (int)col + 1);
            add_cell(t, TC_QUOTED, col, off, t->text.len - off);
        } else {
            size_t start = i;
            while (i < n && s[i] != d) i++;
            cli_buf_put(&t->text, s + start, i - start);
            add_cell(t, TC_TEXT, col, off, i - start);
        }
        col++;
        if (i >= n) break;
        i++; /* the delimiter */
    }
    return 0;
}

/* One CSV record into t->rec (lines joined while a quote is open). */
static bool next_csv_record(tin *t) {
    for (;;) {
        t->rec.len = 0;
        t->line_no = t->next_line;
        if (!read_line(t)) return false;
        size_t quotes = 0, scanned = 0;
        for (;;) {
            for (; scanned < t->rec.len; scanned++) quotes += t->rec.data[scanned] == '"';
            if (quotes % 2 == 0 || !read_line(t)) break;
        }
        strip_newline(&t->rec);
        if (t->rec.len > 0) return true; /* empty lines are skipped */
    }
}

/* ---- JSON -------------------------------------------------------------------------- */

typedef struct jp {
    tin *t;
    const char *s;
    size_t n, i;
} jp;

static void jws(jp *p) {
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\r' ||
                           p->s[p->i] == '\n'))
        p->i++;
}

static int jfail(jp *p, const char *what) {
    return tin_fail(p->t, "line %lld, byte %zu: %s", (long long)p->t->line_no, p->i + 1, what);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool read_hex4(jp *p, uint32_t *v) {
    if (p->n - p->i < 4) return false;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p->s[p->i + (size_t)k]);
        if (h < 0) return false;
        *v = *v << 4 | (uint32_t)h;
    }
    p->i += 4;
    return true;
}

static void put_utf8(cli_buf *b, uint32_t cp) {
    if (cp < 0x80) cli_buf_putc(b, (char)cp);
    else if (cp < 0x800) {
        cli_buf_putc(b, (char)(0xc0 | cp >> 6));
        cli_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        cli_buf_putc(b, (char)(0xe0 | cp >> 12));
        cli_buf_putc(b, (char)(0x80 | (cp >> 6 & 0x3f)));
        cli_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        cli_buf_putc(b, (char)(0xf0 | cp >> 18));
        cli_buf_putc(b, (char)(0x80 | (cp >> 12 & 0x3f)));
        cli_buf_putc(b, (char)(0x80 | (cp >> 6 & 0x3f)));
        cli_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    }
}

/* A string at p->i (the opening quote), unescaped onto t->text. */
static int jstring(jp *p) {
    cli_buf *b = &p->t->text;
    p->i++;
    for (;;) {
        if (p->i >= p->n) return jfail(p, "unterminated string");
        char c = p->s[p->i++];
        if (c == '"') return 0;
        if ((unsigned char)c < 0x20) return jfail(p, "control character in a string");
        if (c != '\\') {
            cli_buf_putc(b, c);
            continue;
        }
        if (p->i >= p->n) return jfail(p, "unterminated string");
        c = p->s[p->i++];
        switch (c) {
        case '"': case '\\': case '/': cli_buf_putc(b, c); break;
        case 'b': cli_buf_putc(b, '\b'); break;
        case 'f': cli_buf_putc(b, '\f'); break;
        case 'n': cli_buf_putc(b, '\n'); break;
        case 'r': cli_buf_putc(b, '\r'); break;
        case 't': cli_buf_putc(b, '\t'); break;
        case 'u': {
            uint32_t cp, lo;
            if (!read_hex4(p, &cp)) return jfail(p, "bad \\u escape");
            if (cp >= 0xd800 && cp < 0xdc00 && p->n - p->i >= 6 && p->s[p->i] == '\\' &&
                p->s[p->i + 1] == 'u') {
                size_t at = p->i;
                p->i += 2;
                if (read_hex4(p, &lo) && lo >= 0xdc00 && lo < 0xe000)
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                else p->i = at;
            }
            if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd; /* lone surrogate */
            put_utf8(b, cp);
            break;
        }
        default: return jfail(p, "bad escape in a string");
        }
    }
}

/* A JSON number's literal at p->i (RFC 8259 grammar). */
static int jnumber(jp *p) {
    size_t i = p->i, n = p->n;
    const char *s = p->s;
    if (i < n && s[i] == '-') i++;
    if (i < n && s[i] == '0') i++;
    else if (i < n && s[i] >= '1' && s[i] <= '9') while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    else return jfail(p, "bad number");
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9') return jfail(p, "bad number");
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || s[i] < '0' || s[i] > '9') return jfail(p, "bad number");
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    cli_buf_put(&p->t->text, s + p->i, i - p->i);
    p->i = i;
    return 0;
}

/* Skips a nested object or array (its text is copied by the caller). */
static int jskip_nested(jp *p) {
    int depth = 0;
    while (p->i < p->n) {
        char c = p->s[p->i];
        if (c == '"') {
            size_t mark = p->t->text.len;
            int rc = jstring(p);
            p->t->text.len = mark;
            if (rc) return rc;
            continue;
        }
        p->i++;
        if (c == '{' || c == '[') {
            if (++depth > 1000) return jfail(p, "nesting too deep");
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return 0;
        }
    }
    return jfail(p, "unterminated object or array");
}

static bool jword(jp *p, const char *w) {
    size_t k = strlen(w);
    if (p->n - p->i < k || memcmp(p->s + p->i, w, k) != 0) return false;
    p->i += k;
    return true;
}

/* One line's object into cells (columns by key). */
static int parse_jsonl(tin *t) {
    jp p = {t, t->rec.data, t->rec.len, 0};
    jws(&p);
    if (p.i >= p.n || p.s[p.i] != '{') return jfail(&p, "expected an object ({...}) per line");
    p.i++;
    jws(&p);
    if (p.i < p.n && p.s[p.i] == '}') {
        p.i++;
    } else {
        for (;;) {
            jws(&p);
            if (p.i >= p.n || p.s[p.i] != '"') return jfail(&p, "expected a key");
            size_t koff = t->text.len;
            int rc = jstring(&p);
            if (rc) return rc;
            size_t klen = t->text.len - koff;
            int32_t col = find_column(t, t->text.data + koff, klen);
            if (col < 0) {
                if (t->columns_fixed)
                    return tin_fail(t, "line %lld: key \"%.*s\" is not among the columns of the "
                                       "first %lld lines (use a larger --infer-rows or --schema)",
                                    (long long)t->line_no, (int)(klen > 200 ? 200 : klen),
                                    t->text.data + koff, (long long)t->opt->infer_rows);
                col = add_column(t, t->text.data + koff, klen);
            }
            t->text.len = koff;
            jws(&p);
            if (p.i >= p.n || p.s[p.i] != ':') return jfail(&p, "expected ':'");
            p.i++;
            jws(&p);
            if (p.i >= p.n) return jfail(&p, "expected a value");
            size_t off = t->text.len, vstart = p.i;
            char c = p.s[p.i];
            tcell_kind kind;
            if (c == '"') {
                if ((rc = jstring(&p))) return rc;
                kind = TC_JSTR;
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                if ((rc = jnumber(&p))) return rc;
                kind = TC_JNUM;
            } else if (jword(&p, "true") || jword(&p, "false")) {
                cli_buf_puts(&t->text, c == 't' ? "true" : "false");
                kind = TC_JBOOL;
            } else if (jword(&p, "null")) {
                kind = TC_NULL;
            } else if (c == '{' || c == '[') {
                size_t start = p.i;
                if ((rc = jskip_nested(&p))) return rc;
                cli_buf_put(&t->text, p.s + start, p.i - start);
                kind = TC_JRAW;
            } else {
                return jfail(&p, "expected a value");
            }
            if (t->cols[col].type == T_VARIANT) { /* its raw JSON text, null included */
                t->text.len = off;
                cli_buf_put(&t->text, p.s + vstart, p.i - vstart);
                kind = TC_JRAW;
            }
            add_cell(t, kind, col, off, t->text.len - off);
            jws(&p);
            if (p.i < p.n && p.s[p.i] == ',') {
                p.i++;
                continue;
            }
            if (p.i < p.n && p.s[p.i] == '}') {
                p.i++;
                break;
            }
            return jfail(&p, "expected ',' or '}'");
        }
    }
    jws(&p);
    if (p.i < p.n) return jfail(&p, "text after the object (one object per line)");
    return 0;
}

/* Reads and parses the next record into t->cells; *got false at the end. */
static int next_record(tin *t, bool *got) {
    t->ncells = 0;
    t->text.len = 0;
    if (t->opt->jsonl) {
        for (;;) {
            t->rec.len = 0;
            t->line_no = t->next_line;
            if (!read_line(t)) {
                *got = false;
                return 0;
            }
            if (!blank(&t->rec)) break;
        }
        *got = true;
        return parse_jsonl(t);
    }
    if (!next_csv_record(t)) {
        *got = false;
        return 0;
    }
    *got = true;
    int rc = parse_csv(t);
    if (rc == 0 && t->ncols > 0 && t->ncells != (size_t)t->ncols)
        rc = tin_fail(t, "line %lld: %zu fields where the header has %d", (long long)t->line_no,
                      t->ncells, (int)t->ncols);
    return rc;
}

/* ---- Values -------------------------------------------------------------------------- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool parse_bool(const char *s, size_t n, bool *v) {
    char w[6];
    if (n < 4 || n > 5) return false;
    for (size_t i = 0; i < n; i++) w[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    w[n] = '\0';
    if (strcmp(w, "true") == 0) *v = true;
    else if (strcmp(w, "false") == 0) *v = false;
    else return false;
    return true;
}

static bool parse_int(const char *s, size_t n, int64_t *v) {
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i == n) return false;
    uint64_t acc = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (!is_digit(s[i])) return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (acc > (limit - d) / 10) return false;
        acc = acc * 10 + d;
    }
    *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return true;
}

/* NaN and the infinities by name (with sign), case-insensitively. */
static bool special_double(const char *s, size_t n, double *v) {
    char w[16];
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (n - i >= sizeof w) return false;
    size_t k = 0;
    for (; i < n; i++) w[k++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    w[k] = '\0';
    if (strcmp(w, "nan") == 0) *v = NAN;
    else if (strcmp(w, "inf") == 0 || strcmp(w, "infinity") == 0) *v = neg ? -INFINITY : INFINITY;
    else return false;
    return true;
}

/* A decimal number: sign, digits, optional fraction, optional exponent. */
static bool parse_double(const char *s, size_t n, double *v) {
    if (special_double(s, n, v)) return true;
    char buf[128];
    size_t i = 0, digits = 0;
    if (n == 0 || n >= sizeof buf) return false;
    if (s[i] == '-' || s[i] == '+') i++;
    while (i < n && is_digit(s[i])) i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i])) i++, digits++;
    }
    if (digits == 0) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+')) i++;
        size_t e = i;
        while (i < n && is_digit(s[i])) i++;
        if (i == e) return false;
    }
    if (i != n) return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    *v = strtod(buf, NULL);
    return true;
}

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool digits_at(const char *s, size_t n, size_t at, size_t count, int *v) {
    if (at + count > n) return false;
    *v = 0;
    for (size_t i = 0; i < count; i++) {
        if (!is_digit(s[at + i])) return false;
        *v = *v * 10 + (s[at + i] - '0');
    }
    return true;
}

/* YYYY-MM-DD at the start of s; *used receives 10. */
static bool parse_date_prefix(const char *s, size_t n, int64_t *days) {
    int y, m, d;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (!digits_at(s, n, 0, 4, &y) || n < 10 || s[4] != '-' || !digits_at(s, n, 5, 2, &m) ||
        s[7] != '-' || !digits_at(s, n, 8, 2, &d))
        return false;
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap(y))) return false;
    *days = days_from_civil(y, m, d);
    return true;
}

static bool parse_date(const char *s, size_t n, int32_t *v) {
    int64_t days;
    if (n != 10 || !parse_date_prefix(s, n, &days)) return false;
    *v = (int32_t)days;
    return true;
}

typedef struct ts_parts {
    int64_t seconds; /* since the epoch, UTC when a zone was given */
    int32_t nanos;
    int frac_digits;
    bool zone;
} ts_parts;

/* YYYY-MM-DD[(T| )HH:MM[:SS[.f{1,9}]][Z|±HH[:MM]|±HHMM]] */
static bool parse_ts(const char *s, size_t n, ts_parts *t) {
    int64_t days;
    memset(t, 0, sizeof *t);
    if (!parse_date_prefix(s, n, &days)) return false;
    int hh = 0, mi = 0, ss = 0;
    size_t i = 10;
    if (i < n) {
        if (s[i] != 'T' && s[i] != 't' && s[i] != ' ') return false;
        if (!digits_at(s, n, i + 1, 2, &hh) || i + 3 >= n || s[i + 3] != ':' ||
            !digits_at(s, n, i + 4, 2, &mi))
            return false;
        i += 6;
        if (i < n && s[i] == ':') {
            if (!digits_at(s, n, i + 1, 2, &ss)) return false;
            i += 3;
            if (i < n && s[i] == '.') {
                i++;
                int k = 0;
                int32_t ns = 0;
                while (i < n && is_digit(s[i])) {
                    if (k == 9) return false;
                    ns = ns * 10 + (s[i++] - '0');
                    k++;
                }
                if (k == 0) return false;
                t->frac_digits = k;
                for (int r = k; r < 9; r++) ns *= 10;
                t->nanos = ns;
            }
        }
        if (hh > 23 || mi > 59 || ss > 60) return false;
        if (i < n) {
            int sign = 0, oh = 0, om = 0;
            if (s[i] == 'Z' || s[i] == 'z') {
                i++;
            } else if (s[i] == '+' || s[i] == '-') {
                sign = s[i] == '-' ? -1 : 1;
                if (!digits_at(s, n, i + 1, 2, &oh)) return false;
                i += 3;
                if (i < n && s[i] == ':') i++;
                if (i < n) {
                    if (!digits_at(s, n, i, 2, &om)) return false;
                    i += 2;
                }
                if (oh > 23 || om > 59) return false;
            } else {
                return false;
            }
            if (i != n) return false;
            t->zone = true;
            t->seconds -= sign * (oh * 3600 + om * 60);
        }
    }
    t->seconds += days * 86400 + hh * 3600 + mi * 60 + ss;
    return true;
}

/* A timestamp in `unit`; false when it does not fit or loses digits. */
static bool ts_to_unit(const ts_parts *t, plank_time_unit unit, int64_t *v) {
    int64_t per = unit == PLANK_UNIT_MILLIS ? 1000 : unit == PLANK_UNIT_MICROS ? 1000000
                                                                                 : 1000000000;
    int64_t div = 1000000000 / per;
    if (t->nanos % div) return false;
    if (t->seconds > INT64_MAX / per || t->seconds < INT64_MIN / per) return false;
    int64_t base = t->seconds * per, frac = t->nanos / div;
    if (base > INT64_MAX - frac) return false;
    *v = base + frac;
    return true;
}

/* A decimal with at most `precision` digits and `scale` fractional ones
 * (fewer are padded; more must be zeros), as its unscaled integer in
 * `width` big-endian two's complement bytes or, for width 0, in *small. */
static bool parse_decimal(const char *s, size_t n, int32_t precision, int32_t scale,
                          int32_t width, uint8_t *wide, int64_t *small) {
    size_t i = 0, int_at, int_len, frac_at, frac_len = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    int_at = i;
    while (i < n && is_digit(s[i])) i++;
    int_len = i - int_at;
    frac_at = i;
    if (i < n && s[i] == '.') {
        frac_at = ++i;
        while (i < n && is_digit(s[i])) i++;
        frac_len = i - frac_at;
    }
    if (i != n || int_len + frac_len == 0) return false;
    for (size_t k = (size_t)scale; k < frac_len; k++)
        if (s[frac_at + k] != '0') return false; /* would lose digits */
    /* The unscaled digits: the integer part, then `scale` fraction digits. */
    size_t total = int_len + (size_t)scale;
    int32_t digits = 0;
    uint8_t mag[32];
    int64_t acc = 0;
    memset(mag, 0, sizeof mag);
    for (size_t k = 0; k < total; k++) {
        size_t f = k - int_len;
        int d = k < int_len ? s[int_at + k] - '0' : f < frac_len ? s[frac_at + f] - '0' : 0;
        if (digits > 0 || d != 0) digits++;
        if (digits > precision) return false;
        if (width > 0) {
            unsigned carry = (unsigned)d;
            for (int32_t b = width - 1; b >= 0; b--) {
                unsigned x = mag[b] * 10u + carry;
                mag[b] = (uint8_t)x;
                carry = x >> 8;
            }
        } else {
            acc = acc * 10 + d; /* precision <= 18 keeps this in range */
        }
    }
    if (width > 0) {
        if (neg) {
            unsigned carry = 1;
            for (int32_t b = width - 1; b >= 0; b--) {
                unsigned x = (uint8_t)~mag[b] + carry;
                mag[b] = (uint8_t)x;
                carry = x >> 8;
            }
        }
        memcpy(wide, mag, (size_t)width);
    } else {
        *small = neg ? -acc : acc;
    }
    return true;
}

/* ---- Types -------------------------------------------------------------------------- */

static const char *type_text(const tcol *c, char *buf, size_t size) {
    static const char *const units[] = {"ms", "us", "ns"};
    switch (c->type) {
    case T_BOOL: return "bool";
    case T_INT32: return "int32";
    case T_INT64: return "int64";
    case T_FLOAT: return "float";
    case T_DOUBLE: return "double";
    case T_STRING: return "string";
    case T_BINARY: return "binary";
    case T_DATE: return "date";
    case T_TIMESTAMP:
        snprintf(buf, size, "%s[%s]", c->utc ? "timestamptz" : "timestamp", units[c->unit]);
        return buf;
    case T_DECIMAL:
        snprintf(buf, size, "decimal(%d,%d)", (int)c->precision, (int)c->scale);
        return buf;
    case T_VARIANT: return "variant";
    }
    return "?";
}

/* Bytes of the smallest FIXED_LEN_BYTE_ARRAY holding `precision` digits. */
static int32_t decimal_bytes(int32_t precision) {
    for (int32_t n = 1; n <= 32; n++)
        if ((double)precision <= (8.0 * n - 1) * 0.30102999566398120) return n;
    return 32;
}

/* Parses one --schema type into c; false when unknown. */
static bool parse_type(const char *s, size_t n, tcol *c) {
    char w[64];
    if (n >= sizeof w) return false;
    for (size_t i = 0; i < n; i++) w[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    w[n] = '\0';
    static const struct {
        const char *name;
        ttype t;
    } simple[] = {{"bool", T_BOOL},     {"boolean", T_BOOL},   {"int32", T_INT32},
                  {"int64", T_INT64},   {"float", T_FLOAT},    {"double", T_DOUBLE},
                  {"string", T_STRING}, {"binary", T_BINARY},  {"date", T_DATE}};
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (strcmp(w, simple[i].name) == 0) {
            c->type = simple[i].t;
            return true;
        }
    const char *unit = NULL;
    if (strncmp(w, "timestamptz", 11) == 0) {
        c->utc = true;
        unit = w + 11;
    } else if (strncmp(w, "timestamp", 9) == 0) {
        c->utc = false;
        unit = w + 9;
    }
    if (unit) {
        c->type = T_TIMESTAMP;
        if (!*unit || strcmp(unit, "[us]") == 0) c->unit = PLANK_UNIT_MICROS;
        else if (strcmp(unit, "[ms]") == 0) c->unit = PLANK_UNIT_MILLIS;
        else if (strcmp(unit, "[ns]") == 0) c->unit = PLANK_UNIT_NANOS;
        else return false;
        return true;
    }
    int p, sc, used = 0;
    if (sscanf(w, "decimal(%d,%d)%n", &p, &sc, &used) == 2 && (size_t)used == n && p >= 1 &&
        p <= 38 && sc >= 0 && sc <= p) {
        c->type = T_DECIMAL;
        c->precision = p;
        c->scale = sc;
        return true;
    }
    return false;
}

/* --schema 'name:type,...': sets the named columns' types (CSV: they must
 * be in the header; JSON lines: new names become columns). */
static int apply_schema(tin *t) {
    const char *s = t->opt->schema;
    while (*s) {
        size_t len = 0;
        int depth = 0;
        while (s[len] && (s[len] != ',' || depth > 0)) {
            depth += s[len] == '(' ? 1 : s[len] == ')' ? -1 : 0;
            len++;
        }
        size_t colon = len;
        while (colon > 0 && s[colon - 1] != ':') colon--;
        if (colon <= 1)
            return cli_usage_error("convert: --schema needs name:type items, not '%.*s'", (int)len, s);
        size_t name_len = colon - 1;
        int32_t k = find_column(t, s, name_len);
        if (k < 0) {
            if (!t->opt->jsonl)
                return tin_fail(t, "--schema names column '%.*s', which the header lacks",
                                (int)name_len, s);
            k = add_column(t, s, name_len);
        }
        tcol *c = &t->cols[k];
        if (c->type == T_VARIANT)
            return cli_usage_error("convert: column '%.*s' is given by both --schema and --variant",
                                   (int)name_len, s);
        if (!parse_type(s + colon, len - colon, c))
            return cli_usage_error("convert: --schema: unknown type '%.*s' (bool, int32, int64, "
                                   "float, double, string, binary, date, timestamp[ms|us|ns], "
                                   "timestamptz[ms|us|ns], decimal(P,S) with P <= 38)",
                                   (int)(len - colon), s + colon);
        c->from_schema = true;
        s += len;
        if (*s == ',') s++;
    }
    return 0;
}

static bool null_word(const char *s, size_t n) {
    return n == 0 || (n == 4 && (memcmp(s, "null", 4) == 0 || memcmp(s, "NULL", 4) == 0));
}

/* Whether the cell is null for its column. */
static bool cell_is_null(const tcell *cell, const char *text) {
    return cell->kind == TC_NULL || (cell->kind == TC_TEXT && null_word(text + cell->off, cell->len));
}

/* Narrows a column's candidate types by one sampled cell. */
static void infer_cell(tcol *c, const tcell *cell, const char *text) {
    if (cell_is_null(cell, text)) return;
    const char *s = text + cell->off;
    size_t n = cell->len;
    c->any_value = true;
    unsigned keep = 0;
    bool b;
    int64_t i;
    double d;
    int32_t day;
    ts_parts ts;
    switch (cell->kind) {
    case TC_TEXT: case TC_QUOTED:
        keep = CAND_BOOL | CAND_INT | CAND_DOUBLE | CAND_DATE | CAND_TS;
        break;
    case TC_JSTR: keep = CAND_DATE | CAND_TS | CAND_DOUBLE; break;
    case TC_JNUM: keep = CAND_INT | CAND_DOUBLE; break;
    case TC_JBOOL: keep = CAND_BOOL; break;
    default: keep = 0; break;
    }
    keep &= c->cand;
    if ((keep & CAND_BOOL) && !parse_bool(s, n, &b)) keep &= ~(unsigned)CAND_BOOL;
    if ((keep & CAND_INT) && !parse_int(s, n, &i)) keep &= ~(unsigned)CAND_INT;
    if ((keep & CAND_DOUBLE) &&
        !(cell->kind == TC_JSTR ? special_double(s, n, &d) : parse_double(s, n, &d)))
        keep &= ~(unsigned)CAND_DOUBLE;
    if ((keep & CAND_DATE) && !parse_date(s, n, &day)) keep &= ~(unsigned)CAND_DATE;
    if (keep & CAND_TS) {
        if (!parse_ts(s, n, &ts)) keep &= ~(unsigned)CAND_TS;
        else {
            if (ts.frac_digits > c->max_frac) c->max_frac = ts.frac_digits;
            c->any_zone = c->any_zone || ts.zone;
        }
    }
    c->cand = keep;
}

static void decide_type(tcol *c) {
    if (c->from_schema) return;
    unsigned k = c->any_value ? c->cand : 0;
    if (k & CAND_BOOL) c->type = T_BOOL;
    else if (k & CAND_INT) c->type = T_INT64;
    else if (k & CAND_DOUBLE) c->type = T_DOUBLE;
    else if (k & CAND_DATE) c->type = T_DATE;
    else if (k & CAND_TS) {
        c->type = T_TIMESTAMP;
        c->unit = c->max_frac > 6 ? PLANK_UNIT_NANOS : PLANK_UNIT_MICROS;
        c->utc = c->any_zone;
    } else c->type = T_STRING;
}

/* The Parquet field of a column. */
static void field_of(const tcol *c, plank_schema_field *f) {
    plank_schema_field_init(f);
    f->name = c->name;
    f->repetition = PLANK_OPTIONAL;
    switch (c->type) {
    case T_BOOL: f->physical_type = PLANK_BOOLEAN; break;
    case T_INT32: f->physical_type = PLANK_INT32; break;
    case T_INT64: f->physical_type = PLANK_INT64; break;
    case T_FLOAT: f->physical_type = PLANK_FLOAT; break;
    case T_DOUBLE: f->physical_type = PLANK_DOUBLE; break;
    case T_STRING:
        f->physical_type = PLANK_BYTE_ARRAY;
        f->logical.kind = PLANK_LOGICAL_STRING;
        break;
    case T_BINARY: f->physical_type = PLANK_BYTE_ARRAY; break;
    case T_DATE:
        f->physical_type = PLANK_INT32;
        f->logical.kind = PLANK_LOGICAL_DATE;
        break;
    case T_TIMESTAMP:
        f->physical_type = PLANK_INT64;
        f->logical.kind = PLANK_LOGICAL_TIMESTAMP;
        f->logical.unit = c->unit;
        f->logical.is_adjusted_to_utc = c->utc;
        break;
    case T_DECIMAL:
        f->logical.kind = PLANK_LOGICAL_DECIMAL;
        f->logical.precision = c->precision;
        f->logical.scale = c->scale;
        if (c->precision <= 9) f->physical_type = PLANK_INT32;
        else if (c->precision <= 18) f->physical_type = PLANK_INT64;
        else {
            f->physical_type = PLANK_FIXED_LEN_BYTE_ARRAY;
            f->type_length = decimal_bytes(c->precision);
        }
        break;
    case T_VARIANT: /* the group; its two leaves follow (variant_fields) */
        f->num_children = 2;
        f->logical.kind = PLANK_LOGICAL_VARIANT;
        f->logical.variant_version = 1;
        break;
    }
}

/* The two leaves of a VARIANT group. */
static void variant_fields(plank_schema_field *f) {
    static const char *const names[2] = {"metadata", "value"};
    for (int k = 0; k < 2; k++) {
        plank_schema_field_init(&f[k]);
        f[k].name = names[k];
        f[k].repetition = PLANK_REQUIRED;
        f[k].physical_type = PLANK_BYTE_ARRAY;
    }
}

/* ---- Building batches ------------------------------------------------------------------ */

/* Bytes a row takes in the buffers column_alloc makes for leaf f (its
 * validity bit rounded up to a byte). */
static size_t leaf_row_bytes(const plank_schema_field *f) {
    switch (f->physical_type) {
    case PLANK_BOOLEAN: return 2;
    case PLANK_INT32: case PLANK_FLOAT: return 5;
    case PLANK_INT64: case PLANK_DOUBLE: return 9;
    case PLANK_FIXED_LEN_BYTE_ARRAY: return 1 + (size_t)f->type_length;
    default: return 9; /* an offset */
    }
}

static void column_alloc(tcol *c, const plank_schema_field *f, int64_t cap) {
    size_t bitmap = (size_t)cap / 8 + 1;
    c->validity = calloc(bitmap, 1);
    switch (f->physical_type) {
    case PLANK_BOOLEAN: c->width = 0; break;
    case PLANK_INT32: case PLANK_FLOAT: c->width = 4; break;
    case PLANK_INT64: case PLANK_DOUBLE: c->width = 8; break;
    case PLANK_FIXED_LEN_BYTE_ARRAY: c->width = f->type_length; break;
    default: c->width = -1; break;
    }
    if (c->type == T_VARIANT) {
        c->offsets2 = calloc((size_t)cap + 1, sizeof *c->offsets2);
        if (!c->offsets2) {
            fputs("plank: out of memory\n", stderr);
            exit(CLI_EXIT_ERROR);
        }
        cli_buf_init(&c->data2);
    }
    if (c->width == 0) c->values = calloc(bitmap, 1);
    else if (c->width > 0) c->values = calloc((size_t)cap, (size_t)c->width);
    else c->offsets = calloc((size_t)cap + 1, sizeof *c->offsets);
    if (!c->validity || (!c->values && !c->offsets)) {
        fputs("plank: out of memory\n", stderr);
        exit(CLI_EXIT_ERROR);
    }
    cli_buf_init(&c->data);
}

static void column_free(tcol *c) {
    free(c->name);
    free(c->validity);
    free(c->values);
    free(c->offsets);
    cli_buf_free(&c->data);
    if (c->offsets2) {
        free(c->offsets2);
        cli_buf_free(&c->data2);
    }
}

/* Stores one cell at row r of the batch; false when it does not parse. */
static bool store_cell(tcol *c, int64_t r, const tcell *cell, const char *text) {
    const char *s = text + cell->off;
    size_t n = cell->len;
    bool b;
    int64_t i;
    double d;
    int32_t day;
    ts_parts ts;
    if (cell->kind == TC_JRAW && c->type != T_STRING && c->type != T_BINARY) return false;
    switch (c->type) {
    case T_BOOL:
        if (!parse_bool(s, n, &b)) return false;
        if (b) c->values[r >> 3] |= (uint8_t)(1u << (r & 7));
        else c->values[r >> 3] &= (uint8_t) ~(1u << (r & 7));
        break;
    case T_INT32:
        if (!parse_int(s, n, &i) || i < INT32_MIN || i > INT32_MAX) return false;
        day = (int32_t)i;
        memcpy(c->values + r * 4, &day, 4);
        break;
    case T_INT64:
        if (!parse_int(s, n, &i)) return false;
        memcpy(c->values + r * 8, &i, 8);
        break;
    case T_FLOAT: {
        if (!parse_double(s, n, &d)) return false;
        float f = (float)d;
        memcpy(c->values + r * 4, &f, 4);
        break;
    }
    case T_DOUBLE:
        if (!parse_double(s, n, &d)) return false;
        memcpy(c->values + r * 8, &d, 8);
        break;
    case T_STRING: case T_BINARY:
        cli_buf_put(&c->data, s, n);
        c->offsets[r + 1] = (int64_t)c->data.len;
        break;
    case T_DATE:
        if (!parse_date(s, n, &day)) return false;
        memcpy(c->values + r * 4, &day, 4);
        break;
    case T_VARIANT: return false; /* store_variant */
    case T_TIMESTAMP:
        if (!parse_ts(s, n, &ts) || !ts_to_unit(&ts, c->unit, &i)) return false;
        memcpy(c->values + r * 8, &i, 8);
        break;
    case T_DECIMAL:
        if (c->precision > 18) {
            if (!parse_decimal(s, n, c->precision, c->scale, c->width,
                               c->values + r * c->width, NULL))
                return false;
        } else {
            if (!parse_decimal(s, n, c->precision, c->scale, 0, NULL, &i)) return false;
            if (c->precision <= 9) {
                day = (int32_t)i;
                memcpy(c->values + r * 4, &day, 4);
            } else {
                memcpy(c->values + r * 8, &i, 8);
            }
        }
        break;
    }
    c->validity[r >> 3] |= (uint8_t)(1u << (r & 7));
    return true;
}

/* Encodes a --variant cell's JSON text at row r of the batch. */
static int store_variant(tin *t, tcol *c, int64_t r, const tcell *cell) {
    plank_error err;
    const char *s = t->text.data + cell->off;
    if (plank_variant_from_json(t->vb, s, cell->len, &err) != PLANK_OK) {
        size_t n = cell->len > 60 ? 60 : cell->len;
        return tin_fail(t, "line %lld, column %s (variant): \"%.*s%s\": %s",
                        (long long)t->line_no, c->name, (int)n, s, cell->len > n ? "..." : "",
                        err.message);
    }
    const uint8_t *m, *v;
    size_t ml, vl;
    plank_variant_builder_result(t->vb, &m, &ml, &v, &vl);
    cli_buf_put(&c->data, (const char *)m, ml);
    c->offsets[r + 1] = (int64_t)c->data.len;
    cli_buf_put(&c->data2, (const char *)v, vl);
    c->offsets2[r + 1] = (int64_t)c->data2.len;
    c->validity[r >> 3] |= (uint8_t)(1u << (r & 7));
    return 0;
}

/* Adds the parsed record as the next row of the batch. */
static int add_row(tin *t) {
    int64_t r = t->batch_rows;
    for (size_t k = 0; k < t->ncells; k++) {
        const tcell *cell = &t->cells[k];
        tcol *c = &t->cols[cell->col];
        if (c->seen == t->row)
            return tin_fail(t, "line %lld: key \"%s\" appears twice", (long long)t->line_no, c->name);
        c->seen = t->row;
        if (cell_is_null(cell, t->text.data)) continue;
        c->set = t->row;
        t->batch_text += cell->len;
        if (c->type == T_VARIANT) {
            int rc = store_variant(t, c, r, cell);
            if (rc) return rc;
            continue;
        }
        if (!store_cell(c, r, cell, t->text.data)) {
            char tb[40];
            const char *why = c->from_schema ? "given by --schema"
                                             : "inferred from the first rows; see --schema "
                                               "and --infer-rows";
            size_t n = cell->len > 60 ? 60 : cell->len;
            return tin_fail(t, "line %lld, column %s: \"%.*s%s\" is not a valid %s (the type %s)",
                            (long long)t->line_no, c->name, (int)n, t->text.data + cell->off,
                            cell->len > n ? "..." : "", type_text(c, tb, sizeof tb), why);
        }
    }
    /* Nulls: clear validity; byte arrays repeat the previous offset. */
    for (int32_t k = 0; k < t->ncols; k++) {
        tcol *c = &t->cols[k];
        if (c->set == t->row) continue;
        c->validity[r >> 3] &= (uint8_t) ~(1u << (r & 7));
        if (c->offsets) c->offsets[r + 1] = c->offsets[r];
        if (c->offsets2) c->offsets2[r + 1] = c->offsets2[r];
    }
    t->batch_rows++;
    t->row++;
    return 0;
}

static int flush_batch(tin *t, plank_writer *w, plank_batch *batches, const char *out) {
    if (t->batch_rows == 0) return 0;
    plank_batch *b = batches;
    for (int32_t k = 0; k < t->ncols; k++, b++) {
        tcol *c = &t->cols[k];
        memset(b, 0, sizeof *b);
        b->struct_size = sizeof *b;
        b->length = t->batch_rows;
        b->validity = c->validity;
        b->values = c->values;
        b->offsets = c->offsets;
        b->data = (const uint8_t *)(c->data.data ? c->data.data : "");
        if (c->type == T_VARIANT) { /* metadata, then value */
            b[1] = b[0];
            b++;
            b->offsets = c->offsets2;
            b->data = (const uint8_t *)(c->data2.data ? c->data2.data : "");
        }
    }
    plank_error err;
    plank_error_init(&err);
    plank_status s = plank_writer_write_rows(w, batches, t->batch_rows, &err);
    if (s != PLANK_OK) return cli_report(out, s, &err, -1, -1);
    for (int32_t k = 0; k < t->ncols; k++) t->cols[k].data.len = t->cols[k].data2.len = 0;
    t->batch_rows = 0;
    t->batch_text = 0;
    return 0;
}

static bool batch_full(const tin *t) {
    return t->batch_rows == t->batch_cap || t->batch_text >= CLI_TEXTIN_BATCH_BYTES;
}

/* ---- The conversion ---------------------------------------------------------------------- */

/* The sampled records, kept until the types are known. */
typedef struct sample {
    cli_buf text;
    tcell *cells;
    size_t ncells, cap;
    size_t *first;    /* first cell of each record */
    int64_t *lines;
    int64_t count, cap_rec;
} sample;

static void sample_add(sample *s, const tin *t) {
    if (s->count == s->cap_rec) {
        s->cap_rec = s->cap_rec ? s->cap_rec * 2 : 256;
        s->first = xrealloc(s->first, (size_t)s->cap_rec * sizeof *s->first);
        s->lines = xrealloc(s->lines, (size_t)s->cap_rec * sizeof *s->lines);
    }
    s->first[s->count] = s->ncells;
    s->lines[s->count++] = t->line_no;
    size_t base = s->text.len;
    cli_buf_put(&s->text, t->text.data, t->text.len);
    if (s->ncells + t->ncells > s->cap) {
        s->cap = (s->ncells + t->ncells) * 2;
        s->cells = xrealloc(s->cells, s->cap * sizeof *s->cells);
    }
    for (size_t k = 0; k < t->ncells; k++) {
        tcell c = t->cells[k];
        c.off += base;
        s->cells[s->ncells++] = c;
    }
}

/* Puts sampled record i back as the current record of t. */
static void sample_get(const sample *s, int64_t i, tin *t) {
    size_t from = s->first[i], to = i + 1 < s->count ? s->first[i + 1] : s->ncells;
    t->ncells = 0;
    t->text.len = 0;
    for (size_t k = from; k < to; k++) {
        tcell c = s->cells[k];
        size_t off = t->text.len;
        cli_buf_put(&t->text, s->text.data + c.off, c.len);
        add_cell(t, c.kind, c.col, off, c.len);
    }
    t->line_no = s->lines[i];
}

static void sample_free(sample *s) {
    cli_buf_free(&s->text);
    free(s->cells);
    free(s->first);
    free(s->lines);
}

static int read_header(tin *t) {
    t->ncells = 0;
    t->text.len = 0;
    if (!next_csv_record(t)) return tin_fail(t, "empty file (a CSV file needs a header row)");
    int rc = parse_csv(t);
    if (rc) return rc;
    for (size_t k = 0; k < t->ncells; k++) {
        const char *name = t->text.data + t->cells[k].off;
        size_t n = t->cells[k].len;
        if (k == 0 && n >= 3 && memcmp(name, "\xef\xbb\xbf", 3) == 0) name += 3, n -= 3; /* BOM */
        if (n == 0) return tin_fail(t, "header: column %zu has no name", k + 1);
        if (find_column(t, name, n) >= 0)
            return tin_fail(t, "header: column name '%.*s' appears twice", (int)n, name);
        add_column(t, name, n);
    }
    return 0;
}

int cli_text_to_parquet(const char *in, const char *out, const cli_text_in *opt, cli_wopts *wo) {
    tin t;
    sample smp;
    memset(&t, 0, sizeof t);
    memset(&smp, 0, sizeof smp);
    t.path = in;
    t.opt = opt;
    t.next_line = 1;
    cli_buf_init(&t.rec);
    cli_buf_init(&t.text);
    cli_buf_init(&smp.text);
    plank_writer *w = NULL;
    plank_schema_field *fields = NULL;
    plank_batch *batches = NULL;
    cli_progress progress;
    memset(&progress, 0, sizeof progress);
    int rc = 0;
    t.f = fopen(in, "rb");
    if (!t.f) return cli_fail(in, "cannot open: %s", strerror(errno));
    /* Cells are offsets into these: never NULL, even before the first byte
     * (an empty key or header name points at offset 0). Freed at done. */
    (void)cli_buf_grow(&t.rec, 1);
    (void)cli_buf_grow(&t.text, 1);
    (void)cli_buf_grow(&smp.text, 1);
    struct stat sb;
    t.file_size = fstat(fileno(t.f), &sb) == 0 ? (int64_t)sb.st_size : 0;
    cli_progress_init(&progress, "bytes", t.file_size);

    if (!opt->jsonl) rc = read_header(&t);
    /* The sample: the first infer_rows records, read before any column
     * type is fixed (JSON lines find their columns here). */
    bool got = true;
    while (rc == 0 && smp.count < opt->infer_rows) {
        if ((rc = next_record(&t, &got)) || !got) break;
        sample_add(&smp, &t);
    }
    if (rc == 0 && opt->schema) rc = apply_schema(&t);
    for (int32_t k = 0; rc == 0 && k < opt->num_variant; k++) {
        const char *name = opt->variant[k];
        if (find_column(&t, name, strlen(name)) >= 0) continue;
        if (!opt->jsonl)
            rc = tin_fail(&t, "--variant names column '%s', which the header lacks", name);
        else add_column(&t, name, strlen(name)); /* no line has it: every row null */
    }
    if (rc == 0 && opt->num_variant > 0) {
        plank_error verr;
        if (plank_variant_builder_new(&t.vb, NULL, &verr) != PLANK_OK)
            rc = tin_fail(&t, "%s", verr.message);
    }
    if (rc == 0 && t.ncols == 0) rc = tin_fail(&t, "no columns (no keys in the first lines)");
    if (rc) goto done;
    t.columns_fixed = true;
    for (int64_t i = 0; i < smp.count; i++) {
        size_t from = smp.first[i], to = i + 1 < smp.count ? smp.first[i + 1] : smp.ncells;
        for (size_t k = from; k < to; k++)
            infer_cell(&t.cols[smp.cells[k].col], &smp.cells[k], smp.text.data);
    }
    int32_t nvariant = 0;
    for (int32_t k = 0; k < t.ncols; k++) nvariant += t.cols[k].type == T_VARIANT;
    fields = calloc((size_t)t.ncols + 2 * (size_t)nvariant + 1, sizeof *fields);
    batches = calloc((size_t)t.ncols + (size_t)nvariant, sizeof *batches);
    if (!fields || !batches) {
        rc = cli_fail(in, "out of memory");
        goto done;
    }
    plank_schema_field_init(&fields[0]);
    fields[0].num_children = t.ncols;
    int32_t nfields = 1;
    size_t row_bytes = 1;
    for (int32_t k = 0; k < t.ncols; k++) {
        decide_type(&t.cols[k]);
        field_of(&t.cols[k], &fields[nfields]);
        if (t.cols[k].type == T_VARIANT) {
            variant_fields(&fields[nfields + 1]);
            row_bytes += 2 * leaf_row_bytes(&fields[nfields + 1]);
            nfields += 3;
        } else {
            row_bytes += leaf_row_bytes(&fields[nfields]);
            nfields++;
        }
    }
    t.batch_cap = (int64_t)(CLI_TEXTIN_BATCH_BYTES / row_bytes);
    if (t.batch_cap > CLI_TEXTIN_BATCH) t.batch_cap = CLI_TEXTIN_BATCH;
    if (t.batch_cap < 1) t.batch_cap = 1;
    for (int32_t k = 0, f = 1; k < t.ncols; k++) {
        bool variant = t.cols[k].type == T_VARIANT;
        column_alloc(&t.cols[k], &fields[variant ? f + 1 : f], t.batch_cap);
        f += variant ? 3 : 1;
    }
    cli_wopts_finish(wo);
    plank_error err;
    plank_error_init(&err);
    plank_status s = plank_writer_open_path(&w, out, fields, nfields, &wo->opts, &err);
    if (s != PLANK_OK) {
        w = NULL;
        rc = cli_report(out, s, &err, -1, -1);
        goto done;
    }
    for (int64_t i = 0; i < smp.count && rc == 0; i++) {
        sample_get(&smp, i, &t);
        rc = add_row(&t);
        if (rc == 0 && batch_full(&t)) rc = flush_batch(&t, w, batches, out);
    }
    sample_free(&smp);
    memset(&smp, 0, sizeof smp);
    while (rc == 0 && got) {
        if ((rc = next_record(&t, &got)) || !got) break;
        rc = add_row(&t);
        if (rc == 0 && batch_full(&t)) {
            rc = flush_batch(&t, w, batches, out);
            cli_progress_update(&progress, (int64_t)ftello(t.f));
        }
    }
    if (rc == 0 && ferror(t.f)) rc = cli_fail(in, "read error");
    if (rc == 0) rc = flush_batch(&t, w, batches, out);
    cli_progress_end(&progress);
    if (rc == 0) {
        s = plank_writer_close(w, &err);
        w = NULL;
        if (s != PLANK_OK) rc = cli_report(out, s, &err, -1, -1);
    }

done:
    cli_progress_end(&progress);
    if (w) plank_writer_abort(w);
    fclose(t.f);
    for (int32_t k = 0; k < t.ncols; k++) column_free(&t.cols[k]);
    free(t.cols);
    free(t.cells);
    free(t.line);
    cli_buf_free(&t.rec);
    cli_buf_free(&t.text);
    sample_free(&smp);
    free(fields);
    free(batches);
    plank_variant_builder_free(t.vb);
    return rc;
}
