#!/usr/bin/env node
// ecosystem_read.mjs PLANK_BIN [DIR]: plank reads what the other writers
// write: arrow-rs, DuckDB, Polars and hyparquet-writer.
//
// One Arrow table is built in JavaScript (apache-arrow: integers of every
// width and sign, floats with NaN and infinities, strings past the 64-byte
// truncation of index bounds, binaries, dates, times, timestamps, decimals,
// lists, structs, maps, a dictionary column) and written:
//  - by arrow-rs (the Rust `parquet` crate behind DataFusion and delta-rs,
//    as parquet-wasm) under a matrix of writer properties: page versions 1
//    and 2, every codec it offers (the Hadoop-framed LZ4 included, which
//    DuckDB 1.5.6 cannot open), dictionaries with and without fallback,
//    PLAIN, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
//    BYTE_STREAM_SPLIT, small pages and row groups, page-level, chunk-level
//    and no statistics;
//  - by DuckDB (`COPY ... (FORMAT parquet, ...)`, from the table it read):
//    versions 1 and 2 (its DELTA and BYTE_STREAM_SPLIT encodings), codecs,
//    row groups, dictionaries off, and its bloom filters;
//  - by Polars (`writeParquet` of what `readParquet` read) in three codecs,
//    and through its streaming sink in row groups of 700 rows and 1 KiB
//    pages;
//  - by hyparquet-writer (JavaScript), the flat columns it types: its
//    defaults (row groups of 1,000 rows, then 100,000), and with column
//    indexes, bloom filters, small pages, DELTA_BINARY_PACKED and
//    BYTE_STREAM_SPLIT, its string bounds truncated to 16 bytes.
// Each file is checked against DuckDB, an independent reader:
//  - `plank cat F --format jsonl`: every value of every top-level column,
//    nested ones included, equal to DuckDB's read (compare_rows.mjs). The
//    arrow-rs files all hold the table as the first was written, so their
//    reference is DuckDB's read of the first (arrow-rs's defaults), which
//    covers the files DuckDB cannot open; the others are compared with
//    DuckDB's read of the file itself (the writers map some types their own
//    way);
//  - `plank scan F --where P --columns id`: for each predicate P, the same
//    rows as DuckDB's `SELECT id ... WHERE P` (count and sum of id) over the
//    table it read from the first file, so that the writers' statistics,
//    column and offset indexes (min/max truncated to 64 bytes, NaN left out
//    of float bounds, null pages) and bloom filters prune nothing the data
//    holds. DuckDB's own scan of the files is not the reference there: its
//    row-group pruning drops NaN rows where arrow-rs's float bounds leave
//    NaN out (`f64 > 1e300` on the files of several row groups: the
//    format's bounds exclude NaN, and DuckDB 1.5.6 assumes no NaN unless
//    `can_have_nan` is given; duckdb/duckdb#25521). The column fnan (1.0
//    and a NaN now and then) makes row groups and pages whose bounds are
//    1.0 and 1.0 hold a NaN: `= 1.0` must not take them as all passing,
//    nor `> 1.0` as none;
//  - on the arrow-rs files whose id chunks have several pages, the sorted
//    `id` range prunes pages by the page index (on Polars' sink and
//    hyparquet-writer's indexed file too), and on DuckDB's and
//    hyparquet-writer's files with bloom filters an absent string prunes row
//    groups by them (`plank scan --explain`), so those structures really are
//    used. A predicate over a column a writer left out is not run on its
//    files.
// With PLANK_ECOSYSTEM_QUICK=1 (the sanitizer build) each file runs a third
// of the predicates, a different third from the file before, so that every
// predicate still runs on every writer.
// The files go to DIR (default a temporary directory, removed at the end).
// Exits 1 on any difference, 77 when node_modules are missing (1 under
// PLANK_REQUIRE_CORPUS=1).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { skipTest } from './skip.mjs';

