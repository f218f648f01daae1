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
 * GEOGRAPHY with SPHERICAL edges (or none named) gets a box on the sphere
 * (Geospatial.md: x in [-180, 180], xmin > xmax when it wraps over the
 * antimeridian): it must hold every point of every edge, the minor
 * great-circle arc between consecutive vertices of a linestring or ring.
 * Latitudes: the vertices', and per edge the point of its great circle
 * nearest a pole when that point lies on the arc. Longitudes: each edge
 * covers the shorter interval between its endpoints (an arc's longitude
 * moves monotonically unless it passes over a pole, where the box takes
 * every longitude); the intervals are merged on the circle as S2's
 * S1Interval::Union does (disjoint arcs joined across the smaller gap),
 * which is how SedonaDB's boxes come out. A ring whose longitude steps sum
 * to +-360 goes around a pole. Geospatial.md fixes no ring orientation, so
 * the box takes the pole the winding names when the interior is on the
 * left (+360: north) and also the pole of the hemisphere the ring's
 * vertices lean to (the pole inside the smaller side, as S2 normalizes
 * loops): either way it reaches y = +-90 with every longitude. Other edge
 * algorithms (VINCENTY, THOMAS, ANDOYER, KARNEY: geodesics on the
 * ellipsoid) get no box, only the type codes. Z and M as for GEOMETRY.
 *
 * Hostile-input contract: the parser reads only inside each value's bytes;
 * every count is checked against the bytes left before it is used.
 */
#include "pk_write.h"

#include <math.h>

#define PK_GEO_MAX_DEPTH 64
#define PK_GEO_SPHERICAL 0 /* EdgeInterpolationAlgorithm.SPHERICAL */
#define PK_DEG (3.14159265358979323846 / 180.0)
/* latitude margin added to an extreme inside an edge (rounding of the
 * vector math, ~1e-14): a box too small would prune a matching row */
#define PK_GEO_LAT_EPS 1e-12

/* ---- longitude arcs on the circle (degrees, S1Interval's rules) ---- */

static bool lon_in(const pk_geo_acc *g, double x) {
    return g->lon_lo <= g->lon_hi ? x >= g->lon_lo && x <= g->lon_hi
                                  : x >= g->lon_lo || x <= g->lon_hi;
}

/* does the arc [lo, hi] lie in g's arc? */
static bool lon_has(const pk_geo_acc *g, double lo, double hi) {
    bool gi = g->lon_lo > g->lon_hi, yi = lo > hi;
    if (gi) return yi ? lo >= g->lon_lo && hi <= g->lon_hi : lo >= g->lon_lo || hi <= g->lon_hi;
    if (yi) return g->lon_lo == -180 && g->lon_hi == 180;
    return lo >= g->lon_lo && hi <= g->lon_hi;
}

static double lon_gap(double a, double b) { /* from a eastward to b */
    double d = b - a;
    return d >= 0 ? d : d + 360;
}

/* g's arc := the smaller arc holding both g's and [lo, hi] */
static void lon_union(pk_geo_acc *g, double lo, double hi) {
    if (g->lon_empty) {
        g->lon_empty = false;
        g->lon_lo = lo;
        g->lon_hi = hi;
        return;
    }
    bool in_lo = lon_in(g, lo), in_hi = lon_in(g, hi);
    if (in_lo && in_hi) {
        if (!lon_has(g, lo, hi)) g->lon_lo = -180, g->lon_hi = 180;
        return;
    }
    if (in_lo) {
        g->lon_hi = hi;
    } else if (in_hi) {
        g->lon_lo = lo;
    } else {
        bool yi = lo > hi;
        bool y_has_glo = yi ? g->lon_lo >= lo || g->lon_lo <= hi : g->lon_lo >= lo && g->lon_lo <= hi;
        if (y_has_glo) {
            g->lon_lo = lo;
            g->lon_hi = hi;
        } else if (lon_gap(hi, g->lon_lo) < lon_gap(g->lon_hi, lo)) {
            g->lon_lo = lo;
        } else {
            g->lon_hi = hi;
        }
    }
}

