#!/usr/bin/env node
// duckdb_jsonl.mjs FILE [--columns a,b]: prints the top-level columns of a
// Parquet file (primitive and nested) as jsonl in the `plank cat --format
// jsonl` format, read by DuckDB (@duckdb/node-api). The Parquet logical types
// come from DuckDB's parquet_schema(), not from the SQL types DuckDB maps them
// to, so the output format depends only on the file.
//
// Nested columns: the shape (struct, list, map) of each column is derived
// from the Parquet schema here, following the format's LogicalTypes.md rules
// (LIST with three or two levels, `array` / `<name>_tuple` repeated groups,
// repeated fields without annotation, MAP / MAP_KEY_VALUE), independently of
// plank; structs print as objects, lists as arrays, maps as arrays of
// {"key":..,"value":..}, leaves with the primitive formats.
//
// Where DuckDB's own conversion loses information the column carries a
// `lossy` note and a comparison hint (see describeDuckColumns):
//  - INT96 is read by DuckDB as TIMESTAMP (microseconds): the nanosecond
//    digits are not available, so the last 3 fraction digits are compared
//    only after truncation (DuckDB floors the nanoseconds of the day).
//  - TIMESTAMP/TIME(NANOS) read as microseconds (if DuckDB ever does): same.
//  - DECIMAL with precision > 38 is read as DOUBLE: compared numerically.
import { DuckDBInstance } from '@duckdb/node-api';
import { pathToFileURL } from 'node:url';
import {
    logicalFromConverted, fmtUnsigned, fmtDecimal, fmtDate, fmtTime, fmtTimestamp,
    fmtString, fmtBase64, fmtUuidBytes, fmtInterval, fmtFloat, utf8Replace, peerMain,
} from './jsonl_format.mjs';

export async function openDuck() {
    const inst = await DuckDBInstance.create(':memory:');
    const con = await inst.connect();
    // Raw bytes for unannotated BYTE_ARRAY; no GeoParquet re-interpretation.
    await con.run('SET binary_as_string=false');
    await con.run('SET enable_geoparquet_conversion=false');
    return con;
}

const sqlString = (s) => `'${String(s).replace(/'/g, "''")}'`;
const sqlIdent = (s) => `"${String(s).replace(/"/g, '""')}"`;

