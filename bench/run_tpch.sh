#!/bin/sh
# bench/run_tpch.sh SF ROUNDS: the TPC-H generator's benchmark.
# Round by round, every configuration takes its turn (so each median compares
# samples taken under the same machine load; the order rotates by one
# configuration a round): `plank tpch gen --sf SF` to
# Parquet (zstd, uncompressed, snappy = the writer's default) and to .tbl,
# each with --threads 1 and 2; then the peer, DuckDB loading the .tbl plank
# wrote and writing the same Parquet (zstd) with 1 and 2 threads. All files
# go to tmpfs ($OUT, default /dev/shm/plank-tpch-bench), removed after each
# run. Prints median and best wall time, rows/s at the median, the median
# CPU time (user + system; on a shared machine it moves less than the wall
# time when another tenant takes the cores) and peak RSS.
#   BUILD=/tmp/rel bench/run_tpch.sh 1 5
set -eu
cd "$(dirname "$0")/.."
SF=${1:-1}
ROUNDS=${2:-5}
BUILD=${BUILD:-build}
OUT=${OUT:-/dev/shm/plank-tpch-bench}
PLANK=$BUILD/plank
rm -rf "$OUT"
mkdir -p "$OUT"
RES="$OUT/results.txt"
: > "$RES"
# the .tbl the peer loads (not timed), and the total row count
"$PLANK" tpch gen --sf "$SF" --out "$OUT/tbl" --format tbl 2>/dev/null
ROWS=$(cat "$OUT"/tbl/*.tbl | wc -l)
CONFIGS=${CONFIGS:-"parquet:zstd:1 parquet:zstd:2 parquet:none:1 parquet:none:2 parquet:snappy:1 parquet:snappy:2 tbl:-:1 tbl:-:2 duckdb:zstd:1 duckdb:zstd:2"}
# The configurations' order rotates from round to round: the process that
# follows DuckDB's load (which frees 0.4-0.7 GB) touches memory this VM's
# balloon has handed back to the host, and pays for it (bench/README.md,
# issue 18); rotated, no configuration is always that one.
rotate() { # K WORD...: the words, starting from word K mod their count
    ro_k=$(($1 % ($# - 1)))
    shift
    ro_i=0
    ro_head=
    ro_tail=
    for ro_w; do
        if [ "$ro_i" -lt "$ro_k" ]; then ro_head="$ro_head $ro_w"; else ro_tail="$ro_tail $ro_w"; fi
        ro_i=$((ro_i + 1))
    done
    echo "$ro_tail $ro_head"
}
for r in $(seq 1 "$ROUNDS"); do
    # shellcheck disable=SC2086 # the list is split on purpose
    for c in $(rotate $((r - 1)) $CONFIGS); do
        fmt=${c%%:*}; rest=${c#*:}; codec=${rest%%:*}; th=${rest#*:}
        d="$OUT/run"
        rm -rf "$d"
        if [ "$fmt" = duckdb ]; then
            line=$( { /usr/bin/time -f "TIME %e %M %U %S" node bench/tpch_duckdb_load.mjs "$OUT/tbl" "$d" "$th" "$codec" > "$OUT/duck.out"; } 2>&1 | grep '^TIME' )
            wall=$(cat "$OUT/duck.out")
        else
            args="--format $fmt"
            [ "$codec" != - ] && args="$args --codec $codec"
            line=$( { /usr/bin/time -f "TIME %e %M %U %S" "$PLANK" tpch gen --sf "$SF" --out "$d" $args --threads "$th"; } 2>&1 | grep '^TIME' )
            wall=$(echo "$line" | cut -d' ' -f2)
        fi
        rss=$(echo "$line" | cut -d' ' -f3)
        cpu=$(echo "$line" | awk '{printf "%.2f", $4 + $5}')
        mb=$(du -sm "$d" | cut -f1)
        echo "$c $wall $rss $mb $cpu" >> "$RES"
        echo "round $r: $c ${wall}s cpu ${cpu}s rss ${rss}KB ${mb}MB" >&2
        rm -rf "$d"
    done
done
echo
echo "SF $SF, $ROWS rows in all eight tables, $ROUNDS rounds (median / best wall time)"
echo
echo "| what | threads | median | best | rows/s (median) | CPU (median) | peak RSS | output |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for c in $CONFIGS; do
    fmt=${c%%:*}; rest=${c#*:}; codec=${rest%%:*}; th=${rest#*:}
    case $fmt in
        parquet) what="plank, Parquet $codec";;
        tbl) what="plank, .tbl";;
        duckdb) what="DuckDB: .tbl to Parquet $codec";;
    esac
    grep "^$c " "$RES" | sort -t' ' -k2 -g | awk -v what="$what" -v th="$th" -v rows="$ROWS" '
        { w[NR] = $2; rss[NR] = $3; mb = $4; cpu[NR] = $5 }
        END { m = (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2;
              n = NR; for (i = 2; i <= n; i++) { v = cpu[i]; for (k = i - 1; k >= 1 && cpu[k] > v; k--) cpu[k + 1] = cpu[k]; cpu[k + 1] = v }
              mc = (n % 2) ? cpu[(n + 1) / 2] : (cpu[n / 2] + cpu[n / 2 + 1]) / 2;
              maxr = 0; for (i = 1; i <= NR; i++) if (rss[i] > maxr) maxr = rss[i];
              printf "| %s | %s | %.2f s | %.2f s | %.2fM | %.2f s | %d MB | %d MB |\n", what, th, m, w[1], rows / m / 1e6, mc, maxr / 1024, mb }'
done
rm -rf "$OUT/tbl" "$OUT/run"
