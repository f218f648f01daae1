#!/usr/bin/env node
// names_times.mjs PLANK DIR: two conformance cases against DuckDB, on the
// files tests/gen_names_times.c wrote into DIR.
//
// Names (names.parquet): sibling columns whose names repeat, differ only in
// case, or are empty (the columns named "Z" are renamed to "" here, in the
// footer: the name's bytes and the path_in_schema entries). DuckDB renames
// them (a later name equal ignoring case to an earlier one: name_1, name_2,
// ... the first unused; then the empty name left "C<position>"), and
// `plank cat` must print the same keys in the same order with the same values
// (jsonl), the same CSV header, and `plank schema`'s Arrow fields the same
// names: lossless output where JSON parsers would drop repeated keys.
//
// TIME out of range (time_range.parquet): DuckDB keeps such a value as it is
// stored (epoch_us: the unit count times 1000 or 1, neither wrapped nor
// clamped) but has no text for it (its cast to VARCHAR prints garbage or
// fails inside), so plank's text is checked against DuckDB's number: `plank
// cat --format jsonl` writes a TIME as the signed duration [-]H...H:MM:SS.fff
// (hours above 23 allowed), whose value must equal epoch_us.
//
// An empty list of element type 0 (time_range.parquet with FileMetaData
// field 5, key_value_metadata, added as fastparquet writes it: list header
// byte 0x00): plank cat and DuckDB read the same values.
//
// Exits 1 on a mismatch, 77 without node_modules.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skipTest } from './skip.mjs';

let DuckDBInstance;
try {
    ({ DuckDBInstance } = await import('@duckdb/node-api'));
} catch (e) {
    skipTest('names_times', `@duckdb/node-api not installed (${e.message})`);
}
const [plank, dir] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const sqlPath = (p) => `'${p.replaceAll("'", "''")}'`;
const jsonl = (file) => execFileSync(plank, ['cat', file, '--format', 'jsonl'], { encoding: 'utf8' })
    .trim().split('\n').map((l) => JSON.parse(l));
let fails = 0, checked = 0;
function check(ok, what) {
    checked++;
    if (!ok) {
        fails++;
        console.log(`FAIL: ${what}`);
    }
}

// ---- names ----------------------------------------------------------------------
{
    const src = readFileSync(join(dir, 'names.parquet'));
    const flen = src.readUInt32LE(src.length - 8);
    const footer = src.subarray(src.length - 8 - flen, src.length - 8);
    const parts = [];
    let at = 0, renamed = 0;
    for (;;) {
        const k = footer.indexOf(Buffer.from([0x01, 0x5a]), at); // length 1, "Z"
        if (k < 0) break;
        parts.push(footer.subarray(at, k), Buffer.from([0x00]));
        at = k + 2;
        renamed++;
    }
    parts.push(footer.subarray(at));
    const foot2 = Buffer.concat(parts);
    const tail = Buffer.alloc(8);
    tail.writeUInt32LE(foot2.length, 0);
    tail.write('PAR1', 4, 'latin1');
    const file = join(dir, 'names_empty.parquet');
    writeFileSync(file, Buffer.concat([src.subarray(0, src.length - 8 - flen), foot2, tail]));
    check(renamed === 4, `renamed ${renamed} "Z" strings, want 4 (2 names, 2 paths)`);

    const described = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlPath(file)})`))
        .getRowObjectsJS().map((r) => r.column_name);
    const duck = (await conn.runAndReadAll(`SELECT * FROM read_parquet(${sqlPath(file)})`)).getRowObjectsJS();
    const rows = jsonl(file);
    check(rows.length === duck.length && rows.length === 3, `names: ${rows.length} rows, DuckDB ${duck.length}`);
    for (let i = 0; i < rows.length && i < duck.length; i++) {
        const keys = Object.keys(rows[i]);
        check(JSON.stringify(keys) === JSON.stringify(described),
            `names row ${i}: plank keys ${JSON.stringify(keys)}, DuckDB ${JSON.stringify(described)}`);
        for (const k of described)
            check(rows[i][k] === duck[i][k], `names row ${i} ${k}: plank ${rows[i][k]}, DuckDB ${duck[i][k]}`);
    }
    // --columns by DuckDB's (and cat's) names: each one alone, as DuckDB
    // selects it, so a repeated or empty name can still be chosen.
    for (const k of described) {
        if (k.includes(',')) continue;
        const one = execFileSync(plank, ['cat', file, '--format', 'jsonl', '--columns', k], { encoding: 'utf8' })
            .trim().split('\n').map((l) => JSON.parse(l));
        const dk = (await conn.runAndReadAll(`SELECT "${k.replaceAll('"', '""')}" AS v FROM read_parquet(${sqlPath(file)})`)).getRowObjectsJS();
        check(one.length === dk.length && one.every((r, i) => JSON.stringify(Object.keys(r)) === JSON.stringify([k]) && r[k] === dk[i].v),
            `--columns ${k}: plank ${JSON.stringify(one)}, DuckDB ${JSON.stringify(dk.map((x) => x.v))}`);
    }
    const header = execFileSync(plank, ['cat', file, '--format', 'csv'], { encoding: 'utf8' }).split(/\r?\n/)[0];
    check(header === described.join(','), `csv header ${header}, DuckDB ${described.join(',')}`);
    const schema = execFileSync(plank, ['schema', file], { encoding: 'utf8' });
    const arrow = schema.slice(schema.indexOf('\narrow:\n') + 8).split('\n')
        .filter((l) => /^  \S/.test(l)).map((l) => l.slice(2, l.indexOf(': ')));
    check(JSON.stringify(arrow) === JSON.stringify(described),
        `plank schema Arrow fields ${JSON.stringify(arrow)}, DuckDB ${JSON.stringify(described)}`);
}

