#!/usr/bin/env node
// variant_roundtrip.mjs PLANK: `plank convert --variant` read back by DuckDB.
//
// JSON lines with varied values in a column v (objects with many keys,
// nested arrays, unicode, escapes, big integers, decimals, doubles, nulls,
// missing fields) and a CSV file with a JSON column are converted with
// `plank convert ... --variant v`; DuckDB's `v::JSON` of each row must equal
// the input JSON by meaning: both parsed here with numbers kept as their
// text, object keys in any order, numbers compared as the encoder's type
// rules imply (integers and decimals exactly as decimal values, numbers with
// an exponent or more than 38 digits as doubles). A missing field is a null
// group (DuckDB: NULL or null). A few rows' variant_typeof confirm the
// encoded types. Exits 1 on any mismatch, 77 when node_modules are missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { skipTest } from './skip.mjs';

const plank = process.argv[2];
if (!plank) {
    process.stderr.write('usage: variant_roundtrip.mjs PLANK\n');
    process.exit(2);
}
let DuckDBInstance;
try {
    ({ DuckDBInstance } = await import('@duckdb/node-api'));
} catch (e) {
    skipTest('peer_variant_roundtrip', `@duckdb/node-api is not installed (run npm ci): ${e.message}`);
}

// ---- a JSON parser that keeps numbers as text -----------------------------------------

let dotted = 0;

function parse(text) {
    let i = 0;
    const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
    const value = () => {
        ws();
        const c = text[i];
        if (c === '{') {
            i++;
            const o = new Map();
            ws();
            if (text[i] === '}') { i++; return o; }
            for (;;) {
                ws();
                const k = str();
                ws();
                if (text[i++] !== ':') throw new Error(`':' expected at ${i}`);
                o.set(k, value());
                ws();
                if (text[i] === ',') { i++; continue; }
                if (text[i++] === '}') return o;
                throw new Error(`bad object at ${i}`);
            }
        }
        if (c === '[') {
            i++;
            const a = [];
            ws();
            if (text[i] === ']') { i++; return a; }
            for (;;) {
                a.push(value());
                ws();
                if (text[i] === ',') { i++; continue; }
                if (text[i++] === ']') return a;
                throw new Error(`bad array at ${i}`);
            }
        }
        if (c === '"') return str();
        for (const [w, v] of [['true', true], ['false', false], ['null', null]])
            if (text.startsWith(w, i)) { i += w.length; return v; }
        // DuckDB 1.5.6 writes decimals below 1 without their leading zero
        // (0.5 as .5, -0.25 as -.25): read those too (noted as dotted).
        const m = /^-?(0|[1-9]\d*)?(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
        if (!m || m[0] === '' || m[0] === '-' || (m[1] === undefined && m[2] === undefined))
            throw new Error(`bad value at ${i}: ${text.slice(i, i + 20)}`);
        i += m[0].length;
        if (m[1] === undefined) {
            dotted++;
            return { num: m[0].replace('.', '0.') };
        }
        return { num: m[0] };
    };
    const str = () => {
        const m = /^"(?:[^"\\]|\\.)*"/su.exec(text.slice(i));
        if (!m) throw new Error(`bad string at ${i}`);
        i += m[0].length;
        return JSON.parse(m[0]);
    };
    const v = value();
    ws();
    if (i !== text.length) throw new Error(`text after the value at ${i}`);
    return v;
}

// The encoder's type rule for a number literal: 'exact' (integer or
// decimal) or 'double'.
function numberKind(lit) {
    if (/[eE]/.test(lit)) return 'double';
    const digits = lit.replace(/^-/, '').replace('.', '').replace(/^0+/, '');
    const scale = lit.includes('.') ? lit.length - lit.indexOf('.') - 1 : 0;
    if (!lit.includes('.') && BigInt(lit) >= -(2n ** 63n) && BigInt(lit) < 2n ** 63n) return 'exact';
    return digits.length <= 38 && scale <= 38 ? 'exact' : 'double';
}

// An exact decimal literal in a canonical form: no sign on zero, no leading
// zeros, no trailing fraction zeros.
function canonDecimal(lit) {
    let neg = lit.startsWith('-');
    let [ip, fp = ''] = lit.replace(/^-/, '').split('.');
    fp = fp.replace(/0+$/, '');
    ip = ip.replace(/^0+/, '') || '0';
    if (ip === '0' && fp === '') neg = false;
    return (neg ? '-' : '') + ip + (fp ? '.' + fp : '');
}

