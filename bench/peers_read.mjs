// bench/peers_read.mjs polars|duckdb: one read peer of bench/run_arrow_read.sh,
// kept in its own long-lived process (node, the engine and its first query
// take longer to start than a read of a small file) and driven over stdin:
// one command per line, a JSON array ["agg", FILE], one JSON line per
// command on stdout.
//
//   polars FILE    Polars readParquet of the whole file into a DataFrame
//                  (run with POLARS_MAX_THREADS=1 for a single-thread peer)
//   agg FILE       DuckDB, threads=1: SELECT max(c) of every non-string
//                  column and max(strlen(s)) of every VARCHAR column from
//                  read_parquet(FILE): every column is read and decoded
//   select FILE    DuckDB: SELECT * FROM read_parquet(FILE), materialised
//                  (connection.run): the whole file in DuckDB's own column
//                  chunks. Not Arrow: @duckdb/node-api 1.5.6-r.1 binds none of
//                  the C API's Arrow functions (duckdb_query_arrow,
//                  duckdb_data_chunk_to_arrow, ...), so its materialised
//                  columnar result is the closest it offers
//   copy SRC DST   DuckDB, threads=1: COPY (SELECT * FROM read_parquet(SRC))
//                  TO DST (FORMAT parquet) with DuckDB's default options
//                  (snappy); not timed, for making the benchmark's files
//
// Timed: the call alone (process.hrtime around it), reported as "seconds",
// with "rows" read. The DuckDB instance runs with the external file cache
// off, so every sample reads the file as plank's and Polars' samples do.
// With node --expose-gc the garbage of a sample (a DataFrame, a result) is
// collected after it, outside the timed part.
import readline from 'node:readline';

const role = process.argv[2];
if (role !== 'polars' && role !== 'duckdb') {
  console.error('usage: peers_read.mjs polars|duckdb (commands on stdin)');
  process.exit(2);
}

const sql = s => `'${s.replace(/'/g, "''")}'`;
const ident = s => `"${s.replace(/"/g, '""')}"`;
const secsSince = t0 => Number(process.hrtime.bigint() - t0) / 1e9;
const collect = () => { if (globalThis.gc) globalThis.gc(); };

let pl = null, con = null;
if (role === 'polars') {
  pl = (await import('nodejs-polars')).default;
} else {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  con = await inst.connect();
  await con.run('SET enable_external_file_cache = false');
}

// The aggregate query of a file, built once per file (not timed).
const aggQueries = new Map();
async function aggQuery(file) {
  if (aggQueries.has(file)) return aggQueries.get(file);
  const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sql(file)})`);
  const exprs = d.getRows().map(([name, type]) =>
    String(type) === 'VARCHAR' ? `max(strlen(${ident(name)}))` : `max(${ident(name)})`);
  const q = `SELECT count(*), ${exprs.join(', ')} FROM read_parquet(${sql(file)})`;
  aggQueries.set(file, q);
  return q;
}

async function run(op, args) {
  if (op === 'polars' && pl) {
    const t0 = process.hrtime.bigint();
    const df = pl.readParquet(args[0]);
    const seconds = secsSince(t0);
    return { seconds, rows: df.height };
  }
  if (op === 'agg' && con) {
    const q = await aggQuery(args[0]);
    const t0 = process.hrtime.bigint();
    const r = await con.runAndReadAll(q);
    const seconds = secsSince(t0);
    const row = r.getRows()[0];
    return { seconds, rows: Number(row[0]), result: row.slice(1).map(String).join(',') };
  }
  if (op === 'select' && con) {
    const t0 = process.hrtime.bigint();
    const r = await con.run(`SELECT * FROM read_parquet(${sql(args[0])})`);
    const seconds = secsSince(t0);
    return { seconds, rows: r.rowCount };
  }
  if (op === 'copy' && con && args.length === 2) {
    await con.run(`COPY (SELECT * FROM read_parquet(${sql(args[0])})) TO ${sql(args[1])} ` +
                  '(FORMAT parquet)');
    return { ok: true };
  }
  throw new Error(`${role}: unknown command '${op}'`);
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    const [op, ...args] = JSON.parse(line);
    answer = await run(op, args);
  } catch (e) {
    answer = { error: String(e.message ?? e) };
  }
  collect();
  process.stdout.write(JSON.stringify(answer) + '\n');
}
