/*
 * pk_geostats.c: GeospatialStatistics of a GEOMETRY or GEOGRAPHY column
 * chunk (the format's Geospatial.md), computed from the WKB values.
 *
 * Each non-null value is parsed as WKB: either byte order per (sub)geometry,
 * ISO type codes (kind + 1000 Z, 2000 M, 3000 ZM) and the EWKB flags
 * (0x80000000 Z, 0x40000000 M, 0x20000000 an SRID that follows); kinds 1..7
 * (Point .. GeometryCollection). Every coordinate folds into the box per
 * dimension with NaN skipped (POINT EMPTY is a point of NaNs: it adds its
 * type code but no coordinate); the top-level geometry's ISO code goes
 * into the type set. A value that is not valid WKB (truncated, an unknown
 * kind, counts beyond its bytes, trailing bytes, collections nested deeper
 * than PK_GEO_MAX_DEPTH) poisons the chunk: its statistics are omitted, as
 * the spec asks of writers, while the value itself is written as given.
 *
 * Hostile-input contract: the parser reads only inside each value's bytes;
 * every count is checked against the bytes left before it is used.
 */
#include "pk_write.h"

#include <math.h>

#define PK_GEO_MAX_DEPTH 64

typedef struct geo_rd {
    const uint8_t *p, *end;
    bool le;
} geo_rd;

static bool rd_u32(geo_rd *r, uint32_t *out) {
    if (r->end - r->p < 4) return false;
    const uint8_t *b = r->p;
    *out = r->le ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                       (uint32_t)b[3] << 24
                 : (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 |
                       (uint32_t)b[0] << 24;
    r->p += 4;
    return true;
}

static double rd_f64(geo_rd *r) {
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u = u << 8 | r->p[r->le ? 7 - i : i];
    r->p += 8;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Folds n points of `dims` coordinates (x y [z] [m]; has_z tells whether
 * the third one is z or m) after checking they fit. */
static bool rd_points(pk_geo_acc *g, geo_rd *r, uint32_t n, int dims, bool has_z) {
    if ((uint64_t)(r->end - r->p) / (uint64_t)(8 * dims) < n) return false;
    /* slot of each coordinate in min/max: x y z m */
    int slot[4] = {0, 1, has_z ? 2 : 3, 3};
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < dims; k++) {
            double v = rd_f64(r);
            if (isnan(v)) continue;
            int s = slot[k];
            if (v < g->min[s]) g->min[s] = v;
            if (v > g->max[s]) g->max[s] = v;
        }
    return true;
}

/* One geometry (byte order and type first); *code gets its ISO code. */
static bool rd_geometry(pk_geo_acc *g, geo_rd *r, int depth, uint32_t *code) {
    if (depth > PK_GEO_MAX_DEPTH || r->p >= r->end) return false;
    uint8_t order = *r->p++;
    if (order > 1) return false;
    r->le = order == 1;
    uint32_t t;
    if (!rd_u32(r, &t)) return false;
    bool has_z = false, has_m = false;
    if (t & 0xE0000000u) { /* EWKB */
        has_z = (t & 0x80000000u) != 0;
        has_m = (t & 0x40000000u) != 0;
        if (t & 0x20000000u) {
            uint32_t srid;
            if (!rd_u32(r, &srid)) return false;
        }
        t &= 0x0FFFFFFFu;
        if (t > 7) return false;
    } else {
        uint32_t dim = t / 1000;
        t %= 1000;
        if (dim > 3) return false;
        has_z = dim == 1 || dim == 3;
        has_m = dim == 2 || dim == 3;
    }
    if (t < 1 || t > 7) return false;
    *code = t + (has_z ? 1000u : 0u) + (has_m ? 2000u : 0u);
    int dims = 2 + has_z + has_m;
    uint32_t n;
    switch (t) {
    case 1: return rd_points(g, r, 1, dims, has_z);
    case 2: return rd_u32(r, &n) && rd_points(g, r, n, dims, has_z);
    case 3:
        if (!rd_u32(r, &n) || (uint64_t)(r->end - r->p) / 4 < n) return false;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t np;
            if (!rd_u32(r, &np) || !rd_points(g, r, np, dims, has_z)) return false;
        }
        return true;
    default: /* Multi* and GeometryCollection: whole geometries, 5 bytes at least */
        if (!rd_u32(r, &n) || (uint64_t)(r->end - r->p) / 5 < n) return false;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t sub;
            if (!rd_geometry(g, r, depth + 1, &sub)) return false;
            /* Multi* hold only their kind (MultiPoint: points, ...), in the
             * same dimensions; a collection holds any kind. */
            if (t != 7 && (sub % 1000 != t - 3 || sub / 1000 != *code / 1000)) return false;
        }
        return true;
    }
}

void pk_geo_reset(pk_geo_acc *g) {
    g->invalid = false;
    g->types = 0;
    for (int i = 0; i < 4; i++) {
        g->min[i] = INFINITY;
        g->max[i] = -INFINITY;
    }
}

void pk_geo_update(pk_geo_acc *g, const pk_values *v) {
    for (int64_t i = 0; i < v->n && !g->invalid; i++) {
        geo_rd r = {v->data + v->offsets[i], v->data + v->offsets[i + 1], true};
        uint32_t code = 0;
        if (!rd_geometry(g, &r, 0, &code) || r.p != r.end) {
            g->invalid = true;
            break;
        }
        g->types |= (uint32_t)1 << ((code / 1000) * 7 + code % 1000 - 1);
    }
}

bool pk_geo_finish(const pk_geo_acc *g, bool bbox, pk_arena *arena,
                   plank_geospatial_statistics *out, plank_error *err, plank_status *st) {
    *st = PLANK_OK;
    memset(out, 0, sizeof *out);
    if (g->invalid) return false;
    int32_t n = 0;
    int32_t *codes = pk_arena_alloc(arena, sizeof(int32_t) * 28);
    if (!codes) {
        *st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        return false;
    }
    /* bit (dim * 7 + kind - 1): ascending bits are ascending codes */
    for (int b = 0; b < 28; b++)
        if (g->types & ((uint32_t)1 << b)) codes[n++] = (b / 7) * 1000 + b % 7 + 1;
    out->has_geospatial_types = true; /* empty: no value (as Arrow C++ writes it) */
    out->num_geospatial_types = n;
    out->geospatial_types = codes;
    if (bbox && g->min[0] <= g->max[0] && g->min[1] <= g->max[1]) {
        out->has_bbox = true;
        out->xmin = g->min[0];
        out->xmax = g->max[0];
        out->ymin = g->min[1];
        out->ymax = g->max[1];
        out->has_z = g->min[2] <= g->max[2];
        out->zmin = out->has_z ? g->min[2] : 0;
        out->zmax = out->has_z ? g->max[2] : 0;
        out->has_m = g->min[3] <= g->max[3];
        out->mmin = out->has_m ? g->min[3] : 0;
        out->mmax = out->has_m ? g->max[3] : 0;
    }
    return true;
}
