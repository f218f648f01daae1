// bench/scan_peers.mjs ENGINE FILE REPEAT WHERE [COLUMNS]: one peer's time for
// the scan benchmark (bench/run_scan.sh). ENGINE duckdb (threads=1, SELECT
// count(*) ... WHERE, or with COLUMNS the columns' rows read to the end) or
// polars (lazy scanParquet through Polars' SQL context, the same text; one
// thread: run with POLARS_MAX_THREADS=1). REPEAT runs in one process, the
// first one not timed; prints {"median_ms":..,"best_ms":..,"rows":..}.
import { DuckDBInstance } from '@duckdb/node-api';
import pl from 'nodejs-polars';

const [engine, file, repeatText, where, columns] = process.argv.slice(2);
const repeat = Math.max(1, Number(repeatText));
const sel = columns ? columns : 'count(*) AS n';
const sql = `SELECT ${sel} FROM lineitem WHERE ${where}`;
const times = [];
let rows = -1;
if (engine === 'duckdb') {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const c = await db.connect();
  const q = sql.replace('FROM lineitem', `FROM read_parquet('${file}')`);
  for (let i = 0; i <= repeat; i++) {
    const t0 = performance.now();
    let n;
    if (columns) {
      // Read every chunk of the result (materialised as DuckDB's vectors).
      const res = await c.stream(q);
      n = 0;
      for (;;) {
        const chunk = await res.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        n += chunk.rowCount;
      }
    } else {
      const r = await c.runAndReadAll(q);
      n = Number(r.getRows()[0][0]);
    }
    const t = performance.now() - t0;
    if (i > 0) times.push(t);
    rows = n;
  }
} else if (engine === 'polars') {
  for (let i = 0; i <= repeat; i++) {
    const t0 = performance.now();
    const ctx = pl.SQLContext({ lineitem: pl.scanParquet(file) });
    const df = ctx.execute(sql).collectSync();
    const n = columns ? df.height : Number(df.getColumn('n').toArray()[0]);
    const t = performance.now() - t0;
    if (i > 0) times.push(t);
    rows = n;
  }
} else {
  console.error(`unknown engine ${engine}`);
  process.exit(2);
}
times.sort((a, b) => a - b);
const med = times.length % 2 ? times[(times.length - 1) / 2]
  : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
console.log(JSON.stringify({ median_ms: med, best_ms: times[0], rows }));