// DuckDB prints logical types as Thrift-ish text, e.g.
// "TimestampType(isAdjustedToUTC=1, unit=TimeUnit(MILLIS=<null>, MICROS=MicroSeconds(), NANOS=<null>))".
// IntType's bitWidth is an int8 printed as a raw character (so "@" is 64).
function parseDuckLogical(text, scale, precision) {
    if (text === null || text === undefined || text === 'null') return null;
    const unitOf = (t) => (/MILLIS=MilliSeconds/.test(t) ? 'MILLIS' : /MICROS=MicroSeconds/.test(t) ? 'MICROS'
        : /NANOS=NanoSeconds/.test(t) ? 'NANOS' : null);
    const utcOf = (t) => /isAdjustedToUTC=(1|true)/.test(t);
    const head = /^(\w+)\(/.exec(text);
    if (!head) return { kind: 'UNRECOGNIZED', text };
    switch (head[1]) {
    case 'StringType': return { kind: 'STRING' };
    case 'EnumType': return { kind: 'ENUM' };
    case 'JsonType': return { kind: 'JSON' };
    case 'BsonType': return { kind: 'BSON' };
    case 'UUIDType': return { kind: 'UUID' };
    case 'Float16Type': return { kind: 'FLOAT16' };
    case 'NullType': return { kind: 'UNKNOWN' };
    case 'DateType': return { kind: 'DATE' };
    case 'GeometryType': return { kind: 'GEOMETRY' };
    case 'GeographyType': return { kind: 'GEOGRAPHY' };
    case 'DecimalType': {
        const s = /scale=(-?\d+)/.exec(text), p = /precision=(\d+)/.exec(text);
        return { kind: 'DECIMAL', scale: s ? Number(s[1]) : scale, precision: p ? Number(p[1]) : precision };
    }
    case 'TimeType': return { kind: 'TIME', unit: unitOf(text), utc: utcOf(text) };
    case 'TimestampType': return { kind: 'TIMESTAMP', unit: unitOf(text), utc: utcOf(text) };
    case 'IntType': {
        const m = /^IntType\(bitWidth=([\s\S]*), isSigned=(\d)\)$/.exec(text);
        const w = m && m[1].length === 1 ? m[1].charCodeAt(0) : null;
        return { kind: 'INTEGER', bitWidth: [8, 16, 32, 64].includes(w) ? w : null, signed: m ? m[2] === '1' : true };
    }
    default: return { kind: 'UNRECOGNIZED', text };
    }
}

// The jsonl_format column record of a leaf node.
function descOf(n) {
    let logical = parseDuckLogical(n.logicalText, n.scale, n.precision);
    const fromConverted = logicalFromConverted(n.converted, n.scale, n.precision);
    if (!logical) logical = fromConverted;
    if (logical.kind === 'INTEGER' && logical.bitWidth === null) {
        logical.bitWidth = fromConverted.bitWidth ?? (n.physical === 'INT64' ? 64 : 32);
    }
    return { name: n.name, physical: n.physical, typeLength: n.typeLength, logical };
}

const isListNode = (n) => n.converted === 'LIST' || /^ListType\(/.test(n.logicalText || '');
const isMapNode = (n) => n.converted === 'MAP' || n.converted === 'MAP_KEY_VALUE' || /^MapType\(/.test(n.logicalText || '');

// The shape of a node without its own repetition:
//   { kind: 'leaf', desc } | { kind: 'struct', fields: [{ name, shape }] }
//   | { kind: 'list', element } | { kind: 'map', key, value }
function baseShape(n, parentName) {
    if (n.numChildren === 0) return { kind: 'leaf', desc: descOf(n) };
    if (isListNode(n) && n.children.length === 1 && n.children[0].repetition === 'REPEATED') {
        const r = n.children[0];
        let element;
        if (r.numChildren === 0) element = baseShape(r, n.name); // two-level: the repeated primitive
        else if (r.children.length > 1 || r.name === 'array' || r.name === `${n.name}_tuple`) {
            element = baseShape(r, n.name); // the repeated group is the element
        } else element = shapeOf(r.children[0], r.name); // three-level
        return { kind: 'list', element };
    }
    if (isMapNode(n) && n.children.length === 1 && n.children[0].repetition === 'REPEATED' &&
        n.children[0].children.length === 2) {
        const kv = n.children[0];
        return { kind: 'map', key: shapeOf(kv.children[0], kv.name), value: shapeOf(kv.children[1], kv.name) };
    }
    return { kind: 'struct', fields: n.children.map((c) => ({ name: c.name, shape: shapeOf(c, n.name) })) };
}

// A repeated field outside a LIST/MAP is a list of required elements.
function shapeOf(n, parentName) {
    const b = baseShape(n, parentName);
    return n.repetition === 'REPEATED' ? { kind: 'list', element: b } : b;
}

// Attaches DuckDB's type of each leaf (walking DuckDB's nested type along
// the shape) and the comparison hint of every leaf.
function attachTypes(shape, duckType) {
    const t = duckType || {};
    switch (shape.kind) {
    case 'leaf': shape.duckType = String(duckType); shape.hint = hintFor(shape.desc, shape.duckType); break;
    case 'list': attachTypes(shape.element, t.valueType); break;
    case 'map': attachTypes(shape.key, t.keyType); attachTypes(shape.value, t.valueType); break;
    case 'struct': shape.fields.forEach((f, i) => attachTypes(f.shape, t.entryTypes ? t.entryTypes[i] : undefined)); break;
    default: break;
    }
}

// Formats a DuckDB value of a column with that shape as the jsonl token.
export function formatShaped(shape, v) {
    if (v === null || v === undefined) return 'null';
    switch (shape.kind) {
    case 'leaf': return formatDuckValue(shape.desc, v);
    case 'list': return '[' + v.items.map((x) => formatShaped(shape.element, x)).join(',') + ']';
    case 'map':
        return '[' + v.entries.map((e) => `{"key":${formatShaped(shape.key, e.key)},"value":${formatShaped(shape.value, e.value)}}`).join(',') + ']';
    case 'struct':
        return '{' + shape.fields.map((f) => `${JSON.stringify(f.name)}:${formatShaped(f.shape, v.entries[f.name])}`).join(',') + '}';
    default: throw new Error(`unknown shape ${shape.kind}`);
    }
}

// Reads parquet_schema(file) into a tree; returns the root's children as
// { name, flat, desc, shape } where desc is the jsonl_format column record
// (of the leaf, for flat columns) and shape the column's nesting.
export async function duckSchema(con, file) {
    const r = await con.runAndReadAll(`SELECT name, type, type_length, repetition_type, num_children,
        converted_type, scale, precision, logical_type FROM parquet_schema(${sqlString(file)})`);
    const rows = r.getRowObjects();
    let pos = 0;
    const num = (v) => (v === null || v === undefined ? null : Number(v));
    function node() {
        const row = rows[pos++];
        const n = {
            name: row.name, physical: row.type, typeLength: num(row.type_length),
            repetition: row.repetition_type, numChildren: num(row.num_children) || 0,
            converted: row.converted_type, scale: num(row.scale), precision: num(row.precision),
            logicalText: row.logical_type, children: [],
        };
        for (let k = 0; k < n.numChildren; k++) n.children.push(node());
        return n;
    }
    const root = node();
    return root.children.map((n) => {
        const flat = n.numChildren === 0 && n.physical !== null && n.repetition !== 'REPEATED';
        const shape = shapeOf(n, root.name);
        const desc = flat ? descOf(n) : { name: n.name, physical: null, typeLength: null, logical: { kind: 'NESTED' } };
        return { name: n.name, flat, desc, shape };
    });
}

// The comparison hint and lossy note for a column as DuckDB delivers it.
function hintFor(desc, duckType) {
    const L = desc.logical;
    if (desc.physical === 'FLOAT') return { cmp: 'float' };
    if (desc.physical === 'DOUBLE') return { cmp: 'double' };
    if (L.kind === 'FLOAT16') return { cmp: 'half' };
    if (desc.physical === 'INT96') {
        return { cmp: 'truncfrac', digits: 3, lossy: 'INT96 read by DuckDB as TIMESTAMP (microseconds): nanosecond digits compared truncated' };
    }
    if ((L.kind === 'TIMESTAMP' || L.kind === 'TIME') && L.unit === 'NANOS' && !/_NS$/.test(duckType)) {
        return { cmp: 'truncfrac', digits: 3, lossy: `${L.kind}(NANOS) read by DuckDB as ${duckType}: nanosecond digits compared truncated` };
    }
    if (L.kind === 'DECIMAL' && duckType === 'DOUBLE') {
        return { cmp: 'decimal-as-double', lossy: `DECIMAL(${L.precision},${L.scale}) read by DuckDB as DOUBLE: compared numerically` };
    }
    return { cmp: 'exact' };
}

const big = (v) => (typeof v === 'bigint' ? v : BigInt(v));

// A DuckDB timestamp/time value as a BigInt count of nanoseconds.
function duckNanos(v) {
    if (v.nanos !== undefined) return big(v.nanos);
    if (v.micros !== undefined) return big(v.micros) * 1000n;
    if (v.millis !== undefined) return big(v.millis) * 1000000n;
    if (v.seconds !== undefined) return big(v.seconds) * 1000000000n;
    throw new Error(`unexpected DuckDB time value ${v && v.constructor && v.constructor.name}`);
}
const NS_PER_UNIT = { MILLIS: 1000000n, MICROS: 1000n, NANOS: 1n };
// Floor division for BigInt (timestamps before 1970).
const fdiv = (a, b) => { const q = a / b; return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q; };

function bytesOf(v) {
    if (v instanceof Uint8Array) return v;
    if (v && v.bytes instanceof Uint8Array) return v.bytes;
    throw new Error(`expected bytes from DuckDB, got ${v && v.constructor && v.constructor.name}`);
}

// Formats one DuckDB value of a column as the jsonl token.
export function formatDuckValue(desc, v) {
    if (v === null || v === undefined) return 'null';
    const L = desc.logical;
    if (L.kind === 'UNKNOWN') return 'null';
    switch (desc.physical) {
    case 'BOOLEAN': return v ? 'true' : 'false';
    case 'FLOAT': return fmtFloat(Number(v), 'float');
    case 'DOUBLE': return fmtFloat(Number(v), 'double');
    case 'INT96': return fmtTimestamp(duckNanos(v), 'NANOS', false);
    default: break;
    }
    switch (L.kind) {
    case 'DECIMAL': {
        if (typeof v === 'number') return fmtFloat(v, 'double'); // precision > 38: DuckDB DOUBLE
        let unscaled = big(v.value);
        const s = v.scale;
        if (s < L.scale) unscaled *= 10n ** BigInt(L.scale - s);
        else if (s > L.scale) unscaled /= 10n ** BigInt(s - L.scale);
        return fmtDecimal(unscaled, L.scale);
    }
    case 'DATE': return fmtDate(v.days);
    case 'TIME': return fmtTime(fdiv(duckNanos(v), NS_PER_UNIT[L.unit]), L.unit);
    case 'TIMESTAMP': return fmtTimestamp(fdiv(duckNanos(v), NS_PER_UNIT[L.unit]), L.unit, L.utc);
    case 'INTEGER':
        if (!L.signed) return fmtUnsigned(v, L.bitWidth);
        return big(v).toString();
    case 'FLOAT16': return fmtFloat(Number(v), 'half');
    case 'STRING': case 'ENUM': case 'JSON':
        return fmtString(typeof v === 'string' ? v : utf8Replace(bytesOf(v)));
    case 'UUID': {
        if (v.hugeint !== undefined) {
            // DuckDB stores UUIDs as a hugeint with the top bit flipped.
            const u = BigInt.asUintN(128, big(v.hugeint) ^ (1n << 127n));
            return fmtUuidBytes(Buffer.from(u.toString(16).padStart(32, '0'), 'hex'));
        }
        return fmtUuidBytes(bytesOf(v));
    }
    case 'INTERVAL': return fmtInterval(v.months, v.days, (big(v.micros) / 1000n).toString());
    default: break;
    }
    if (desc.physical === 'INT32' || desc.physical === 'INT64') return big(v).toString();
    return fmtBase64(bytesOf(v));
}

// Reads the top-level columns, flat and nested (all, or `columns` in schema
// order). Returns { columns: [{ name, desc, shape, duckType, hint }],
// nested: [], lines }: `nested` names the columns left out, none here;
// nested columns carry hint { cmp: 'nested' } and their shape (with a hint
// per leaf).
export async function duckdbJsonl(con, file, columns) {
    const top = await duckSchema(con, file);
    const want = columns ? new Set(columns) : null;
    const cols = top.filter((c) => !want || want.has(c.name));
    if (cols.length === 0) return { columns: [], nested: [], lines: [] };
    const sel = cols.map((c) => sqlIdent(c.name)).join(', ');
    const r = await con.runAndReadAll(`SELECT ${sel} FROM read_parquet(${sqlString(file)}, binary_as_string=false)`);
    const typeObjs = r.columnTypes();
    const types = typeObjs.map(String);
    const out = cols.map((c, i) => {
        if (c.flat) return { name: c.name, desc: c.desc, shape: c.shape, duckType: types[i], hint: hintFor(c.desc, types[i]) };
        attachTypes(c.shape, typeObjs[i]);
        return { name: c.name, desc: c.desc, shape: c.shape, duckType: types[i], hint: { cmp: 'nested' } };
    });
    const keys = out.map((c) => JSON.stringify(c.name));
    const lines = r.getRows().map((row) => '{' + row.map((v, i) => `${keys[i]}:${formatShaped(out[i].shape, v)}`).join(',') + '}');
    return { columns: out, nested: [], lines }; // nothing left out
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) peerMain('duckdb_jsonl', async (file, columns) => duckdbJsonl(await openDuck(), file, columns));
