#!/usr/bin/env node
// write_interop.mjs DIR: the writer's interoperability matrix. DIR holds what
// tests/gen_write_matrix.c wrote: one Parquet file per writer configuration,
// expected.jsonl (the rows, from the generator, never from plank's reader)
// and configs.json (per file: codec, page version, row groups, and per column
// chunk the encodings, num_values and statistics plank meant to write).
//
// Every file is read by DuckDB (@duckdb/node-api), Polars (nodejs-polars),
// hyparquet (with hyparquet-compressors) and arrow-rs (the Rust parquet
// crate, as parquet-wasm, its values through apache-arrow's IPC reader), and
// every value is compared with
// the expected one after this canonicalisation, applied to both sides:
//   booleans        true / false
//   integers        decimal strings (all widths, signed and unsigned)
//   floats          by value: NaN, Infinity, -Infinity and -0 are distinct
//                   tokens, other values the JS shortest form of the double
//                   (FLOAT and FLOAT16 rounded to their width first)
//   decimals        exact decimal strings with `scale` fraction digits
//   dates           days since 1970-01-01
//   times           integer count of the column's unit since midnight
//   timestamps      integer count of the column's unit since the epoch (a
//                   peer's unit is converted exactly: a remainder is a FAIL)
//   strings         as strings; binary, fixed-length and UUID as lower hex
//   lists, structs  arrays and objects; maps arrays of [key, value]
// A (peer, column) pair the peer cannot represent is a SKIP with its reason,
// never a pass. DuckDB's parquet_metadata() is checked per column chunk:
// compression, encodings, num_values, row groups, null counts and min/max,
// and equal compressed and uncompressed sizes where every page was stored
// uncompressed.
// Prints a table file x peer; exits 1 on any FAIL, 77 when node_modules are
// missing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmtDate, fmtDecimal } from './jsonl_format.mjs';
import { skipTest } from './skip.mjs';

const dir = process.argv[2];
if (!dir) {
    process.stderr.write('usage: write_interop.mjs DIR\n');
    process.exit(2);
}

let DuckDBInstance, pl, hyp, compressors, arrow, pw;
try {
    ({ DuckDBInstance } = await import('@duckdb/node-api'));
    pl = (await import('nodejs-polars')).default;
    hyp = await import('hyparquet');
    ({ compressors } = await import('hyparquet-compressors'));
    arrow = await import('apache-arrow');
    pw = await import('parquet-wasm/node');
} catch (e) {
    skipTest('peer_write_interop', `the peers are not installed (run npm ci at the repository root): ${e.message}`);
}

// ---- the columns (as gen_write_matrix.c writes them) ---------------------------

const INT = { t: 'int' }, STR = { t: 'string' }, HEX = { t: 'hex' };
const COLUMNS = {
    bool: { t: 'bool' }, i8: INT, i16: INT, i32: INT, i64: INT, u8: INT, u16: INT, u32: INT, u64: INT,
    f32: { t: 'float', bits: 32 }, f64: { t: 'float', bits: 64 }, str: STR, bin: HEX, flba5: HEX,
    dec9_2: { t: 'dec', p: 9, s: 2 }, dec18_4: { t: 'dec', p: 18, s: 4 }, dec38_10: { t: 'dec', p: 38, s: 10 },
    date: { t: 'date' }, time_ms: { t: 'time', unit: 'ms' }, time_us: { t: 'time', unit: 'us' },
    ts_ms_utc: { t: 'ts', unit: 'ms', utc: true }, ts_us_local: { t: 'ts', unit: 'us', utc: false },
    ts_ns_utc: { t: 'ts', unit: 'ns', utc: true }, ts_ns_local: { t: 'ts', unit: 'ns', utc: false }, uuid: { t: 'uuid' }, f16: { t: 'float', bits: 16 },
    l: { t: 'list', el: INT },
    st: { t: 'struct', fields: { a: STR, b: { t: 'float', bits: 64 } } },
    m: { t: 'map', key: STR, value: INT },
    ll: { t: 'list', el: { t: 'list', el: INT } },
};
const NAMES = Object.keys(COLUMNS);
const UNITS = { s: 1n, ms: 1000n, us: 1000000n, ns: 1000000000n };

