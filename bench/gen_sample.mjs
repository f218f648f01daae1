// bench/gen_sample.mjs OUT.parquet [ROWS] [CODEC]: writes a synthetic
// lineitem-like table (integers, decimals, dates, low-cardinality strings,
// free text, doubles, nulls) with DuckDB, so the quick start and the
// benchmarks have a reproducible input without shipping data.
import { DuckDBInstance } from '@duckdb/node-api';

const out = process.argv[2] ?? 'sample.parquet';
const rows = Number(process.argv[3] ?? 1000000);
const codec = (process.argv[4] ?? 'zstd').toUpperCase();
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const esc = out.replace(/'/g, "''");
await con.run(`
COPY (
  SELECT
    i AS l_orderkey,
    (i * 7919) % 200000 AS l_partkey,
    CAST((i % 7) + 1 AS INTEGER) AS l_linenumber,
    CAST(((i * 31) % 5000) / 100.0 + 1 AS DECIMAL(15,2)) AS l_quantity,
    CAST(((i * 104729) % 10000000) / 100.0 AS DECIMAL(15,2)) AS l_extendedprice,
    ((i * 13) % 11) / 100.0 AS l_discount,
    ['R','A','N'][1 + i % 3] AS l_returnflag,
    ['O','F'][1 + (i // 3) % 2] AS l_linestatus,
    DATE '1992-01-01' + CAST((i * 17) % 2500 AS INTEGER) AS l_shipdate,
    ['TRUCK','MAIL','SHIP','AIR','REG AIR','RAIL','FOB'][1 + (i * 5) % 7] AS l_shipmode,
    CASE WHEN i % 10 = 0 THEN NULL ELSE 'comment ' || md5(CAST(i AS VARCHAR))[1:(i % 23) + 4] END AS l_comment,
    i % 2 = 0 AS l_flag
  FROM range(${rows}) t(i)
) TO '${esc}' (FORMAT PARQUET, COMPRESSION ${codec}, ROW_GROUP_SIZE 122880)`);
console.log(`wrote ${out}: ${rows} rows, ${codec}`);
