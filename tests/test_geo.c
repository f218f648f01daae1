/*
 * test_geo.c: GeospatialStatistics, read and written.
 *
 *  - read: the parquet-testing data/geospatial files through
 *    plank_reader_column_chunk, against the values their generators state
 *    (geospatial.yaml and geospatial-gen.py: shapely's bounds of the yaml's
 *    WKT, NaN skipped; README.md for the GEOGRAPHY files' wraparound boxes).
 *  - write: every GEOMETRY/GEOGRAPHY column of those files read with
 *    plank_column_reader and written again by plank, row group by row group;
 *    plank's statistics must equal the ones the original writer (Arrow C++;
 *    SedonaDB for geography-*.parquet) stored. For GEOGRAPHY (spherical
 *    edges) plank's box holds every vertex and 64 slerp samples of every
 *    edge, and equals SedonaDB's within 1e-9 or is narrower (the totals are
 *    printed); Arrow C++ writes no statistics (crs-geography.parquet).
 *  - GEOGRAPHY boxes with known answers: arcs bulging toward a pole
 *    (tan(peak) = tan(lat) / cos(half the longitude step)), over the
 *    antimeridian, over a pole, rings around a pole, points; other edge
 *    algorithms get no box.
 *  - malformed WKB: the file is written, the statistics omitted.
 *  - hostile: a footer whose type-code list is too long is an error.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pk_common.h"
#include "plank.h"
#include "tharness.h"
#include "thrift/pk_thrift.h"

#define TH_PI 3.14159265358979323846

typedef th_membuf membuf;
#define mb_write th_membuf_write

static bool chunk(plank_reader *r, int32_t g, int32_t c, plank_column_chunk_info *cc) {
    memset(cc, 0, sizeof *cc);
    cc->struct_size = sizeof *cc;
    plank_error err;
    plank_status st = plank_reader_column_chunk(r, g, c, cc, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    return st == PLANK_OK;
}

static bool same_double(double a, double b) {
    return (isnan(a) && isnan(b)) || a == b;
}

/* Both statistics equal, field by field (box only when want_bbox). */
static void check_same(const char *what, int32_t g, const plank_column_chunk_info *want,
                       const plank_column_chunk_info *got, bool want_bbox) {
    CHECK_MSG(want->has_geospatial_statistics == got->has_geospatial_statistics,
              "%s rg %d: has_geospatial_statistics %d vs %d", what, (int)g,
              want->has_geospatial_statistics, got->has_geospatial_statistics);
    if (!want->has_geospatial_statistics || !got->has_geospatial_statistics) return;
    const plank_geospatial_statistics *a = &want->geospatial_statistics,
                                      *b = &got->geospatial_statistics;
    if (want_bbox) {
        CHECK_MSG(a->has_bbox == b->has_bbox, "%s rg %d: has_bbox %d vs %d", what, (int)g,
                  a->has_bbox, b->has_bbox);
        if (a->has_bbox && b->has_bbox) {
            CHECK_MSG(same_double(a->xmin, b->xmin) && same_double(a->xmax, b->xmax) &&
                          same_double(a->ymin, b->ymin) && same_double(a->ymax, b->ymax),
                      "%s rg %d: xy box [%g %g %g %g] vs [%g %g %g %g]", what, (int)g, a->xmin,
                      a->xmax, a->ymin, a->ymax, b->xmin, b->xmax, b->ymin, b->ymax);
            CHECK_MSG(a->has_z == b->has_z && a->has_m == b->has_m, "%s rg %d: z/m presence",
                      what, (int)g);
            if (a->has_z && b->has_z)
                CHECK_MSG(same_double(a->zmin, b->zmin) && same_double(a->zmax, b->zmax),
                          "%s rg %d: z [%g %g] vs [%g %g]", what, (int)g, a->zmin, a->zmax,
                          b->zmin, b->zmax);
            if (a->has_m && b->has_m)
                CHECK_MSG(same_double(a->mmin, b->mmin) && same_double(a->mmax, b->mmax),
                          "%s rg %d: m [%g %g] vs [%g %g]", what, (int)g, a->mmin, a->mmax,
                          b->mmin, b->mmax);
        }
    }
    CHECK_MSG(a->has_geospatial_types == b->has_geospatial_types &&
                  a->num_geospatial_types == b->num_geospatial_types,
              "%s rg %d: %d type codes vs %d", what, (int)g, (int)a->num_geospatial_types,
              (int)b->num_geospatial_types);
    if (a->num_geospatial_types == b->num_geospatial_types)
        for (int32_t i = 0; i < a->num_geospatial_types; i++)
            CHECK_MSG(a->geospatial_types[i] == b->geospatial_types[i],
                      "%s rg %d: type %d: %d vs %d", what, (int)g, (int)i,
                      (int)a->geospatial_types[i], (int)b->geospatial_types[i]);
}

static plank_reader *open_geo(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/geospatial/%s", th_testing_dir(), name);
    plank_reader *r = NULL;
    plank_error err;
    CHECK_MSG(plank_reader_open_path(&r, path, NULL, &err) == PLANK_OK, "%s: %s", name,
              err.message);
    return r;
}

static int32_t geo_column(plank_reader *r) {
    for (int32_t c = 0; c < plank_reader_num_columns(r); c++) {
        plank_logical_kind k = plank_reader_column_node(r, c)->logical.kind;
        if (k == PLANK_LOGICAL_GEOMETRY || k == PLANK_LOGICAL_GEOGRAPHY) return c;
    }
    return -1;
}

