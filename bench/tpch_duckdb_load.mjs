#!/usr/bin/env node
// tpch_duckdb_load.mjs TBL_DIR OUT_DIR THREADS [CODEC]: the peer of
// `plank tpch gen` in bench/run_tpch.sh. DuckDB (@duckdb/node-api) reads the
// eight .tbl files plank wrote (read_csv with the TPC-H types, as plank's
// Parquet has them) and writes each as Parquet (default codec zstd), with
// `threads` threads. Prints the seconds taken (DuckDB startup excluded).
// This is what a user without a TPC-H Parquet generator does after running
// dbgen, minus dbgen itself: a floor for the peer, not its whole cost.
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [tbl, out, threads, codec = 'zstd'] = process.argv.slice(2);
const TABLES = {
    part: { p_partkey: 'BIGINT', p_name: 'VARCHAR', p_mfgr: 'VARCHAR', p_brand: 'VARCHAR', p_type: 'VARCHAR', p_size: 'INTEGER', p_container: 'VARCHAR', p_retailprice: 'DECIMAL(15,2)', p_comment: 'VARCHAR' },
    partsupp: { ps_partkey: 'BIGINT', ps_suppkey: 'BIGINT', ps_availqty: 'INTEGER', ps_supplycost: 'DECIMAL(15,2)', ps_comment: 'VARCHAR' },
    supplier: { s_suppkey: 'BIGINT', s_name: 'VARCHAR', s_address: 'VARCHAR', s_nationkey: 'BIGINT', s_phone: 'VARCHAR', s_acctbal: 'DECIMAL(15,2)', s_comment: 'VARCHAR' },
    customer: { c_custkey: 'BIGINT', c_name: 'VARCHAR', c_address: 'VARCHAR', c_nationkey: 'BIGINT', c_phone: 'VARCHAR', c_acctbal: 'DECIMAL(15,2)', c_mktsegment: 'VARCHAR', c_comment: 'VARCHAR' },
    orders: { o_orderkey: 'BIGINT', o_custkey: 'BIGINT', o_orderstatus: 'VARCHAR', o_totalprice: 'DECIMAL(15,2)', o_orderdate: 'DATE', o_orderpriority: 'VARCHAR', o_clerk: 'VARCHAR', o_shippriority: 'INTEGER', o_comment: 'VARCHAR' },
    lineitem: { l_orderkey: 'BIGINT', l_partkey: 'BIGINT', l_suppkey: 'BIGINT', l_linenumber: 'INTEGER', l_quantity: 'DECIMAL(15,2)', l_extendedprice: 'DECIMAL(15,2)', l_discount: 'DECIMAL(15,2)', l_tax: 'DECIMAL(15,2)', l_returnflag: 'VARCHAR', l_linestatus: 'VARCHAR', l_shipdate: 'DATE', l_commitdate: 'DATE', l_receiptdate: 'DATE', l_shipinstruct: 'VARCHAR', l_shipmode: 'VARCHAR', l_comment: 'VARCHAR' },
    nation: { n_nationkey: 'BIGINT', n_name: 'VARCHAR', n_regionkey: 'BIGINT', n_comment: 'VARCHAR' },
    region: { r_regionkey: 'BIGINT', r_name: 'VARCHAR', r_comment: 'VARCHAR' },
};
const q = (s) => `'${s.replaceAll("'", "''")}'`;
mkdirSync(out, { recursive: true });
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run(`SET threads = ${Number(threads)}`);
await con.run(`SET preserve_insertion_order = true`);
const t0 = performance.now();
for (const [t, cols] of Object.entries(TABLES)) {
    const spec = '{' + Object.entries(cols).map(([n, ty]) => `${q(n)}: ${q(ty)}`).join(', ') + '}';
    await con.run(`COPY (SELECT * FROM read_csv(${q(join(tbl, t + '.tbl'))}, delim='|', header=false, quote='', escape='', auto_detect=false, columns=${spec}))
                   TO ${q(join(out, t + '.parquet'))} (FORMAT parquet, COMPRESSION ${codec})`);
}
console.log(((performance.now() - t0) / 1000).toFixed(3));
