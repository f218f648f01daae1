#!/usr/bin/env node
// variant_corpus.mjs PLANK GEN_VARIANT_CASES: VARIANT reading checked against
// the parquet-testing corpus and DuckDB.
//
//  1. variant/ (raw metadata + value binaries, not Parquet files):
//     gen_variant_cases wraps them into one Parquet file with a VARIANT
//     column; `plank cat --format jsonl` must print each value as
//       (a) the value a decoder written here (from VariantEncoding.md) reads
//           from the same bytes, in plank's text forms, exactly (numbers by
//           type: integers exactly, floats and doubles by value);
//       (b) the corpus's data_dictionary.json, compared by meaning (its
//           decimals are JSON numbers, its timestamps carry offsets);
//       (c) DuckDB's `v::JSON` of the same file, compared by meaning.
//  2. shredded_variant/ (cases.json): every case file through `plank cat`.
//     Error cases must fail with the case's message; the others must print
//     the value of the case's *.variant.bin (metadata and value back to
//     back), decoded here, exactly as in (a), row by row (a null file name
//     is a null variant); and DuckDB's `var::JSON`, where DuckDB reads the
//     file, must agree by meaning.
// Exits 1 on any mismatch, 77 when node_modules or the corpus is missing (1
// under PLANK_REQUIRE_CORPUS=1).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipTest } from './skip.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const [plank, gen] = process.argv.slice(2);
const testing = process.env.PLANK_TESTING_DIR || path.resolve(repo, '..', 'shared', 'parquet-testing');
const vdir = path.join(testing, 'variant'), sdir = path.join(testing, 'shredded_variant');
if (!fs.existsSync(vdir) || !fs.existsSync(sdir)) skipTest('variant_corpus', `no variant corpus under ${testing}`);
if (!plank || !gen) skipTest('variant_corpus', 'usage: variant_corpus.mjs PLANK GEN_VARIANT_CASES');
let duckdb;
try {
    duckdb = await import('@duckdb/node-api');
} catch (e) {
    skipTest('variant_corpus', `npm peers not installed (run \`npm ci\` in ${repo}): ${e.message}`);
}

let failures = 0, checks = 0;
function fail(what, detail) {
    failures++;
    console.log(`FAIL ${what}: ${detail}`);
}

