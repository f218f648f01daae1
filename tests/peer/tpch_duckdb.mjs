#!/usr/bin/env node
// tpch_duckdb.mjs PLANK REFERENCE_DIR: plank's TPC-H Parquet read by DuckDB.
// For each --encoding preset (default, plain, dictionary, delta), `plank tpch
// gen --sf 0.01` writes the eight tables; DuckDB (@duckdb/node-api) reads
// each file, checks the column types (keys BIGINT, small integers INTEGER,
// prices and quantities DECIMAL(15,2), dates DATE, text VARCHAR, all
// REQUIRED), prints every row as dbgen's text (fields joined by '|',
// decimals as DuckDB renders them, l_quantity as its whole count) and
// compares it with the reference .tbl of ../shared/tpch-reference/sf0.01.
// parquet_metadata() must show the preset's encodings on every column chunk.
// Exits 1 on any mismatch, 77 when the peers are not installed (CI=true: 1).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { skipTest } from './skip.mjs';

const [plank, ref] = process.argv.slice(2);
const ci = process.env.CI === 'true';
let DuckDBInstance;
try {
    ({ DuckDBInstance } = await import('@duckdb/node-api'));
} catch (e) {
    if (ci) { console.log(`tpch_duckdb: DuckDB is not installed (npm ci; CI needs it): ${e.message}`); process.exit(1); }
    skipTest('tpch_duckdb', `DuckDB is not installed (npm ci): ${e.message}`);
}
if (!existsSync(ref)) {
    if (ci) { console.log(`tpch_duckdb: no reference data at ${ref} (CI needs it)`); process.exit(1); }
    skipTest('tpch_duckdb', `no reference data at ${ref}`);
}

const TABLES = {
    part: 'p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size INTEGER, p_container VARCHAR, p_retailprice DECIMAL(15,2), p_comment VARCHAR',
    partsupp: 'ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INTEGER, ps_supplycost DECIMAL(15,2), ps_comment VARCHAR',
    supplier: 's_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey BIGINT, s_phone VARCHAR, s_acctbal DECIMAL(15,2), s_comment VARCHAR',
    customer: 'c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey BIGINT, c_phone VARCHAR, c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR, c_comment VARCHAR',
    orders: 'o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INTEGER, o_comment VARCHAR',
    lineitem: 'l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INTEGER, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR',
    nation: 'n_nationkey BIGINT, n_name VARCHAR, n_regionkey BIGINT, n_comment VARCHAR',
    region: 'r_regionkey BIGINT, r_name VARCHAR, r_comment VARCHAR',
};
const q = (s) => `'${s.replaceAll("'", "''")}'`;

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run('SET threads = 1'); // file order
const refText = {};
for (const t of Object.keys(TABLES)) refText[t] = gunzipSync(readFileSync(join(ref, 'sf0.01', `${t}.tbl.gz`))).toString('latin1');

let fails = 0, oks = 0;
const fail = (m) => { fails++; console.log(`FAIL: ${m}`); };
const dir = mkdtempSync(join(tmpdir(), 'plank-tpch-duckdb-'));
try {
    for (const enc of ['default', 'plain', 'dictionary', 'delta']) {
        const out = join(dir, enc);
        execFileSync(plank, ['tpch', 'gen', '--sf', '0.01', '--out', out, '--encoding', enc, '--threads', '2',
            '--row-group-size', '25000'], { stdio: ['ignore', 'ignore', 'inherit'] });
        for (const [t, spec] of Object.entries(TABLES)) {
            const file = join(out, `${t}.parquet`);
            const cols = spec.split(', ').map((s) => { const i = s.indexOf(' '); return [s.slice(0, i), s.slice(i + 1)]; });
            // types and repetition
            const schema = (await con.runAndReadAll(`SELECT name, type, repetition_type FROM parquet_schema(${q(file)}) WHERE num_children IS NULL`)).getRows();
            const desc = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`)).getRows();
            const got = desc.map((r) => `${r[0]} ${r[1]}`).join(', ');
            if (got !== spec) fail(`${enc}/${t}: DuckDB types ${got}, expected ${spec}`);
            for (const r of schema) if (r[2] !== 'REQUIRED') fail(`${enc}/${t}.${r[0]}: ${r[2]}, expected REQUIRED`);
            // every row as dbgen text
            const exprs = cols.map(([n, ty]) => n === 'l_quantity' ? `CAST(CAST(${n} AS BIGINT) AS VARCHAR)` : `CAST(${n} AS VARCHAR)`);
            const frac = (await con.runAndReadAll(t === 'lineitem' ? `SELECT count(*) FROM read_parquet(${q(file)}) WHERE l_quantity <> round(l_quantity)` : 'SELECT 0')).getRows()[0][0];
            if (Number(frac) !== 0) fail(`${enc}/lineitem: ${frac} fractional quantities`);
            const rows = (await con.runAndReadAll(`SELECT concat_ws('|', ${exprs.join(', ')}) FROM read_parquet(${q(file)})`)).getRows();
            const text = rows.map((r) => r[0] + '\n').join('');
            if (text !== refText[t]) {
                const a = text.split('\n'), b = refText[t].split('\n');
                let i = 0;
                while (i < a.length && i < b.length && a[i] === b[i]) i++;
                fail(`${enc}/${t}: DuckDB's rows differ from the reference at line ${i + 1}\n  duckdb:    ${a[i]}\n  reference: ${b[i]}`);
            } else {
                oks++;
            }
            // encodings of every column chunk
            const meta = (await con.runAndReadAll(`SELECT path_in_schema, encodings FROM parquet_metadata(${q(file)})`)).getRows();
            for (const [path, encs] of meta) {
                const e = String(encs);
                const ok = enc === 'plain' ? !/DICTIONARY|DELTA/.test(e) && /PLAIN/.test(e)
                    : enc === 'dictionary' ? /DICTIONARY/.test(e) && !/DELTA/.test(e)
                    : enc === 'delta' ? /DELTA/.test(e) && !/DICTIONARY|PLAIN/.test(e)
                    : true;
                if (!ok) fail(`${enc}/${t}.${path}: encodings ${e}`);
            }
        }
        console.log(`ok: --encoding ${enc}: DuckDB reads all eight tables as the reference text`);
    }
} finally {
    rmSync(dir, { recursive: true, force: true });
}
console.log(`tpch_duckdb: ${oks} table files equal to the reference, ${fails} failures`);
process.exit(fails ? 1 : 0);
