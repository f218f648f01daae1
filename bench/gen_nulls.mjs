// bench/gen_nulls.mjs OUT.parquet [ROWS] [CODEC]: a table of nullable
// fixed-width columns and booleans (with and without nulls), for the null
// spreading and boolean kernels (bench/README.md, kernels section).
import { DuckDBInstance } from '@duckdb/node-api';

const out = process.argv[2] ?? 'nulls.parquet';
const rows = Number(process.argv[3] ?? 1000000);
const codec = (process.argv[4] ?? 'uncompressed').toUpperCase();
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const esc = out.replace(/'/g, "''");
// h: a deterministic hash of the row, so nulls and values look random.
await con.run(`
COPY (
  SELECT
    CASE WHEN h % 10 = 0 THEN NULL ELSE CAST(h % 1000003 AS INTEGER) END AS i32_10,
    CASE WHEN h % 2 = 0 THEN NULL ELSE CAST(h AS BIGINT) END AS i64_50,
    CASE WHEN h % 10 = 1 THEN NULL ELSE (h % 100000) / 7.0 END AS f64_10,
    (h // 7) % 2 = 0 AS b,
    CASE WHEN h % 10 = 2 THEN NULL ELSE (h // 11) % 3 = 0 END AS b_10
  FROM (SELECT (i * 2654435761) % 4294967291 AS h FROM range(${rows}) t(i))
) TO '${esc}' (FORMAT PARQUET, COMPRESSION ${codec}, ROW_GROUP_SIZE 122880)`);
console.log(`wrote ${out}: ${rows} rows, ${codec}`);