// ---- TIME out of range -------------------------------------------------------------
// "[-]H+:MM:SS.f+" to microseconds (BigInt); null if it is not that form.
function durationMicros(text) {
    const m = /^(-?)(\d{2,}):([0-5]\d):([0-5]\d)\.(\d{3}|\d{6})$/.exec(text);
    if (!m) return null;
    const frac = BigInt(m[5]) * (m[5].length === 3 ? 1000n : 1n);
    const v = (BigInt(m[2]) * 3600n + BigInt(m[3]) * 60n + BigInt(m[4])) * 1000000n + frac;
    return m[1] ? -v : v;
}
{
    const file = join(dir, 'time_range.parquet');
    const rows = jsonl(file);
    const duck = (await conn.runAndReadAll(
        `SELECT epoch_us(t_ms)::VARCHAR AS t_ms, epoch_us(t_us)::VARCHAR AS t_us FROM read_parquet(${sqlPath(file)})`,
    )).getRowObjectsJS();
    check(rows.length === duck.length && rows.length > 0, `times: ${rows.length} rows, DuckDB ${duck.length}`);
    for (let i = 0; i < rows.length && i < duck.length; i++) {
        for (const col of ['t_ms', 't_us']) {
            const got = durationMicros(rows[i][col]);
            check(got === BigInt(duck[i][col]),
                `times row ${i} ${col}: plank ${JSON.stringify(rows[i][col])}, DuckDB epoch_us ${duck[i][col]}`);
        }
    }
}
// ---- an empty list of element type 0 --------------------------------------------
{
    const src = readFileSync(join(dir, 'time_range.parquet'));
    const flen = src.readUInt32LE(src.length - 8);
    const footer = src.subarray(src.length - 8 - flen, src.length - 8);
    check(footer[footer.length - 1] === 0, 'the footer ends in a STOP byte');
    // Before that STOP: field 5 in the long form (type LIST, zigzag id 10),
    // then the list header 0x00 (no elements, element type 0).
    const foot2 = Buffer.concat([footer.subarray(0, footer.length - 1),
        Buffer.from([0x09, 0x0a, 0x00, 0x00])]);
    const tail = Buffer.alloc(8);
    tail.writeUInt32LE(foot2.length, 0);
    tail.write('PAR1', 4, 'latin1');
    const file = join(dir, 'empty_kv.parquet');
    writeFileSync(file, Buffer.concat([src.subarray(0, src.length - 8 - flen), foot2, tail]));
    const rows = jsonl(file);
    const duck = (await conn.runAndReadAll(
        `SELECT epoch_us(t_ms)::VARCHAR AS t_ms FROM read_parquet(${sqlPath(file)})`)).getRowObjectsJS();
    check(rows.length === duck.length && rows.length > 0, `empty list: ${rows.length} rows, DuckDB ${duck.length}`);
    for (let i = 0; i < rows.length && i < duck.length; i++)
        check(durationMicros(rows[i].t_ms) === BigInt(duck[i].t_ms), `empty list row ${i}`);
}
console.log(`names_times: ${checked} checks, ${fails} failures`);
process.exit(fails ? 1 : 0);
