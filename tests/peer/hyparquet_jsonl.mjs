#!/usr/bin/env node
// hyparquet_jsonl.mjs FILE [--columns a,b]: the top-level primitive columns of
// a Parquet file as jsonl in the `plank cat --format jsonl` format, read by
// hyparquet (pure JavaScript; codecs from hyparquet-compressors, which handles
// Hadoop-framed LZ4). Used for files DuckDB cannot read.
//
// hyparquet converts logical types itself (decimals to JS numbers, timestamps
// to Date), which loses precision; so the annotations are removed from a copy
// of the footer's schema before reading, hyparquet returns the physical values
// (INT64 as BigInt, byte arrays as bytes, INT96 as BigInt nanoseconds) and
// they are formatted here from the original annotations.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { pathToFileURL } from 'node:url';
import {
    logicalFromConverted, fmtUnsigned, fmtDecimal, fmtDate, fmtTime, fmtTimestamp,
    fmtString, fmtBase64, fmtUuidBytes, fmtInterval, fmtFloat, utf8Replace, peerMain, bigFromBytesBE, halfToNumber,
} from './jsonl_format.mjs';

// hyparquet's LogicalType objects -> the jsonl_format logical record.
function logicalOf(el) {
    const lt = el.logical_type;
    if (!lt) return logicalFromConverted(el.converted_type, el.scale, el.precision);
    switch (lt.type) {
    case 'STRING': case 'ENUM': case 'JSON': case 'BSON': case 'UUID': case 'FLOAT16':
    case 'DATE': case 'GEOMETRY': case 'GEOGRAPHY':
        return { kind: lt.type };
    case 'NULL': return { kind: 'UNKNOWN' };
    case 'DECIMAL': return { kind: 'DECIMAL', scale: lt.scale ?? 0, precision: lt.precision };
    case 'TIME': case 'TIMESTAMP': return { kind: lt.type, unit: lt.unit, utc: !!lt.isAdjustedToUTC };
    case 'INTEGER': return { kind: 'INTEGER', bitWidth: lt.bitWidth, signed: !!lt.isSigned };
    default: return { kind: 'UNRECOGNIZED', text: lt.type };
    }
}

// INT96 from its 12 raw bytes: 8 bytes LE nanoseconds of the day, then 4
// bytes LE Julian day (read unsigned). A nanoseconds field outside one day has
// no defined meaning (writers and readers disagree: DuckDB and hyparquet print
// different instants for it), so it becomes a marker the comparer reports
// without counting it as a mismatch.
export const INT96_UNDEFINED = 'int96_nanos_out_of_day';
function fmtInt96(bytes) {
    const b = Buffer.from(bytes);
    const nanos = b.readBigInt64LE(0);
    const days = BigInt(b.readUInt32LE(8)) - 2440588n;
    if (nanos < 0n || nanos >= 86400000000000n) return `{"${INT96_UNDEFINED}":"${b.toString('hex')}"}`;
    return fmtTimestamp(days * 86400000000000n + nanos, 'NANOS', false);
}

// One physical value -> jsonl token.
export function formatRawValue(desc, v) {
    if (v === null || v === undefined) return 'null';
    const L = desc.logical;
    if (L.kind === 'UNKNOWN') return 'null';
    switch (desc.physical) {
    case 'BOOLEAN': return v ? 'true' : 'false';
    case 'FLOAT': return fmtFloat(Math.fround(v), 'float');
    case 'DOUBLE': return fmtFloat(v, 'double');
    case 'INT96': return fmtInt96(v);
    default: break;
    }
    const isInt = desc.physical === 'INT32' || desc.physical === 'INT64';
    switch (L.kind) {
    case 'DECIMAL': return fmtDecimal(isInt ? BigInt(v) : bigFromBytesBE(v), L.scale);
    case 'DATE': return fmtDate(v);
    case 'TIME': return fmtTime(BigInt(v), L.unit);
    case 'TIMESTAMP': return fmtTimestamp(BigInt(v), L.unit, L.utc);
    case 'INTEGER': return L.signed ? BigInt(v).toString() : fmtUnsigned(v, L.bitWidth);
    case 'FLOAT16': return fmtFloat(halfToNumber(v[0] | (v[1] << 8)), 'half');
    case 'STRING': case 'ENUM': case 'JSON': return fmtString(utf8Replace(v));
    case 'UUID': return fmtUuidBytes(v);
    case 'INTERVAL': {
        const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
        return fmtInterval(dv.getUint32(0, true), dv.getUint32(4, true), dv.getUint32(8, true));
    }
    default: break;
    }
    if (isInt) return BigInt(v).toString();
    return fmtBase64(v);
}

// Returns { columns: [{ name, desc, hint }], nested: [names], lines }.
export async function hyparquetJsonl(file, columns) {
    const buf = await asyncBufferFromFile(file);
    const metadata = await parquetMetadataAsync(buf);
    // Rebuild the top level of the tree from the flattened schema.
    const schema = metadata.schema;
    const top = [];
    let pos = 1;
    function skip() { const n = schema[pos++].num_children || 0; for (let k = 0; k < n; k++) skip(); }
    for (let k = 0; k < (schema[0].num_children || 0); k++) {
        const el = schema[pos];
        const flat = !el.num_children && el.type !== undefined && el.repetition_type !== 'REPEATED';
        top.push({ el, flat });
        skip();
    }
    const want = columns ? new Set(columns) : null;
    const cols = top.filter((c) => c.flat && (!want || want.has(c.el.name))).map(({ el }) => ({
        name: el.name,
        desc: { name: el.name, physical: el.type, typeLength: el.type_length, logical: logicalOf(el) },
        hint: { cmp: el.type === 'FLOAT' ? 'float' : el.type === 'DOUBLE' ? 'double'
            : logicalOf(el).kind === 'FLOAT16' ? 'half' : 'exact' },
    }));
    const nested = top.filter((c) => !c.flat).map((c) => c.el.name);
    if (cols.length === 0) return { columns: [], nested, lines: [] };
    // Physical values only: drop the annotations from a copy of the schema,
    // and read INT96 as its 12 raw bytes (hyparquet's own INT96 conversion
    // mis-assembles a nanoseconds field with the top bit set).
    const rawSchema = schema.map((el) => {
        if (el.num_children) return el;
        const { converted_type: _c, logical_type: _l, ...rest } = el;
        if (rest.type === 'INT96') return { ...rest, type: 'FIXED_LEN_BYTE_ARRAY', type_length: 12 };
        return rest;
    });
    const rowGroups = metadata.row_groups.map((rg) => ({
        ...rg,
        columns: rg.columns.map((c) => (c.meta_data && c.meta_data.type === 'INT96'
            ? { ...c, meta_data: { ...c.meta_data, type: 'FIXED_LEN_BYTE_ARRAY' } } : c)),
    }));
    const rows = await parquetReadObjects({
        file: buf, metadata: { ...metadata, schema: rawSchema, row_groups: rowGroups }, compressors, utf8: false,
        columns: cols.map((c) => c.name), geoparquet: false,
    });
    const keys = cols.map((c) => JSON.stringify(c.name));
    const lines = rows.map((row) => '{' + cols.map((c, i) => `${keys[i]}:${formatRawValue(c.desc, row[c.name])}`).join(',') + '}');
    return { columns: cols, nested, lines };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) peerMain('hyparquet_jsonl', hyparquetJsonl);