// ---- An independent variant decoder -------------------------------------------
// Typed nodes: {t:'null'} {t:'bool',v} {t:'int',v:BigInt} {t:'float'|'double',v}
// {t:'text',v} (strings and every type plank prints as a JSON string: decimals,
// dates, times, timestamps, binary, uuid) {t:'obj',f:[[key,node]...]} {t:'arr',a:[...]}
function uint(b, at, n) {
    let v = 0;
    for (let i = n - 1; i >= 0; i--) v = v * 256 + b[at + i];
    return v;
}
function parseMeta(b) {
    const os_ = (b[0] >> 6) + 1;
    if ((b[0] & 15) !== 1) throw new Error('metadata version');
    const n = uint(b, 1, os_);
    const offAt = 1 + os_, bytesAt = offAt + (n + 1) * os_;
    const keys = [];
    for (let i = 0; i < n; i++) {
        const s = uint(b, offAt + i * os_, os_), e = uint(b, offAt + (i + 1) * os_, os_);
        keys.push(Buffer.from(b.subarray(bytesAt + s, bytesAt + e)).toString('utf8'));
    }
    return { keys, size: bytesAt + (n ? uint(b, offAt + n * os_, os_) : 0) };
}
const pad = (v, w) => String(v).padStart(w, '0');
function civil(days) {
    const d = new Date(Number(days) * 86400000);
    const y = d.getUTCFullYear();
    return `${y < 0 ? '-' : ''}${pad(Math.abs(y), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}
function clock(inDay, perSec, digits) {
    const s = inDay / perSec;
    return `${pad(s / 3600n, 2)}:${pad((s / 60n) % 60n, 2)}:${pad(s % 60n, 2)}.${pad(inDay % perSec, digits)}`;
}
function stamp(v, nanos, utc) {
    const perSec = nanos ? 1000000000n : 1000000n, perDay = perSec * 86400n;
    let days = v / perDay, rem = v % perDay;
    if (rem < 0n) { rem += perDay; days -= 1n; }
    return `${civil(days)}T${clock(rem, perSec, nanos ? 9 : 6)}${utc ? 'Z' : ''}`;
}
function decimalText(u, scale) {
    const neg = u < 0n;
    let s = (neg ? -u : u).toString();
    if (scale > 0) {
        s = s.padStart(scale + 1, '0');
        s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
    }
    return (neg ? '-' : '') + s;
}
function decode(keys, b, at) {
    const h = b[at], basic = h & 3, hdr = h >> 2;
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    if (basic === 1) return { t: 'text', v: Buffer.from(b.subarray(at + 1, at + 1 + hdr)).toString('utf8') };
    if (basic === 0) {
        const p = at + 1;
        switch (hdr) {
        case 0: return { t: 'null' };
        case 1: return { t: 'bool', v: true };
        case 2: return { t: 'bool', v: false };
        case 3: return { t: 'int', v: BigInt(dv.getInt8(p)) };
        case 4: return { t: 'int', v: BigInt(dv.getInt16(p, true)) };
        case 5: return { t: 'int', v: BigInt(dv.getInt32(p, true)) };
        case 6: return { t: 'int', v: dv.getBigInt64(p, true) };
        case 7: return { t: 'double', v: dv.getFloat64(p, true) };
        case 8: return { t: 'text', v: decimalText(BigInt(dv.getInt32(p + 1, true)), b[p]) };
        case 9: return { t: 'text', v: decimalText(dv.getBigInt64(p + 1, true), b[p]) };
        case 10: return { t: 'text', v: decimalText((dv.getBigInt64(p + 9, true) << 64n) | dv.getBigUint64(p + 1, true), b[p]) };
        case 11: return { t: 'text', v: civil(dv.getInt32(p, true)) };
        case 12: return { t: 'text', v: stamp(dv.getBigInt64(p, true), false, true) };
        case 13: return { t: 'text', v: stamp(dv.getBigInt64(p, true), false, false) };
        case 14: return { t: 'float', v: dv.getFloat32(p, true) };
        case 15: return { t: 'text', v: Buffer.from(b.subarray(p + 4, p + 4 + dv.getUint32(p, true))).toString('base64') };
        case 16: return { t: 'text', v: Buffer.from(b.subarray(p + 4, p + 4 + dv.getUint32(p, true))).toString('utf8') };
        case 17: return { t: 'text', v: clock(dv.getBigInt64(p, true), 1000000n, 6) };
        case 18: return { t: 'text', v: stamp(dv.getBigInt64(p, true), true, true) };
        case 19: return { t: 'text', v: stamp(dv.getBigInt64(p, true), true, false) };
        case 20: {
            const x = Buffer.from(b.subarray(p, p + 16)).toString('hex');
            return { t: 'text', v: `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}` };
        }
        default: throw new Error(`primitive ${hdr}`);
        }
    }
    const obj = basic === 2;
    const offSize = (hdr & 3) + 1, idSize = obj ? ((hdr >> 2) & 3) + 1 : 0;
    const large = obj ? (hdr >> 4) & 1 : (hdr >> 2) & 1;
    let p = at + 1;
    const n = uint(b, p, large ? 4 : 1);
    p += large ? 4 : 1;
    const idsAt = p, offsAt = idsAt + n * idSize, valsAt = offsAt + (n + 1) * offSize;
    const items = [];
    for (let i = 0; i < n; i++) {
        const v = decode(keys, b, valsAt + uint(b, offsAt + i * offSize, offSize));
        items.push(obj ? [keys[uint(b, idsAt + i * idSize, idSize)], v] : v);
    }
    return obj ? { t: 'obj', f: items } : { t: 'arr', a: items };
}

// ---- JSON with numbers kept as text ------------------------------------------------
function parseJson(text) {
    let i = 0;
    const ws = () => { while (/\s/.test(text[i])) i++; };
    function val() {
        ws();
        const c = text[i];
        if (c === '{') {
            i++; const f = []; ws();
            if (text[i] === '}') { i++; return { j: 'obj', f }; }
            for (;;) { ws(); const k = val().v; ws(); i++; f.push([k, val()]); ws(); if (text[i++] === '}') return { j: 'obj', f }; }
        }
        if (c === '[') {
            i++; const a = []; ws();
            if (text[i] === ']') { i++; return { j: 'arr', a }; }
            for (;;) { a.push(val()); ws(); if (text[i++] === ']') return { j: 'arr', a }; }
        }
        if (c === '"') {
            let e = i + 1;
            while (text[e] !== '"') e += text[e] === '\\' ? 2 : 1;
            const s = JSON.parse(text.slice(i, e + 1)); i = e + 1; return { j: 'str', v: s };
        }
        const m = /^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i));
        if (!m) throw new Error(`bad JSON at ${i}: ${text.slice(i, i + 20)}`);
        i += m[0].length;
        if (m[0] === 'null') return { j: 'null' };
        if (m[0] === 'true' || m[0] === 'false') return { j: 'bool', v: m[0] === 'true' };
        return { j: 'num', v: m[0] };
    }
    const r = val();
    return r;
}

// Exact: plank's text against the decoded value.
function exact(got, want, where) {
    const bad = (msg) => { throw new Error(`${where}: ${msg}`); };
    switch (want.t) {
    case 'null': if (got.j !== 'null') bad(`expected null, got ${got.j}`); return;
    case 'bool': if (got.j !== 'bool' || got.v !== want.v) bad(`expected ${want.v}`); return;
    case 'int': if (got.j !== 'num' || !/^-?\d+$/.test(got.v) || BigInt(got.v) !== want.v) bad(`expected ${want.v}, got ${got.v}`); return;
    case 'float': case 'double': {
        const nonFinite = Number.isNaN(want.v) ? 'NaN' : want.v === Infinity ? 'Infinity' : want.v === -Infinity ? '-Infinity' : null;
        if (nonFinite) { if (got.j !== 'str' || got.v !== nonFinite) bad(`expected "${nonFinite}"`); return; }
        if (got.j !== 'num') bad(`expected a number, got ${got.j}`);
        const x = want.t === 'float' ? Math.fround(Number(got.v)) : Number(got.v);
        if (!Object.is(x, want.v)) bad(`expected ${want.v}, got ${got.v}`);
        return;
    }
    case 'text': if (got.j !== 'str' || got.v !== want.v) bad(`expected "${want.v}", got ${JSON.stringify(got.v)}`); return;
    case 'arr':
        if (got.j !== 'arr' || got.a.length !== want.a.length) bad('array length');
        want.a.forEach((w, k) => exact(got.a[k], w, `${where}[${k}]`));
        return;
    case 'obj': {
        if (got.j !== 'obj') bad(`expected an object, got ${got.j}`);
        const sorted = [...want.f].sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
        if (got.f.length !== sorted.length) bad(`expected keys ${sorted.map((x) => x[0])}, got ${got.f.map((x) => x[0])}`);
        sorted.forEach(([k, w], n) => {
            if (got.f[n][0] !== k) bad(`key ${n}: expected ${k}, got ${got.f[n][0]}`);
            exact(got.f[n][1], w, `${where}.${k}`);
        });
        return;
    }
    default: bad(`unknown ${want.t}`);
    }
}

// By meaning: plank's parsed text against another reader's plain JSON value.
// Timestamps are compared as instants in nanoseconds, numbers (and decimal
// strings) as doubles within 1e-7 relative (data_dictionary.json writes
// float32 and decimal16 values as doubles), DuckDB's blob text "\x03..."
// as its bytes, and "HH:MM:SS:ffffff" (data_dictionary's time) as a time.
function instant(s) {
    const m = /^(-?\d{4,})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.:](\d+))?(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(s);
    if (!m) return null;
    const days = BigInt(Math.round(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86400000));
    let ns = ((days * 24n + BigInt(m[4])) * 60n + BigInt(m[5])) * 60n + BigInt(m[6]);
    ns = ns * 1000000000n + BigInt((m[7] || '').padEnd(9, '0').slice(0, 9));
    if (m[8] && m[8] !== 'Z') {
        const t = m[8], sign = t[0] === '-' ? -1n : 1n;
        const hh = BigInt(t.slice(1, 3)), mm = BigInt(t.length > 3 ? t.slice(-2) : '0');
        ns -= sign * (hh * 60n + mm) * 60000000000n;
    }
    return { ns, zoned: !!m[8], digits: (m[7] || '').length };
}
function duckBlob(s) {
    if (!/\\x[0-9A-Fa-f]{2}/.test(s)) return null;
    const out = [];
    for (let i = 0; i < s.length;) {
        if (s[i] === '\\' && s[i + 1] === 'x') { out.push(parseInt(s.slice(i + 2, i + 4), 16)); i += 4; } else { out.push(s.charCodeAt(i)); i++; }
    }
    return Buffer.from(out).toString('base64');
}
function loose(got, want, where) {
    const bad = (msg) => { throw new Error(`${where}: ${msg}`); };
    if (want === null) { if (got.j !== 'null') bad(`expected null, got ${JSON.stringify(got.v)}`); return; }
    if (Array.isArray(want)) {
        if (got.j !== 'arr' || got.a.length !== want.length) bad(`expected an array of ${want.length}`);
        want.forEach((w, k) => loose(got.a[k], w, `${where}[${k}]`));
        return;
    }
    if (typeof want === 'object') {
        if (got.j !== 'obj') bad('expected an object');
        const keys = Object.keys(want).sort();
        const gk = got.f.map((x) => x[0]).sort();
        if (JSON.stringify(keys) !== JSON.stringify(gk)) bad(`keys ${gk} vs ${keys}`);
        for (const [k, v] of got.f) loose(v, want[k], `${where}.${k}`);
        return;
    }
    if (typeof want === 'boolean') { if (got.j !== 'bool' || got.v !== want) bad(`expected ${want}`); return; }
    const g = got.v;
    if (typeof want === 'number' || got.j === 'num') {
        const a = Number(g), b = Number(want);
        if (Number.isNaN(a) && Number.isNaN(b)) return;
        if (a === b || Math.abs(a - b) <= 1e-7 * Math.abs(b)) return;
        bad(`expected ${want}, got ${g}`);
    }
    if (g === want) return;
    const ia = instant(g), ib = instant(String(want));
    if (ia && ib && ia.ns === ib.ns) return;
    // DuckDB keeps microseconds: a nanosecond timestamp it prints with 6
    // digits (rounded toward zero) is equal within that microsecond.
    if (ia && ib && ib.digits <= 6 && ia.digits === 9 && (ia.ns - ib.ns < 0n ? ib.ns - ia.ns : ia.ns - ib.ns) < 1000n) return;
    const clockNs = (t) => {
        const m = /^(\d\d):(\d\d):(\d\d)(?:[.:](\d{1,9}))?$/.exec(t);
        return m ? ((BigInt(m[1]) * 60n + BigInt(m[2])) * 60n + BigInt(m[3])) * 1000000000n
            + BigInt((m[4] || '').padEnd(9, '0')) : null;
    };
    const ca = clockNs(g), cb = clockNs(String(want));
    if (ca !== null && ca === cb) return;
    if (duckBlob(String(want)) === g) return;
    if (g === 'NaN' && /^nan$/i.test(want)) return;
    bad(`expected ${JSON.stringify(want)}, got ${JSON.stringify(g)}`);
}

function check(what, f) {
    checks++;
    try { f(); } catch (e) { fail(what, e.message); }
}

function plankRows(file, col) {
    const r = spawnSync(plank, ['cat', file, '--format', 'jsonl'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) return { error: (r.stderr || '').trim(), status: r.status };
    return { rows: r.stdout.split('\n').filter((l) => l).map((l) => {
        const o = parseJson(l);
        const e = o.f.find((x) => x[0] === col);
        return { row: o, v: e ? e[1] : undefined };
    }) };
}

// A failed read can invalidate DuckDB's database (an internal error is
// fatal there): a new one is opened after any failure.
let con = null;
async function duckCon() {
    if (!con) con = await (await duckdb.DuckDBInstance.create(':memory:')).connect();
    return con;
}
async function duckJson(file, col, order) {
    try {
        const c = await duckCon();
        const r = await c.runAndReadAll(`SELECT CAST("${col}" AS JSON)::VARCHAR FROM read_parquet('${file.replace(/'/g, "''")}') ${order}`);
        // DuckDB 1.5.6 prints a decimal below 1 without its leading zero
        // (".00", "-.5"), which is not JSON: put the zero back.
        const fix = (t) => t.replace(/(^|[[,:])(-?)\.(\d)/g, '$1$20.$3');
        return r.getRows().map((x) => (x[0] === null ? null : JSON.parse(fix(x[0]))));
    } catch (e) {
        con = null;
        throw e;
    }
}