static void lat_fold(pk_geo_acc *g, double y) {
    if (y < g->lat_lo) g->lat_lo = y;
    if (y > g->lat_hi) g->lat_hi = y;
}

static void sph_pole(pk_geo_acc *g, bool north) {
    lat_fold(g, north ? 90.0 : -90.0);
    lon_union(g, -180, 180);
}

static void sph_vec(double x, double y, double v[3]) {
    double lo = x * PK_DEG, la = y * PK_DEG;
    v[0] = cos(la) * cos(lo);
    v[1] = cos(la) * sin(lo);
    v[2] = sin(la);
}

static void cross(const double a[3], const double b[3], double o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The edge from (x0, y0) to (x1, y1) (vertices already folded); returns
 * its longitude step (-180, 180]. */
static double sph_edge(pk_geo_acc *g, double x0, double y0, double x1, double y1) {
    double d = remainder(x1 - x0, 360.0);
    if (d == -180) d = 180;
    if (x0 == x1 && y0 == y1) return 0;
    if (!isfinite(d)) { /* infinite coordinates: nothing to bound them by */
        lon_union(g, -180, 180);
        return 0;
    }
    double a[3], b[3], n[3];
    sph_vec(x0, y0, a);
    sph_vec(x1, y1, b);
    cross(a, b, n);
    double h = sqrt(n[0] * n[0] + n[1] * n[1]);
    bool over_pole = false;
    if (sqrt(h * h + n[2] * n[2]) <= 1e-15 && dot(a, b) < 0) {
        /* antipodes: no one great circle joins them, so any might */
        lat_fold(g, -90.0);
        lat_fold(g, 90.0);
        over_pole = true;
    } else if (h > 0 && sqrt(h * h + n[2] * n[2]) > 1e-15) {
        /* the point of the great circle nearest the north pole, P, and -P
         * nearest the south pole: on the minor arc A..B when A x P and
         * P x B both point along n */
        double p[3] = {-n[2] * n[0] / h, -n[2] * n[1] / h, h};
        double ap[3], pb[3];
        cross(a, p, ap);
        cross(p, b, pb);
        double top = atan2(h, fabs(n[2])) / PK_DEG;
        double s1 = dot(ap, n), s2 = dot(pb, n);
        if (s1 > 0 && s2 > 0) { /* P on the arc */
            lat_fold(g, fmin(90.0, top + PK_GEO_LAT_EPS));
            if (top + PK_GEO_LAT_EPS >= 90.0) over_pole = true;
        } else if (s1 < 0 && s2 < 0) { /* -P on the arc */
            lat_fold(g, fmax(-90.0, -top - PK_GEO_LAT_EPS));
            if (top + PK_GEO_LAT_EPS >= 90.0) over_pole = true;
        }
    }
    if (d == 180 || over_pole || fabs(y0) == 90 || fabs(y1) == 90) {
        /* over a pole (or from one): every longitude on the way */
        lon_union(g, -180, 180);
    } else if (d >= 0) {
        double hi = x0 + d;
        lon_union(g, x0, hi > 180 ? hi - 360 : hi);
    } else {
        double lo = x0 + d;
        lon_union(g, lo < -180 ? lo + 360 : lo, x0);
    }
    return d;
}

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
 * the third one is z or m) after checking they fit. chain: 0 separate
 * points, 1 a linestring, 2 a ring (edges between consecutive vertices,
 * for the spherical box; a vertex with a NaN x or y in a chain makes the
 * spherical box the whole sphere). */
