#!/bin/sh
# bench/run_remote.sh [SF] [ROUNDS] [DELAY_MS]: reading over HTTP with a
# round-trip latency (issue 17), defaults SF 1, 3 rounds, 20 ms.
#
# The file (TPC-H lineitem from plank's generator, zstd, made if absent in
# $BENCH_DIR, default /dev/shm/plank-remote) is served on loopback by the
# test fault server (tests/remote/fault_server.mjs) in its delay-<ms> mode:
# every request waits DELAY_MS before its response starts, as a distant
# object store would. Two readers, alternating round by round:
#   prefetch   plank's default: streams and scans announce the chunks (and
#              page indexes) they will read; neighbouring ranges are merged and
#              up to 8 requests are in flight while the caller decodes;
#   in turn    PLANK_REMOTE_PREFETCH=0: each read the reader makes is one
#              request, made when it is needed (a reader without coalescing
#              or parallel requests).
# Workloads: the full read through the Arrow stream (plank bench read
# --arrow, one thread) and Q6's filter with its two output columns (plank
# bench scan). Requests and bytes are the server's own count for one run;
# times are medians over rounds. Raw samples: $BENCH_DIR/remote_samples.txt.
# The same reads of the local file are the last row of each workload, for
# scale.
#   bench/run_remote.sh 1 5 20
set -eu
cd "$(dirname "$0")/.."
SF=${1:-1}
ROUNDS=${2:-3}
DELAY=${3:-20}
BENCH_DIR=${BENCH_DIR:-/dev/shm/plank-remote}
if [ -z "${BUILD:-}" ]; then
    BUILD=/tmp/rel
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPLANK_BUILD_TESTS=OFF >/dev/null
    cmake --build "$BUILD" -j2 --target plank >/dev/null
fi
PLANK=$BUILD/plank
mkdir -p "$BENCH_DIR/root"
F=lineitem_sf$SF.parquet
if [ ! -f "$BENCH_DIR/root/$F" ]; then
    rm -rf "$BENCH_DIR/gen"
    "$PLANK" tpch gen --sf "$SF" --out "$BENCH_DIR/gen" --tables lineitem --codec zstd >/dev/null
    mv "$BENCH_DIR/gen/lineitem.parquet" "$BENCH_DIR/root/$F"
    rm -rf "$BENCH_DIR/gen"
fi
PORTFILE=$BENCH_DIR/port
node tests/remote/fault_server.mjs "$BENCH_DIR/root" > "$PORTFILE" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null' EXIT
i=0
while ! grep -q PORT "$PORTFILE" 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt 100 ] && { echo "fault server did not start" >&2; exit 1; }
    sleep 0.1
done
PORT=$(sed -n 's/^PORT //p' "$PORTFILE")
BASE=http://127.0.0.1:$PORT
URL=$BASE/delay-$DELAY/$F
Q6="l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
OUT=$BENCH_DIR/remote_samples.txt
: > "$OUT"
server_stats() { curl -s "$BASE/_stats" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j.requests, j.bytes)})'; }
run() { # name prefetch(0/1) command...
    name=$1
    pf=$2
    shift 2
    curl -s "$BASE/_reset" >/dev/null
    ms=$(PLANK_REMOTE_PREFETCH=$pf "$@" | sed -n 's/^time: *median \([0-9.]*\) ms.*/\1/p')
    echo "$name $pf $ms $(server_stats)" >> "$OUT"
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for pf in 1 0; do
        run read $pf "$PLANK" bench read "$URL" --arrow --repeat 1 --threads 1
        run q6 $pf "$PLANK" bench scan "$URL" --where "$Q6" --columns l_extendedprice,l_discount \
            --repeat 1 --threads 1
    done
    # the same file read locally, for scale (no requests)
    ms=$("$PLANK" bench read "$BENCH_DIR/root/$F" --arrow --repeat 1 --threads 1 |
        sed -n 's/^time: *median \([0-9.]*\) ms.*/\1/p')
    echo "read local $ms 0 0" >> "$OUT"
    ms=$("$PLANK" bench scan "$BENCH_DIR/root/$F" --where "$Q6" --columns l_extendedprice,l_discount \
        --repeat 1 --threads 1 | sed -n 's/^time: *median \([0-9.]*\) ms.*/\1/p')
    echo "q6 local $ms 0 0" >> "$OUT"
    r=$((r + 1))
done
printf '%s\n' "SF $SF lineitem (zstd, $(du -m "$BENCH_DIR/root/$F" | cut -f1) MB), $DELAY ms per request, $ROUNDS rounds, $(nproc) cores"
printf '| workload | reader | requests | MB fetched | median ms | best ms | vs in turn |\n|---|---|---:|---:|---:|---:|---:|\n'
med() { awk -v w="$1" -v pf="$2" '$1 == w && $2 == pf {print $3}' "$OUT" | sort -n |
    awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)], a[1]}'; }
for w in read q6; do
    base=$(med "$w" 0 | cut -d' ' -f1)
    for pf in 1 0 local; do
        set -- $(med "$w" "$pf")
        awk -v w="$w" -v pf="$pf" -v base="$base" -v m="$1" -v best="$2" '
            $1 == w && $2 == pf { req = $4; by = $5 }
            END {
                printf "| %s | %s | %d | %.1f | %.0f | %.0f | %.2fx |\n",
                    w == "read" ? "full read (Arrow)" : "Q6 scan",
                    pf == "local" ? "local file" : pf == 1 ? "prefetch" : "in turn",
                    req, by / 1e6, m, best, base / m
            }' "$OUT"
    done
done