// ---- 1. variant/ ----------------------------------------------------------------------
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plank-variant-'));
try {
    const wrapped = path.join(tmp, 'cases.parquet');
    const g = spawnSync(gen, [wrapped, vdir], { encoding: 'utf8' });
    if (g.status !== 0) {
        fail('gen_variant_cases', g.stderr);
    } else {
        const dict = JSON.parse(fs.readFileSync(path.join(vdir, 'data_dictionary.json'), 'utf8').replace(/,(\s*})\s*$/, '$1'));
        const got = plankRows(wrapped, 'v');
        if (got.error) fail('plank cat variant cases', got.error);
        const duck = await duckJson(wrapped, 'v', '');
        const names = got.rows ? got.rows.map((r) => r.row.f.find((x) => x[0] === 'name')[1].v) : [];
        names.forEach((name, k) => {
            const v = got.rows[k].v;
            if (name === 'null_group') {
                check('null group', () => { if (v.j !== 'null') throw new Error('not null'); });
                return;
            }
            const mb = new Uint8Array(fs.readFileSync(path.join(vdir, `${name}.metadata`)));
            const vb = new Uint8Array(fs.readFileSync(path.join(vdir, `${name}.value`)));
            check(`variant/${name} vs decoder`, () => exact(v, decode(parseMeta(mb).keys, vb, 0), name));
            if (name in dict) check(`variant/${name} vs data_dictionary.json`, () => loose(v, dict[name], name));
            else console.log(`NOTE variant/${name}: not in data_dictionary.json (decoder and DuckDB only)`);
            check(`variant/${name} vs DuckDB`, () => loose(v, duck[k], name));
        });
        if (names.length < 29) fail('variant cases', `only ${names.length} rows`);
    }
} finally {
    fs.rmSync(tmp, { recursive: true, force: true });
}

