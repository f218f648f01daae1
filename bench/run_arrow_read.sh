#!/bin/sh
# bench/run_arrow_read.sh [SF] [ROUNDS]: the read path's benchmark (issue 12),
# defaults SF 1 and 5 rounds. plank's Arrow stream next to its column
# reader, Polars, DuckDB and the physical limit, over TPC-H lineitem at SF.
#
# Makes, if absent, five lineitem files in $BENCH_DIR/sf$SF (BENCH_DIR
# default /dev/shm/plank-read, tmpfs): plank's generator with --encoding
# plain, dictionary and delta (v2 pages, no dictionary), all
# --codec uncompressed; zstd (default encodings, --codec zstd); duckdb
# (DuckDB 1.5.6, threads=1, reading the plain file and writing it with its
# defaults: COPY ... TO (FORMAT parquet), snappy). Then, per file, ROUNDS
# interleaved rounds of every reader after one unrecorded warm-up round
# (WARMUP=0: none; bench/arrow_read.mjs), the raw samples
# in $BENCH_DIR/samples.jsonl, and a table per file: median and best ms, and
# the ratios of the issue's targets.
#
# plank: $BUILD/plank; without BUILD, a Release build in /tmp/rel (tests
# off). bench_physical (a test-tree target): $PHYSICAL, else
# $BUILD/tests/bench_physical when BUILD has it, else built in
# ${PHYSICAL_BUILD:-/tmp/rel-physical} (Release, tests on).
#   bench/run_arrow_read.sh 1 5
#   BUILD=/tmp/rel bench/run_arrow_read.sh 0.1 2
set -eu
cd "$(dirname "$0")/.."
SF=${1:-1}
ROUNDS=${2:-5}
BENCH_DIR=${BENCH_DIR:-/dev/shm/plank-read}

if [ -z "${BUILD:-}" ]; then
    BUILD=/tmp/rel
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPLANK_BUILD_TESTS=OFF >/dev/null
    cmake --build "$BUILD" -j2 --target plank >/dev/null
fi
PLANK=$BUILD/plank
if [ -z "${PHYSICAL:-}" ]; then
    if [ -x "$BUILD/tests/bench_physical" ]; then
        PHYSICAL=$BUILD/tests/bench_physical
    else
        pb=${PHYSICAL_BUILD:-/tmp/rel-physical}
        cmake -S . -B "$pb" -DCMAKE_BUILD_TYPE=Release -DPLANK_BUILD_TESTS=ON >/dev/null
        cmake --build "$pb" -j2 --target bench_physical >/dev/null
        PHYSICAL=$pb/tests/bench_physical
    fi
fi

# The files, each made under a temporary name and renamed when complete (an
# interrupted run leaves no partial file that a later run would take).
D=$BENCH_DIR/sf$SF
mkdir -p "$D"
gen() { # NAME tpch-gen-options...
    name=$1
    shift
    [ -f "$D/$name.parquet" ] && return 0
    rm -rf "$D/$name.tmp"
    "$PLANK" tpch gen --sf "$SF" --out "$D/$name.tmp" --tables lineitem "$@"
    mv "$D/$name.tmp/lineitem.parquet" "$D/$name.parquet"
    rm -rf "$D/$name.tmp"
}
gen plain --encoding plain --codec uncompressed
gen dictionary --encoding dictionary --codec uncompressed
gen delta --encoding delta --codec uncompressed
gen zstd --codec zstd
if [ ! -f "$D/duckdb.parquet" ]; then
    rm -f "$D/duckdb.tmp.parquet"
    printf '["copy","%s","%s"]\n' "$D/plain.parquet" "$D/duckdb.tmp.parquet" |
        node bench/peers_read.mjs duckdb | grep -q '"ok":true'
    mv "$D/duckdb.tmp.parquet" "$D/duckdb.parquet"
fi

set --
for name in plain dictionary delta duckdb zstd; do
    set -- "$@" "$name=$D/$name.parquet"
done
SF=$SF PLANK=$PLANK PHYSICAL=$PHYSICAL \
    node bench/arrow_read.mjs "$ROUNDS" "$BENCH_DIR/samples.jsonl" "$@"
