// bench/gen_nested.mjs OUT.parquet [ROWS] [CODEC]: writes, with DuckDB, the
// nested read benchmark's input: an id, a list<int64> column (0..6 elements,
// some null elements, some null lists) and a struct<name: string, score:
// double> column (some null structs, some null fields), ROWS rows
// (default 4,000,000) in row groups of 122,880 rows.
import { DuckDBInstance } from '@duckdb/node-api';

const out = process.argv[2] ?? 'nested.parquet';
const rows = Number(process.argv[3] ?? 4000000);
const codec = (process.argv[4] ?? 'zstd').toUpperCase();
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const esc = out.replace(/'/g, "''");
await con.run(`
COPY (
  SELECT
    i AS id,
    CASE WHEN i % 17 = 0 THEN NULL
         ELSE list_transform(range(i % 7), x -> CASE WHEN (i + x) % 11 = 0 THEN NULL ELSE i * 7 + x END)
    END AS vals,
    CASE WHEN i % 23 = 0 THEN NULL
         ELSE {'name': CASE WHEN i % 31 = 0 THEN NULL ELSE 'name-' || CAST(i % 5000 AS VARCHAR) END,
               'score': CASE WHEN i % 29 = 0 THEN NULL ELSE (i % 100000) / 7.0 END}
    END AS rec
  FROM range(${rows}) t(i)
) TO '${esc}' (FORMAT PARQUET, COMPRESSION ${codec}, ROW_GROUP_SIZE 122880)`);
console.log(`wrote ${out}: ${rows} rows, ${codec}`);