function floatKey(x, bits) {
    if (typeof x === 'string') x = Number(x);
    if (bits !== 64) x = Math.fround(x); // FLOAT16 values are exact in single precision
    if (Number.isNaN(x)) return 'NaN';
    if (Object.is(x, -0)) return '-0';
    return String(x);
}

// A count of `from` units as a count of `to` units, exactly, or a marker that fails.
function convertUnit(v, from, to) {
    const a = UNITS[from], b = UNITS[to];
    const x = BigInt(v) * b;
    return x % a === 0n ? String(x / a) : `inexact(${v} ${from})`;
}

// The expected value (all leaves strings or null) in the canonical form.
function canonExpected(d, v) {
    if (v === null || v === undefined) return null;
    switch (d.t) {
    case 'float': return floatKey(v, d.bits);
    case 'list': return v.map((e) => canonExpected(d.el, e));
    case 'struct': return Object.fromEntries(Object.entries(d.fields).map(([k, f]) => [k, canonExpected(f, v[k])]));
    case 'map': return v.map(([k, x]) => [canonExpected(d.key, k), canonExpected(d.value, x)]);
    default: return v;
    }
}

const hex = (bytes) => Buffer.from(bytes).toString('hex');

// ---- DuckDB ---------------------------------------------------------------------------

function duckValue(d, v) {
    if (v === null || v === undefined) return null;
    switch (d.t) {
    case 'bool': return v;
    case 'int': return String(v);
    case 'float': return floatKey(v, d.bits);
    case 'string': return v;
    case 'hex': return hex(v.bytes);
    case 'uuid': return String(v).replace(/-/g, '');
    case 'dec': return v.toString();
    case 'date': return String(v.days);
    case 'time':
        if (v.offset !== undefined && v.offset !== 0) return `offset(${v.offset})`;
        return convertUnit(v.micros, 'us', d.unit);
    case 'ts':
        if (v.nanos !== undefined) return convertUnit(v.nanos, 'ns', d.unit);
        if (v.milliseconds !== undefined) return convertUnit(v.milliseconds, 'ms', d.unit);
        if (v.seconds !== undefined) return convertUnit(v.seconds, 's', d.unit);
        return convertUnit(v.micros, 'us', d.unit);
    case 'list': return v.items.map((e) => duckValue(d.el, e));
    case 'struct': return Object.fromEntries(Object.entries(d.fields).map(([k, f]) => [k, duckValue(f, v.entries[k])]));
    case 'map': return v.entries.map((e) => [duckValue(d.key, e.key), duckValue(d.value, e.value)]);
    default: throw new Error(`no DuckDB conversion for ${d.t}`);
    }
}

// DuckDB's column type each column must have (the logical types as DuckDB maps them).
const DUCK_TYPES = {
    bool: 'BOOLEAN', i8: 'TINYINT', i16: 'SMALLINT', i32: 'INTEGER', i64: 'BIGINT', u8: 'UTINYINT',
    u16: 'USMALLINT', u32: 'UINTEGER', u64: 'UBIGINT', f32: 'FLOAT', f64: 'DOUBLE', str: 'VARCHAR',
    bin: 'BLOB', flba5: 'BLOB', dec9_2: 'DECIMAL(9,2)', dec18_4: 'DECIMAL(18,4)', dec38_10: 'DECIMAL(38,10)',
    date: 'DATE', time_ms: 'TIME WITH TIME ZONE', time_us: 'TIME', ts_ms_utc: 'TIMESTAMP WITH TIME ZONE',
    ts_us_local: 'TIMESTAMP', ts_ns_utc: 'TIMESTAMP WITH TIME ZONE', ts_ns_local: 'TIMESTAMP_NS', uuid: 'UUID', f16: 'FLOAT',
    l: 'BIGINT[]', st: 'STRUCT("a" VARCHAR, "b" DOUBLE)', m: 'MAP(VARCHAR, INTEGER)', ll: 'INTEGER[][]',
};