/* ---- (a) reading against the generators' values --------------------------------- */

typedef struct want_box {
    int32_t rg;
    double x0, x1, y0, y1;
    bool z;
    double z0, z1;
    bool m;
    double m0, m1;
    int32_t types[2]; /* first codes (0: none listed) */
    int32_t ntypes;
} want_box;

static void test_read_stated(void) {
    plank_reader *r = open_geo("geospatial.parquet");
    if (!r) return;
    /* geospatial.yaml's groups in order; Z = X + Y and M = Z * Y there. */
    static const want_box want[] = {
        {0, 10, 40, 10, 40, true, 30, 80, true, 200, 1600, {1, 2}, 28},     /* all */
        {3, 30, 40, 10, 20, false, 0, 0, false, 0, 0, {1, 0}, 1},           /* point */
        {4, 10, 50, 10, 50, false, 0, 0, false, 0, 0, {2, 0}, 1},           /* linestring */
        {8, 5, 45, 5, 45, false, 0, 0, false, 0, 0, {6, 0}, 1},             /* multipolygon */
        {10, 30, 40, 10, 20, true, 40, 60, false, 0, 0, {1001, 0}, 1},      /* point z */
        {18, 10, 50, 10, 50, false, 0, 0, true, 300, 2500, {2002, 0}, 1},   /* linestring m */
        {29, 5, 45, 5, 45, true, 15, 85, true, 50, 1800, {3006, 0}, 1},     /* multipolygon zm */
        {30, 10, 40, 10, 40, true, 30, 80, true, 200, 1600, {3007, 0}, 1},  /* collection zm */
    };
    int32_t col = geo_column(r);
    CHECK_EQ_I64(col, 2);
    CHECK_EQ_I64(plank_reader_num_row_groups(r), 31);
    plank_column_chunk_info cc;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const want_box *w = &want[i];
        if (!chunk(r, w->rg, col, &cc)) continue;
        const plank_geospatial_statistics *g = &cc.geospatial_statistics;
        CHECK_MSG(cc.has_geospatial_statistics && g->has_bbox, "rg %d", (int)w->rg);
        CHECK_MSG(g->xmin == w->x0 && g->xmax == w->x1 && g->ymin == w->y0 && g->ymax == w->y1,
                  "rg %d: [%g %g %g %g]", (int)w->rg, g->xmin, g->xmax, g->ymin, g->ymax);
        CHECK_MSG(g->has_z == w->z && g->has_m == w->m, "rg %d: z %d m %d", (int)w->rg,
                  g->has_z, g->has_m);
        if (w->z) CHECK(g->zmin == w->z0 && g->zmax == w->z1);
        if (w->m) CHECK(g->mmin == w->m0 && g->mmax == w->m1);
        CHECK_EQ_I64(g->num_geospatial_types, w->ntypes);
        for (int k = 0; k < 2 && k < g->num_geospatial_types; k++)
            if (w->types[k]) CHECK_EQ_I64(g->geospatial_types[k], w->types[k]);
        CHECK(!cc.has_statistics || !cc.statistics.has_min); /* Arrow: no min/max */
    }
    /* all: 1..7 in each of the four dimensions, ascending */
    if (chunk(r, 0, col, &cc) && cc.geospatial_statistics.num_geospatial_types == 28)
        for (int k = 0; k < 28; k++)
            CHECK_EQ_I64(cc.geospatial_statistics.geospatial_types[k], (k / 7) * 1000 + k % 7 + 1);
    /* empty-geometries: types, no box (every coordinate NaN or none) */
    if (chunk(r, 1, col, &cc)) {
        CHECK(cc.has_geospatial_statistics && !cc.geospatial_statistics.has_bbox);
        CHECK_EQ_I64(cc.geospatial_statistics.num_geospatial_types, 28);
    }
    /* null-geometries: no box, an empty list (types not known) */
    if (chunk(r, 2, col, &cc)) {
        CHECK(cc.has_geospatial_statistics && !cc.geospatial_statistics.has_bbox);
        CHECK(cc.geospatial_statistics.has_geospatial_types);
        CHECK_EQ_I64(cc.geospatial_statistics.num_geospatial_types, 0);
    }
    /* A caller of the layout before GeospatialStatistics (its struct ends
     * at `encrypted`, sizeof at most the new field's offset): everything
     * from the new layout on stays the caller's. */
    {
        size_t old_size = offsetof(plank_column_chunk_info, has_geospatial_statistics);
        unsigned char raw[sizeof(plank_column_chunk_info)];
        memset(raw, 0xEE, sizeof raw);
        memcpy(raw, &old_size, sizeof old_size);
        plank_error err;
        CHECK(plank_reader_column_chunk(r, 0, col, (plank_column_chunk_info *)(void *)raw,
                                        &err) == PLANK_OK);
        for (size_t i = old_size; i < sizeof raw; i++) CHECK_EQ_I64(raw[i], 0xEE);
        plank_column_chunk_info *o = (plank_column_chunk_info *)(void *)raw;
        CHECK_EQ_I64(o->num_values, 28);
    }
    plank_reader_close(r);

    /* geospatial-with-nan: the NaN vertex is skipped in every dimension */
    r = open_geo("geospatial-with-nan.parquet");
    if (r && chunk(r, 0, 2, &cc)) {
        const plank_geospatial_statistics *g = &cc.geospatial_statistics;
        CHECK(cc.has_geospatial_statistics && g->has_bbox && g->has_z && g->has_m);
        CHECK(g->xmin == 10 && g->xmax == 130 && g->ymin == 20 && g->ymax == 140);
        CHECK(g->zmin == 30 && g->zmax == 150 && g->mmin == 40 && g->mmax == 160);
        CHECK(g->num_geospatial_types == 2 && g->geospatial_types[0] == 3001 &&
              g->geospatial_types[1] == 3002);
    }
    plank_reader_close(r);

    /* crs-default: Wyoming's box */
    r = open_geo("crs-default.parquet");
    if (r && chunk(r, 0, 1, &cc)) {
        const plank_geospatial_statistics *g = &cc.geospatial_statistics;
        CHECK(g->has_bbox && g->xmin == -111 && g->xmax == -104 && g->ymin == 41 && g->ymax == 45);
        CHECK(g->num_geospatial_types == 1 && g->geospatial_types[0] == 3);
    }
    plank_reader_close(r);

    /* Arrow C++ writes no GeospatialStatistics for GEOGRAPHY */
    r = open_geo("crs-geography.parquet");
    if (r && chunk(r, 0, 1, &cc)) CHECK(!cc.has_geospatial_statistics);
    plank_reader_close(r);

    /* README: every geography-*.parquet has a row group with xmin > xmax */
    const char *geog[] = {"geography-points.parquet", "geography-lines.parquet",
                          "geography-polygons.parquet"};
    for (int i = 0; i < 3; i++) {
        r = open_geo(geog[i]);
        if (!r) continue;
        int wraps = 0;
        for (int32_t g = 0; g < plank_reader_num_row_groups(r); g++)
            if (chunk(r, g, geo_column(r), &cc) && cc.geospatial_statistics.has_bbox)
                wraps += cc.geospatial_statistics.xmin > cc.geospatial_statistics.xmax;
        CHECK_MSG(wraps > 0, "%s: no wraparound box", geog[i]);
        plank_reader_close(r);
    }
}

