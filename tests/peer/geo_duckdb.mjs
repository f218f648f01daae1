#!/usr/bin/env node
// geo_duckdb.mjs PLANK_BIN: the GeospatialStatistics `plank meta --json`
// shows for every chunk of parquet-testing's data/geospatial/*.parquet
// against DuckDB's parquet_metadata() (geo_bbox, geo_types), an independent
// decoder of the same footers. Exits 1 on a difference, 77 when node
// modules or the corpus are missing (tests/peer/skip.mjs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipTest } from './skip.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const plank = process.argv[2];
let DuckDBInstance;
try {
    ({ DuckDBInstance } = await import('@duckdb/node-api'));
} catch (e) {
    skipTest('geo_duckdb', `@duckdb/node-api not installed (npm ci in ${repo}): ${e.message}`);
}
const testing = process.env.PLANK_TESTING_DIR || path.resolve(repo, '..', 'shared', 'parquet-testing');
const dir = path.join(testing, 'data', 'geospatial');
if (!fs.existsSync(dir)) skipTest('geo_duckdb', `${dir} not found (set PLANK_TESTING_DIR)`);

const kinds = ['point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon',
               'geometrycollection'];
const dims = { '': 0, _z: 1000, _m: 2000, _zm: 3000 };
function code(name) {
    const m = /^([a-z]+?)(_zm|_z|_m)?$/.exec(name);
    const k = m ? kinds.indexOf(m[1]) : -1;
    return k < 0 ? NaN : k + 1 + dims[m[2] || ''];
}

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
let fails = 0, chunks = 0;
for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.parquet')).sort()) {
    const file = path.join(dir, f);
    const meta = JSON.parse(execFileSync(plank, ['meta', '--json', file], { maxBuffer: 1 << 28 }));
    const rows = (await con.runAndReadAll(
        `SELECT row_group_id, column_id, geo_bbox, geo_types FROM parquet_metadata('${file.replace(/'/g, "''")}')`)).getRowObjectsJson();
    for (const r of rows) {
        const g = meta.row_groups[Number(r.row_group_id)].columns[Number(r.column_id)].geospatial_statistics ?? null;
        const where = `${f} rg ${r.row_group_id} col ${r.column_id}`;
        const fail = (msg) => { fails++; console.log(`FAIL: ${where}: ${msg}`); };
        chunks++;
        if (r.geo_bbox === null && r.geo_types === null) {
            if (g !== null) fail(`plank has statistics, DuckDB none: ${JSON.stringify(g)}`);
            continue;
        }
        if (g === null) { fail('DuckDB has statistics, plank none'); continue; }
        const b = r.geo_bbox;
        if ((b === null) !== (g.bbox === null)) { fail(`bbox ${JSON.stringify(b)} vs ${JSON.stringify(g.bbox)}`); continue; }
        if (b !== null)
            for (const k of ['xmin', 'xmax', 'ymin', 'ymax', 'zmin', 'zmax', 'mmin', 'mmax']) {
                const dv = b[k] === null ? undefined : Number(b[k]);
                if (dv !== g.bbox[k]) fail(`${k}: DuckDB ${dv} plank ${g.bbox[k]}`);
            }
        const dt = (r.geo_types ?? []).map(code);
        const pt = g.geospatial_types ?? [];
        if (JSON.stringify(dt) !== JSON.stringify(pt)) fail(`types ${JSON.stringify(dt)} vs ${JSON.stringify(pt)}`);
    }
}
console.log(`${chunks} chunks compared, ${fails} differences`);
if (chunks === 0) { console.log('FAIL: nothing compared'); process.exit(1); }
process.exit(fails ? 1 : 0);