// Columns DuckDB 1.5.6 cannot read as written, with the reason.
function duckSkips(cfg) {
    const skips = {
        ts_ns_utc: 'DuckDB 1.5.6 reads TIMESTAMP(NANOS, isAdjustedToUTC=true) as TIMESTAMP WITH TIME ZONE, '
            + 'which has microseconds: the nanosecond digits are dropped (ts_ns_local covers NANOS as TIMESTAMP_NS)',
    };
    if (cfg.codec === 'LZ4') {
        const why = 'DuckDB 1.5.6 does not read the deprecated Hadoop-framed LZ4 codec ("Unsupported compression codec \\"LZ4\\"")';
        for (const n of NAMES) skips[n] = why;
        return skips;
    }
    for (const c of cfg.row_groups[0].columns) {
        const top = c.path.split('.')[0];
        if (c.encodings_include.includes('BYTE_STREAM_SPLIT') && c.physical !== 'FLOAT' && c.physical !== 'DOUBLE') {
            skips[top] = `DuckDB 1.5.6 reads BYTE_STREAM_SPLIT only for FLOAT/DOUBLE ("BYTE_STREAM_SPLIT encoding is only supported for FLOAT or DOUBLE data"); ${c.physical} BSS is in the format since 2.11`;
        }
    }
    return skips;
}

async function readDuck(con, file, cfg) {
    const skips = duckSkips(cfg);
    const cols = NAMES.filter((n) => !skips[n]);
    const out = {};
    for (const [n, why] of Object.entries(skips)) out[n] = { skip: why };
    if (!cols.length) return out;
    const q = `SELECT ${cols.map((n) => `"${n}"`).join(', ')} FROM read_parquet('${file.replace(/'/g, "''")}')`;
    const r = await con.runAndReadAll(q);
    const types = r.columnTypes().map(String);
    const rows = r.getRows();
    cols.forEach((n, i) => {
        if (types[i] !== DUCK_TYPES[n]) {
            out[n] = { typeError: `DuckDB type ${types[i]}, expected ${DUCK_TYPES[n]}` };
            return;
        }
        out[n] = { values: rows.map((row) => duckValue(COLUMNS[n], row[i])) };
    });
    return out;
}

// ---- Polars -----------------------------------------------------------------------------

// nodejs-polars 0.25.2 converts some types to JS lossily or not at all, so
// values are turned into exact forms by Polars expressions first.
const POLARS_SKIP = {
    bin: 'nodejs-polars 0.25.2 cannot hand Binary columns to JS ("DataType Binary is not supported for JS conversion"; no hex/CSV/JSON way out)',
    flba5: 'nodejs-polars 0.25.2 cannot hand Binary columns (FIXED_LEN_BYTE_ARRAY) to JS',
    uuid: 'Polars reads UUID (FIXED_LEN_BYTE_ARRAY) as Binary, which nodejs-polars 0.25.2 cannot hand to JS',
    f16: 'Polars 0.25.2 does not interpret FLOAT16: it reads the column as Binary, which nodejs-polars cannot hand to JS',
};
const POLARS_DTYPES = {
    bool: 'Bool', i8: 'Int8', i16: 'Int16', i32: 'Int32', i64: 'Int64', u8: 'UInt8', u16: 'UInt16', u32: 'UInt32',
    u64: 'UInt64', f32: 'Float32', f64: 'Float64', str: 'String', dec9_2: 'Decimal(9,2)', dec18_4: 'Decimal(18,4)',
    dec38_10: 'Decimal(38,10)', date: 'Date', time_ms: 'Time', time_us: 'Time', ts_ms_utc: 'Datetime(ms,UTC)',
    ts_us_local: 'Datetime(us,)', ts_ns_utc: 'Datetime(ns,UTC)', ts_ns_local: 'Datetime(ns,)',
};
// Polars 0.25.2 fails the whole file on these encodings of FIXED_LEN_BYTE_ARRAY
// ("Not yet supported: Decoding FixedLenByteArray(16) "ByteStreamSplit"-encoded
// optional parquet pages"), so such columns are left out of its read.
function polarsSkips(cfg) {
    const skips = { ...POLARS_SKIP };
    for (const c of cfg.row_groups[0].columns) {
        const e = c.encodings_include.find((x) => x === 'BYTE_STREAM_SPLIT' || x === 'DELTA_BYTE_ARRAY');
        if (e && c.physical === 'FIXED_LEN_BYTE_ARRAY') {
            skips[c.path.split('.')[0]] = `Polars 0.25.2 does not decode ${e} pages of FIXED_LEN_BYTE_ARRAY ("Not yet supported")`;
        }
    }
    return skips;
}

