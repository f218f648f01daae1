/* pk_compact.c: Thrift compact-protocol primitives (see pk_compact.h). */
#include "pk_compact.h"

#include <stdio.h>

static const char *type_name(int type) {
    static const char *const names[] = {"stop", "bool", "bool", "byte", "i16", "i32", "i64",
                                        "double", "binary", "list", "set", "map", "struct"};
    if (type < 0 || type > PK_TC_STRUCT) return "invalid type";
    return names[type];
}

void pk_tc_init(pk_tc *r, const uint8_t *buf, size_t len, plank_error *err) {
    r->buf = buf;
    r->len = len;
    r->pos = 0;
    r->depth = 0;
    r->err = err;
}

plank_status pk_tc_fail(pk_tc *r, size_t at, const char *fmt, ...) {
    if (!r->err) return PLANK_ERR_CORRUPT;
    char what[PLANK_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->err->byte_offset = (int64_t)at;
    return pk_error_set(r->err, PLANK_ERR_CORRUPT, "%.400s at byte %zu", what, at);
}

static size_t left(const pk_tc *r) { return r->len - r->pos; }

static plank_status need(pk_tc *r, size_t n, const char *what) {
    if (PK_UNLIKELY(left(r) < n))
        return pk_tc_fail(r, r->pos, "truncated %s (%zu bytes needed, %zu left)", what, n,
                          left(r));
    return PLANK_OK;
}

static plank_status read_varint(pk_tc *r, uint64_t *out) {
    size_t start = r->pos;
    uint64_t v = 0;
    for (int i = 0;; i++) {
        if (r->pos >= r->len) return pk_tc_fail(r, start, "truncated varint");
        uint8_t b = r->buf[r->pos++];
        /* The 10th byte may hold only bit 63: a larger value or an 11th byte
         * would overflow 64 bits. This also bounds the loop. */
        if (i == 9 && b > 1) return pk_tc_fail(r, start, "varint overflows 64 bits");
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return PLANK_OK;
        }
    }
}

static int64_t zigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static bool valid_value_type(int t) { return t >= PK_TC_TRUE && t <= PK_TC_STRUCT; }

plank_status pk_tc_enter(pk_tc *r, int type, int expect, const char *what) {
    bool ok = type == expect || (expect == PK_TC_LIST && type == PK_TC_SET);
    if (!ok)
        return pk_tc_fail(r, r->pos, "%s: expected %s, found %s", what, type_name(expect),
                          type_name(type));
    if (r->depth >= PK_THRIFT_MAX_DEPTH)
        return pk_tc_fail(r, r->pos, "%s: nesting deeper than %d", what, PK_THRIFT_MAX_DEPTH);
    r->depth++;
    return PLANK_OK;
}

void pk_tc_leave(pk_tc *r) { r->depth--; }

plank_status pk_tc_field(pk_tc *r, int32_t *id, int *type) {
    size_t start = r->pos;
    PK_FORWARD(need(r, 1, "field header"));
    uint8_t b = r->buf[r->pos++];
    int t = b & 0x0f;
    if (b == PK_TC_STOP) {
        *type = PK_TC_STOP;
        return PLANK_OK;
    }
    if (!valid_value_type(t)) return pk_tc_fail(r, start, "invalid field type %d", t);
    int delta = b >> 4;
    if (delta) {
        *id += delta;
    } else {
        uint64_t v = 0;
        PK_FORWARD(read_varint(r, &v));
        int64_t fid = zigzag(v);
        if (fid < INT16_MIN || fid > INT16_MAX)
            return pk_tc_fail(r, start, "field id %lld out of i16 range", (long long)fid);
        *id = (int32_t)fid;
    }
    *type = t;
    return PLANK_OK;
}