// Malformed bytes: a truncated object value in the second row must make
// `plank cat` fail with a message naming the row and what is wrong.
const btmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plank-variant-bad-'));
try {
    const cases = path.join(btmp, 'in');
    fs.mkdirSync(cases);
    for (const [name, v] of [['a_good', [0x0c, 0x05]], ['b_bad', [0x02, 0x02, 0x00, 0x01, 0x00, 0x01, 0x02]]]) {
        fs.writeFileSync(path.join(cases, `${name}.metadata`), Buffer.from([0x01, 0x02, 0x00, 0x01, 0x02, 0x61, 0x62]));
        fs.writeFileSync(path.join(cases, `${name}.value`), Buffer.from(v));
    }
    const file = path.join(btmp, 'bad.parquet');
    const g = spawnSync(gen, [file, cases], { encoding: 'utf8' });
    const r = spawnSync(plank, ['cat', file, '--format', 'jsonl'], { encoding: 'utf8' });
    check('malformed variant bytes', () => {
        if (g.status !== 0) throw new Error(`gen: ${g.stderr}`);
        if (r.status === 0 || r.signal) throw new Error(`plank cat exit ${r.status} ${r.signal || ''}`);
        if (!/row 1/.test(r.stderr) || !/variant/i.test(r.stderr)) throw new Error(`message: ${r.stderr.trim()}`);
    });
} finally {
    fs.rmSync(btmp, { recursive: true, force: true });
}

