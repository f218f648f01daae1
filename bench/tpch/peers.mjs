// bench/tpch/peers.mjs: the peers of `plank tpch` in bench/tpch/run (issue 14).
//
//   node bench/tpch/peers.mjs duckdb|polars q1|q6|q12 DIR [--repeat N] [--warmup N]
//                             [--threads N]
//       TPC-H Q1, Q6 or Q12 (validation parameters) over DIR/lineitem.parquet
//       and DIR/orders.parquet. Prints the answer on stdout as plank does: a
//       header line, then rows, pipe-separated, no padding, sums and averages
//       with two decimals (rounded half away from zero), counts as integers.
//       With --repeat N: N timed runs (query planned, executed and its
//       result fetched; after --warmup untimed runs, default none, as plank
//       has none), and on stderr plank's line
//       `tpch q12: median 12.345 ms, best 11.234 ms over 5 runs, 1 threads`.
//       --threads N: DuckDB's `SET threads`, Polars' POLARS_MAX_THREADS;
//       without it each engine keeps its default (every core).
//   node bench/tpch/peers.mjs write duckdb|polars SRC DST
//       SRC's two tables rewritten into DST with the engine's default writer
//       options: DuckDB `COPY ... TO ... (FORMAT parquet)`, Polars
//       `readParquet` + `writeParquet`.
//   node bench/tpch/peers.mjs report SAMPLES DATA NPROC COMMIT
//       The markdown table of bench/tpch/run from its samples (JSON lines).
//
// DuckDB (@duckdb/node-api) runs the standard TPC-H texts over views of
// read_parquet. Polars (nodejs-polars 0.25.2) runs the same queries through
// its SQL context over lazy scans, in the dialect it accepts; see POLARS_SQL.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// The standard texts of queries 1, 6 and 12 (TPC-H 2.17.3) with the
// validation parameters; COLS below says how each output column is printed.
const SQL = {
  q1: `select l_returnflag, l_linestatus,
       sum(l_quantity) as sum_qty,
       sum(l_extendedprice) as sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
       avg(l_quantity) as avg_qty,
       avg(l_extendedprice) as avg_price,
       avg(l_discount) as avg_disc,
       count(*) as count_order
     from lineitem
     where l_shipdate <= date '1998-12-01' - interval '90' day
     group by l_returnflag, l_linestatus
     order by l_returnflag, l_linestatus`,
  q6: `select sum(l_extendedprice * l_discount) as revenue
     from lineitem
     where l_shipdate >= date '1994-01-01'
       and l_shipdate < date '1994-01-01' + interval '1' year
       and l_discount between .06 - 0.01 and .06 + 0.01
       and l_quantity < 24`,
  q12: `select l_shipmode,
       sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH'
           then 1 else 0 end) as high_line_count,
       sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH'
           then 1 else 0 end) as low_line_count
     from orders, lineitem
     where o_orderkey = l_orderkey
       and l_shipmode in ('MAIL', 'SHIP')
       and l_commitdate < l_receiptdate
       and l_shipdate < l_commitdate
       and l_receiptdate >= date '1994-01-01'
       and l_receiptdate < date '1994-01-01' + interval '1' year
     group by l_shipmode
     order by l_shipmode`,
};