/* ---- (b) plank's statistics of the same values -------------------------------------- */

/* Writes column `col` of r again, one row group per row group of r, as a
 * single OPTIONAL column of the same logical type, into m. */
static bool rewrite(plank_reader *r, int32_t col, membuf *m) {
    const plank_schema_node *node = plank_reader_column_node(r, col);
    plank_schema_field f[2];
    plank_schema_field_init(&f[0]);
    plank_schema_field_init(&f[1]);
    f[0].num_children = 1;
    f[1].name = "geo";
    f[1].physical_type = PLANK_BYTE_ARRAY;
    f[1].repetition = PLANK_OPTIONAL;
    f[1].logical = node->logical;
    plank_writer_options wo;
    plank_writer_options_init(&wo);
    plank_sink sink = {sizeof sink, mb_write, NULL, NULL, m};
    plank_writer *w = NULL;
    plank_error err;
    CHECK_MSG(plank_writer_open_sink(&w, &sink, f, 2, &wo, &err) == PLANK_OK, "%s", err.message);
    if (!w) return false;
    bool ok = true;
    for (int32_t g = 0; g < plank_reader_num_row_groups(r) && ok; g++) {
        plank_column_reader *cr = NULL;
        ok = plank_column_reader_open(&cr, r, g, col, &err) == PLANK_OK;
        CHECK_MSG(ok, "%s", err.message);
        while (ok) {
            plank_batch b = {.struct_size = sizeof b};
            ok = plank_column_reader_read(cr, 4096, &b, &err) == PLANK_OK;
            CHECK_MSG(ok, "%s", err.message);
            if (!ok || b.length == 0) break;
            ok = plank_writer_write_column(w, 0, &b, &err) == PLANK_OK;
            CHECK_MSG(ok, "%s", err.message);
        }
        plank_column_reader_close(cr);
        if (ok) ok = plank_writer_end_row_group(w, &err) == PLANK_OK;
        CHECK_MSG(ok, "%s", err.message);
    }
    plank_status st = plank_writer_close(w, &err);
    CHECK_MSG(st == PLANK_OK, "%s", err.message);
    return ok && st == PLANK_OK;
}

/* ---- spherical boxes: what every edge must fit in ---------------------------------- */

/* does the box hold (x, y), within tol degrees? (x wraps when xmin > xmax) */
static bool box_has(const plank_geospatial_statistics *g, double x, double y, double tol) {
    if (y < g->ymin - tol || y > g->ymax + tol) return false;
    for (int k = -1; k <= 1; k++) { /* x, x - 360, x + 360 (180 is -180) */
        double v = x + 360.0 * k;
        if (g->xmin <= g->xmax ? v >= g->xmin - tol && v <= g->xmax + tol
                               : v >= g->xmin - tol || v <= g->xmax + tol)
            return true;
    }
    return false;
}

static void to_vec(double x, double y, double v[3]) {
    double lo = x * TH_PI / 180, la = y * TH_PI / 180;
    v[0] = cos(la) * cos(lo);
    v[1] = cos(la) * sin(lo);
    v[2] = sin(la);
}

typedef struct sph_check {
    const plank_geospatial_statistics *box;
    int64_t points, misses; /* vertices and arc samples tried, outside the box */
    double worst;           /* a missing sample's latitude, for the message */
} sph_check;

/* 64 points along the great-circle arc (x0, y0)..(x1, y1) (slerp), each
 * tested against the box. */