const plank = process.argv[2];
if (!plank || !fs.existsSync(plank)) {
    process.stderr.write('usage: ecosystem_read.mjs PLANK_BIN [DIR]\n');
    process.exit(2);
}
let A, pw, pl, hw, duck, compareRows;
try {
    hw = await import('hyparquet-writer');
    pl = (await import('nodejs-polars')).default;
    A = await import('apache-arrow');
    pw = await import('parquet-wasm/node');
    duck = await import('./duckdb_jsonl.mjs');
    ({ compareRows } = await import('./compare_rows.mjs'));
} catch (e) {
    skipTest('ecosystem_read', `npm peers not installed (run \`npm ci\`): ${e.message}`);
}

// ---- the table ------------------------------------------------------------------

const N = 3000;
let seed = 0x9e3779b9;
function rnd() { // xorshift32: the same table on every run
    seed ^= seed << 13; seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5; seed >>>= 0;
    return seed / 4294967296;
}
const ri = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const valid = (p) => Array.from({ length: N }, () => rnd() >= p);

function bitmap(v) {
    const b = new Uint8Array(Math.ceil(N / 8));
    v.forEach((ok, i) => { if (ok) b[i >> 3] |= 1 << (i & 7); });
    return b;
}

// A primitive column from its stored values (the type's own buffer layout),
// so dates, times, timestamps and decimals hold exactly the numbers chosen.
function prim(type, data, v) {
    const nullCount = v ? v.filter((x) => !x).length : 0;
    return A.makeVector(A.makeData({ type, length: N, nullCount, nullBitmap: v ? bitmap(v) : null, data }));
}
const fill = (Ctor, f) => Ctor.from({ length: N }, (_, i) => f(i));

