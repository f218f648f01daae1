#!/bin/sh
# bench/run_parallel.sh [SF] [ROUNDS]: parallel reads (issue 17), defaults SF 1
# and 5 rounds: plank with 1 thread against plank with 2 (and all cores, when
# the machine has more), interleaved round by round.
#
# Files (made if absent in $BENCH_DIR/sf$SF, default /dev/shm/plank-par):
# TPC-H lineitem from plank's generator, default encoding, uncompressed and
# zstd (six row groups at SF 1). Workloads: the full read through the Arrow
# stream (plank bench read --arrow: open, every column of every row, close)
# and Q6's filter with its two columns projected (plank bench scan). Each
# sample is the median of the runs in one process, REPEAT=3 of the full read
# and Q6_REPEAT=30 of Q6 (about 20 ms a run against 200 ms: each sample then
# spans about the same time, so one stall of the shared VM weighs the two
# workloads alike); the table gives the median over rounds and the speedup
# over one thread. Raw samples: $BENCH_DIR/parallel_samples.txt.
#   bench/run_parallel.sh 1 5
set -eu
cd "$(dirname "$0")/.."
SF=${1:-1}
ROUNDS=${2:-5}
REPEAT=${REPEAT:-3}
Q6_REPEAT=${Q6_REPEAT:-30}
BENCH_DIR=${BENCH_DIR:-/dev/shm/plank-par}
if [ -z "${BUILD:-}" ]; then
    BUILD=/tmp/rel
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPLANK_BUILD_TESTS=OFF >/dev/null
    cmake --build "$BUILD" -j2 --target plank >/dev/null
fi
PLANK=$BUILD/plank
D=$BENCH_DIR/sf$SF
mkdir -p "$D"
for codec in none zstd; do
    [ -f "$D/$codec.parquet" ] && continue
    rm -rf "$D/$codec.tmp"
    "$PLANK" tpch gen --sf "$SF" --out "$D/$codec.tmp" --tables lineitem --codec "$codec" >/dev/null
    mv "$D/$codec.tmp/lineitem.parquet" "$D/$codec.parquet"
    rm -rf "$D/$codec.tmp"
done
CORES=$(nproc)
THREADS="1 2"
[ "$CORES" -gt 2 ] && THREADS="$THREADS $CORES"
Q6="l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
OUT=$BENCH_DIR/parallel_samples.txt
: > "$OUT"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for codec in none zstd; do
        for t in $THREADS; do
            ms=$("$PLANK" bench read "$D/$codec.parquet" --arrow --repeat "$REPEAT" --threads "$t" |
                sed -n 's/^time: *median \([0-9.]*\) ms.*/\1/p')
            echo "read $codec $t $ms" >> "$OUT"
            ms=$("$PLANK" bench scan "$D/$codec.parquet" --where "$Q6" \
                --columns l_extendedprice,l_discount --repeat "$Q6_REPEAT" --threads "$t" |
                sed -n 's/^time: *median \([0-9.]*\) ms.*/\1/p')
            echo "q6 $codec $t $ms" >> "$OUT"
        done
    done
    r=$((r + 1))
done
echo "cpu: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $CORES cores; SF $SF, $ROUNDS rounds (runs a sample: read $REPEAT, q6 $Q6_REPEAT)"
printf '%-6s %-5s %8s %10s %8s\n' work codec threads "median ms" speedup
for w in read q6; do
    for codec in none zstd; do
        base=
        for t in $THREADS; do
            med=$(awk -v w="$w" -v c="$codec" -v t="$t" '$1 == w && $2 == c && $3 == t { print $4 }' "$OUT" |
                sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
            [ -z "$base" ] && base=$med
            printf '%-6s %-5s %8s %10.1f %7.2fx\n' "$w" "$codec" "$t" "$med" \
                "$(awk -v a="$base" -v b="$med" 'BEGIN { print a / b }')"
        done
    done
done