// plank schema: the shredding summary and the extension type. case-083's
// typed_value is {c: {a: int32, b: string}, d: double} (its parquet-mr
// schema); case-001 shreds a list of strings.
for (const [file, want] of [
    ['case-083.parquet', [/var: optional group logical=VARIANT\(1\) field_id=2 shredded=\{c:\{a:INT32,b:STRING\},d:DOUBLE\}/,
        /var: struct "\+s" field_id=2 extension=arrow\.parquet\.variant\n    metadata: binary "z" not null\n    value: binary "z"\n/]],
    ['case-001.parquet', [/shredded=array<STRING>/]],
]) {
    const r = spawnSync(plank, ['schema', path.join(sdir, file)], { encoding: 'utf8' });
    check(`plank schema ${file}`, () => {
        if (r.status !== 0) throw new Error(r.stderr);
        for (const re of want) if (!re.test(r.stdout)) throw new Error(`no ${re} in:\n${r.stdout}`);
    });
}

// ---- 2. shredded_variant/ ------------------------------------------------------------------
const cases = JSON.parse(fs.readFileSync(path.join(sdir, 'cases.json'), 'utf8'));
// Where DuckDB's reading differs from the case's expected value (which
// plank follows), DuckDB is not compared; the reason is printed.
const DUCK_DIFFERS = {
    43: 'DuckDB takes field "b" from `value` although "b" is a shredded field (missing in '
        + 'typed_value); the spec says `value` never holds shredded fields, and the case expects {a: null}',
};
let ran = 0;
for (const c of cases) {
    if (!c.parquet_file) continue;
    ran++;
    const file = path.join(sdir, c.parquet_file);
    const what = `shredded_variant case ${c.case_number} (${c.test})`;
    const got = plankRows(file, 'var');
    if (c.error_message) {
        check(what, () => {
            if (!got.error) throw new Error(`read without error; expected "${c.error_message}"`);
            // The reason, not the type spelling after it (Iceberg prints
            // "INTEGER(32,false)", plank "INTEGER(32,unsigned)").
            const reason = c.error_message.split(': ')[0].toLowerCase();
            if (!got.error.toLowerCase().includes(reason))
                throw new Error(`error "${got.error}" does not say "${reason}"`);
        });
        continue;
    }
    if (got.error) { fail(what, got.error); continue; }
    const files = c.variant_files || [c.variant_file];
    check(`${what}: rows`, () => { if (got.rows.length !== files.length) throw new Error(`${got.rows.length} rows, expected ${files.length}`); });
    let duck = null;
    if (DUCK_DIFFERS[c.case_number]) console.log(`NOTE ${what}: not compared with DuckDB: ${DUCK_DIFFERS[c.case_number]}`);
    else try {
        duck = await duckJson(file, 'var', 'ORDER BY id');
    } catch (e) {
        console.log(`NOTE ${what}: DuckDB cannot read it (${e.message.split('\n')[0]})`);
    }
    const byId = [...got.rows].sort((a, b) => Number(a.row.f.find((x) => x[0] === 'id')[1].v) - Number(b.row.f.find((x) => x[0] === 'id')[1].v));
    files.forEach((f, k) => {
        const row = got.rows[k];
        if (!row) return;
        check(`${what} row ${k}`, () => {
            if (f === null) { if (row.v.j !== 'null') throw new Error('expected a null variant'); return; }
            const bin = new Uint8Array(fs.readFileSync(path.join(sdir, f)));
            const m = parseMeta(bin);
            exact(row.v, decode(m.keys, bin, m.size), `row ${k}`);
        });
        if (duck && byId[k]) check(`${what} row ${k} vs DuckDB`, () => loose(byId[k].v, duck[k], `row ${k}`));
    });
}
if (ran < 100) fail('shredded_variant', `only ${ran} cases ran`);