// The same queries as Polars' SQL accepts them and computes them exactly.
// Each difference from SQL is forced by a wrong answer or a parse error:
// - intervals are written '90 days' and '1 year' (`interval '90' day` does
//   not parse);
// - Q6's discount bounds are written folded, 0.05 and 0.07: Polars computes
//   `.06 - 0.01` in binary floating point (0.0499999...), and the BETWEEN
//   then drops every row with l_discount = 0.07 (Q6 off by 40%);
// - a product of decimals keeps the larger scale of its operands, not their
//   sum, so every product is rounded to cents before the sum (Q1's
//   sum_disc_price off by about 1 per million rows); the first operand is
//   cast to the scale SQL gives the product, which keeps it exact;
// - Q12's join is written JOIN ... ON (`FROM orders, lineitem` is refused).
const POLARS_SQL = {
  q1: `select l_returnflag, l_linestatus,
       sum(l_quantity) as sum_qty,
       sum(l_extendedprice) as sum_base_price,
       sum(cast(l_extendedprice as decimal(38, 4)) * (1 - l_discount)) as sum_disc_price,
       sum(cast(l_extendedprice as decimal(38, 6)) * (1 - l_discount) * (1 + l_tax)) as sum_charge,
       avg(l_quantity) as avg_qty,
       avg(l_extendedprice) as avg_price,
       avg(l_discount) as avg_disc,
       count(*) as count_order
     from lineitem
     where l_shipdate <= date '1998-12-01' - interval '90 days'
     group by l_returnflag, l_linestatus
     order by l_returnflag, l_linestatus`,
  q6: `select sum(cast(l_extendedprice as decimal(38, 4)) * l_discount) as revenue
     from lineitem
     where l_shipdate >= date '1994-01-01'
       and l_shipdate < date '1994-01-01' + interval '1 year'
       and l_discount between 0.05 and 0.07
       and l_quantity < 24`,
  q12: `select l_shipmode,
       sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH'
           then 1 else 0 end) as high_line_count,
       sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH'
           then 1 else 0 end) as low_line_count
     from orders join lineitem on o_orderkey = l_orderkey
     where l_shipmode in ('MAIL', 'SHIP')
       and l_commitdate < l_receiptdate
       and l_shipdate < l_commitdate
       and l_receiptdate >= date '1994-01-01'
       and l_receiptdate < date '1994-01-01' + interval '1 year'
     group by l_shipmode
     order by l_shipmode`,
};

// Output columns: t text, d two decimals, i integer.
const COLS = {
  q1: [['l_returnflag', 't'], ['l_linestatus', 't'], ['sum_qty', 'd'], ['sum_base_price', 'd'],
    ['sum_disc_price', 'd'], ['sum_charge', 'd'], ['avg_qty', 'd'], ['avg_price', 'd'],
    ['avg_disc', 'd'], ['count_order', 'i']],
  q6: [['revenue', 'd']],
  q12: [['l_shipmode', 't'], ['high_line_count', 'i'], ['low_line_count', 'i']],
};
const TABLES = ['lineitem', 'orders'];

function die(msg) {
  console.error(`peers.mjs: ${msg}`);
  process.exit(2);
}

// An exact decimal string ("-12.3456") rounded half away from zero to two
// decimals; a JavaScript number (a double, as averages are) through toFixed.
function twoDecimals(v) {
  if (typeof v === 'number') return v.toFixed(2);
  if (typeof v === 'bigint') return `${v}.00`;
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(String(v));
  if (!m) die(`not a decimal: ${v}`);
  const frac = (m[3] ?? '').padEnd(3, '0');
  let cents = BigInt(m[2] + frac.slice(0, 2));
  if (frac[2] >= '5') cents += 1n;
  const s = cents.toString().padStart(3, '0');
  const neg = m[1] && cents !== 0n ? '-' : '';
  return `${neg}${s.slice(0, -2)}.${s.slice(-2)}`;
}

function formatValue(v, kind) {
  if (v === null || v === undefined) return '';
  if (kind === 'd') return twoDecimals(v);
  if (kind === 'i') {
    const s = String(v);
    if (!/^-?\d+$/.test(s)) die(`not an integer: ${s}`);
    return s;
  }
  return String(v);
}

// rows: arrays of values in COLS order -> the text plank prints.
function formatAnswer(query, rows) {
  const cols = COLS[query];
  const lines = [cols.map((c) => c[0]).join('|')];
  for (const r of rows) lines.push(r.map((v, i) => formatValue(v, cols[i][1])).join('|'));
  return lines.join('\n') + '\n';
}

const plural = (n, what) => `${n} ${what}${n === 1 ? '' : 's'}`;

