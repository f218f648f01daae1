#!/usr/bin/env node
// compare_corpus.mjs [PLANK_BIN]: compares `plank cat FILE --format jsonl`
// with an independent reader on every file of the Apache parquet-testing
// corpus (data/, recursively).
//
//  - *.parquet.encrypted: plank must fail (non-zero exit) saying "encrypted".
//  - files DuckDB reads (CATALOG.tsv duckdb_reads == yes): DuckDB is the peer
//    (duckdb_jsonl.mjs); INT96 columns are also compared exactly against the
//    raw bytes read through hyparquet, because DuckDB only keeps microseconds.
//    The *_expect.csv files that exist are compared too.
//  - other files: the *_expect.csv when present, else hyparquet.
//  - map_no_value.parquet (DuckDB refuses a MAP without a value field): the
//    values its README (map_no_value.md) gives.
// Every value of every top-level column is compared, nested ones included
// when DuckDB is the peer (structs as objects, lists as arrays, maps as
// arrays of {"key","value"}, each leaf by its Parquet type): same row count,
// same keys, equal values; floats when both texts give the same value of the
// column's type (or both are the same "NaN"/"Infinity" string). hyparquet
// compares flat columns only.
// plank failing on a file (a non-zero exit of `plank cat`) is a FAIL, nested
// columns included, unless EXPECTED_FAIL lists the file with the reason
// (XFAIL; a listed file plank reads is a FAIL too, so the list stays true).
// Prints OK/FAIL/XFAIL/SKIP per file with the peer, a summary, and exits 1 on
// any FAIL; exits 77 when node_modules or the corpus is missing (1 under
// PLANK_REQUIRE_CORPUS=1, tests/peer/skip.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipTest } from './skip.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

function skipAll(msg) {
    skipTest('compare_corpus', msg);
}

let duck, hyp, fmt, canon, isNum, compareRows;
try {
    duck = await import('./duckdb_jsonl.mjs');
    hyp = await import('./hyparquet_jsonl.mjs');
    fmt = await import('./jsonl_format.mjs');
    ({ canon, isNum, compareRows } = await import('./compare_rows.mjs'));
} catch (e) {
    skipAll(`npm peers not installed (run \`npm ci\` in ${repo}): ${e.message}`);
}

const testing = process.env.PLANK_TESTING_DIR || path.resolve(repo, '..', 'shared', 'parquet-testing');
const dataDir = path.join(testing, 'data');
if (!fs.existsSync(dataDir)) skipAll(`parquet-testing corpus not found at ${testing} (set PLANK_TESTING_DIR)`);
const plank = process.argv[2] || process.env.PLANK_BIN;
if (!plank || !fs.existsSync(plank)) skipAll('plank binary not given (argument or PLANK_BIN) or missing');
const verbose = !!process.env.PEER_VERBOSE;
const MAX_REPORT = Number(process.env.PEER_MAX_MISMATCHES || 10);

// ---- corpus catalogue ---------------------------------------------------------
const catalog = new Map();
const catPath = path.join(testing, 'CATALOG.tsv');
if (fs.existsSync(catPath)) {
    const lines = fs.readFileSync(catPath, 'utf8').split('\n');
    const head = lines[0].split('\t');
    const iPath = head.indexOf('path'), iReads = head.indexOf('duckdb_reads');
    for (const l of lines.slice(1)) {
        if (!l) continue;
        const f = l.split('\t');
        catalog.set(f[iPath], f[iReads]);
    }
}

function walk(dir) {
    const out = [];
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) out.push(...walk(p));
        else if (e.name.endsWith('.parquet') || e.name.endsWith('.parquet.encrypted')) out.push(p);
    }
    return out.sort();
}

function runPlankEnv(args, env) {
    const r = spawnSync(plank, args, { maxBuffer: 1 << 30, encoding: 'utf8', env });
    return { status: r.status, signal: r.signal, stdout: r.stdout || '', stderr: r.stderr || '', error: r.error };
}

// PLANK_CORPUS_LEVELS="scalar:1 avx2:3000": every plank run is repeated with
// PLANK_SIMD capped at each level and PLANK_READ_WINDOW set to the bytes
// given, and must give the same exit and the same bytes on stdout as the run
// at the machine's own level, which is the one compared with the peer. One
// process per build instead of one per level: the peers' reading and the
// value comparison (most of the time) are done once per file.
const levels = (process.env.PLANK_CORPUS_LEVELS || '').split(/\s+/).filter((x) => x).map((x) => {
    const [simd, window] = x.split(':');
    return { simd, window, env: { ...process.env, PLANK_SIMD: simd, ...(window ? { PLANK_READ_WINDOW: window } : {}) } };
});
let levelIssues = []; // this file's differences between levels