// ---- 3. DuckDB's own VARIANT files (it shreds what it writes) --------------------------------
// Each query's rows go through COPY ... TO parquet; plank's JSON of every
// row must equal DuckDB's JSON of the file it wrote, by meaning.
const duckSets = {
    ints: `SELECT i AS id, (i * 7 - 300)::VARIANT AS v FROM range(2000) t(i)`,
    mixed: `SELECT i AS id, CASE i % 5 WHEN 0 THEN (i)::VARIANT WHEN 1 THEN ('s' || i)::VARIANT
            WHEN 2 THEN {'a': i, 'b': 'x' || i}::VARIANT WHEN 3 THEN [i, i + 1]::VARIANT
            ELSE NULL::VARIANT END AS v FROM range(1000) t(i)`,
    objects: `SELECT i AS id, CASE WHEN i % 3 = 0 THEN {'k': i, 'name': 'n' || i, 'extra': i * 1.5}::VARIANT
              ELSE {'k': i, 'name': 'n' || i}::VARIANT END AS v FROM range(1500) t(i)`,
    nested: `SELECT i AS id, {'tags': ['t' || i, 't' || (i + 1)], 'pos': {'x': i::DOUBLE, 'y': -i},
             'when': DATE '2024-01-01' + i::INTEGER}::VARIANT AS v FROM range(800) t(i)`,
    types: `SELECT i AS id, CASE i % 8 WHEN 0 THEN (i / 100)::DECIMAL(10, 2)::VARIANT
            WHEN 1 THEN (TIMESTAMP '2020-01-01 00:00:00' + INTERVAL (i) SECOND)::VARIANT
            WHEN 2 THEN (TIMESTAMPTZ '2020-01-01 00:00:00+00' + INTERVAL (i) MINUTE)::VARIANT
            WHEN 3 THEN uuid()::VARIANT WHEN 4 THEN ('\x01\x02'::BLOB)::VARIANT
            WHEN 5 THEN (i::FLOAT / 3)::VARIANT WHEN 6 THEN (TIME '01:02:03' + INTERVAL (i) SECOND)::VARIANT
            ELSE (i % 2 = 0)::VARIANT END AS v FROM range(1600) t(i)`,
};
const dtmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plank-variant-duck-'));
try {
    for (const [name, sql] of Object.entries(duckSets)) {
        const file = path.join(dtmp, `${name}.parquet`);
        try {
            await (await duckCon()).run(`COPY (${sql}) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 700)`);
        } catch (e) {
            fail(`DuckDB writes ${name}`, e.message.split('\n')[0]);
            continue;
        }
        const got = plankRows(file, 'v');
        if (got.error) { fail(`plank cat DuckDB's ${name}`, got.error); continue; }
        const duck = await duckJson(file, 'v', '');
        check(`DuckDB's ${name}: rows`, () => { if (got.rows.length !== duck.length) throw new Error(`${got.rows.length} vs ${duck.length}`); });
        let bad = 0;
        got.rows.forEach((r, k) => {
            try { loose(r.v, duck[k], `row ${k}`); } catch (e) { if (bad++ < 3) fail(`DuckDB's ${name}`, e.message); }
        });
        checks++;
        if (bad > 3) fail(`DuckDB's ${name}`, `${bad} rows differ in all`);
    }
} finally {
    fs.rmSync(dtmp, { recursive: true, force: true });
}

console.log(`${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
