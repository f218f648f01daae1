#!/bin/sh
# plank tpch gen end to end: the .tbl text at SF 0.01 and SF 0.1 has the
# reference sha256 of every table (at SF 0.01 a mismatch prints the first
# differing line next to the reference's); --parts 3 slices concatenate to
# the whole; --threads 1 and 2 write identical bytes (tbl and Parquet);
# bad arguments are usage errors.
#   tpch_cli_test.sh PLANK REFERENCE_DIR
set -u
PLANK=$1
REF=$2
. "$(dirname "$0")/th_skip.sh" # skip_test
if [ ! -d "$REF" ]; then
    if [ "${CI:-}" = true ]; then echo "tpch reference data not found at $REF (CI needs it)"; exit 1; fi
    skip_test "tpch reference data not found at $REF"
fi
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
TABLES="part partsupp supplier customer orders lineitem nation region"

# 1. sha256 of the text at SF 0.01 and 0.1 (under the sanitizers,
# PLANK_TPCH_QUICK, SF 0.01 only: SF 0.1 runs the same code ten times longer,
# and the optimised run checks its sums)
sfs="0.01 0.1"
[ -n "${PLANK_TPCH_QUICK:-}" ] && sfs=0.01
for sf in $sfs; do
    "$PLANK" tpch gen --sf $sf --out "$D/tbl$sf" --format tbl --threads 2 || bad "gen --sf $sf failed"
    sums="$REF/sf0.01/SHA256SUMS"; [ $sf = 0.1 ] && sums="$REF/SHA256SUMS-sf0.1"
    for t in $TABLES; do
        want=$(grep " $t.tbl\$" "$sums" | cut -d' ' -f1)
        got=$(sha256sum < "$D/tbl$sf/$t.tbl" | cut -d' ' -f1)
        if [ "$want" != "$got" ]; then
            bad "SF $sf $t.tbl: sha256 $got, reference $want"
            if [ $sf = 0.01 ]; then
                gzip -dc "$REF/sf0.01/$t.tbl.gz" > "$D/ref.tbl"
                line=$(cmp "$D/tbl$sf/$t.tbl" "$D/ref.tbl" | sed -n 's/.*line \([0-9]*\).*/\1/p')
                [ -n "$line" ] || line=$(( $(wc -l < "$D/ref.tbl") + 1 ))
                echo "  first difference at line $line"
                echo "  plank:     $(sed -n "${line}p" "$D/tbl$sf/$t.tbl")"
                echo "  reference: $(sed -n "${line}p" "$D/ref.tbl")"
            fi
        else
            echo "ok: SF $sf $t.tbl sha256 matches the reference"
        fi
    done
done

# 2. --parts 3: the slices concatenate to the whole (tbl), for every table
for k in 1 2 3; do
    "$PLANK" tpch gen --sf 0.01 --out "$D/parts" --format tbl --parts 3 --part $k --threads 1 ||
        bad "gen --parts 3 --part $k failed"
done
for t in $TABLES; do
    cat "$D/parts/$t.1.tbl" "$D/parts/$t.2.tbl" "$D/parts/$t.3.tbl" > "$D/cat.tbl"
    if cmp -s "$D/cat.tbl" "$D/tbl0.01/$t.tbl"; then echo "ok: $t parts 1-3 concatenate to the whole"
    else bad "$t: --parts 3 slices do not concatenate to the whole"; fi
done
# Parquet parts hold the same rows as the tbl parts
"$PLANK" tpch gen --sf 0.01 --out "$D/pparts" --parts 3 --part 2 --tables lineitem,nation --threads 2 ||
    bad "parquet --parts failed"
n=$("$PLANK" cat "$D/pparts/lineitem.2.parquet" | wc -l)
[ "$n" = "$(wc -l < "$D/parts/lineitem.2.tbl")" ] && echo "ok: lineitem.2.parquet has $n rows" ||
    bad "lineitem.2.parquet has $n rows"
n=$("$PLANK" cat "$D/pparts/nation.2.parquet" | wc -l)
[ "$n" = 0 ] && echo "ok: nation.2.parquet is empty" || bad "nation.2.parquet has $n rows"