const words = ['alpha', 'beta', 'gamma', 'delta', 'beta-max', '', 'é ü ñ', '日本語'];
const longPrefix = 'x'.repeat(70); // past arrow-rs's 64-byte truncation of index bounds
const vMost = valid(0.1);
const cols = {};
cols.id = prim(new A.Int32(), fill(Int32Array, (i) => i), null); // sorted, no nulls: page pruning
cols.i8 = prim(new A.Int8(), fill(Int8Array, () => ri(-128, 127)), valid(0.05));
cols.i16 = prim(new A.Int16(), fill(Int16Array, () => ri(0, 9)), valid(0.05));
cols.i32 = prim(new A.Int32(), fill(Int32Array, (i) => (i % 97 === 0 ? [-2147483648, 2147483647][i % 2] : ri(-1e6, 1e6))), vMost);
cols.i64 = prim(new A.Int64(), fill(BigInt64Array, (i) => (i % 101 === 0 ? -(2n ** 63n) + BigInt(i) : BigInt(ri(-1e9, 1e9)) * 1000003n)), valid(0.1));
cols.u8 = prim(new A.Uint8(), fill(Uint8Array, () => ri(0, 255)), valid(0.02));
cols.u16 = prim(new A.Uint16(), fill(Uint16Array, () => ri(0, 65535)), valid(0.02));
cols.u32 = prim(new A.Uint32(), fill(Uint32Array, () => ri(0, 4294967295)), valid(0.02));
cols.u64 = prim(new A.Uint64(), fill(BigUint64Array, (i) => (i % 3 ? BigInt(ri(0, 200)) : 2n ** 64n - 1n - BigInt(ri(0, 1e6)))), valid(0.02));
const specials = [NaN, Infinity, -Infinity, -0, 0];
cols.f32 = prim(new A.Float32(), fill(Float32Array, (i) => (i % 211 === 0 ? specials[(i / 211) % 5] : rnd())), valid(0.05));
cols.f64 = prim(new A.Float64(), fill(Float64Array, (i) => (i % 223 === 0 ? specials[(i / 223) % 5] : rnd() * 2 - 0.5)), valid(0.05));
// 1.0 but for a NaN now and then: a row group whose bounds are 1.0 and 1.0
// may still hold a NaN, which `= 1.0` drops and `> 1.0` keeps
cols.fnan = prim(new A.Float64(), fill(Float64Array, (i) => (i % 293 === 7 ? NaN : 1.0)), valid(0.05));
cols.b = A.vectorFromArray(Array.from({ length: N }, () => (rnd() < 0.1 ? null : rnd() < 0.3)), new A.Bool());
cols.s = A.vectorFromArray(Array.from({ length: N }, () => (rnd() < 0.08 ? null : words[ri(0, words.length - 1)])), new A.Utf8());
cols.grp = A.vectorFromArray(Array.from({ length: N }, (_, i) => `g${Math.floor(i / 400)}`), new A.Utf8()); // sorted runs
cols.txt = A.vectorFromArray(Array.from({ length: N }, (_, i) => (rnd() < 0.05 ? null : (i % 7 === 0 ? longPrefix : '') + `t${ri(0, 1e6)}`.repeat(ri(0, 4)))), new A.LargeUtf8());
cols.bin = A.vectorFromArray(Array.from({ length: N }, () => (rnd() < 0.05 ? null : Uint8Array.from({ length: ri(0, 12) }, () => ri(0, 255)))), new A.Binary());
{
    const d = new Uint8Array(N * 4);
    for (let i = 0; i < d.length; i++) d[i] = ri(0, 255);
    cols.fsb = prim(new A.FixedSizeBinary(4), d, valid(0.05));
}
cols.d32 = prim(new A.DateDay(), fill(Int32Array, () => ri(-30000, 30000)), valid(0.05));
cols.ts_ms = prim(new A.TimestampMillisecond(), fill(BigInt64Array, () => BigInt(ri(-2e9, 4e9)) * 1000n + BigInt(ri(0, 999))), valid(0.05));
cols.ts_us = prim(new A.TimestampMicrosecond(), fill(BigInt64Array, () => BigInt(ri(9e8, 1.1e9)) * 1000000n + BigInt(ri(0, 999999))), valid(0.05));
cols.ts_ns_utc = prim(new A.TimestampNanosecond('UTC'), fill(BigInt64Array, () => BigInt(ri(0, 2e9)) * 1000000000n + BigInt(ri(0, 999999999))), valid(0.05));
cols.t_ms = prim(new A.TimeMillisecond(), fill(Int32Array, () => ri(0, 86399999)), valid(0.05));
cols.t_us = prim(new A.TimeMicrosecond(), fill(BigInt64Array, () => BigInt(ri(0, 86399999)) * 1000n + BigInt(ri(0, 999))), valid(0.05));
{
    // decimal(18, 3) and decimal(30, 2): 128-bit little-endian words
    const dec = (precision, scale, gen) => {
        const w = new Uint32Array(N * 4);
        for (let i = 0; i < N; i++) {
            let x = BigInt.asUintN(128, gen(i));
            for (let k = 0; k < 4; k++, x >>= 32n) w[i * 4 + k] = Number(x & 0xffffffffn);
        }
        return prim(new A.Decimal(scale, precision, 128), w, valid(0.05));
    };
    cols.dec18 = dec(18, 3, () => BigInt(ri(-1e9, 1e9)) * 1000n + BigInt(ri(0, 999)));
    cols.dec30 = dec(30, 2, (i) => (i % 5 ? BigInt(ri(-1e6, 1e6)) : BigInt(ri(1, 1e9)) * 10n ** 19n));
}
cols.lst = A.vectorFromArray(Array.from({ length: N }, () => (rnd() < 0.1 ? null : Array.from({ length: ri(0, 4) }, () => (rnd() < 0.1 ? null : ri(-50, 50))))),
    new A.List(new A.Field('item', new A.Int32(), true)));
cols.lst_s = A.vectorFromArray(Array.from({ length: N }, () => (rnd() < 0.1 ? null : Array.from({ length: ri(0, 3) }, () => words[ri(0, 7)]))),
    new A.List(new A.Field('item', new A.Utf8(), true)));
cols.st = A.vectorFromArray(Array.from({ length: N }, () => (rnd() < 0.1 ? null : { a: rnd() < 0.1 ? null : ri(0, 1000), b: rnd() < 0.1 ? null : words[ri(0, 7)] })),
    new A.Struct([new A.Field('a', new A.Int32(), true), new A.Field('b', new A.Utf8(), true)]));