static void check_arc(sph_check *s, double x0, double y0, double x1, double y1) {
    double a[3], b[3];
    to_vec(x0, y0, a);
    to_vec(x1, y1, b);
    double w = acos(fmax(-1.0, fmin(1.0, a[0] * b[0] + a[1] * b[1] + a[2] * b[2])));
    if (w < 1e-12 || w > TH_PI - 1e-9) return; /* a point, or antipodes: no one arc */
    for (int t = 1; t < 64; t++) {
        double u = t / 64.0, ka = sin((1 - u) * w) / sin(w), kb = sin(u * w) / sin(w), p[3];
        for (int i = 0; i < 3; i++) p[i] = ka * a[i] + kb * b[i];
        double lon = atan2(p[1], p[0]) * 180 / TH_PI,
               lat = atan2(p[2], sqrt(p[0] * p[0] + p[1] * p[1])) * 180 / TH_PI;
        s->points++;
        if (!box_has(s->box, lon, lat, 1e-9)) s->misses++, s->worst = lat;
    }
}

typedef struct wkb_rd {
    const uint8_t *p, *end;
    bool le;
} wkb_rd;

static uint32_t wkb_u32(wkb_rd *r) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)r->p[i] << (r->le ? 8 * i : 24 - 8 * i);
    r->p += 4;
    return v;
}
static double wkb_f64(wkb_rd *r) {
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u |= (uint64_t)r->p[i] << (r->le ? 8 * i : 56 - 8 * i);
    r->p += 8;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* the vertices (chain 0), a linestring's or ring's edges (1, 2) */
static void check_points(sph_check *s, wkb_rd *r, uint32_t n, int dims, int chain) {
    double px = NAN, py = NAN, fx = NAN, fy = NAN;
    for (uint32_t i = 0; i < n; i++) {
        double x = wkb_f64(r), y = wkb_f64(r);
        for (int k = 2; k < dims; k++) wkb_f64(r);
        if (isnan(x) || isnan(y)) continue;
        s->points++;
        if (!box_has(s->box, x, y, 0)) s->misses++, s->worst = y;
        if (chain && !isnan(px)) check_arc(s, px, py, x, y);
        if (isnan(fx)) fx = x, fy = y;
        px = x, py = y;
    }
    if (chain == 2 && !isnan(px)) check_arc(s, px, py, fx, fy);
}

/* one ISO WKB geometry (the corpus's forms; plank's writer checked it) */
static void check_wkb(sph_check *s, wkb_rd *r) {
    r->le = *r->p++ == 1;
    uint32_t t = wkb_u32(r), kind = t % 1000, dim = t / 1000, n;
    int dims = 2 + (dim == 1 || dim == 3) + (dim == 2 || dim == 3);
    if (kind == 1) {
        check_points(s, r, 1, dims, 0);
    } else if (kind == 2) {
        n = wkb_u32(r);
        check_points(s, r, n, dims, 1);
    } else if (kind == 3) {
        n = wkb_u32(r);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t np = wkb_u32(r);
            check_points(s, r, np, dims, 2);
        }
    } else {
        n = wkb_u32(r);
        for (uint32_t i = 0; i < n; i++) {
            wkb_rd sub = {r->p, r->end, r->le};
            check_wkb(s, &sub);
            r->p = sub.p;
        }
    }
}

/* every vertex and arc sample of column col, row group g of r in box */
static void check_row_group(sph_check *s, plank_reader *r, int32_t g, int32_t col) {
    plank_column_reader *cr = NULL;
    plank_error err;
    CHECK_MSG(plank_column_reader_open(&cr, r, g, col, &err) == PLANK_OK, "%s", err.message);
    while (cr) {
        plank_batch b = {.struct_size = sizeof b};
        if (plank_column_reader_read(cr, 4096, &b, &err) != PLANK_OK || b.length == 0) break;
        for (int64_t i = 0; i < b.length; i++) {
            if (b.validity && !(b.validity[i >> 3] >> (i & 7) & 1)) continue;
            if (b.offsets[i + 1] == b.offsets[i]) continue;
            wkb_rd w = {b.data + b.offsets[i], b.data + b.offsets[i + 1], true};
            check_wkb(s, &w);
        }
    }
    plank_column_reader_close(cr);
}

/* arc length of the box's x interval */
static double x_width(const plank_geospatial_statistics *g) {
    return g->xmin <= g->xmax ? g->xmax - g->xmin : g->xmax - g->xmin + 360;
}

/* rewrite's totals for the GEOGRAPHY files against SedonaDB's boxes */
typedef struct sedona_cmp {
    int equal, differ;   /* row groups within 1e-9 of SedonaDB's box, or not */
    double max_diff;     /* largest side difference seen */
    int64_t points;      /* vertices and arc samples checked */
} sedona_cmp;

/* plank's spherical box b of row group g against SedonaDB's a: equal within
 * 1e-9, or holding every sampled point and no side more than 1e-6 wider. */