function median(v) {
  const s = v.slice().sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Sets POLARS_MAX_THREADS before Polars starts its thread pool.
async function loadPolars(threads) {
  if (threads === undefined) delete process.env.POLARS_MAX_THREADS;
  else process.env.POLARS_MAX_THREADS = String(threads);
  return (await import('nodejs-polars')).default;
}

async function duckdbConnect(threads) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  if (threads !== undefined) await con.run(`SET threads = ${threads}`);
  return con;
}

const quote = (s) => `'${s.replaceAll("'", "''")}'`;

// One engine's query runner: run() executes the query once and returns its
// rows as arrays of values (decimals as exact strings where the engine
// gives them).
async function duckdbRunner(query, dir, threads) {
  const con = await duckdbConnect(threads);
  for (const t of TABLES) {
    await con.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet(${quote(join(dir, t + '.parquet'))})`);
  }
  return async () => (await con.runAndReadAll(SQL[query])).getRows();
}

async function polarsRunner(query, dir, threads) {
  const pl = await loadPolars(threads);
  const names = COLS[query].map((c) => c[0]);
  return async () => {
    const ctx = pl.SQLContext(Object.fromEntries(
      TABLES.map((t) => [t, pl.scanParquet(join(dir, t + '.parquet'))])));
    const df = ctx.execute(POLARS_SQL[query]).collectSync();
    // Decimals cannot cross into JavaScript; their exact text can.
    const sel = names.map((n) => (df.schema[n].variant === 'Decimal'
      ? pl.col(n).cast(pl.String) : pl.col(n)));
    return df.select(...sel).rows();
  };
}

async function writeTables(engine, src, dst) {
  mkdirSync(dst, { recursive: true });
  if (engine === 'duckdb') {
    const con = await duckdbConnect(undefined);
    for (const t of TABLES) {
      await con.run(`COPY (SELECT * FROM read_parquet(${quote(join(src, t + '.parquet'))}))
                     TO ${quote(join(dst, t + '.parquet'))} (FORMAT parquet)`);
    }
  } else if (engine === 'polars') {
    const pl = await loadPolars(undefined);
    for (const t of TABLES) pl.readParquet(join(src, t + '.parquet')).writeParquet(join(dst, t + '.parquet'));
  } else {
    die(`unknown engine ${engine}`);
  }
}

// The table: per variant and query, each engine's median over rounds (of
// each process's median) and best run, and plank's ratios to DuckDB.
function report(samplesPath, data, nproc, commit) {
  const rows = readFileSync(samplesPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const cells = new Map();
  for (const x of rows) {
    const k = `${x.variant}|${x.query}`;
    if (!cells.has(k)) cells.set(k, new Map());
    const e = `${x.engine}:${x.threads}`;
    if (!cells.get(k).has(e)) cells.get(k).set(e, []);
    cells.get(k).get(e).push(x);
  }
  const stat = (k, e) => {
    const s = cells.get(k)?.get(e);
    return s ? { med: median(s.map((x) => x.median_ms)), best: Math.min(...s.map((x) => x.best_ms)) } : null;
  };
  const ms = (v) => (v < 100 ? v.toFixed(1) : v.toFixed(0));
  const show = (s) => (s ? `${ms(s.med)} (${ms(s.best)})` : '-');
  const ratio = (a, b) => (a && b ? (a.med / b.med).toFixed(2) : '-');
  const mb = (variant) => {
    let n = 0;
    for (const t of TABLES) n += statSync(join(data, variant, t + '.parquet')).size;
    return (n / 1e6).toFixed(0);
  };
  const rounds = new Set(rows.map((x) => x.round)).size;
  const N = nproc;
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`\nTPC-H SF ${rows[0].sf} (${when} UTC, ${commit}, load average ${load} at the end): `
    + `${plural(rounds, 'round')}, each engine ${plural(rows[0].repeat, 'timed run')} per process `
    + `(DuckDB and Polars after ${plural(rows.find((x) => x.engine !== 'plank').warmup, 'untimed run')}); `
    + `ms, median over rounds (best run); threads 1 and ${N} (DuckDB's and Polars' default)\n`);
  console.log(`| variant | MB | query | plank 1 | plank ${N} | DuckDB 1 | DuckDB ${N} | Polars 1 | Polars ${N} `
    + `| plank 1 / DuckDB 1 | plank 1 / DuckDB ${N} | plank ${N} / DuckDB ${N} |`);
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const k of cells.keys()) {
    const [variant, query] = k.split('|');
    const s = Object.fromEntries(['plank:1', 'plank:all', 'duckdb:1', 'duckdb:all', 'polars:1', 'polars:all']
      .map((e) => [e, stat(k, e)]));
    console.log(`| ${variant} | ${mb(variant)} | ${query.toUpperCase()} | ${show(s['plank:1'])} | ${show(s['plank:all'])} `
      + `| ${show(s['duckdb:1'])} | ${show(s['duckdb:all'])} | ${show(s['polars:1'])} | ${show(s['polars:all'])} `
      + `| ${ratio(s['plank:1'], s['duckdb:1'])} | ${ratio(s['plank:1'], s['duckdb:all'])} `
      + `| ${ratio(s['plank:all'], s['duckdb:all'])} |`);
  }
  const dd = [];
  for (const [delta, dict] of [['delta', 'dictionary'], ['delta-zstd', 'dictionary-zstd']]) {
    for (const t of ['1', 'all']) {
      const a = stat(`${delta}|q12`, `plank:${t}`);
      const b = stat(`${dict}|q12`, `plank:${t}`);
      if (a && b) dd.push(`${delta} / ${dict}, ${t === 'all' ? `${N} threads` : '1 thread'}: ${ratio(a, b)}`);
    }
  }
  if (dd.length) console.log(`\nplank Q12, DELTA / dictionary (medians): ${dd.join('; ')}`);
}

async function main(argv) {
  if (argv[0] === 'report') {
    if (argv.length !== 5) die('usage: report SAMPLES DATA NPROC COMMIT');
    report(argv[1], argv[2], argv[3], argv[4]);
    return;
  }
  if (argv[0] === 'write') {
    if (argv.length !== 4) die('usage: write duckdb|polars SRC DST');
    await writeTables(argv[1], argv[2], argv[3]);
    return;
  }
  const [engine, query, dir, ...opts] = argv;
  if (!SQL[query] || !dir) die('usage: duckdb|polars q1|q6|q12 DIR [--repeat N] [--warmup N] [--threads N]');
  let repeat = 0;
  let warmup = 0;
  let threads;
  for (let i = 0; i < opts.length; i += 2) {
    const n = Number(opts[i + 1]);
    const least = opts[i] === '--warmup' ? 0 : 1;
    if (!Number.isInteger(n) || n < least) die(`${opts[i]} needs an integer of at least ${least}`);
    if (opts[i] === '--repeat') repeat = n;
    else if (opts[i] === '--warmup') warmup = n;
    else if (opts[i] === '--threads') threads = n;
    else die(`unknown option ${opts[i]}`);
  }
  let run;
  if (engine === 'duckdb') run = await duckdbRunner(query, dir, threads);
  else if (engine === 'polars') run = await polarsRunner(query, dir, threads);
  else die(`unknown engine ${engine}`);

  let rows;
  for (let i = 0; i < (repeat > 0 ? warmup : 1); i++) rows = await run();
  const times = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    rows = await run();
    times.push(performance.now() - t0);
  }
  process.stdout.write(formatAnswer(query, rows));
  if (repeat > 0) {
    const label = threads === undefined ? 'default' : String(threads);
    console.error(`tpch ${query}: median ${median(times).toFixed(3)} ms, best ${Math.min(...times).toFixed(3)} ms `
      + `over ${repeat} runs, ${label} threads`);
  }
}

await main(process.argv.slice(2));