function polarsColumn(df, n) {
    const d = COLUMNS[n];
    const col = pl.col(n);
    const dtype = String(df.getColumn(n).dtype).replace(/^DataType\((.*)\)$/, '$1');
    if (POLARS_DTYPES[n] && dtype !== POLARS_DTYPES[n]) return { typeError: `Polars dtype ${dtype}, expected ${POLARS_DTYPES[n]}` };
    const get = (e) => df.select(e.alias('x')).getColumn('x').toArray();
    const nulls = get(col.isNull());
    const keep = (vals, f) => vals.map((v, i) => (nulls[i] || v === null || v === undefined ? null : f(v)));
    switch (d.t) {
    case 'bool': return { values: keep(get(col.cast(pl.UInt8)), (v) => v === 1) };
    // 64-bit integers through Utf8: nodejs-polars hands Int64 to JS as a double
    case 'int': case 'dec': return { values: keep(get(col.cast(pl.Utf8)), String) };
    case 'float': return { values: keep(get(col), (v) => floatKey(v, d.bits)) };
    case 'string': return { values: keep(get(col), String) };
    case 'date': return { values: keep(get(col.cast(pl.Int32)), String) };
    case 'time': return { values: keep(get(col.cast(pl.Int64).cast(pl.Utf8)), (v) => convertUnit(v, 'ns', d.unit)) };
    case 'ts': {
        const unit = /Datetime\((\w+),/.exec(dtype)[1];
        return { values: keep(get(col.cast(pl.Int64).cast(pl.Utf8)), (v) => convertUnit(v, unit, d.unit)) };
    }
    case 'list': {
        const inner = d.el.t === 'list' ? pl.List(pl.List(pl.Utf8)) : pl.List(pl.Utf8);
        const norm = (v) => (Array.isArray(v) ? v.map(norm) : v === undefined ? null : v);
        return { values: keep(get(col.cast(inner)), norm) };
    }
    case 'struct':
        return {
            values: keep(get(col), (v) => ({
                a: v.a ?? null,
                b: v.b === null || v.b === undefined ? null : floatKey(v.b, 64),
            })),
        };
    case 'map':
        return { values: keep(get(col), (v) => v.map((e) => [e.key, e.value === null || e.value === undefined ? null : String(e.value)])) };
    default: throw new Error(`no Polars conversion for ${d.t}`);
    }
}

function readPolars(file, cfg) {
    const skips = polarsSkips(cfg);
    const df = pl.readParquet(file, { columns: NAMES.filter((n) => !skips[n]) });
    const out = {};
    for (const n of NAMES) {
        if (skips[n]) out[n] = { skip: skips[n] };
        else out[n] = polarsColumn(df, n);
    }
    return out;
}

// ---- hyparquet --------------------------------------------------------------------------

const HYP_SKIP = {
    dec18_4: 'hyparquet converts DECIMAL to a JS Number (double): not exact beyond 15 digits (precision 18)',
    dec38_10: 'hyparquet converts DECIMAL to a JS Number (double): not exact beyond 15 digits (precision 38)',
};
// Raw values instead of Date objects (which would drop micro- and nanoseconds).
const HYP_PARSERS = {
    timestampFromMilliseconds: (v) => v, timestampFromMicroseconds: (v) => v,
    timestampFromNanoseconds: (v) => v, dateFromDays: (v) => v, uuidFromBytes: (b) => b && hex(b),
};

function hypValue(d, v) {
    if (v === null || v === undefined) return null;
    switch (d.t) {
    case 'bool': return v;
    case 'int': case 'date': case 'time': case 'ts': return String(v);
    case 'float': return floatKey(v, d.bits);
    case 'string': case 'uuid': return v;
    case 'hex': return hex(v);
    case 'dec': return v.toFixed(d.s); // precision <= 15: the double rounds back to the decimal
    case 'list': return v.map((e) => hypValue(d.el, e));
    case 'struct': return Object.fromEntries(Object.entries(d.fields).map(([k, f]) => [k, hypValue(f, v[k])]));
    case 'map': return Object.entries(v).map(([k, x]) => [k, hypValue(d.value, x)]);
    default: throw new Error(`no hyparquet conversion for ${d.t}`);
    }
}

async function readHyparquet(file) {
    // The whole file in memory: hyparquet's file reader issues one read per page.
    const bytes = readFileSync(file);
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const cols = NAMES.filter((n) => !HYP_SKIP[n]);
    const rows = await hyp.parquetReadObjects({ file: buf, compressors, columns: cols, utf8: false, parsers: HYP_PARSERS });
    const out = {};
    for (const n of NAMES) {
        if (HYP_SKIP[n]) out[n] = { skip: HYP_SKIP[n] };
        else out[n] = { values: rows.map((r) => hypValue(COLUMNS[n], r[n])) };
    }
    return out;
}

// ---- arrow-rs (parquet-wasm) -------------------------------------------------------------

// The Arrow type arrow-rs gives each column (its mapping of the Parquet types).
const ARROWRS_TYPES = {
    bool: 'Bool', i8: 'Int8', i16: 'Int16', i32: 'Int32', i64: 'Int64', u8: 'Uint8', u16: 'Uint16', u32: 'Uint32',
    u64: 'Uint64', f32: 'Float32', f64: 'Float64', str: 'Utf8', bin: 'Binary', flba5: 'FixedSizeBinary[5]',
    dec9_2: 'Decimal[9e+2]', dec18_4: 'Decimal[18e+4]', dec38_10: 'Decimal[38e+10]', date: 'Date32<DAY>',
    time_ms: 'Time32<MILLISECOND>', time_us: 'Time64<MICROSECOND>', ts_ms_utc: 'Timestamp<MILLISECOND, UTC>',
    ts_us_local: 'Timestamp<MICROSECOND>', ts_ns_utc: 'Timestamp<NANOSECOND, UTC>', ts_ns_local: 'Timestamp<NANOSECOND>',
    uuid: 'FixedSizeBinary[16]', f16: 'Float16', l: 'List<Int64>', st: 'Struct<{a:Utf8, b:Float64}>',
    m: 'Map<{key:Utf8, value:Int32}>', ll: 'List<List<Int32>>',
};
const ARROW_UNITS = { SECOND: 's', MILLISECOND: 'ms', MICROSECOND: 'us', NANOSECOND: 'ns' };

// Value i of a primitive vector as stored (apache-arrow's get() turns
// timestamps into double milliseconds, which drops micro- and nanoseconds).
function rawAt(vec, i) {
    for (const d of vec.data) {
        if (i < d.length) return d.values[d.offset + i];
        i -= d.length;
    }
    throw new Error(`row ${i} past the vector's end`);
}

function arrowValue(d, v) {
    if (v === null || v === undefined) return null;
    switch (d.t) {
    case 'bool': case 'string': return v;
    case 'int': return String(v);
    case 'float': return floatKey(v, d.bits);
    case 'hex': case 'uuid': return hex(v);
    case 'dec': return JSON.parse(fmtDecimal(BigInt(String(v)), d.s)); // the unscaled integer's text
    case 'date': {
        if (v % 86400000 !== 0) return `not a day: ${v} ms`;
        return String(v / 86400000); // get() gives the day's milliseconds
    }
    case 'time': return String(v); // Time32 / Time64 in the column's own unit
    case 'list': return [...v].map((e) => arrowValue(d.el, e));
    case 'struct': return Object.fromEntries(Object.entries(d.fields).map(([k, f]) => [k, arrowValue(f, v[k])]));
    case 'map': return [...v].map(([k, x]) => [arrowValue(d.key, k), arrowValue(d.value, x)]);
    default: throw new Error(`no arrow-rs conversion for ${d.t}`);
    }
}

function readArrowRs(file) {
    const wasmTable = pw.readParquet(readFileSync(file));
    const t = arrow.tableFromIPC(wasmTable.intoIPCStream());
    const out = {};
    for (const n of NAMES) {
        const vec = t.getChild(n);
        if (!vec) { out[n] = { typeError: 'no such column' }; continue; }
        const type = String(vec.type);
        if (type !== ARROWRS_TYPES[n]) { out[n] = { typeError: `arrow-rs type ${type}, expected ${ARROWRS_TYPES[n]}` }; continue; }
        const d = COLUMNS[n];
        const values = new Array(vec.length);
        for (let i = 0; i < vec.length; i++) {
            if (!vec.isValid(i)) values[i] = null;
            else if (d.t === 'ts') values[i] = convertUnit(rawAt(vec, i), ARROW_UNITS[arrow.TimeUnit[vec.type.unit]], d.unit);
            else values[i] = arrowValue(d, vec.get(i));
        }
        out[n] = { values };
    }
    return out;
}

// ---- DuckDB's parquet_metadata ---------------------------------------------------------------

function statText(d, v) {
    if (v === null) return null;
    return d.t === 'date' ? JSON.parse(fmtDate(v)) : v;
}

async function checkMetadata(con, file, cfg) {
    const problems = [];
    const r = await con.runAndReadAll(`SELECT * FROM parquet_metadata('${file.replace(/'/g, "''")}') ORDER BY row_group_id, column_id`);
    const rows = r.getRowObjectsJS();
    const groups = new Set(rows.map((x) => Number(x.row_group_id)));
    if (groups.size !== cfg.row_groups.length) problems.push(`${groups.size} row groups, expected ${cfg.row_groups.length}`);
    cfg.row_groups.forEach((rg, g) => {
        const chunks = rows.filter((x) => Number(x.row_group_id) === g);
        if (chunks.length && Number(chunks[0].row_group_num_rows) !== rg.num_rows) {
            problems.push(`rg ${g}: ${chunks[0].row_group_num_rows} rows, expected ${rg.num_rows}`);
        }
        for (const c of rg.columns) {
            const at = `rg ${g} ${c.path}`;
            const k = chunks.find((x) => String(x.path_in_schema).split(', ').join('.') === c.path);
            if (!k) { problems.push(`${at}: no column chunk`); continue; }
            if (k.compression !== cfg.codec) problems.push(`${at}: compression ${k.compression}, expected ${cfg.codec}`);
            const encs = String(k.encodings).split(', ');
            for (const e of c.encodings_include) if (!encs.includes(e)) problems.push(`${at}: encodings [${encs}] lack ${e}`);
            for (const e of c.encodings_exclude) if (encs.includes(e)) problems.push(`${at}: encodings [${encs}] have ${e}`);
            if (Number(k.num_values) !== c.num_values) problems.push(`${at}: num_values ${k.num_values}, expected ${c.num_values}`);
            // v2 pages stored uncompressed (v2_min_saving 1; no dictionary
            // page): the chunk's two sizes are equal
            if (cfg.stored && Number(k.total_compressed_size) !== Number(k.total_uncompressed_size)) {
                problems.push(`${at}: ${k.total_compressed_size} bytes stored for ${k.total_uncompressed_size}, expected every page uncompressed`);
            }
            if (!c.stats) continue;
            const d = COLUMNS[c.path];
            if (k.stats_null_count === null || Number(k.stats_null_count) !== c.stats.null_count) {
                problems.push(`${at}: null_count ${k.stats_null_count}, expected ${c.stats.null_count}`);
            }
            const min = k.stats_min_value ?? k.stats_min, max = k.stats_max_value ?? k.stats_max;
            if (min !== statText(d, c.stats.min)) problems.push(`${at}: min ${JSON.stringify(min)}, expected ${JSON.stringify(statText(d, c.stats.min))}`);
            if (max !== statText(d, c.stats.max)) problems.push(`${at}: max ${JSON.stringify(max)}, expected ${JSON.stringify(statText(d, c.stats.max))}`);
        }
    });
    return problems;
}

// ---- the matrix --------------------------------------------------------------------------

// The canonical JSON of every expected value, per column (computed once).
const expectedText = new Map();
function expectedColumn(expected, n) {
    if (!expectedText.has(n)) expectedText.set(n, expected.map((row) => JSON.stringify(canonExpected(COLUMNS[n], row[n]))));
    return expectedText.get(n);
}

function compare(expected, got) {
    const res = { ok: 0, fail: [], skip: [] };
    for (const n of NAMES) {
        const g = got[n];
        if (g.skip) { res.skip.push(`${n}: ${g.skip}`); continue; }
        if (g.typeError) { res.fail.push(`${n}: ${g.typeError}`); continue; }
        if (g.values.length !== expected.length) { res.fail.push(`${n}: ${g.values.length} rows, expected ${expected.length}`); continue; }
        let bad = 0, first = null;
        const want = expectedColumn(expected, n);
        for (let i = 0; i < expected.length; i++) {
            const e = want[i];
            const a = JSON.stringify(g.values[i]);
            if (e !== a) { bad++; first ??= `row ${i}: got ${a}, expected ${e}`; }
        }
        if (bad) res.fail.push(`${n}: ${bad} rows differ, first ${first}`);
        else res.ok++;
    }
    return res;
}

const expected = readFileSync(join(dir, 'expected.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const { configs } = JSON.parse(readFileSync(join(dir, 'configs.json'), 'utf8'));
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run('SET binary_as_string=false');

const PEERS = [
    ['duckdb', (f, cfg) => readDuck(con, f, cfg)],
    ['polars', (f, cfg) => readPolars(f, cfg)],
    ['hyparquet', (f) => readHyparquet(f)],
    ['arrow-rs', (f) => readArrowRs(f)],
];
const table = [];
const skipReasons = new Map();
let failures = 0;
const totals = {};
for (const cfg of configs) {
    const file = join(dir, cfg.file);
    const line = [cfg.name];
    for (const [peer, read] of PEERS) {
        let res;
        const t0 = performance.now();
        try {
            res = compare(expected, await read(file, cfg));
        } catch (e) {
            res = { ok: 0, fail: [`cannot read: ${e.message}`], skip: [] };
        }
        const t = (totals[peer] ??= { ok: 0, fail: 0, skip: 0, ms: 0 });
        t.ms += performance.now() - t0;
        t.ok += res.ok;
        t.fail += res.fail.length;
        t.skip += res.skip.length;
        for (const s of res.skip) skipReasons.set(`${peer} ${s}`, (skipReasons.get(`${peer} ${s}`) || 0) + 1);
        for (const f of res.fail) console.log(`FAIL ${cfg.name} ${peer}: ${f}`);
        failures += res.fail.length;
        line.push(res.fail.length ? `FAIL ${res.fail.length}` : `OK ${res.ok}` + (res.skip.length ? ` SKIP ${res.skip.length}` : ''));
    }
    let problems;
    try {
        problems = await checkMetadata(con, file, cfg);
    } catch (e) {
        problems = [`parquet_metadata: ${e.message}`];
    }
    for (const p of problems.slice(0, 20)) console.log(`FAIL ${cfg.name} metadata: ${p}`);
    if (problems.length > 20) console.log(`FAIL ${cfg.name} metadata: ... ${problems.length - 20} more`);
    failures += problems.length;
    line.push(problems.length ? `FAIL ${problems.length}` : 'OK');
    table.push(line);
}

console.log('\nskipped (peer column: reason) x files:');
for (const [s, n] of skipReasons) console.log(`  SKIP ${s} (${n} files)`);
const head = ['file', ...PEERS.map((p) => p[0]), 'duckdb metadata'];
const widths = head.map((h, i) => Math.max(h.length, ...table.map((l) => l[i].length)));
const fmt = (l) => l.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log('\ncolumns per file: OK = read back exactly, SKIP = not representable by the peer');
console.log(fmt(head));
for (const l of table) console.log(fmt(l));
for (const [peer, t] of Object.entries(totals)) console.log(`${peer}: ${t.ok} OK, ${t.fail} FAIL, ${t.skip} SKIP (file x column pairs), ${(t.ms / 1000).toFixed(1)} s`);
console.log(failures ? `\n${failures} failures` : '\nall files read back exactly');
process.exit(failures ? 1 : 0);