static bool rd_points(pk_geo_acc *g, geo_rd *r, uint32_t n, int dims, bool has_z, int chain) {
    if ((uint64_t)(r->end - r->p) / (uint64_t)(8 * dims) < n) return false;
    /* slot of each coordinate in min/max: x y z m */
    int slot[4] = {0, 1, has_z ? 2 : 3, 3};
    bool prev = false, first = false, broken = false;
    double px = 0, py = 0, fx = 0, fy = 0, winding = 0, lat_sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        double xy[2];
        for (int k = 0; k < dims; k++) {
            double v = rd_f64(r);
            if (k < 2) xy[k] = v;
            if (isnan(v)) continue;
            int s = slot[k];
            if (v < g->min[s]) g->min[s] = v;
            if (v > g->max[s]) g->max[s] = v;
        }
        if (!g->spherical) continue;
        if (isnan(xy[0]) || isnan(xy[1])) {
            /* a lone NaN y still gives no latitude; x without y no arc */
            if (!isnan(xy[1])) lat_fold(g, xy[1]);
            if (!isnan(xy[0])) lon_union(g, xy[0], xy[0]);
            prev = false;
            broken = true;
            continue;
        }
        lat_fold(g, xy[1]);
        lon_union(g, xy[0], xy[0]);
        lat_sum += xy[1];
        if (chain && prev) winding += sph_edge(g, px, py, xy[0], xy[1]);
        if (!first) fx = xy[0], fy = xy[1], first = true;
        prev = true;
        px = xy[0];
        py = xy[1];
    }
    if (chain && broken) {
        /* An edge to a vertex with a NaN x or y has no defined arc, and a
         * ring with one cannot be tested for a pole: the whole sphere, so
         * the box is never too small. */
        sph_pole(g, true);
        sph_pole(g, false);
        return true;
    }
    if (chain == 2 && first) {
        if (px != fx || py != fy) winding += sph_edge(g, px, py, fx, fy); /* unclosed ring */
        if (fabs(winding) > 180) { /* around a pole: +-360 */
            sph_pole(g, winding > 0);
            sph_pole(g, lat_sum >= 0);
        }
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
    case 1: return rd_points(g, r, 1, dims, has_z, 0);
    case 2: return rd_u32(r, &n) && rd_points(g, r, n, dims, has_z, 1);
    case 3:
        if (!rd_u32(r, &n) || (uint64_t)(r->end - r->p) / 4 < n) return false;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t np;
            if (!rd_u32(r, &np) || !rd_points(g, r, np, dims, has_z, 2)) return false;
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

void pk_geo_init(pk_geo_acc *g, const plank_logical_type *lt) {
    g->spherical = lt->kind == PLANK_LOGICAL_GEOGRAPHY &&
                   (lt->edge_algorithm < 0 || lt->edge_algorithm == PK_GEO_SPHERICAL);
    pk_geo_reset(g);
}

void pk_geo_reset(pk_geo_acc *g) {
    g->invalid = false;
    g->types = 0;
    for (int i = 0; i < 4; i++) {
        g->min[i] = INFINITY;
        g->max[i] = -INFINITY;
    }
    g->lat_lo = INFINITY;
    g->lat_hi = -INFINITY;
    g->lon_lo = g->lon_hi = 0;
    g->lon_empty = true;
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
    bool sph_box = g->spherical && !g->lon_empty && g->lat_lo <= g->lat_hi;
    if (sph_box || (bbox && !g->spherical && g->min[0] <= g->max[0] && g->min[1] <= g->max[1])) {
        out->has_bbox = true;
        out->xmin = sph_box ? g->lon_lo : g->min[0];
        out->xmax = sph_box ? g->lon_hi : g->max[0];
        out->ymin = sph_box ? g->lat_lo : g->min[1];
        out->ymax = sph_box ? g->lat_hi : g->max[1];
        out->has_z = g->min[2] <= g->max[2];
        out->zmin = out->has_z ? g->min[2] : 0;
        out->zmax = out->has_z ? g->max[2] : 0;
        out->has_m = g->min[3] <= g->max[3];
        out->mmin = out->has_m ? g->min[3] : 0;
        out->mmax = out->has_m ? g->max[3] : 0;
    }
    return true;
}