function firstDiff(a, b) {
    const la = a.split('\n'), lb = b.split('\n');
    for (let i = 0; i < Math.max(la.length, lb.length); i++)
        if (la[i] !== lb[i]) return `line ${i + 1}: ${JSON.stringify((la[i] ?? '<none>').slice(0, 200))} vs ${JSON.stringify((lb[i] ?? '<none>').slice(0, 200))}`;
    return 'same lines';
}

function runPlank(args) {
    const r = runPlankEnv(args, process.env);
    for (const l of levels) {
        const q = runPlankEnv(args, l.env);
        const what = `plank ${args.join(' ')} at PLANK_SIMD=${l.simd}${l.window ? ` PLANK_READ_WINDOW=${l.window}` : ''}`;
        if (q.signal || q.status !== r.status) levelIssues.push(`${what}: exit ${q.signal || q.status} where the machine's level gave ${r.signal || r.status}: ${q.stderr.trim().slice(0, 200)}`);
        else if (q.stdout !== r.stdout) levelIssues.push(`${what}: output differs from the machine's level, ${firstDiff(q.stdout, r.stdout)}`);
    }
    return r;
}

// ---- *_expect.csv ------------------------------------------------------------------

function parseCsv(text) {
    const rows = [];
    let row = [], field = '', quoted = false, inQuotes = false, i = 0;
    const endField = () => { row.push(quoted ? field : (field === '' ? null : field)); field = ''; quoted = false; };
    while (i < text.length) {
        const c = text[i];
        if (inQuotes) {
            if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
            if (c === '"') { inQuotes = false; i++; continue; }
            field += c; i++; continue;
        }
        if (c === '"') { inQuotes = true; quoted = true; i++; continue; }
        if (c === ',') { endField(); i++; continue; }
        if (c === '\n' || c === '\r') {
            if (c === '\r' && text[i + 1] === '\n') i++;
            endField(); rows.push(row); row = []; i++; continue;
        }
        field += c; i++;
    }
    if (field !== '' || row.length) { endField(); rows.push(row); }
    return rows;
}

// The expect CSVs hold every column as text by position (a header name may
// differ in spacing): integers as digits, strings as-is, null as empty.
function compareCsv(plankText, csvPath) {
    const problems = [];
    const rows = parseCsv(fs.readFileSync(csvPath, 'utf8'));
    const header = rows.shift();
    const plankLines = plankText.split('\n').filter((l) => l.length > 0);
    if (plankLines.length !== rows.length) problems.push(`row count: plank ${plankLines.length}, expect.csv ${rows.length}`);
    let bad = 0;
    for (let i = 0; i < Math.min(rows.length, plankLines.length); i++) {
        const pr = fmt.parseJsonKeepNumbers(plankLines[i]);
        const keys = pr.__keys || [];
        if (keys.length !== header.length) { problems.push(`row ${i}: plank has ${keys.length} columns, expect.csv ${header.length}`); break; }
        keys.forEach((k, j) => {
            const v = pr[k];
            const text = v === null ? null : isNum(v) ? v.num : typeof v === 'string' ? v : canon(v);
            if (text !== rows[i][j] && bad++ < MAX_REPORT) problems.push(`row ${i} column ${JSON.stringify(k)}: plank ${canon(v)} != expect.csv ${JSON.stringify(rows[i][j])}`);
        });
    }
    if (bad > MAX_REPORT) problems.push(`${bad} mismatching values in all`);
    return problems;
}

// ---- per file -----------------------------------------------------------------------

const con = await duck.openDuck();
const results = { OK: 0, FAIL: 0, XFAIL: 0, SKIP: 0 };

// Corpus files plank is known to refuse, with the reason (a feature plank
// does not support). Empty: plank reads every file of the corpus it is given.
const EXPECTED_FAIL = {
};

// plank cat failed (exit, not a crash) on REL: FAIL, or XFAIL when expected.
function plankFailed(rel, peer, r, how) {
    const msg = `plank cat exit ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}${how}`;
    if (EXPECTED_FAIL[rel]) report('XFAIL', rel, peer, `${msg} (expected: ${EXPECTED_FAIL[rel]})`);
    else report('FAIL', rel, peer, msg);
}

function report(status, rel, peer, reason, details) {
    if (levelIssues.length && status !== 'FAIL') {
        details = [...levelIssues, ...(details || [])];
        reason = `${levelIssues.length} difference(s) between SIMD levels (the machine's level: ${status} ${reason || ''})`;
        status = 'FAIL';
    } else if (levelIssues.length) {
        details = [...(details || []), ...levelIssues];
    }
    results[status]++;
    console.log(`${status} ${rel} [peer: ${peer}]${reason ? ' ' + reason : ''}`);
    for (const d of details || []) console.log(`    ${d}`);
}