cols.mp = A.vectorFromArray(Array.from({ length: N }, () => (rnd() < 0.1 ? null : new Map(Array.from({ length: ri(0, 3) }, (_, k) => [`k${k}`, rnd() < 0.2 ? null : ri(0, 99)])))),
    new A.Map_(new A.Field('entries', new A.Struct([new A.Field('key', new A.Utf8(), false), new A.Field('value', new A.Int32(), true)]), false)));
cols.dict = A.vectorFromArray(Array.from({ length: N }, () => (rnd() < 0.05 ? null : words[ri(0, 3)])), new A.Dictionary(new A.Utf8(), new A.Int32()));

const table = new A.Table(cols);
const ipc = A.tableToIPC(table, 'stream');

// ---- the writer matrix ------------------------------------------------------------

const ints = ['id', 'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'd32', 'ts_ms', 'ts_us', 'ts_ns_utc', 't_ms', 't_us'];
const strs = ['s', 'grp', 'txt', 'bin'];
const C = pw.Compression, E = pw.Encoding, S = pw.EnabledStatistics, V = pw.WriterVersion;
const eachCol = (b, names, enc) => names.reduce((x, c) => x.setColumnEncoding(c, enc), b);
const noDict = (b, names) => names.reduce((x, c) => x.setColumnDictionaryEnabled(c, false), b);
const ARROWRS = {
    // arrow-rs's defaults: dictionaries, page v1, uncompressed, page statistics
    defaults: (b) => b,
    // dictionaries that fall back to PLAIN mid-chunk, page v2, small pages and groups
    'v2-zstd-fallback': (b) => b.setWriterVersion(V.V2).setCompression(C.ZSTD).setDictionaryPageSizeLimit(256)
        .setDataPageSizeLimit(512).setMaxRowGroupSize(1100),
    plain_gzip: (b) => b.setDictionaryEnabled(false).setCompression(C.GZIP).setDataPageSizeLimit(1024),
    'delta-brotli-v2': (b) => eachCol(eachCol(b.setDictionaryEnabled(false).setWriterVersion(V.V2).setCompression(C.BROTLI)
        .setDataPageSizeLimit(700).setMaxRowGroupSize(1200), ints, E.DELTA_BINARY_PACKED), strs, E.DELTA_BYTE_ARRAY),
    'dlba-lz4raw': (b) => eachCol(b.setDictionaryEnabled(false).setCompression(C.LZ4_RAW).setDataPageSizeLimit(600), strs, E.DELTA_LENGTH_BYTE_ARRAY),
    // arrow-rs 59 splits only FLOAT and DOUBLE
    'bss-snappy-v2': (b) => eachCol(noDict(b.setWriterVersion(V.V2).setCompression(C.SNAPPY).setDataPageSizeLimit(800),
        ['f32', 'f64']), ['f32', 'f64'], E.BYTE_STREAM_SPLIT),
    'lz4-chunkstats': (b) => b.setCompression(C.LZ4).setStatisticsEnabled(S.Chunk).setMaxRowGroupSize(700),
    'nostats-v2': (b) => b.setWriterVersion(V.V2).setStatisticsEnabled(S.None).setMaxRowGroupSize(500).setDataPageSizeLimit(300),
};
// files whose id chunks have several pages and a page index
const PAGE_INDEXED = new Set(['plain_gzip', 'dlba-lz4raw']);

// ---- the predicates (the same text for plank and DuckDB) -------------------------

const PREDICATES = [
    'id BETWEEN 500 AND 1499',
    'id < 100 OR id >= 2900',
    'i32 > 0 AND i64 IS NOT NULL',
    'i32 = 2147483647 OR i32 = -2147483648',
    'i64 < -1000000000',
    'i8 < -100 OR i16 = 5',
    'NOT (i16 = 5)',
    'u8 >= 200',
    'u16 < 1000',
    'u32 > 3000000000',
    'u64 < 100',
    'u64 > 18446744073709000000',
    'f32 >= 0.5',
    'f64 < 0.25',
    'f64 > 1e300',
    'b = TRUE',
    's IN (\'alpha\', \'gamma\')',
    's LIKE \'beta%\'',
    's = \'\'',
    's IS NULL',
    'grp = \'g3\' AND id > 1300',
    'grp >= \'g5\'',
    'txt > \'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxt5\'',
    'txt LIKE \'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxt1%\'',
    'd32 >= DATE \'2000-06-01\'',
    'd32 < DATE \'1950-01-01\' OR d32 IS NULL',
    'ts_ms < TIMESTAMP \'1960-01-01 00:00:00\'',
    'ts_us BETWEEN TIMESTAMP \'2001-01-01 00:00:00\' AND TIMESTAMP \'2002-06-30 12:00:00\'',
    'dec18 BETWEEN -100000000.5 AND 250000000.125',
    'dec30 > 1000000000000000000000.00',
    'dict = \'beta\'',
    'fnan = 1.0',
    'fnan <= 1.0',
    'fnan > 1.0',
    'fnan != 1.0 OR fnan IS NULL',
    'NOT (fnan < 2)',
    'st.a > 500',
    'st.b IN (\'alpha\', \'delta\') OR st.a IS NULL',
];
// Predicates no row passes (in the ranges of the statistics: bloom filters
// and dictionaries decide them); every other predicate must keep some rows
// and drop some, or it tests nothing.
const ABSENT = ['s = \'zeta\'', 'grp = \'g45\''];

// ---- the other writers ----------------------------------------------------------

// DuckDB's COPY options per file (from the table DuckDB read).
const DUCKDB = {
    duckdb_defaults: '',
    duckdb_v2_zstd: 'PARQUET_VERSION V2, COMPRESSION zstd, ROW_GROUP_SIZE 1000',
    duckdb_v2_lz4raw: 'PARQUET_VERSION V2, COMPRESSION lz4_raw, ROW_GROUP_SIZE 700',
    duckdb_gzip_nodict: 'COMPRESSION gzip, DICTIONARY_SIZE_LIMIT 1',
    duckdb_brotli: 'COMPRESSION brotli, ROW_GROUP_SIZE 1500',
};
const DUCKDB_BLOOM = new Set(['duckdb_defaults', 'duckdb_v2_zstd', 'duckdb_brotli']);
const POLARS = ['zstd', 'lz4', 'uncompressed'];

// hyparquet-writer: the flat columns with a type it writes, from the table.
const jsValues = (n) => Array.from({ length: N }, (_, i) => (cols[n].isValid(i) ? cols[n].get(i) : null));
const HW_COLUMNS = [
    ['id', 'INT32'], ['i16', 'INT32'], ['i32', 'INT32'], ['i64', 'INT64'], ['f32', 'FLOAT'], ['f64', 'DOUBLE'], ['fnan', 'DOUBLE'],
    ['b', 'BOOLEAN'], ['s', 'STRING'], ['grp', 'STRING'], ['txt', 'STRING'],
];
const HW_DELTA = new Set(['id', 'i32', 'i64']), HW_BSS = new Set(['f32', 'f64', 'fnan']), HW_BLOOM = new Set(['s', 'grp', 'txt']);
const HYPARQUET = {
    defaults: () => ({ columnData: HW_COLUMNS.map(([name, type]) => ({ name, type, data: jsValues(name) })) }),
    indexed: () => ({
        codec: 'UNCOMPRESSED', pageSize: 512, rowGroupSize: 700,
        columnData: HW_COLUMNS.map(([name, type]) => ({
            name, type, data: jsValues(name), columnIndex: true, bloomFilter: HW_BLOOM.has(name),
            encoding: HW_DELTA.has(name) ? 'DELTA_BINARY_PACKED' : HW_BSS.has(name) ? 'BYTE_STREAM_SPLIT' : undefined,
        })),
    }),
    nostats: () => ({ statistics: false, columnData: HW_COLUMNS.map(([name, type]) => ({ name, type, data: jsValues(name) })) }),
};
const HW_INDEXED = new Set(['indexed']);

// ---- run ------------------------------------------------------------------------------

const own = !process.argv[3];
const dir = process.argv[3] || fs.mkdtempSync(path.join(os.tmpdir(), 'plank-ecosystem-'));
fs.mkdirSync(dir, { recursive: true });
const con = await duck.openDuck();
const sqlString = (s) => `'${s.replace(/'/g, "''")}'`;
let fails = 0, files = 0;
const quick = process.env.PLANK_ECOSYSTEM_QUICK === '1';
const fail = (file, msg) => { fails++; console.log(`FAIL ${file}: ${msg}`); };

function run(args) {
    const r = spawnSync(plank, args, { maxBuffer: 1 << 30, encoding: 'utf8' });
    if (r.error) throw r.error;
    return r;
}

// Runs plank once per argument list, all from one shell: node's spawn from
// a process holding DuckDB and Polars took 26 ms (most of the test's time),
// a shell's a few. Returns [{ status, stdout, stderr }] in order.
function runMany(lists) {
    const q = (a) => `'${String(a).replace(/'/g, "'\\''")}'`;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plank-ecosystem-run-'));
    const script = lists.map((args, k) => `${q(plank)} ${args.map(q).join(' ')} 2>${q(path.join(tmp, `e${k}`))}; printf '\\n@@@ %d %d\\n' ${k} $?`).join('\n');
    const r = spawnSync('sh', ['-c', script], { maxBuffer: 1 << 30, encoding: 'utf8' });
    if (r.error) throw r.error;
    const out = [];
    const re = /\n@@@ (\d+) (\d+)\n/g;
    let at = 0, m;
    while ((m = re.exec(r.stdout))) {
        const k = Number(m[1]);
        out[k] = { status: Number(m[2]), stdout: r.stdout.slice(at, m.index), stderr: fs.readFileSync(path.join(tmp, `e${k}`), 'utf8') };
        at = re.lastIndex;
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    if (out.length !== lists.length || out.includes(undefined)) throw new Error(`the shell ran ${out.length} of ${lists.length} plank commands: ${r.stderr}`);
    return out;
}

// A counter of `plank scan --explain`'s statistics.
function explained(file, pred, key) {
    const e = run(['scan', file, '--where', pred, '--count', '--explain']);
    const m = new RegExp(`^${key}: (\\d+)$`, 'm').exec(e.stderr);
    return e.status === 0 && m ? Number(m[1]) : -1;
}

// Checks one file: its values against `peer` (duckdbJsonl rows), the predicates against `ref`.
// The table's columns a predicate names (its quoted literals left out).
const columnsOf = (pred) => (pred.replace(/'(?:[^']|'')*'/g, ' ').match(/\b[a-z_][a-z0-9_]*\b/g) || []).filter((w) => w in cols);

async function checkFile(file, peer) {
    const base = path.basename(file);
    files++;
    const r = run(['cat', file, '--format', 'jsonl']);
    if (r.status !== 0) {
        fail(base, `plank cat exit ${r.signal || r.status}: ${r.stderr.trim().slice(0, 300)}`);
        return;
    }
    for (const p of compareRows(r.stdout, peer, 'duckdb', [], null).problems) fail(base, p);
    let checked = 0;
    const all = [...PREDICATES, ...ABSENT];
    const have = new Set(peer.columns.map((c) => c.name));
    const preds = (quick ? all.filter((_, i) => (i + files) % 3 === 0) : all)
        .filter((pred) => columnsOf(pred).every((c) => have.has(c)));
    const runs = runMany(preds.map((pred) => ['scan', file, '--where', pred, '--columns', 'id', '--format', 'jsonl']));
    for (const [k, pred] of preds.entries()) {
        const q = await con.runAndReadAll(`SELECT count(*)::BIGINT, coalesce(sum(id), 0)::BIGINT FROM ref WHERE ${pred}`);
        const [want, wantSum] = q.getRows()[0].map(BigInt);
        if (ABSENT.includes(pred) ? want !== 0n : want === 0n || want === BigInt(N))
            fail(base, `--where "${pred}" keeps ${want} of ${N} rows: not what the test means`);
        const s = runs[k];
        if (s.status !== 0) {
            fail(base, `plank scan --where "${pred}" exit ${s.status}: ${s.stderr.trim().slice(0, 300)}`);
            continue;
        }
        const ids = s.stdout.split('\n').filter((l) => l).map((l) => BigInt(JSON.parse(l).id));
        const sum = ids.reduce((a, x) => a + x, 0n);
        if (BigInt(ids.length) !== want || sum !== wantSum)
            fail(base, `--where "${pred}": plank ${ids.length} rows (sum of id ${sum}), DuckDB ${want} (${wantSum})`);
        checked++;
    }
    console.log(`${fails ? 'checked' : 'OK'} ${base}: ${peer.lines.length} rows x ${peer.columns.length} columns, ${checked} predicates`);
}

// arrow-rs: the first file read by DuckDB is the reference table
let ref = null;
for (const [name, conf] of Object.entries(ARROWRS)) {
    const file = path.join(dir, `arrowrs_${name}.parquet`);
    const props = conf(new pw.WriterPropertiesBuilder()).build();
    fs.writeFileSync(file, pw.writeParquet(pw.Table.fromIPCStream(ipc), props));
    if (!ref) {
        ref = await duck.duckdbJsonl(con, file);
        if (ref.lines.length !== N) throw new Error(`DuckDB read ${ref.lines.length} rows of ${file}, the table has ${N}`);
        await con.run(`CREATE TABLE ref AS SELECT * FROM read_parquet(${sqlString(file)})`);
    }
    await checkFile(file, ref);
    if (PAGE_INDEXED.has(name) && explained(file, PREDICATES[0], 'pages_pruned_page_index') <= 0)
        fail(path.basename(file), `the sorted id range pruned no page by the page index`);
}
const first = path.join(dir, `arrowrs_${Object.keys(ARROWRS)[0]}.parquet`);

for (const [name, opts] of Object.entries(DUCKDB)) {
    const file = path.join(dir, `${name}.parquet`);
    await con.run(`COPY ref TO ${sqlString(file)} (FORMAT parquet${opts ? ', ' + opts : ''})`);
    await checkFile(file, await duck.duckdbJsonl(con, file));
    if (DUCKDB_BLOOM.has(name) && explained(file, ABSENT[0], 'row_groups_pruned_bloom') <= 0)
        fail(path.basename(file), `"${ABSENT[0]}" pruned no row group by DuckDB's bloom filters`);
}

const df = pl.readParquet(first);
for (const codec of POLARS) {
    const file = path.join(dir, `polars_${codec}.parquet`);
    df.writeParquet(file, { compression: codec, statistics: true });
    await checkFile(file, await duck.duckdbJsonl(con, file));
}
{
    // Polars' streaming sink: row groups of 700 rows, 1 KiB pages, full statistics
    const file = path.join(dir, 'polars_sink_snappy.parquet');
    await df.lazy().sinkParquet(file, { compression: 'snappy', rowGroupSize: 700, dataPagesizeLimit: 1024, statistics: 'full', maintainOrder: true }).collect();
    await checkFile(file, await duck.duckdbJsonl(con, file));
    if (explained(file, PREDICATES[0], 'pages_pruned_page_index') <= 0)
        fail(path.basename(file), `the sorted id range pruned no page by the page index`);
}

for (const [name, conf] of Object.entries(HYPARQUET)) {
    const file = path.join(dir, `hyparquet_${name}.parquet`);
    fs.writeFileSync(file, Buffer.from(hw.parquetWriteBuffer(conf())));
    await checkFile(file, await duck.duckdbJsonl(con, file));
    if (HW_INDEXED.has(name)) {
        if (explained(file, PREDICATES[0], 'pages_pruned_page_index') <= 0)
            fail(path.basename(file), `the sorted id range pruned no page by the page index`);
        if (explained(file, ABSENT[0], 'row_groups_pruned_bloom') <= 0)
            fail(path.basename(file), `"${ABSENT[0]}" pruned no row group by hyparquet-writer's bloom filters`);
    }
}

if (own) fs.rmSync(dir, { recursive: true, force: true });
console.log(fails ? `${fails} difference(s)` : `all ${files} files read as DuckDB reads them`);
process.exit(fails ? 1 : 0);
