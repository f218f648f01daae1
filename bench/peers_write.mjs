// bench/peers_write.mjs CSV OUTDIR [REPEAT] [CODEC...]: the write peers of
// `plank bench write`. The CSV is the table plank generated (`plank bench
// write --csv`). DuckDB loads it once into an in-memory table with the
// exact lineitem types (BIGINT keys, INTEGER line number, DECIMAL(15,2)
// money, DATE, VARCHAR), single thread; the timed part is
// `COPY t TO 'file' (FORMAT parquet, COMPRESSION codec)`. Polars (run with
// POLARS_MAX_THREADS=1) loads the Parquet file DuckDB wrote, so it holds the
// same types (decimals stay decimals), and the timed part is writeParquet.
// With PLANK=path/to/plank in the environment, each round also has one
// long-lived `plank bench write --serve` process write the table (dictionary
// on, then off) right before the peers, so the samples of all writers are
// taken side by side (this machine's load changes from minute to minute;
// plank's time excludes its table generation, as the peers' excludes the
// CSV load), every writer from a process that has written before. Each
// round also times one write by a fresh plank process (`plank bench write
// --repeat 1`, dictionary on), reported as plank_cold: what a one-off
// `plank convert` pays, first touches of its buffers included.
// Prints one JSON line per (writer, codec): median and best seconds of REPEAT
// rounds and the output size.
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pl from 'nodejs-polars';

const [csv, outdir, repeatArg, ...codecArgs] = process.argv.slice(2);
if (!csv || !outdir) {
  console.error('usage: peers_write.mjs CSV OUTDIR [REPEAT] [CODEC...]');
  process.exit(2);
}
const repeat = Number(repeatArg ?? 5);
const codecs = codecArgs.length ? codecArgs : ['snappy', 'zstd', 'uncompressed'];
fs.mkdirSync(outdir, { recursive: true });

const types = {
  l_orderkey: 'BIGINT', l_partkey: 'BIGINT', l_suppkey: 'BIGINT', l_linenumber: 'INTEGER',
  l_quantity: 'DECIMAL(15,2)', l_extendedprice: 'DECIMAL(15,2)', l_discount: 'DECIMAL(15,2)',
  l_tax: 'DECIMAL(15,2)', l_returnflag: 'VARCHAR', l_linestatus: 'VARCHAR',
  l_shipdate: 'DATE', l_commitdate: 'DATE', l_receiptdate: 'DATE', l_shipinstruct: 'VARCHAR',
  l_shipmode: 'VARCHAR', l_comment: 'VARCHAR',
};
const cols = Object.entries(types).map(([k, v]) => `'${k}': '${v}'`).join(', ');

function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  return { median_s: s[Math.floor(s.length / 2)], best_s: s[0] };
}

// WRITE_THREADS (default 1): DuckDB's threads and plank's --threads; the
// caller sets POLARS_MAX_THREADS to the same number (bench/run_write.sh).
const threads = process.env.WRITE_THREADS ?? '1';
const inst = await DuckDBInstance.create(':memory:', { threads });
const con = await inst.connect();
await con.run(`CREATE TABLE t AS SELECT * FROM read_csv('${csv}', header = true, columns = {${cols}})`);
const rows = Number((await con.runAndReadAll('SELECT count(*) FROM t')).getRows()[0][0]);

const polarsSrc = path.join(outdir, 'polars_source.parquet');
await con.run(`COPY t TO '${polarsSrc}' (FORMAT parquet, COMPRESSION uncompressed)`);
const df = pl.readParquet(polarsSrc);

import { execFileSync, spawn } from 'node:child_process';
import readline from 'node:readline';
const plank = process.env.PLANK;
const rowsArg = String(rows);

// The serving plank process: its table is generated once, as the peers'
// is loaded once; one request line per write, one JSON answer line.
let server = null, answers = null;
async function answer() {
  const r = await answers.next();
  if (r.done) throw new Error('plank bench write --serve stopped answering');
  return JSON.parse(r.value);
}
if (plank) {
  server = spawn(plank, ['bench', 'write', '--rows', rowsArg, '--serve'],
                 { stdio: ['pipe', 'pipe', 'inherit'] });
  answers = readline.createInterface({ input: server.stdout })[Symbol.asyncIterator]();
  await answer(); // the table is ready
}
const plankCodec = codec => (codec === 'uncompressed' ? 'none' : codec);

async function plankOnce(codec, dict, file) {
  server.stdin.write(`--codec ${plankCodec(codec)} --dictionary ${dict} --threads ${threads} -o ${file}\n`);
  const r = await answer();
  return { secs: r.seconds, bytes: r.file_bytes };
}

function plankCold(codec, file) {
  const out = execFileSync(plank, ['bench', 'write', '--rows', rowsArg, '--repeat', '1',
    '--codec', plankCodec(codec), '--dictionary', 'on', '--threads', threads, '-o', file, '--json'],
    { encoding: 'utf8' });
  const r = JSON.parse(out.trim().split('\n').pop());
  return { secs: r.median_seconds, bytes: r.file_bytes };
}

for (const codec of codecs) {
  const dfile = path.join(outdir, `duckdb_${codec}.parquet`);
  const pfile = path.join(outdir, `polars_${codec}.parquet`);
  const times = { duckdb: [], polars: [], plank_on: [], plank_off: [], plank_cold: [] };
  const bytes = {};
  for (let i = 0; i < repeat; i++) {
    if (plank) {
      for (const dict of ['on', 'off']) {
        const r = await plankOnce(codec, dict, path.join(outdir, `plank_${codec}_${dict}.parquet`));
        times[`plank_${dict}`].push(r.secs);
        bytes[`plank_${dict}`] = r.bytes;
      }
      const r = plankCold(codec, path.join(outdir, `plank_${codec}_cold.parquet`));
      times.plank_cold.push(r.secs);
      bytes.plank_cold = r.bytes;
    }
    let t0 = process.hrtime.bigint();
    await con.run(`COPY t TO '${dfile}' (FORMAT parquet, COMPRESSION ${codec})`);
    times.duckdb.push(Number(process.hrtime.bigint() - t0) / 1e9);
    t0 = process.hrtime.bigint();
    df.writeParquet(pfile, { compression: codec });
    times.polars.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  bytes.duckdb = fs.statSync(dfile).size;
  bytes.polars = fs.statSync(pfile).size;
  for (const [peer, t] of Object.entries(times)) {
    if (!t.length) continue;
    console.log(JSON.stringify({ peer, codec, rows, repeat, threads: Number(threads), ...stats(t),
                                 bytes: bytes[peer] }));
  }
}
if (server) {
  server.stdin.end();
  await new Promise(resolve => server.on('close', resolve));
}
