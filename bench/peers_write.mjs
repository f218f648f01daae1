// bench/peers_write.mjs CSV OUTDIR [REPEAT] [CODEC...]: the write peers of
// `plank bench write`. The CSV is the table plank generated (`plank bench
// write --csv`). DuckDB loads it once into an in-memory table with the
// exact lineitem types (BIGINT keys, INTEGER line number, DECIMAL(15,2)
// money, DATE, VARCHAR), single thread; the timed part is
// `COPY t TO 'file' (FORMAT parquet, COMPRESSION codec)`. Polars (run with
// POLARS_MAX_THREADS=1) loads the Parquet file DuckDB wrote, so it holds the
// same types (decimals stay decimals), and the timed part is writeParquet.
// Prints one JSON line per (peer, codec): median and best seconds of REPEAT
// runs and the output size.
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

const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
await con.run(`CREATE TABLE t AS SELECT * FROM read_csv('${csv}', header = true, columns = {${cols}})`);
const rows = Number((await con.runAndReadAll('SELECT count(*) FROM t')).getRows()[0][0]);

const polarsSrc = path.join(outdir, 'polars_source.parquet');
await con.run(`COPY t TO '${polarsSrc}' (FORMAT parquet, COMPRESSION uncompressed)`);
const df = pl.readParquet(polarsSrc);

for (const codec of codecs) {
  const dfile = path.join(outdir, `duckdb_${codec}.parquet`);
  const times = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    await con.run(`COPY t TO '${dfile}' (FORMAT parquet, COMPRESSION ${codec})`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  console.log(JSON.stringify({ peer: 'duckdb', codec, rows, repeat, ...stats(times),
    bytes: fs.statSync(dfile).size }));

  const pfile = path.join(outdir, `polars_${codec}.parquet`);
  const ptimes = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    df.writeParquet(pfile, { compression: codec });
    ptimes.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  console.log(JSON.stringify({ peer: 'polars', codec, rows, repeat, ...stats(ptimes),
    bytes: fs.statSync(pfile).size }));
}
