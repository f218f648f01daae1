// bench/polars_read.mjs FILE [REPEAT]: times Polars' readParquet of the
// whole file (run with POLARS_MAX_THREADS=1 for a single-thread peer) and
// prints the median, as JSON, for bench/run_read.sh.
import pl from 'nodejs-polars';

const file = process.argv[2];
const repeat = Number(process.argv[3] ?? 5);
const times = [];
let rows = 0;
for (let i = 0; i < repeat; i++) {
  const t0 = process.hrtime.bigint();
  const df = pl.readParquet(file);
  rows = df.height;
  times.push(Number(process.hrtime.bigint() - t0) / 1e9);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(JSON.stringify({ peer: 'polars', file, rows, repeat, median_s: median,
  rows_per_s: rows / median }));
