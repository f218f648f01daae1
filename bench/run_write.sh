#!/bin/sh
# bench/run_write.sh [ROWS] [REPEAT]: `plank bench write` next to DuckDB
# (COPY ... TO, one thread) and Polars (writeParquet, POLARS_MAX_THREADS=1)
# writing the same lineitem-like table, per codec, with output sizes.
# plank generates the table (deterministic) and exports it as CSV; the peers
# load that CSV once (not timed) and time only their Parquet write.
# Prints one JSON line per run and a summary table (medians; ratios are
# peer time / plank time, so > 1 means plank is faster).
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
for codec in snappy zstd none; do
    for dict in on off; do
        "$build/plank" bench write --rows "$rows" --repeat "$rep" --codec "$codec" \
            --dictionary "$dict" --json | sed "s/^{/{\"peer\":\"plank\",\"dict\":\"$dict\",/" >>"$out"
    done
done
POLARS_MAX_THREADS=1 node bench/peers_write.mjs "$tmp/lineitem.csv" "$tmp/peers" "$rep" \
    snappy zstd uncompressed >>"$out"
cat "$out"
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const norm = c => ({ SNAPPY: "snappy", ZSTD: "zstd", UNCOMPRESSED: "none", uncompressed: "none" }[c] ?? c);
const plank = {}, peers = [];
for (const r of rows) {
  if (r.peer === "plank") plank[norm(r.codec) + "/" + r.dict] = r;
  else peers.push(r);
}
console.log("| codec | writer | median s | rows/s | file MB | plank dict=on speedup |");
console.log("|---|---|---|---|---|---|");
for (const c of ["snappy", "zstd", "none"]) {
  const p = plank[c + "/on"], q = plank[c + "/off"];
  for (const [name, r] of [["plank (dictionary on)", p], ["plank (dictionary off)", q]])
    console.log(`| ${c} | ${name} | ${r.median_seconds.toFixed(3)} | ${(r.rows / r.median_seconds / 1e6).toFixed(2)} M | ${(r.file_bytes / 1e6).toFixed(1)} | |`);
  for (const r of peers.filter(r => norm(r.codec) === c))
    console.log(`| ${c} | ${r.peer} | ${r.median_s.toFixed(3)} | ${(r.rows / r.median_s / 1e6).toFixed(2)} M | ${(r.bytes / 1e6).toFixed(1)} | ${(r.median_s / p.median_seconds).toFixed(2)}x |`);
}' "$out"
