#!/bin/sh
# bench/run_write.sh [ROWS] [REPEAT]: `plank bench write` next to DuckDB
# (COPY ... TO, one thread) and Polars (writeParquet, POLARS_MAX_THREADS=1),
# and with THREADS="1 2" also all three on two threads
# writing the same lineitem-like table, per codec, with output sizes.
# plank generates the table (deterministic) and exports it as CSV; the peers
# load that CSV once (not timed) and time only their Parquet write. The
# writers take turns round by round (plank dictionary on, off, from one
# long-lived process as the peers write from theirs; plank in a fresh process;
# DuckDB; Polars), so every writer's samples see the same machine load.
# Prints one JSON line per writer and codec and a summary table (medians of
# REPEAT rounds; ratios are peer time / plank time, > 1: plank is faster).
set -eu
cd "$(dirname "$0")/.."
rows=${1:-4000000}
rep=${2:-5}
build=${BUILD:-build}
# Every writer writes to the same directory, by default on tmpfs: the CPU
# work of writing, not the disk's writeback (which made runs vary 2x here).
dir=${BENCH_DIR:-/dev/shm}
[ -d "$dir" ] || dir=${TMPDIR:-/tmp}
tmp=$(mktemp -d -p "$dir")
trap 'rm -rf "$tmp"' EXIT
"$build/plank" bench write --rows "$rows" --repeat 0 --csv "$tmp/lineitem.csv" >/dev/null
out=$tmp/results.jsonl
# One node process loads the table into DuckDB and Polars once; each round
# runs plank (dictionary on, off), DuckDB and Polars one after the other.
# THREADS="1 2" (default "1"): each count in turn, the peers at the same
# count (DuckDB threads=N, POLARS_MAX_THREADS=N) and plank --threads N.
for t in ${THREADS:-1}; do
    PLANK="$build/plank" WRITE_THREADS=$t POLARS_MAX_THREADS=$t node bench/peers_write.mjs \
        "$tmp/lineitem.csv" "$tmp/peers" "$rep" snappy zstd uncompressed >>"$out"
done
cat "$out"
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const norm = c => ({ uncompressed: "none" }[c] ?? c);
const name = { plank_on: "plank (dictionary on)", plank_off: "plank (dictionary off)",
               plank_cold: "plank (dictionary on, fresh process)", duckdb: "DuckDB", polars: "Polars" };
console.log("| threads | codec | writer | median s | best s | rows/s (median) | file MB | speedup of plank (dictionary on) |");
console.log("|---:|---|---|---:|---:|---:|---:|---:|");
for (const t of [...new Set(rows.map(r => r.threads ?? 1))])
for (const c of ["snappy", "zstd", "none"]) {
  const order = ["plank_on", "plank_off", "plank_cold", "duckdb", "polars"];
  const here = rows.filter(r => norm(r.codec) === c && (r.threads ?? 1) === t)
                   .sort((a, b) => order.indexOf(a.peer) - order.indexOf(b.peer));
  const p = here.find(r => r.peer === "plank_on");
  for (const r of here) {
    const sp = r.peer.startsWith("plank") ? "" : (r.median_s / p.median_s).toFixed(2) + "x";
    console.log(`| ${t} | ${c} | ${name[r.peer]} | ${r.median_s.toFixed(3)} | ${r.best_s.toFixed(3)} | ` +
                `${(r.rows / r.median_s / 1e6).toFixed(2)} M | ${(r.bytes / 1e6).toFixed(1)} | ${sp} |`);
  }
}' "$out"