// Files no peer reads whole, with the values their README gives (exact
// jsonl lines). map_no_value.md: "a MAP with all null values, a second MAP
// without a values field, and an equivalent LIST repeating the MAP keys";
// "the last two columns comprise 3 equivalent rows of list<Integer>".
const SPEC_LINES = {
    'data/map_no_value.parquet': {
        why: 'DuckDB refuses it (MAP_KEY_VALUE requires two children); values from map_no_value.md',
        lines: [[1, 2, 3], [4, 5, 6], [7, 8, 9]].map((k) => `{"my_map":[${k.map((x) => `{"key":${x},"value":null}`).join(',')}],"my_map_no_v":[${k.join(',')}],"my_list":[${k.join(',')}]}`),
    },
};

async function peerFor(file, rel, reads) {
    if (reads === 'yes' || reads === undefined) {
        try {
            return { label: 'duckdb', res: await duck.duckdbJsonl(con, file) };
        } catch (e) {
            if (reads === 'yes') throw e;
        }
    }
    return { label: 'hyparquet', res: await hyp.hyparquetJsonl(file) };
}

for (const file of walk(dataDir)) {
    const rel = path.relative(testing, file);
    levelIssues = [];
    if (file.endsWith('.encrypted')) {
        const r = runPlank(['cat', file, '--format', 'jsonl']);
        // The path itself ends in ".encrypted": only the rest of the message counts.
        const msg = (r.stderr + r.stdout).split(file).join('<file>');
        if (r.signal) report('FAIL', rel, 'none', `plank crashed (${r.signal})`);
        else if (r.status !== 0 && /encrypted/i.test(msg)) report('OK', rel, 'none', 'encrypted: plank refuses');
        else report('FAIL', rel, 'none', `encrypted file: expected a non-zero exit with "encrypted" in the message, got exit ${r.status}: ${msg.slice(0, 200)}`);
        continue;
    }
    const reads = catalog.get(rel);
    if (SPEC_LINES[rel]) {
        const spec = SPEC_LINES[rel];
        const r = runPlank(['cat', file, '--format', 'jsonl']);
        const got = r.stdout.split('\n').filter((l) => l);
        if (r.signal || r.status !== 0) report('FAIL', rel, 'spec', `plank cat ${r.signal || 'exit ' + r.status}: ${r.stderr.trim().slice(0, 300)} (${spec.why})`);
        else if (got.join('\n') !== spec.lines.join('\n')) report('FAIL', rel, 'spec', spec.why, [`plank:    ${got.join(' | ').slice(0, 600)}`, `expected: ${spec.lines.join(' | ')}`]);
        else report('OK', rel, 'spec', `${got.length} rows, all columns nested (${spec.why})`);
        continue;
    }
    const csvPath = file.replace(/\.parquet$/, '_expect.csv');
    const hasCsv = fs.existsSync(csvPath);
    let peer;
    // A column chunk above V8's longest string (2^29 - 24 characters) cannot
    // come back from the peers as text: skipped before DuckDB spends most of
    // this test's time (46 of 60 s) decoding large_string_map's 2 GiB of
    // strings only to fail there. The size is the footer's, through plank meta.
    const big = /total_uncompressed_size: (\d+)/g;
    const meta = runPlankEnv(['meta', file], process.env).stdout;
    let largest = 0;
    for (let m; (m = big.exec(meta)) !== null;) largest = Math.max(largest, Number(m[1]));
    if (largest >= 2 ** 29 - 24) {
        report('SKIP', rel, 'duckdb', `its values do not fit a JavaScript string (a column chunk of ${largest} bytes uncompressed); compared by hash() in test_duckdb_arrow when PLANK_TEST_LARGE=1`);
        continue;
    }
    try {
        if (reads !== 'yes' && reads !== undefined && hasCsv) peer = { label: 'expect.csv', res: null };
        else peer = await peerFor(file, rel, reads);
    } catch (e) {
        if (/string longer than/.test(e.message)) {
            report('SKIP', rel, 'duckdb', `DuckDB reads it, but its values do not fit a JavaScript string (${e.message.split('\n')[0]}); compared by hash() in test_duckdb_arrow when PLANK_TEST_LARGE=1`);
            continue;
        }
        if (reads === 'yes') report('FAIL', rel, 'duckdb', `CATALOG.tsv says DuckDB reads it, but DuckDB failed: ${e.message.split('\n')[0]}`);
        else report('SKIP', rel, 'none', `no peer could read it: ${e.message.split('\n')[0]}`);
        continue;
    }
    const nested = peer.res ? peer.res.nested : [];
    if (peer.res && peer.res.columns.length === 0) {
        // No column the peer can compare: plank must still read the file.
        const r = runPlank(['cat', file, '--format', 'jsonl']);
        if (r.signal) report('FAIL', rel, peer.label, `nested only, and plank crashed (${r.signal})`);
        else if (r.status !== 0) plankFailed(rel, peer.label, r, ' (nested only)');
        else if (EXPECTED_FAIL[rel]) report('FAIL', rel, peer.label, `listed in EXPECTED_FAIL (${EXPECTED_FAIL[rel]}) but plank reads it: remove it from the list`);
        else report('SKIP', rel, peer.label, `nested only: plank reads ${r.stdout.split('\n').filter((l) => l).length} rows, ${peer.label} compares no column of it`);
        continue;
    }
    let r = runPlank(['cat', file, '--format', 'jsonl']);
    let how = '';
    if (/corrupt-checksum/.test(rel)) {
        // A page CRC in these files is wrong on purpose: plank verifies CRCs
        // by default and must refuse; the values are compared with --no-checksum.
        const msg = r.stderr.split(file).join('<file>');
        if (r.signal || r.status === 0 || !/crc|checksum/i.test(msg)) {
            report('FAIL', rel, peer.label, `corrupt page CRC not reported: exit ${r.signal || r.status}: ${msg.trim().slice(0, 200)}`);
            continue;
        }
        r = runPlank(['cat', file, '--format', 'jsonl', '--no-checksum']);
        how = ' (default cat refused the bad CRC; compared with --no-checksum)';
    }
    if (r.signal) {
        report('FAIL', rel, peer.label, `plank cat crashed (${r.signal}): ${(r.stderr || '').trim().slice(0, 300)}${how}`);
        continue;
    }
    if (r.status !== 0) {
        plankFailed(rel, peer.label, r, how);
        continue;
    }
    if (EXPECTED_FAIL[rel]) {
        report('FAIL', rel, peer.label, `listed in EXPECTED_FAIL (${EXPECTED_FAIL[rel]}) but plank reads it: remove it from the list`);
        continue;
    }
    const problems = [], notes = [];
    const peers = [];
    if (peer.res) {
        // INT96: DuckDB keeps microseconds only (and wraps far-out dates); all
        // nine digits are compared against the raw bytes read via hyparquet,
        // and cells whose raw value has no defined meaning are left out of both.
        const int96 = peer.res.columns.filter((col) => col.desc.physical === 'INT96').map((col) => col.name);
        const undefinedCells = new Set();
        if (peer.label === 'duckdb' && int96.length) {
            try {
                const h = await hyp.hyparquetJsonl(file, int96);
                h.lines.forEach((line, i) => {
                    const o = fmt.parseJsonKeepNumbers(line);
                    for (const k of int96) if (o[k] && typeof o[k] === 'object' && hyp.INT96_UNDEFINED in o[k]) undefinedCells.add(`${i}\u0000${k}`);
                });
                const c2 = compareRows(r.stdout, h, 'hyparquet(raw INT96)', [], null);
                // Only the INT96 columns: key differences are expected here.
                problems.push(...c2.problems.filter((p) => !p.startsWith('keys:')));
                notes.push(...c2.notes);
                peers.push('hyparquet(raw INT96)');
            } catch (e) {
                problems.push(`INT96 raw check not done: hyparquet failed: ${e.message}`);
            }
        }
        const c = compareRows(r.stdout, peer.res, peer.label, nested, undefinedCells);
        peers.unshift(peer.label);
        problems.push(...c.problems); notes.push(...c.notes);
        for (const col of peer.res.columns) if (col.hint.lossy) notes.push(`${col.name}: ${col.hint.lossy}`);
    }
    if (hasCsv) {
        problems.push(...compareCsv(r.stdout, csvPath));
        peers.push('expect.csv');
    }
    const rows = r.stdout.split('\n').filter((l) => l).length;
    const ncols = peer.res ? peer.res.columns.length : 'all';
    if (problems.length) report('FAIL', rel, peers.join('+'), `${rows} rows${how}`, [...problems, ...notes]);
    else {
        const nn = peer.res ? peer.res.columns.filter((c) => c.hint.cmp === 'nested').length : 0;
        report('OK', rel, peers.join('+'), `${rows} rows, ${ncols} columns${nn ? ` (${nn} nested)` : ''}${nested.length ? `, nested not compared (${peer.label} reads flat columns only): ${nested.join(', ')}` : ''}${how}`, verbose ? notes : notes.filter((x) => /INT96 with|differ/.test(x)));
    }
}

console.log(`peer corpus${levels.length ? ` (plank also at ${levels.map((l) => l.simd).join(', ')})` : ''}: ${results.OK} ok, ${results.FAIL} failed, ${results.XFAIL} expected failures, ${results.SKIP} skipped`);
process.exit(results.FAIL ? 1 : 0);
