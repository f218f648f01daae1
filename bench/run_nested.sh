#!/bin/sh
# bench/run_nested.sh [PLANK_BIN] [REPEAT]: the nested read benchmark of
# bench/README.md ("Nested reading"). Generates the list<int64> +
# struct<string,double> sample (4M rows, bench/gen_nested.mjs) uncompressed
# and with ZSTD if absent, then times in the same run, per file:
#   plank bench read (leaf columns: values + levels, no record assembly),
#   plank bench read --arrow (the Arrow stream: records assembled),
#   Polars readParquet with POLARS_MAX_THREADS=1,
# all medians of REPEAT, and the same on the nested parquet-testing files
# (PLANK_TESTING_DIR, default ../shared/parquet-testing). Generated files go
# to $PLANK_BENCH_DATA (default build/data).
set -eu
cd "$(dirname "$0")/.."
PLANK=${1:-build/plank}
REPEAT=${2:-7}
TESTING=${PLANK_TESTING_DIR:-../shared/parquet-testing}
DATA=${PLANK_BENCH_DATA:-build/data}
mkdir -p "$DATA"
for codec in uncompressed zstd; do
    f=$DATA/nested_4m_$codec.parquet
    [ -f "$f" ] || node bench/gen_nested.mjs "$f" 4000000 "$codec" >/dev/null
done
printf '%-36s %9s %11s %11s %10s %12s\n' file rows plank_cols plank_arrow polars arrow/polars
for f in "$DATA"/nested_4m_uncompressed.parquet "$DATA"/nested_4m_zstd.parquet \
         "$TESTING"/data/nested_lists.snappy.parquet "$TESTING"/data/nested_maps.snappy.parquet \
         "$TESTING"/data/nested_structs.rust.parquet "$TESTING"/data/nonnullable.impala.parquet \
         "$TESTING"/data/nullable.impala.parquet "$TESTING"/data/list_columns.parquet \
         "$TESTING"/data/repeated_no_annotation.parquet "$TESTING"/data/repeated_primitive_no_list.parquet \
         "$TESTING"/data/old_list_structure.parquet "$TESTING"/data/null_list.parquet; do
    [ -f "$f" ] || continue
    n=$REPEAT
    case "$f" in "$DATA"/*) ;; *) n=$((REPEAT * 50)) ;; esac # tiny files: more repeats
    p=$("$PLANK" bench read "$f" --repeat "$n" --json)
    a=$("$PLANK" bench read "$f" --repeat "$n" --json --arrow)
    q=$(POLARS_MAX_THREADS=1 node bench/polars_read.mjs "$f" "$n" 2>/dev/null || echo '{"median_s":null}')
    node -e '
const p = JSON.parse(process.argv[1]), a = JSON.parse(process.argv[2]), q = JSON.parse(process.argv[3]);
const ms = (s) => (s == null ? "n/a" : (s * 1e3).toFixed(s < 0.01 ? 3 : 1));
const ratio = q.median_s ? (q.median_s / a.median_seconds).toFixed(2) + "x" : "n/a";
console.log(`${process.argv[4].padEnd(36)} ${String(p.rows).padStart(9)} ${ms(p.median_seconds).padStart(11)} ${ms(a.median_seconds).padStart(11)} ${ms(q.median_s).padStart(10)} ${ratio.padStart(12)}`);
' "$p" "$a" "$q" "$(basename "$f")"
done
echo "(times in ms, medians; arrow/polars > 1 means plank's Arrow stream is faster)"