static void check_geog_box(sedona_cmp *c, const char *file, int32_t g, plank_reader *r,
                           int32_t col, const plank_geospatial_statistics *a,
                           const plank_geospatial_statistics *b) {
    CHECK_MSG(b->has_bbox, "%s rg %d: no box", file, (int)g);
    if (!b->has_bbox) return;
    sph_check s = {b, 0, 0, 0};
    check_row_group(&s, r, g, col);
    c->points += s.points;
    CHECK_MSG(s.misses == 0, "%s rg %d: %lld of %lld points outside [%.17g %.17g %.17g %.17g] (lat %g)",
              file, (int)g, (long long)s.misses, (long long)s.points, b->xmin, b->xmax, b->ymin,
              b->ymax, s.worst);
    CHECK(!b->has_z && !b->has_m);
    if (!a->has_bbox) return;
    double d[4] = {fabs(a->xmin - b->xmin), fabs(a->xmax - b->xmax), fabs(a->ymin - b->ymin),
                   fabs(a->ymax - b->ymax)};
    double dm = fmax(fmax(d[0], d[1]), fmax(d[2], d[3]));
    if (dm > c->max_diff) c->max_diff = dm;
    if (dm <= 1e-9) {
        c->equal++;
        return;
    }
    c->differ++;
    printf("  %s rg %d: plank [%.17g %.17g %.17g %.17g] SedonaDB [%.17g %.17g %.17g %.17g]\n",
           file, (int)g, b->xmin, b->xmax, b->ymin, b->ymax, a->xmin, a->xmax, a->ymin, a->ymax);
    CHECK_MSG(b->ymin >= a->ymin - 1e-6 && b->ymax <= a->ymax + 1e-6, "%s rg %d: y wider",
              file, (int)g);
    CHECK_MSG(x_width(b) <= x_width(a) + 2e-6 && box_has(a, b->xmin, a->ymin, 1e-6) &&
                  box_has(a, b->xmax, a->ymin, 1e-6),
              "%s rg %d: x wider", file, (int)g);
}

static void test_rewrite(void) {
    sedona_cmp cmp = {0, 0, 0, 0};
    const char *files[] = {"geospatial.parquet",          "geospatial-with-nan.parquet",
                           "crs-default.parquet",         "crs-projjson.parquet",
                           "crs-srid.parquet",            "crs-arbitrary-value.parquet",
                           "crs-geography.parquet",       "geography-points.parquet",
                           "geography-lines.parquet",     "geography-polygons.parquet"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        plank_reader *r = open_geo(files[i]);
        if (!r) continue;
        int32_t col = geo_column(r);
        CHECK_MSG(col >= 0, "%s: no geospatial column", files[i]);
        membuf m = {NULL, 0, 0, 0};
        if (col >= 0 && rewrite(r, col, &m)) {
            plank_reader *r2 = NULL;
            plank_error err;
            CHECK_MSG(plank_reader_open_memory(&r2, m.data, m.len, NULL, &err) == PLANK_OK, "%s",
                      err.message);
            bool geog = plank_reader_column_node(r, col)->logical.kind == PLANK_LOGICAL_GEOGRAPHY;
            int32_t ng = plank_reader_num_row_groups(r);
            CHECK_EQ_I64(plank_reader_num_row_groups(r2), ng);
            for (int32_t g = 0; r2 && g < ng && g < plank_reader_num_row_groups(r2); g++) {
                plank_column_chunk_info a, b;
                if (!chunk(r, g, col, &a) || !chunk(r2, g, 0, &b)) continue;
                /* no min/max for GEOMETRY/GEOGRAPHY (LogicalTypes.md) */
                CHECK(b.has_statistics && !b.statistics.has_min && !b.statistics.has_max);
                if (!geog) {
                    check_same(files[i], g, &a, &b, true);
                    continue;
                }
                /* GEOGRAPHY (spherical edges): type codes equal to the
                 * original's where it has them, the box on the sphere */
                CHECK(b.has_geospatial_statistics);
                if (a.has_geospatial_statistics) check_same(files[i], g, &a, &b, false);
                if (b.has_geospatial_statistics)
                    check_geog_box(&cmp, files[i], g, r, col, &a.geospatial_statistics,
                                   &b.geospatial_statistics);
            }
            plank_reader_close(r2);
        }
        free(m.data);
        plank_reader_close(r);
    }
    printf("GEOGRAPHY boxes vs SedonaDB: %d row groups equal within 1e-9, %d differ "
           "(largest side difference %.3g deg); %lld vertices and arc samples inside\n",
           cmp.equal, cmp.differ, cmp.max_diff, (long long)cmp.points);
}

/* ---- (c) malformed WKB, and WKB forms the corpus lacks --------------------------------- */

static bool write_values_edge(const uint8_t *data, const int64_t *offs, int64_t n,
                              plank_logical_kind k, int32_t edge, membuf *m) {
    plank_schema_field f[2];
    plank_schema_field_init(&f[0]);
    plank_schema_field_init(&f[1]);
    f[0].num_children = 1;
    f[1].name = "g";
    f[1].physical_type = PLANK_BYTE_ARRAY;
    f[1].logical.kind = k;
    f[1].logical.edge_algorithm = edge;
    plank_sink sink = {sizeof sink, mb_write, NULL, NULL, m};
    plank_writer *w = NULL;
    plank_error err;
    CHECK_MSG(plank_writer_open_sink(&w, &sink, f, 2, NULL, &err) == PLANK_OK, "%s", err.message);
    if (!w) return false;
    plank_batch b = {.struct_size = sizeof b};
    b.length = n;
    b.offsets = offs;
    b.data = data;
    CHECK_MSG(plank_writer_write_column(w, 0, &b, &err) == PLANK_OK, "%s", err.message);
    CHECK_MSG(plank_writer_close(w, &err) == PLANK_OK, "%s", err.message);
    return true;
}

static bool write_values(const uint8_t *data, const int64_t *offs, int64_t n, plank_logical_kind k,
                         membuf *m) {
    return write_values_edge(data, offs, n, k, -1, m);
}