plank_status pk_tc_int(pk_tc *r, int type, int64_t min, int64_t max, int64_t *out) {
    size_t start = r->pos;
    int64_t v;
    if (type == PK_TC_BYTE) {
        PK_FORWARD(need(r, 1, "byte"));
        v = (int8_t)r->buf[r->pos++];
    } else if (type == PK_TC_I16 || type == PK_TC_I32 || type == PK_TC_I64) {
        uint64_t u = 0;
        PK_FORWARD(read_varint(r, &u));
        v = zigzag(u);
    } else {
        return pk_tc_fail(r, start, "expected an integer, found %s", type_name(type));
    }
    if (v < min || v > max)
        return pk_tc_fail(r, start, "value %lld outside [%lld, %lld]", (long long)v,
                          (long long)min, (long long)max);
    *out = v;
    return PLANK_OK;
}

plank_status pk_tc_double(pk_tc *r, int type, double *out) {
    if (type != PK_TC_DOUBLE)
        return pk_tc_fail(r, r->pos, "expected double, found %s", type_name(type));
    PK_FORWARD(need(r, 8, "double"));
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--) u = u << 8 | r->buf[r->pos + (size_t)i];
    r->pos += 8;
    memcpy(out, &u, sizeof *out);
    return PLANK_OK;
}

plank_status pk_tc_bool(pk_tc *r, int type, bool *out) {
    if (type != PK_TC_TRUE && type != PK_TC_FALSE)
        return pk_tc_fail(r, r->pos, "expected bool, found %s", type_name(type));
    *out = type == PK_TC_TRUE;
    return PLANK_OK;
}

plank_status pk_tc_binary(pk_tc *r, int type, const uint8_t **data, uint32_t *n) {
    size_t start = r->pos;
    if (type != PK_TC_BINARY)
        return pk_tc_fail(r, start, "expected binary, found %s", type_name(type));
    uint64_t len = 0;
    PK_FORWARD(read_varint(r, &len));
    if (len > left(r) || len > UINT32_MAX)
        return pk_tc_fail(r, start, "binary length %llu exceeds the %zu bytes left",
                          (unsigned long long)len, left(r));
    *data = r->buf + r->pos;
    *n = (uint32_t)len;
    r->pos += (size_t)len;
    return PLANK_OK;
}

plank_status pk_tc_list_header(pk_tc *r, int *elem_type, uint32_t *count) {
    size_t start = r->pos;
    PK_FORWARD(need(r, 1, "list header"));
    uint8_t b = r->buf[r->pos++];
    uint64_t n = b >> 4;
    if (n == 15) PK_FORWARD(read_varint(r, &n));
    int t = b & 0x0f;
    /* An empty list's element type is never used, and writers leave it 0
     * (fastparquet writes an empty key_value_metadata as the byte 0x00):
     * like other readers, accept any type nibble when there are no elements. */
    if (n != 0 && !valid_value_type(t))
        return pk_tc_fail(r, start, "invalid list element type %d", t);
    /* Every element takes at least one byte: this bounds any allocation by
     * the input size before a single element is read. */
    if (n > left(r) || n > INT32_MAX)
        return pk_tc_fail(r, start, "list of %llu elements exceeds the %zu bytes left",
                          (unsigned long long)n, left(r));
    *elem_type = t;
    *count = (uint32_t)n;
    return PLANK_OK;
}