# 3. --threads 1 and 2: identical bytes (under the sanitizers, PLANK_TPCH_QUICK,
# Parquet only: the text is the same generation through a simpler writer)
fmts="tbl parquet"
[ -n "${PLANK_TPCH_QUICK:-}" ] && fmts=parquet
for fmt in $fmts; do
    for th in 1 2; do
        "$PLANK" tpch gen --sf 0.01 --out "$D/th$fmt$th" --format $fmt --threads $th \
            --row-group-size 5000 || bad "gen --threads $th failed"
    done
    for t in $TABLES; do
        if cmp -s "$D/th${fmt}1/$t.$fmt" "$D/th${fmt}2/$t.$fmt"; then
            echo "ok: $t.$fmt identical with 1 and 2 threads"
        else bad "$t.$fmt differs between --threads 1 and 2"; fi
    done
done

# orders alone (its own draws) and with lineitem (made in one pass with it): the same bytes
for fmt in $fmts; do
    "$PLANK" tpch gen --sf 0.01 --out "$D/alone$fmt" --format $fmt --tables orders --threads 2 \
        --row-group-size 5000 || bad "gen --tables orders failed"
    if cmp -s "$D/alone$fmt/orders.$fmt" "$D/th${fmt}1/orders.$fmt"; then
        echo "ok: orders.$fmt alone equals orders.$fmt made with lineitem"
    else bad "orders.$fmt alone differs from orders.$fmt made with lineitem"; fi
done

# writer options per column reach the table that has the column, on top of the preset
"$PLANK" tpch gen --sf 0.01 --out "$D/bloom" --tables lineitem,orders --encoding delta \
    --bloom l_orderkey --threads 2 || bad "gen --bloom l_orderkey failed"
"$PLANK" meta "$D/bloom/lineitem.parquet" | grep -q bloom_filter_offset &&
    echo "ok: --bloom l_orderkey gives lineitem a bloom filter" || bad "lineitem has no bloom filter"
"$PLANK" meta "$D/bloom/orders.parquet" | grep -q bloom_filter_offset &&
    bad "orders has a bloom filter it was not asked for" || echo "ok: orders has none"
"$PLANK" meta "$D/bloom/lineitem.parquet" | grep -A12 'l_orderkey' | grep -q DELTA_BINARY_PACKED &&
    echo "ok: l_orderkey keeps the delta preset's encoding" || bad "l_orderkey lost DELTA_BINARY_PACKED"

# the default thread count follows the affinity mask (one processor: one thread)
if command -v taskset >/dev/null 2>&1; then
    msg=$(taskset -c 0 "$PLANK" tpch gen --sf 0.01 --out "$D/one" --tables region 2>&1)
    echo "$msg" | grep -q "(1 threads)" && echo "ok: pinned to one processor, one thread" ||
        bad "pinned to one processor: $msg"
elif [ "${CI:-}" = true ]; then bad "taskset (util-linux) not found (CI needs it)"
else echo "skip: taskset not found, the affinity default is not checked"; fi

# 4. bad arguments: exit 2 and a message naming the problem
expect_usage() {
    want=$1; shift
    out=$("$PLANK" "$@" 2>&1); rc=$?
    if [ $rc = 2 ] && echo "$out" | grep -q -- "$want"; then echo "ok: $* -> $want"
    else bad "$* gave exit $rc: $out"; fi
}
expect_usage "scale factor above 0" tpch gen --sf 0 --out "$D/x"
expect_usage "scale factor above 0" tpch gen --sf -1 --out "$D/x"
expect_usage "fractions only below 1" tpch gen --sf 2.5 --out "$D/x"
expect_usage "unknown table 'lineitems'" tpch gen --sf 0.01 --out "$D/x" --tables orders,lineitems
expect_usage "outside 1..3" tpch gen --sf 0.01 --out "$D/x" --parts 3 --part 4
expect_usage "--part needs a count from 1" tpch gen --sf 0.01 --out "$D/x" --parts 3 --part 0
expect_usage "missing --out" tpch gen --sf 1
expect_usage "--format is parquet or tbl" tpch gen --sf 1 --out "$D/x" --format csv
expect_usage "none of the tables written" tpch gen --sf 0.01 --out "$D/y" --tables orders --bloom l_orderkey
[ ! -e "$D/x" ] || bad "a failed run left $D/x"

# 5. a failure leaves no file behind: the output directory is a file
: > "$D/notadir"
"$PLANK" tpch gen --sf 0.01 --out "$D/notadir" --tables region >/dev/null 2>&1 &&
    bad "writing into a file as directory succeeded"
ls -a "$D" | grep -q plank- && bad "a temporary file was left behind"

[ $fail = 0 ] && echo "tpch_cli_test: all passed"
exit $fail