function same(want, got, where) {
    if (want && typeof want === 'object' && 'num' in want) {
        if (!(got && typeof got === 'object' && 'num' in got)) return `${where}: number ${want.num} became ${JSON.stringify(got)}`;
        if (/[eE]/.test(got.num) && numberKind(want.num) === 'exact' && !/[eE]/.test(want.num))
            return `${where}: exact ${want.num} came back as ${got.num}`;
        const ok = numberKind(want.num) === 'exact'
            ? canonDecimal(want.num) === canonDecimal(got.num)
            : Number(want.num) === Number(got.num);
        return ok ? null : `${where}: ${want.num} != ${got.num}`;
    }
    if (want instanceof Map) {
        if (!(got instanceof Map)) return `${where}: object became ${typeof got}`;
        if (want.size !== got.size) return `${where}: ${want.size} keys, got ${got.size}`;
        for (const [k, v] of want) {
            if (!got.has(k)) return `${where}: key ${JSON.stringify(k)} missing`;
            const r = same(v, got.get(k), `${where}.${k}`);
            if (r) return r;
        }
        return null;
    }
    if (Array.isArray(want)) {
        if (!Array.isArray(got) || want.length !== got.length) return `${where}: array length differs`;
        for (let k = 0; k < want.length; k++) {
            const r = same(want[k], got[k], `${where}[${k}]`);
            if (r) return r;
        }
        return null;
    }
    return want === got ? null : `${where}: ${JSON.stringify(want)} != ${JSON.stringify(got)}`;
}

// ---- the input ---------------------------------------------------------------------------