static void put_u32(uint8_t **p, uint32_t v, bool le) {
    for (int i = 0; i < 4; i++) *(*p)++ = (uint8_t)(v >> (le ? 8 * i : 24 - 8 * i));
}
static void put_f64(uint8_t **p, double d, bool le) {
    uint64_t u;
    memcpy(&u, &d, 8);
    for (int i = 0; i < 8; i++) *(*p)++ = (uint8_t)(u >> (le ? 8 * i : 56 - 8 * i));
}

static void test_malformed(void) {
    /* value 0: a valid big-endian EWKB POINT Z with an SRID; value 1
     * varies: truncated, unknown kind, a count beyond its bytes, trailing
     * bytes, a MultiPoint holding a LineString */
    uint8_t buf[256];
    uint8_t *p = buf;
    *p++ = 0;
    put_u32(&p, 0xA0000001u, false);
    put_u32(&p, 4326, false);
    put_f64(&p, 1.5, false);
    put_f64(&p, -2.5, false);
    put_f64(&p, 7, false);
    int64_t good = p - buf;
    plank_column_chunk_info cc;
    for (int bad = -1; bad < 5; bad++) {
        uint8_t *q = buf + good;
        *q++ = 1;
        if (bad == -1) { /* valid: little-endian ISO LINESTRING M, 1 point */
            put_u32(&q, 2002, true);
            put_u32(&q, 1, true);
            put_f64(&q, 3, true);
            put_f64(&q, NAN, true);
            put_f64(&q, 9, true);
        } else if (bad == 0) {
            put_u32(&q, 1, true);
            put_f64(&q, 3, true); /* y missing */
        } else if (bad == 1) {
            put_u32(&q, 17, true);
        } else if (bad == 2) {
            put_u32(&q, 2, true);
            put_u32(&q, 0x7fffffffu, true);
        } else if (bad == 3) {
            put_u32(&q, 7, true);
            put_u32(&q, 0, true);
            *q++ = 0;
        } else {
            put_u32(&q, 4, true);
            put_u32(&q, 1, true);
            *q++ = 1;
            put_u32(&q, 2, true);
            put_u32(&q, 0, true);
        }
        int64_t offs[3] = {0, good, q - buf};
        membuf m = {NULL, 0, 0, 0};
        if (write_values(buf, offs, 2, PLANK_LOGICAL_GEOMETRY, &m)) {
            plank_reader *r = NULL;
            plank_error err;
            CHECK_MSG(plank_reader_open_memory(&r, m.data, m.len, NULL, &err) == PLANK_OK, "%s",
                      err.message);
            if (r && chunk(r, 0, 0, &cc)) {
                const plank_geospatial_statistics *g = &cc.geospatial_statistics;
                if (bad == -1) {
                    CHECK(cc.has_geospatial_statistics && g->has_bbox);
                    CHECK(g->xmin == 1.5 && g->xmax == 3 && g->ymin == -2.5 && g->ymax == -2.5);
                    CHECK(g->has_z && g->zmin == 7 && g->zmax == 7);
                    CHECK(g->has_m && g->mmin == 9 && g->mmax == 9);
                    CHECK(g->num_geospatial_types == 2 && g->geospatial_types[0] == 1001 &&
                          g->geospatial_types[1] == 2002);
                } else {
                    CHECK_MSG(!cc.has_geospatial_statistics, "malformed case %d", bad);
                }
                /* the values are written as given */
                plank_column_reader *cr = NULL;
                CHECK(plank_column_reader_open(&cr, r, 0, 0, &err) == PLANK_OK);
                plank_batch b = {.struct_size = sizeof b};
                if (cr && plank_column_reader_read(cr, 10, &b, &err) == PLANK_OK) {
                    CHECK_EQ_I64(b.length, 2);
                    CHECK_EQ_I64(b.offsets[2], q - buf);
                    CHECK(memcmp(b.data, buf, (size_t)(q - buf)) == 0);
                }
                plank_column_reader_close(cr);
            }
            plank_reader_close(r);
        }
        free(m.data);
    }
}

/* ---- (c') GEOGRAPHY boxes with known answers ---------------------------------------- */

/* WKB (little-endian) of a geometry of kind 1 (n = 1), 2 or 3 (one ring) over xy */
static uint8_t *put_geo(uint8_t *p, uint32_t kind, const double *xy, uint32_t n) {
    *p++ = 1;
    put_u32(&p, kind, true);
    if (kind == 3) put_u32(&p, 1, true);
    if (kind != 1) put_u32(&p, n, true);
    for (uint32_t i = 0; i < 2 * n; i++) put_f64(&p, xy[i], true);
    return p;
}

typedef struct geog_case {
    const char *what;
    uint32_t kind;
    double xy[10];
    uint32_t n;
    double x0, x1, y0, y1; /* the box; y1 NAN: computed in the test */
} geog_case;

/* the box plank writes for the values (false: none) */
static bool geog_box(const uint8_t *buf, const int64_t *offs, int64_t nv, int32_t edge,
                     plank_geospatial_statistics *out, int32_t *ntypes) {
    membuf m = {NULL, 0, 0, 0};
    bool has = false;
    if (write_values_edge(buf, offs, nv, PLANK_LOGICAL_GEOGRAPHY, edge, &m)) {
        plank_reader *r = NULL;
        plank_error err;
        plank_column_chunk_info cc;
        CHECK_MSG(plank_reader_open_memory(&r, m.data, m.len, NULL, &err) == PLANK_OK, "%s",
                  err.message);
        if (r && chunk(r, 0, 0, &cc)) {
            CHECK(cc.has_geospatial_statistics);
            *out = cc.geospatial_statistics;
            *ntypes = cc.geospatial_statistics.num_geospatial_types;
            has = cc.has_geospatial_statistics && cc.geospatial_statistics.has_bbox;
        }
        plank_reader_close(r);
    }
    free(m.data);
    return has;
}