/* in_list: bools inside collections take one byte, bool fields none. */
static plank_status skip_value(pk_tc *r, int type, bool in_list) {
    size_t start = r->pos;
    uint64_t v = 0;
    const uint8_t *data;
    uint32_t n;
    switch (type) {
    case PK_TC_TRUE:
    case PK_TC_FALSE:
        if (!in_list) return PLANK_OK;
        PK_FORWARD(need(r, 1, "bool"));
        r->pos++;
        return PLANK_OK;
    case PK_TC_BYTE:
        PK_FORWARD(need(r, 1, "byte"));
        r->pos++;
        return PLANK_OK;
    case PK_TC_I16:
    case PK_TC_I32:
    case PK_TC_I64:
        return read_varint(r, &v);
    case PK_TC_DOUBLE:
        PK_FORWARD(need(r, 8, "double"));
        r->pos += 8;
        return PLANK_OK;
    case PK_TC_BINARY:
        return pk_tc_binary(r, type, &data, &n);
    case PK_TC_LIST:
    case PK_TC_SET: {
        int et;
        PK_FORWARD(pk_tc_enter(r, type, PK_TC_LIST, "skipped list"));
        PK_FORWARD(pk_tc_list_header(r, &et, &n));
        for (uint32_t i = 0; i < n; i++) PK_FORWARD(skip_value(r, et, true));
        pk_tc_leave(r);
        return PLANK_OK;
    }
    case PK_TC_MAP: {
        PK_FORWARD(pk_tc_enter(r, type, PK_TC_MAP, "skipped map"));
        PK_FORWARD(read_varint(r, &v));
        if (v == 0) {
            pk_tc_leave(r);
            return PLANK_OK;
        }
        /* A key and a value take at least one byte each. */
        if (v > left(r) / 2)
            return pk_tc_fail(r, start, "map of %llu entries exceeds the %zu bytes left",
                              (unsigned long long)v, left(r));
        PK_FORWARD(need(r, 1, "map types"));
        uint8_t kv = r->buf[r->pos++];
        int kt = kv >> 4, vt = kv & 0x0f;
        if (!valid_value_type(kt) || !valid_value_type(vt))
            return pk_tc_fail(r, start, "invalid map key/value types %d/%d", kt, vt);
        for (uint64_t i = 0; i < v; i++) {
            PK_FORWARD(skip_value(r, kt, true));
            PK_FORWARD(skip_value(r, vt, true));
        }
        pk_tc_leave(r);
        return PLANK_OK;
    }
    case PK_TC_STRUCT: {
        PK_FORWARD(pk_tc_enter(r, type, PK_TC_STRUCT, "skipped struct"));
        int32_t id = 0;
        int ft;
        for (;;) {
            PK_FORWARD(pk_tc_field(r, &id, &ft));
            if (ft == PK_TC_STOP) break;
            PK_FORWARD(skip_value(r, ft, false));
        }
        pk_tc_leave(r);
        return PLANK_OK;
    }
    default:
        return pk_tc_fail(r, start, "cannot skip a value of wire type %d", type);
    }
}

plank_status pk_tc_skip(pk_tc *r, int type) { return skip_value(r, type, false); }

plank_status pk_tc_elem_bool(pk_tc *r, int elem_type, bool *out) {
    size_t start = r->pos;
    if (elem_type != PK_TC_TRUE && elem_type != PK_TC_FALSE)
        return pk_tc_fail(r, start, "expected bool elements, found %s", type_name(elem_type));
    PK_FORWARD(need(r, 1, "bool"));
    uint8_t b = r->buf[r->pos++];
    if (b > PK_TC_FALSE) return pk_tc_fail(r, start, "invalid bool element %u", b);
    *out = b == PK_TC_TRUE;
    return PLANK_OK;
}

/* ---- Writer ------------------------------------------------------------------- */

void pk_tw_init(pk_tw *w, pk_buffer *out, plank_error *err) {
    w->out = out;
    w->err = err;
    w->st = PLANK_OK;
    w->depth = 0;
    w->last_id[0] = 0;
}

plank_status pk_tw_finish(pk_tw *w) { return w->st; }

plank_status pk_tw_fail(pk_tw *w, plank_status code, const char *fmt, ...) {
    if (w->st != PLANK_OK) return w->st;
    w->st = code;
    if (w->err) {
        char what[PLANK_ERROR_MESSAGE_SIZE];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        pk_error_set(w->err, code, "%s", what);
    }
    return code;
}

static void put(pk_tw *w, const void *data, size_t n) {
    if (w->st != PLANK_OK) return;
    w->st = pk_buffer_append(w->out, data, n, w->err);
}

static void put_byte(pk_tw *w, unsigned b) {
    uint8_t v = (uint8_t)b;
    put(w, &v, 1);
}

