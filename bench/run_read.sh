#!/bin/sh
# bench/run_read.sh [PLANK_BIN] [REPEAT]: the read benchmark of README.md.
# Generates the lineitem-like sample (1M rows) uncompressed and with ZSTD if
# absent, then times, in the same run, `plank bench read` (all columns,
# median of REPEAT) and Polars' readParquet with POLARS_MAX_THREADS=1
# (median of REPEAT), and prints one line per file with the ratio.
set -eu
cd "$(dirname "$0")/.."
PLANK=${1:-build/plank}
REPEAT=${2:-7}
mkdir -p build/data
for codec in uncompressed zstd; do
    f=build/data/lineitem_1m_$codec.parquet
    [ -f "$f" ] || node bench/gen_sample.mjs "$f" 1000000 "$codec" >/dev/null
done
printf '%-34s %12s %12s %14s %8s\n' file plank_ms polars_ms plank_rows/s ratio
for codec in uncompressed zstd; do
    f=build/data/lineitem_1m_$codec.parquet
    p=$("$PLANK" bench read "$f" --repeat "$REPEAT" --json)
    q=$(POLARS_MAX_THREADS=1 node bench/polars_read.mjs "$f" "$REPEAT")
    node -e '
const p = JSON.parse(process.argv[1]), q = JSON.parse(process.argv[2]);
const pm = p.median_seconds * 1e3, qm = q.median_s * 1e3;
console.log(`${process.argv[3].padEnd(34)} ${pm.toFixed(1).padStart(12)} ${qm.toFixed(1).padStart(12)} ${(p.rows_per_second/1e6).toFixed(2).padStart(11)} M ${(qm/pm).toFixed(2).padStart(7)}x`);
' "$p" "$q" "$(basename "$f")"
done