// Deterministic pseudo-random values (xorshift).
let seed = 0x9e3779b9;
const rnd = (n) => {
    seed ^= seed << 13; seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5; seed >>>= 0;
    return seed % n;
};
const fixed = [
    '0', '-1', '127', '128', '-129', '32767', '32768', '2147483647', '2147483648', '-2147483649',
    '9223372036854775807', '-9223372036854775808', '9223372036854775808',
    '123456789012345678901234567890', '99999999999999999999999999999999999999',
    '999999999999999999999999999999999999999', '1.5', '-1.50', '0.001', '-0.0', '3.14159265358979',
    '12345678901234567.25', '0.000000000000000000000000000000000000001', '1e3', '-2.5E-7', '6.02e23',
    '"plain"', '""', '"h\\u00e9llo \\ud83d\\ude00 \\"q\\" \\\\ \\n"', '"日本語テキスト"',
    '"a string that is longer than sixty-four bytes, so it takes the long form"',
    'true', 'false', 'null', '[]', '{}', '[1,[2,[3,[4,[]]]],{"a":[null]}]',
    '{"b":1,"a":{"d":[true,false],"c":"x"},"":0}',
    '{"k\\u00e9y":"v","Key":"upper","key":"lower"}',
];
const many = '{' + Array.from({ length: 300 }, (_, k) => `"f${(k * 7919) % 300}":${k}`).join(',') + '}';
const bigArr = '[' + Array.from({ length: 400 }, (_, k) => (k % 3 ? `${k}.${k % 10}` : `"s${k}"`)).join(',') + ']';
const values = [...fixed, many, bigArr];
for (let k = 0; k < 200; k++) {
    const atoms = ['1', '-42', '"x"', 'null', 'true', '0.5', '1e-3', '70000', '"\\u20ac"', '12345678901234567890'];
    const gen = (d) => {
        const r = rnd(d > 3 ? 2 : 4);
        if (r === 2) return '[' + Array.from({ length: rnd(5) }, () => gen(d + 1)).join(',') + ']';
        if (r === 3) {
            const n = rnd(6), keys = new Set();
            for (let j = 0; j < n; j++) keys.add('k' + rnd(10));
            return '{' + [...keys].map((kk) => `"${kk}":${gen(d + 1)}`).join(',') + '}';
        }
        return atoms[rnd(atoms.length)];
    };
    values.push(gen(0));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plank-variant-'));
let failures = 0;
const fail = (msg) => { failures++; if (failures <= 60) console.log(`FAIL: ${msg}`); };
try {
    // JSON lines: row id k has v = values[k]; every 7th row lacks v.
    const lines = [], expected = new Map();
    values.forEach((v, k) => {
        if (k % 7 === 6) {
            lines.push(`{"id":${k}}`);
            expected.set(k, undefined);
        }
        lines.push(`{"id":${k + 1000},"v":${v}}`);
        expected.set(k + 1000, v);
    });
    const jsonl = path.join(dir, 'in.jsonl'), pq = path.join(dir, 'out.parquet');
    fs.writeFileSync(jsonl, lines.join('\n') + '\n');
    const run = (args) => {
        const r = spawnSync(plank, args, { encoding: 'utf8' });
        if (r.status !== 0) fail(`plank ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
        return r;
    };
    run(['convert', jsonl, pq, '--variant', 'v']);
    // CSV: a JSON column, quoted, and an empty (null) cell.
    const csv = path.join(dir, 'in.csv'), pq2 = path.join(dir, 'csv.parquet');
    // (the fields as written: empty and unquoted null are SQL nulls, a quoted
    // "null" is the JSON null)
    const csvRows = [['1', '"{""a"":1,""b"":[1.25,""x""]}"'], ['2', ''], ['3', 'null'], ['4', '"null"'], ['5', '"[1,2,3]"']];
    fs.writeFileSync(csv, 'id,v\n' + csvRows.map(([id, v]) => `${id},${v}`).join('\n') + '\n');
    run(['convert', csv, pq2, '--variant', 'v', '--schema', 'id:int64']);
    // errors: invalid JSON in a variant column fails, naming the line
    fs.writeFileSync(path.join(dir, 'bad.jsonl'), '{"id":1,"v":[1,2]}\n{"id":2,"v":{"a":1,"a":2}}\n');
    const bad = spawnSync(plank, ['convert', path.join(dir, 'bad.jsonl'), path.join(dir, 'bad.parquet'), '--variant', 'v'], { encoding: 'utf8' });
    if (bad.status === 0 || !/line 2/.test(bad.stderr) || !/twice/.test(bad.stderr))
        fail(`a duplicate key should fail naming line 2: exit ${bad.status}: ${bad.stderr}`);
    if (fs.existsSync(path.join(dir, 'bad.parquet'))) fail('a failed conversion left its output');

    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const rows = async (sql) => (await con.runAndReadAll(sql)).getRowsJson();
    const got = await rows(`SELECT id, v::JSON::VARCHAR, v IS NULL FROM read_parquet('${pq}') ORDER BY id`);
    if (got.length !== expected.size) fail(`${got.length} rows, want ${expected.size}`);
    let compared = 0;
    for (const [idText, j] of got) {
        const id = Number(idText), want = expected.get(id);
        if (want === undefined) {
            if (j !== null && j !== 'null') fail(`row ${id}: a missing field read as ${j}`);
            continue;
        }
        if (j === null) {
            if (want !== 'null') fail(`row ${id}: ${want} read as NULL`);
            continue;
        }
        try {
            const r = same(parse(want), parse(j), `row ${id}`);
            if (r) fail(`${r} (input ${want.slice(0, 80)}, DuckDB ${j.slice(0, 80)})`);
            else compared++;
        } catch (e) {
            fail(`row ${id}: ${e.message}`);
        }
    }
    // Types as DuckDB names them.
    const typeOf = async (file, id) => (await rows(`SELECT variant_typeof(v) FROM read_parquet('${file}') WHERE id = ${id}`))[0]?.[0];
    const idOf = (lit) => values.indexOf(lit) + 1000;
    const types = [
        ['127', 'INT8'], ['128', 'INT16'], ['32768', 'INT32'], ['2147483648', 'INT64'],
        ['1.5', 'DECIMAL(2, 1)'], ['-1.50', 'DECIMAL(3, 2)'], ['12345678901234567.25', 'DECIMAL(38, 2)'],
        ['9223372036854775808', 'DECIMAL(38, 0)'], ['1e3', 'DOUBLE'], ['"plain"', 'VARCHAR'],
        ['null', 'VARIANT_NULL'], ['true', 'BOOL_TRUE'], ['[]', 'ARRAY(0)'],
    ];
    for (const [lit, want] of types) {
        const t = await typeOf(pq, idOf(lit));
        if (t !== want) fail(`variant_typeof(${lit}) is ${t}, want ${want}`);
    }
    const csvGot = await rows(`SELECT id, v::JSON::VARCHAR, variant_typeof(v) FROM read_parquet('${pq2}') ORDER BY id`);
    const csvWant = { 1: '{"a":1,"b":[1.25,"x"]}', 2: null, 3: null, 4: 'null', 5: '[1,2,3]' };
    for (const [idText, j] of csvGot) {
        const want = csvWant[Number(idText)];
        if (want === null) {
            if (j !== null && j !== 'null') fail(`csv row ${idText}: a null cell read as ${j}`);
        } else {
            const r = j === null ? 'NULL' : same(parse(want), parse(j), `csv row ${idText}`);
            if (r) fail(String(r));
            else compared++;
        }
    }
    if (csvGot.length !== 5) fail(`csv: ${csvGot.length} rows`);
    console.log(`variant_roundtrip: ${compared} values compared, ${types.length} types, ${failures} failures` +
        (dotted ? ` (DuckDB wrote ${dotted} decimals below 1 without the leading zero)` : ''));
} finally {
    fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);
