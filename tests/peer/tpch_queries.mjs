#!/usr/bin/env node
// tpch_queries.mjs PLANK: `plank tpch q1|q6|q12 DIR` against DuckDB's answer
// to the same SQL over the same files (issue 14).
//
// Files, all at SF 0.01 from plank's generator: every --encoding preset
// (default, plain, dictionary, delta), DELTA with zstd and v2 pages, and
// dictionary with 7,000-row row groups (so that threads split the work;
// with TPCH_QUERIES_QUICK=1 only plain and the last two);
// then the plain tables rewritten by DuckDB (COPY, 10,000-row row groups)
// and by Polars (readParquet + writeParquet, its defaults). On each, plank
// runs every query with --threads 1 and --threads 3, and its text must be
// exactly DuckDB's: the official query text with the sums rounded to two
// digits by DuckDB (round on the exact decimal) and the averages computed
// exactly in HUGEINT from DuckDB's sums and counts (DuckDB's avg() is a
// DOUBLE), formatted as plank prints them (no padding, '|' between fields).
// Also: a Q12 whose lineitem filter keeps nothing of orders' range, Q1
// over DECIMAL(18,2) prices (sums in 128 bits), the four decimal columns
// stored as INT32 (DECIMAL(4,2), (9,2), (3,2)) and as 7-byte
// FIXED_LEN_BYTE_ARRAY (hyparquet-writer), and errors (a missing
// directory, a missing column, bad arguments).
// Exits 1 on any mismatch, 77 when the peers are not installed (CI=true: 1).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipTest } from './skip.mjs';

const [plank] = process.argv.slice(2);
const ci = process.env.CI === 'true';
let DuckDBInstance, pl, hw;
try {
    ({ DuckDBInstance } = await import('@duckdb/node-api'));
    pl = (await import('nodejs-polars')).default;
    hw = await import('hyparquet-writer');
} catch (e) {
    if (ci) { console.log(`tpch_queries: the peers are not installed (npm ci; CI needs them): ${e.message}`); process.exit(1); }
    skipTest('tpch_queries', `the peers are not installed (npm ci): ${e.message}`);
}

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run('SET threads = 2');
const lit = (s) => `'${s.replaceAll("'", "''")}'`;

// Exact two-digit average of a scale-2 decimal column: round half away from
// zero of sum * 100 / count, in HUGEINT (the TPC-H columns are positive).
const avg2 = (c) => {
    const s = `CAST(sum(${c}) * 100 AS HUGEINT)`;
    const q = `((2 * ${s} + count(${c})) // (2 * count(${c})))`;
    return `(${q} // 100)::VARCHAR || '.' || lpad((${q} % 100)::VARCHAR, 2, '0')`;
};