void pk_tw_varint(pk_tw *w, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    put(w, tmp, n);
}

void pk_tw_zigzag(pk_tw *w, int64_t v) {
    /* Shift as unsigned: left-shifting a negative value is undefined. */
    pk_tw_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void pk_tw_field(pk_tw *w, int type, int id) {
    if (id < INT16_MIN || id > INT16_MAX) {
        pk_tw_fail(w, PLANK_ERR_INVALID_ARGUMENT, "thrift writer: field id %d outside i16", id);
        return;
    }
    int delta = id - w->last_id[w->depth];
    if (delta > 0 && delta <= 15) {
        put_byte(w, (unsigned)(delta << 4 | type));
    } else {
        put_byte(w, (unsigned)type);
        pk_tw_zigzag(w, id);
    }
    w->last_id[w->depth] = (int16_t)id;
}

void pk_tw_struct_begin(pk_tw *w) {
    if (w->depth >= PK_THRIFT_MAX_DEPTH) {
        pk_tw_fail(w, PLANK_ERR_INVALID_ARGUMENT, "thrift writer: structs nested deeper than %d",
                   PK_THRIFT_MAX_DEPTH);
        return;
    }
    w->last_id[++w->depth] = 0;
}

void pk_tw_struct_end(pk_tw *w) {
    put_byte(w, PK_TC_STOP);
    /* After a failed begin the depth was not raised: keep it balanced. */
    if (w->depth > 0) w->depth--;
}

void pk_tw_field_struct(pk_tw *w, int id) {
    pk_tw_field(w, PK_TC_STRUCT, id);
    pk_tw_struct_begin(w);
}

void pk_tw_field_marker(pk_tw *w, int id) {
    pk_tw_field_struct(w, id);
    pk_tw_struct_end(w);
}

void pk_tw_binary(pk_tw *w, const void *data, size_t n) {
    pk_tw_varint(w, n);
    if (n) put(w, data, n);
}

void pk_tw_list_header(pk_tw *w, int elem_type, uint32_t count) {
    if (count < 15) {
        put_byte(w, count << 4 | (unsigned)elem_type);
    } else {
        put_byte(w, 0xf0u | (unsigned)elem_type);
        pk_tw_varint(w, count);
    }
}

void pk_tw_elem_bool(pk_tw *w, bool v) { put_byte(w, v ? PK_TC_TRUE : PK_TC_FALSE); }

void pk_tw_i8(pk_tw *w, int id, int8_t v) {
    pk_tw_field(w, PK_TC_BYTE, id);
    put_byte(w, (uint8_t)v);
}

void pk_tw_i16(pk_tw *w, int id, int16_t v) {
    pk_tw_field(w, PK_TC_I16, id);
    pk_tw_zigzag(w, v);
}

void pk_tw_i32(pk_tw *w, int id, int32_t v) {
    pk_tw_field(w, PK_TC_I32, id);
    pk_tw_zigzag(w, v);
}

void pk_tw_i64(pk_tw *w, int id, int64_t v) {
    pk_tw_field(w, PK_TC_I64, id);
    pk_tw_zigzag(w, v);
}

void pk_tw_double(pk_tw *w, int id, double v) {
    pk_tw_field(w, PK_TC_DOUBLE, id);
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
    put(w, b, sizeof b);
}

void pk_tw_bool(pk_tw *w, int id, bool v) { pk_tw_field(w, v ? PK_TC_TRUE : PK_TC_FALSE, id); }

void pk_tw_bin(pk_tw *w, int id, const void *data, size_t n) {
    pk_tw_field(w, PK_TC_BINARY, id);
    pk_tw_binary(w, data, n);
}

void pk_tw_str(pk_tw *w, int id, const char *s) { pk_tw_bin(w, id, s, strlen(s)); }

void pk_tw_list(pk_tw *w, int id, int elem_type, uint32_t count) {
    pk_tw_field(w, PK_TC_LIST, id);
    pk_tw_list_header(w, elem_type, count);
}