static void test_geog_known(void) {
    const double d2r = TH_PI / 180;
    /* a minor arc between (x, y) and (x + 2h, y) peaks at its middle, where
     * tan(peak) = tan(y) / cos(h) */
    double peak_10_10 = atan(tan(10 * d2r) / cos(10 * d2r)) / d2r;
    double peak_45_45 = atan(sqrt(2.0)) / d2r; /* tan 45 / cos 45 */
    const geog_case cases[] = {
        /* over the antimeridian: x wraps, y bulges north */
        {"antimeridian", 2, {-170, 10, 170, 10}, 2, 170, -170, 10, peak_10_10},
        {"quarter", 2, {0, 45, 90, 45}, 2, 0, 90, 45, peak_45_45},
        {"south bulge", 2, {0, -45, 90, -45}, 2, 0, 90, -peak_45_45, -45},
        /* along the equator: no bulge */
        {"equator", 2, {-30, 0, 60, 0}, 2, -30, 60, 0, 0},
        /* over the north pole: every longitude */
        {"over the pole", 2, {0, 80, 180, 80}, 2, -180, 180, 80, 90},
        /* antipodes: any great circle joins them, the box takes the sphere */
        {"antipodes", 2, {0, 10, 180, -10}, 2, -180, 180, -90, 90},
        /* rings around the north pole (both windings) and the south one */
        {"north ring", 3, {0, 60, 90, 60, 180, 60, -90, 60, 0, 60}, 5, -180, 180, 60, 90},
        /* clockwise: with the interior on the left it is the rest of the
         * sphere (south pole), by the hemisphere the north cap; no
         * orientation is fixed by Geospatial.md, so the box takes both */
        {"north ring cw", 3, {0, 60, -90, 60, 180, 60, 90, 60, 0, 60}, 5, -180, 180, -90, 90},
        {"south ring", 3, {0, -70, -90, -70, 180, -70, 90, -70, 0, -70}, 5, -180, 180, -90, -70},
        /* a small square over the antimeridian, no pole */
        {"square", 3, {179, -1, -179, -1, -179, 1, 179, 1, 179, -1}, 5, 179, -179, NAN, NAN},
        {"point", 1, {12.5, -33}, 1, 12.5, 12.5, -33, -33},
        /* a NaN vertex leaves an edge undefined: the whole sphere */
        {"nan vertex", 2, {0, 10, NAN, 20, 5, 10}, 3, -180, 180, -90, 90},
    };
    uint8_t buf[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const geog_case *c = &cases[i];
        int64_t offs[2] = {0, put_geo(buf, c->kind, c->xy, c->n) - buf};
        plank_geospatial_statistics g;
        int32_t nt = 0;
        CHECK_MSG(geog_box(buf, offs, 1, -1, &g, &nt), "%s: no box", c->what);
        double y0 = c->y0, y1 = c->y1;
        if (isnan(y0)) { /* the square: its edges of latitude +-1 bulge by the arc rule */
            y0 = -atan(tan(1 * d2r) / cos(1 * d2r)) / d2r;
            y1 = -y0;
        }
        CHECK_MSG(fabs(g.xmin - c->x0) <= 1e-9 && fabs(g.xmax - c->x1) <= 1e-9 &&
                      fabs(g.ymin - y0) <= 1e-9 && fabs(g.ymax - y1) <= 1e-9,
                  "%s: [%.17g %.17g %.17g %.17g], want [%.17g %.17g %.17g %.17g]", c->what,
                  g.xmin, g.xmax, g.ymin, g.ymax, c->x0, c->x1, y0, y1);
        /* never too small: the exact extremes are inside */
        CHECK_MSG(g.ymin <= y0 && g.ymax >= y1, "%s: y short", c->what);
        /* and every arc sample */
        sph_check s = {&g, 0, 0, 0};
        wkb_rd w = {buf, buf + offs[1], true};
        check_wkb(&s, &w);
        CHECK_MSG(s.misses == 0, "%s: %lld points outside", c->what, (long long)s.misses);
        /* other edge algorithms: type codes only */
        for (int32_t edge = 1; edge <= 4; edge++) {
            CHECK_MSG(!geog_box(buf, offs, 1, edge, &g, &nt), "%s: box for edges %d", c->what,
                      (int)edge);
            CHECK_EQ_I64(nt, 1);
        }
        CHECK_MSG(geog_box(buf, offs, 1, 0, &g, &nt), "%s: SPHERICAL named", c->what);
    }

    /* points alone: their coordinates, the x interval the smaller way round */
    const double pts[][2] = {{10, 20}, {-30, -40}, {170, 0}, {-170, 5}, {NAN, 88}, {5, NAN}};
    uint8_t *p = buf;
    int64_t offs[7] = {0};
    for (int i = 0; i < 6; i++) {
        p = put_geo(p, 1, pts[i], 1);
        offs[i + 1] = p - buf;
    }
    plank_geospatial_statistics g;
    int32_t nt = 0;
    /* 10, -30: [-30, 10] */
    CHECK(geog_box(buf, offs, 2, -1, &g, &nt) && g.xmin == -30 && g.xmax == 10 && g.ymin == -40 &&
          g.ymax == 20);
    /* 170, -170: [170, -170] over the antimeridian */
    CHECK(geog_box(buf + offs[2], (int64_t[]){0, offs[3] - offs[2], offs[4] - offs[2]}, 2, -1,
                   &g, &nt) &&
          g.xmin == 170 && g.xmax == -170 && g.ymin == 0 && g.ymax == 5);
    /* all six: NaN skipped per coordinate (y 88 counts, x 5 counts) */
    CHECK(geog_box(buf, offs, 6, -1, &g, &nt) && g.ymin == -40 && g.ymax == 88);
    CHECK_MSG(g.xmin == -30 && g.xmax == -170, "[%g %g]", g.xmin, g.xmax);
}