const SQL = {
    q1: (d) => `SELECT l_returnflag, l_linestatus,
        round(sum(l_quantity), 2)::VARCHAR, round(sum(l_extendedprice), 2)::VARCHAR,
        round(sum(l_extendedprice * (1 - l_discount)), 2)::VARCHAR,
        round(sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), 2)::VARCHAR,
        ${avg2('l_quantity')}, ${avg2('l_extendedprice')}, ${avg2('l_discount')},
        count(*)::VARCHAR
      FROM read_parquet(${lit(join(d, 'lineitem.parquet'))})
      WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
      GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus`,
    q6: (d) => `SELECT coalesce(round(sum(l_extendedprice * l_discount), 2)::VARCHAR, 'NULL')
      FROM read_parquet(${lit(join(d, 'lineitem.parquet'))})
      WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
        AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24`,
    q12: (d, where) => `SELECT l_shipmode,
        sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END)::VARCHAR,
        sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END)::VARCHAR
      FROM read_parquet(${lit(join(d, 'orders.parquet'))}) o, read_parquet(${lit(join(d, 'lineitem.parquet'))}) l
      WHERE o_orderkey = l_orderkey ${where || `AND l_shipmode IN ('MAIL', 'SHIP')
        AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
        AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1994-01-01' + INTERVAL '1' YEAR`}
      GROUP BY l_shipmode ORDER BY l_shipmode`,
};
const HEADER = {
    q1: 'l_returnflag|l_linestatus|sum_qty|sum_base_price|sum_disc_price|sum_charge|avg_qty|avg_price|avg_disc|count_order',
    q6: 'revenue',
    q12: 'l_shipmode|high_line_count|low_line_count',
};

async function duckText(q, dir) {
    const r = await con.runAndReadAll(SQL[q](dir));
    const rows = r.getRows().map((row) => row.map((v) => String(v)).join('|'));
    return [HEADER[q], ...rows].join('\n') + '\n';
}

let fails = 0, oks = 0;
const fail = (m) => { fails++; console.log(`FAIL: ${m}`); };

// Every query on the files of d, with 1 and 3 threads: plank's text must be
// DuckDB's, and DuckDB's must have rows (or the check proves nothing).
async function sameAnswers(label, d) {
    for (const q of ['q1', 'q6', 'q12']) {
        const want = await duckText(q, d);
        if (want.split('\n').length < 3) fail(`${label} ${q}: DuckDB's answer is empty, the test proves nothing`);
        for (const th of ['1', '3']) {
            const r = spawnSync(plank, ['tpch', q, d, '--threads', th], { encoding: 'utf8' });
            if (r.status !== 0 || r.stdout !== want)
                fail(`${label} ${q} threads ${th}: exit ${r.status}\nplank:\n${r.stdout}${r.stderr}DuckDB:\n${want}`);
            else oks++;
        }
    }
}
const dir = mkdtempSync(join(tmpdir(), 'plank-tpch-queries-'));
const gen = (name, ...opts) => {
    execFileSync(plank, ['tpch', 'gen', '--sf', '0.01', '--out', join(dir, name), '--tables', 'lineitem,orders',
        '--threads', '2', ...opts], { stdio: ['ignore', 'ignore', 'pipe'] });
    return name;
};
try {
    // TPCH_QUERIES_QUICK=1 (the sanitizer build): the presets that the
    // other variants do not already cover are left out.
    const quick = process.env.TPCH_QUERIES_QUICK === '1';
    const variants = [
        gen('plain', '--encoding', 'plain', '--codec', 'uncompressed'),
        gen('delta-zstd-v2', '--encoding', 'delta', '--codec', 'zstd', '--page-version', '2'),
        gen('dictionary-small-groups', '--encoding', 'dictionary', '--row-group-size', '7000'),
    ];
    if (!quick)
        variants.push(gen('default', '--encoding', 'default'), gen('dictionary', '--encoding', 'dictionary'),
            gen('delta', '--encoding', 'delta'));
    mkdirSync(join(dir, 'duckdb'));
    mkdirSync(join(dir, 'polars'));
    for (const t of ['lineitem', 'orders']) {
        const src = lit(join(dir, 'plain', `${t}.parquet`));
        await con.run(`COPY (SELECT * FROM read_parquet(${src})) TO ${lit(join(dir, 'duckdb', `${t}.parquet`))}
            (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
        pl.readParquet(join(dir, 'plain', `${t}.parquet`)).writeParquet(join(dir, 'polars', `${t}.parquet`));
    }
    variants.push('duckdb', 'polars');
    for (const v of variants) await sameAnswers(v, join(dir, v));
    // --repeat: the answer once on stdout, the timing line on stderr.
    {
        const r = spawnSync(plank, ['tpch', 'q6', join(dir, 'plain'), '--repeat', '3', '--threads', '1'], { encoding: 'utf8' });
        const want = await duckText('q6', join(dir, 'plain'));
        if (r.status !== 0 || r.stdout !== want) fail(`--repeat: exit ${r.status}, stdout ${r.stdout}`);
        else if (!/^tpch q6: median [0-9.]+ ms, best [0-9.]+ ms over 3 runs, 1 threads\n$/.test(r.stderr))
            fail(`--repeat: stderr ${JSON.stringify(r.stderr)}`);
        else oks++;
    }
    // A lineitem that matches only orders of the first row group of a
    // many-row-group orders file: the other row groups are skipped by their
    // statistics, the answer must not change (DuckDB over the same files).
    {
        const d = join(dir, 'narrow');
        mkdirSync(d);
        const src = join(dir, 'dictionary-small-groups');
        await con.run(`COPY (SELECT * FROM read_parquet(${lit(join(src, 'lineitem.parquet'))}) WHERE l_orderkey < 3000)
            TO ${lit(join(d, 'lineitem.parquet'))} (FORMAT parquet)`);
        await con.run(`COPY (SELECT * FROM read_parquet(${lit(join(src, 'orders.parquet'))}))
            TO ${lit(join(d, 'orders.parquet'))} (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
        const want = await duckText('q12', d);
        const r = spawnSync(plank, ['tpch', 'q12', d, '--threads', '2'], { encoding: 'utf8' });
        if (r.status !== 0 || r.stdout !== want) fail(`narrow q12: exit ${r.status}\nplank:\n${r.stdout}${r.stderr}DuckDB:\n${want}`);
        else oks++;
    }
    // Q1 over prices a million times larger (DECIMAL(18,2)): a batch's bound
    // no longer proves its int64 sums cannot overflow, so plank sums in 128
    // bits; the answer must still be DuckDB's (HUGEINT sums).
    {
        const d = join(dir, 'wide');
        mkdirSync(d);
        await con.run(`COPY (SELECT * REPLACE (CAST(l_extendedprice * 1000000 AS DECIMAL(18,2)) AS l_extendedprice)
            FROM read_parquet(${lit(join(dir, 'plain', 'lineitem.parquet'))}))
            TO ${lit(join(d, 'lineitem.parquet'))} (FORMAT parquet)`);
        const want = await duckText('q1', d);
        if (!want.includes('|') || want.split('\n').length < 3) fail(`wide q1: DuckDB's answer is empty`);
        for (const th of ['1', '3']) {
            const r = spawnSync(plank, ['tpch', 'q1', d, '--threads', th], { encoding: 'utf8' });
            if (r.status !== 0 || r.stdout !== want) fail(`wide q1 threads ${th}: exit ${r.status}\nplank:\n${r.stdout}${r.stderr}DuckDB:\n${want}`);
            else oks++;
        }
    }
    // Decimals stored as INT32 (DuckDB writes precision <= 9 so): the
    // queries read them as Arrow decimal32 and must still give DuckDB's
    // answers. The file's physical types are checked, so that a writer
    // that widened them would not pass unnoticed.
    {
        const d = join(dir, 'int32-decimals');
        mkdirSync(d);
        const li = lit(join(d, 'lineitem.parquet'));
        await con.run(`COPY (SELECT * REPLACE (CAST(l_quantity AS DECIMAL(4,2)) AS l_quantity,
                CAST(l_extendedprice AS DECIMAL(9,2)) AS l_extendedprice,
                CAST(l_discount AS DECIMAL(3,2)) AS l_discount, CAST(l_tax AS DECIMAL(3,2)) AS l_tax)
            FROM read_parquet(${lit(join(dir, 'plain', 'lineitem.parquet'))}))
            TO ${li} (FORMAT parquet, ROW_GROUP_SIZE 20000)`);
        await con.run(`COPY (SELECT * FROM read_parquet(${lit(join(dir, 'plain', 'orders.parquet'))}))
            TO ${lit(join(d, 'orders.parquet'))} (FORMAT parquet)`);
        const types = (await con.runAndReadAll(`SELECT name, type FROM parquet_schema(${li})
            WHERE name IN ('l_quantity', 'l_extendedprice', 'l_discount', 'l_tax') ORDER BY name`)).getRows();
        if (types.length !== 4 || types.some((r) => String(r[1]) !== 'INT32'))
            fail(`int32-decimals: the decimals are not INT32: ${JSON.stringify(types.map(String))}`);
        await sameAnswers('int32-decimals', d);
    }
    // Decimals stored as FIXED_LEN_BYTE_ARRAY (as Arrow C++ and Spark's
    // legacy format write them; DuckDB only above precision 18): the
    // queries' columns of lineitem written by hyparquet-writer with
    // DECIMAL(15,2) in 7-byte big-endian values, read as Arrow decimal128.
    {
        const d = join(dir, 'flba-decimals');
        mkdirSync(d);
        const src = lit(join(dir, 'plain', 'lineitem.parquet'));
        const rows = (await con.runAndReadAll(`SELECT l_orderkey,
                CAST(l_quantity * 100 AS BIGINT), CAST(l_extendedprice * 100 AS BIGINT),
                CAST(l_discount * 100 AS BIGINT), CAST(l_tax * 100 AS BIGINT),
                l_returnflag, l_linestatus, l_shipmode,
                date_diff('day', DATE '1970-01-01', l_shipdate), date_diff('day', DATE '1970-01-01', l_commitdate),
                date_diff('day', DATE '1970-01-01', l_receiptdate)
            FROM read_parquet(${src})`)).getRows();
        const col = (k, f = (v) => v) => rows.map((r) => f(r[k]));
        const dec = (name) => ({ name, type: 'FIXED_LEN_BYTE_ARRAY', type_length: 7, repetition_type: 'REQUIRED',
            converted_type: 'DECIMAL', precision: 15, scale: 2 });
        const req = (name, type, extra = {}) => ({ name, type, repetition_type: 'REQUIRED', ...extra });
        const names = ['l_orderkey', 'l_quantity', 'l_extendedprice', 'l_discount', 'l_tax', 'l_returnflag',
            'l_linestatus', 'l_shipmode', 'l_shipdate', 'l_commitdate', 'l_receiptdate'];
        const schema = [{ name: 'root', num_children: names.length }, req('l_orderkey', 'INT64'),
            dec('l_quantity'), dec('l_extendedprice'), dec('l_discount'), dec('l_tax'),
            ...['l_returnflag', 'l_linestatus', 'l_shipmode'].map((n) => req(n, 'BYTE_ARRAY', { converted_type: 'UTF8' })),
            ...['l_shipdate', 'l_commitdate', 'l_receiptdate'].map((n) => req(n, 'INT32', { converted_type: 'DATE' }))];
        const columnData = names.map((name, k) => ({ name, data: col(k, k >= 8 ? Number : (v) => v) }));
        const li = join(d, 'lineitem.parquet');
        writeFileSync(li, Buffer.from(hw.parquetWriteBuffer({ columnData, schema, rowGroupSize: 25000 })));
        await con.run(`COPY (SELECT * FROM read_parquet(${lit(join(dir, 'plain', 'orders.parquet'))}))
            TO ${lit(join(d, 'orders.parquet'))} (FORMAT parquet)`);
        const types = (await con.runAndReadAll(`SELECT name, type, type_length FROM parquet_schema(${lit(li)})
            WHERE name IN ('l_quantity', 'l_extendedprice', 'l_discount', 'l_tax') ORDER BY name`)).getRows();
        if (types.length !== 4 || types.some((r) => String(r[1]) !== 'FIXED_LEN_BYTE_ARRAY' || String(r[2]) !== '7'))
            fail(`flba-decimals: the decimals are not FIXED_LEN_BYTE_ARRAY(7): ${JSON.stringify(types.map(String))}`);
        await sameAnswers('flba-decimals', d);
    }
    // Errors: exit 1 with the file named; usage errors exit 2.
    const expectFail = (args, code, pattern, what) => {
        const r = spawnSync(plank, args, { encoding: 'utf8' });
        if (r.status !== code || !pattern.test(r.stderr)) fail(`${what}: exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
        else oks++;
    };
    expectFail(['tpch', 'q1', join(dir, 'absent')], 1, /absent\/lineitem\.parquet/, 'missing directory');
    {
        const d = join(dir, 'nocol');
        mkdirSync(d);
        await con.run(`COPY (SELECT * EXCLUDE (l_tax) FROM read_parquet(${lit(join(dir, 'plain', 'lineitem.parquet'))}))
            TO ${lit(join(d, 'lineitem.parquet'))} (FORMAT parquet)`);
        expectFail(['tpch', 'q1', d], 1, /l_tax/, 'missing column');
    }
    expectFail(['tpch', 'q6'], 2, /expected a directory/, 'no directory');
    expectFail(['tpch', 'q6', dir, '--threads', '0'], 2, /--threads/, 'bad --threads');
    expectFail(['tpch', 'q7', dir], 2, /tpch/, 'unknown query');
} finally {
    rmSync(dir, { recursive: true, force: true });
}
console.log(`tpch_queries: ${oks} checks passed, ${fails} failed`);
process.exit(fails ? 1 : 0);
