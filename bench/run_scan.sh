#!/bin/sh
# bench/run_scan.sh [SF] [ROUNDS]: the pushdown scan's benchmark (issue 13),
# defaults SF 1 and 5 rounds, one thread everywhere.
#
# Files (made if absent in $BENCH_DIR/sf$SF, default /dev/shm/plank-scan):
# TPC-H lineitem from plank's generator with --encoding plain, dictionary
# and delta, each uncompressed and zstd. Queries: Q12's lineitem filter, Q6's
# filter, a point lookup on the sorted key (l_orderkey = 3000000), all three
# counted (plank bench scan --count; DuckDB SELECT count(*) ... WHERE, threads
# 1; Polars' lazy scan + SQL count, POLARS_MAX_THREADS=1), and the
# unselective filter l_quantity > 0 with every column read (plank's stream
# against its own plain read, --no-pushdown, and DuckDB's SELECT *).
# Each round runs every engine once per file and query (interleaved; each
# engine repeats REPEAT=3 times in its process after one untimed run and
# reports the median); the table gives the median over rounds and the
# ratio to DuckDB. Raw samples: $BENCH_DIR/scan_samples.jsonl.
#   bench/run_scan.sh 1 5
set -eu
cd "$(dirname "$0")/.."
SF=${1:-1}
ROUNDS=${2:-5}
REPEAT=${REPEAT:-3}
BENCH_DIR=${BENCH_DIR:-/dev/shm/plank-scan}
if [ -z "${BUILD:-}" ]; then
    BUILD=/tmp/rel
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPLANK_BUILD_TESTS=OFF >/dev/null
    cmake --build "$BUILD" -j2 --target plank >/dev/null
fi
PLANK=$BUILD/plank
D=$BENCH_DIR/sf$SF
mkdir -p "$D"
gen() { # NAME tpch-gen-options...
    name=$1
    shift
    [ -f "$D/$name.parquet" ] && return 0
    rm -rf "$D/$name.tmp"
    "$PLANK" tpch gen --sf "$SF" --out "$D/$name.tmp" --tables lineitem "$@" >/dev/null
    mv "$D/$name.tmp/lineitem.parquet" "$D/$name.parquet"
    rm -rf "$D/$name.tmp"
}
for e in plain dictionary delta; do
    gen "$e" --encoding "$e" --codec uncompressed
    gen "$e-zstd" --encoding "$e" --codec zstd
done

Q12="l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1995-01-01'"
Q6="l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
POINT="l_orderkey = 3000000"
WIDE="l_quantity > 0"
SAMPLES=$BENCH_DIR/scan_samples.jsonl
: > "$SAMPLES"
plank_ms() { # FILE WHERE [extra options]: the median of REPEAT runs, in ms
    f=$1
    w=$2
    shift 2
    "$PLANK" bench scan "$f" --where "$w" --repeat "$REPEAT" --threads 1 --no-verify-checksums --json "$@" |
        sed 's/.*"median_seconds":\([0-9.e+-]*\).*/\1/' | awk '{ printf "%.3f", $1 * 1000 }'
}
peer_ms() { # ENGINE FILE WHERE [COLUMNS]
    POLARS_MAX_THREADS=1 node bench/scan_peers.mjs "$1" "$2" "$REPEAT" "$3" ${4:+"$4"} |
        sed 's/.*"median_ms":\([0-9.e+-]*\).*/\1/'
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for name in plain plain-zstd dictionary dictionary-zstd delta delta-zstd; do
        f=$D/$name.parquet
        for q in Q12 Q6 POINT; do
            eval "w=\$$q"
            p=$(plank_ms "$f" "$w" --count)
            dk=$(peer_ms duckdb "$f" "$w")
            po=$(peer_ms polars "$f" "$w")
            echo "{\"round\":$r,\"file\":\"$name\",\"query\":\"$q\",\"plank\":$p,\"duckdb\":$dk,\"polars\":$po}" >> "$SAMPLES"
        done
        p=$(plank_ms "$f" "$WIDE")
        plain=$(plank_ms "$f" "$WIDE" --no-pushdown)
        dk=$(peer_ms duckdb "$f" "$WIDE" '*')
        echo "{\"round\":$r,\"file\":\"$name\",\"query\":\"WIDE\",\"plank\":$p,\"plank_plain\":$plain,\"duckdb\":$dk}" >> "$SAMPLES"
    done
    r=$((r + 1))
done
node -e '
const fs = require("fs");
const rows = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const med = (v) => { v = v.slice().sort((a, b) => a - b); const n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2; };
const keys = [...new Set(rows.map((x) => x.file + "|" + x.query))];
console.log("| file | query | plank ms | DuckDB ms | Polars ms | plank/DuckDB | plank plain ms |");
console.log("|---|---|---:|---:|---:|---:|---:|");
for (const k of keys) {
  const [file, query] = k.split("|");
  const s = rows.filter((x) => x.file === file && x.query === query);
  const p = med(s.map((x) => x.plank)), d = med(s.map((x) => x.duckdb));
  const po = s[0].polars !== undefined ? med(s.map((x) => x.polars)).toFixed(1) : "-";
  const pp = s[0].plank_plain !== undefined ? med(s.map((x) => x.plank_plain)).toFixed(1) : "-";
  console.log(`| ${file} | ${query} | ${p.toFixed(1)} | ${d.toFixed(1)} | ${po} | ${(p / d).toFixed(2)} | ${pp} |`);
}' "$SAMPLES"