/* ---- (d) hostile footers ------------------------------------------------------------- */

static void test_hostile(void) {
    /* a plank file with statistics; its footer decoded, the type list made
     * longer than any valid one, encoded again */
    uint8_t buf[64];
    uint8_t *p = buf;
    *p++ = 1;
    put_u32(&p, 1, true);
    put_f64(&p, 1, true);
    put_f64(&p, 2, true);
    int64_t offs[2] = {0, p - buf};
    membuf m = {NULL, 0, 0, 0};
    if (!write_values(buf, offs, 1, PLANK_LOGICAL_GEOMETRY, &m)) return;
    uint32_t flen = (uint32_t)m.data[m.len - 8] | (uint32_t)m.data[m.len - 7] << 8 |
                    (uint32_t)m.data[m.len - 6] << 16 | (uint32_t)m.data[m.len - 5] << 24;
    size_t fstart = m.len - 8 - flen;
    pk_file_metadata md;
    plank_error err;
    CHECK_MSG(pk_thrift_read_file_metadata(m.data + fstart, flen, NULL, &md, &err) == PLANK_OK,
              "%s", err.message);
    enum { N = 5000 };
    static int32_t codes[N];
    for (int i = 0; i < N; i++) codes[i] = i;
    plank_column_chunk_info *cc = &md.row_groups[0].columns[0];
    CHECK(cc->has_geospatial_statistics);
    cc->geospatial_statistics.num_geospatial_types = N;
    cc->geospatial_statistics.geospatial_types = codes;
    pk_buffer out;
    pk_buffer_init(&out, NULL);
    CHECK(pk_buffer_append(&out, m.data, fstart, NULL) == PLANK_OK);
    CHECK(pk_thrift_write_file_metadata(&md, &out, &err) == PLANK_OK);
    uint32_t nlen = (uint32_t)(out.size - fstart);
    uint8_t tail[8] = {(uint8_t)nlen, (uint8_t)(nlen >> 8), (uint8_t)(nlen >> 16),
                       (uint8_t)(nlen >> 24), 'P', 'A', 'R', '1'};
    CHECK(pk_buffer_append(&out, tail, 8, NULL) == PLANK_OK);
    pk_file_metadata_free(&md);
    plank_reader *r = NULL;
    plank_status st = plank_reader_open_memory(&r, out.data, out.size, NULL, &err);
    CHECK_MSG(st == PLANK_ERR_LIMIT || st == PLANK_ERR_CORRUPT, "status %d", (int)st);
    CHECK_MSG(strstr(err.message, "geospatial_types") && strstr(err.message, "geometry type codes"),
              "%s", err.message);
    CHECK(r == NULL);
    /* the count claims more elements than the footer has bytes: 5000
     * (varint 0x88 0x27) patched to 16383 (0xFF 0x7F) */
    bool patched = false;
    for (size_t i = fstart; i + 2 < out.size; i++)
        if (out.data[i] == 0xF5 && out.data[i + 1] == 0x88 && out.data[i + 2] == 0x27) {
            out.data[i + 1] = 0xFF;
            out.data[i + 2] = 0x7F;
            patched = true;
            break;
        }
    CHECK(patched);
    st = plank_reader_open_memory(&r, out.data, out.size, NULL, &err);
    CHECK_MSG(st == PLANK_ERR_LIMIT || st == PLANK_ERR_CORRUPT, "status %d", (int)st);
    CHECK(r == NULL);
    /* a negative code is corrupt */
    CHECK(pk_thrift_read_file_metadata(m.data + fstart, flen, NULL, &md, &err) == PLANK_OK);
    codes[0] = -1;
    md.row_groups[0].columns[0].geospatial_statistics.num_geospatial_types = 1;
    md.row_groups[0].columns[0].geospatial_statistics.geospatial_types = codes;
    out.size = fstart;
    CHECK(pk_thrift_write_file_metadata(&md, &out, &err) == PLANK_OK);
    pk_file_metadata_free(&md);
    nlen = (uint32_t)(out.size - fstart);
    uint8_t tail2[8] = {(uint8_t)nlen, (uint8_t)(nlen >> 8), (uint8_t)(nlen >> 16),
                        (uint8_t)(nlen >> 24), 'P', 'A', 'R', '1'};
    CHECK(pk_buffer_append(&out, tail2, 8, NULL) == PLANK_OK);
    st = plank_reader_open_memory(&r, out.data, out.size, NULL, &err);
    CHECK_MSG(st == PLANK_ERR_CORRUPT, "status %d: %s", (int)st, err.message);
    pk_buffer_reset(&out);
    free(m.data);
}

int main(void) {
    test_malformed();
    test_hostile();
    if (!th_testing_dir()) TEST_SKIP("parquet-testing not found (set PLANK_TESTING_DIR)");
    test_read_stated();
    test_rewrite();
    test_geog_known();
    TEST_END();
}
