#!/bin/sh
# cli_scan_test.sh PLANK SOURCE_DIR [NODE]: `plank scan` end to end.
#
# On TPC-H lineitem and orders at SF 0.01 written with several encodings and
# layouts (`plank tpch gen`: dictionaries; DELTA in v2 pages with small row
# groups and pages and bloom filters; PLAIN in v1 pages without statistics
# or page index) and a small file with nulls (`plank convert`), every query
# below runs through `plank scan --where`: its --count must be DuckDB's
# count(*) of the same WHERE, and its --format jsonl rows DuckDB's rows of
# the same SELECT in file order, in `plank cat`'s jsonl text (DuckDB's
# values formatted by tests/peer/duckdb_jsonl.mjs). Each query also runs
# with --no-pushdown, with each pruning level off and with --mmap, for the
# same rows (under the sanitizers, PLANK_SCAN_QUICK, one of those in turn).
# Then: without --where the output is `plank cat`'s (jsonl, csv,
# table, --columns, nested corpus files when present); --limit; a table's
# footer; --explain's plan and statistics on stderr, pruning seen in them;
# syntax errors (exit 1, the byte position), binding errors and unknown
# --columns (exit 1, naming the column); usage errors (exit 2). `plank
# bench scan` of every query matches DuckDB's count too (JSON and text, one
# of --count, --mmap, --no-pushdown, --no-verify-checksums, --threads 2 in
# turn), and its errors exit 1 or 2.
#
# Exits 77 (skipped) when node or DuckDB (npm ci) is missing, after the
# checks that need neither; CI=true or PLANK_REQUIRE_CORPUS=1 makes that a failure.
set -u
PLANK=$1
SRC=$2
NODE=${3:-node}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plank-scan-test.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
passed=0
failed=0
. "$(dirname "$0")/th_skip.sh" # skip_test

# check LABEL COMMAND...: one check, passed when COMMAND succeeds.
check() {
    check_label=$1
    shift
    if "$@"; then passed=$((passed + 1)); else
        echo "FAIL: $check_label" >&2
        failed=$((failed + 1))
    fi
}

# same_text EXPECTED ACTUAL: the files are equal (else their first differences on stderr).
same_text() {
    cmp -s "$1" "$2" && return 0
    diff "$1" "$2" | head -n 8 >&2
    return 1
}

# scan OUT ARGS...: runs plank scan ARGS > OUT (stderr in $WORK/err); a
# failure is counted as a failed check.
scan() {
    out=$1
    shift
    "$PLANK" scan "$@" > "$out" 2> "$WORK/err" && return 0
    check "plank scan $*: exit code $?: $(cat "$WORK/err")" false
    return 1
}

# query_error PATTERN ARGS...: plank scan ARGS exits 1 without output and
# with one stderr line "plank scan: ..." matching PATTERN (extended regex).
query_error() {
    pattern=$1
    shift
    "$PLANK" scan "$@" > "$WORK/out" 2> "$WORK/err"
    [ $? -eq 1 ] && [ ! -s "$WORK/out" ] && [ "$(wc -l < "$WORK/err")" -eq 1 ] &&
        grep -q '^plank scan: ' "$WORK/err" && grep -Eq -- "$pattern" "$WORK/err"
}

# stat_of NAME: the value of the statistic NAME that --explain wrote to
# $WORK/err (-1 when it is missing).
stat_of() {
    v=$(sed -n "s/^$1: \\(-\\{0,1\\}[0-9][0-9]*\\)\$/\\1/p" "$WORK/err")
    echo "${v:--1}"
}

# ---- The files ---------------------------------------------------------------------

gen() {
    dir=$1
    shift
    "$PLANK" tpch gen --sf 0.01 --tables lineitem,orders --threads 2 --out "$WORK/$dir" "$@" \
        > /dev/null 2> "$WORK/err"
    check "tpch gen $*: $(cat "$WORK/err")" [ -f "$WORK/$dir/lineitem.parquet" ]
}
gen dict --encoding default
gen delta --encoding delta --codec zstd --row-group-size 8000 --page-rows 500 --bloom l_orderkey \
    --bloom l_shipmode
gen plain --encoding plain --page-version 1 --codec none --row-group-size 20000 --no-stats \
    --no-page-index

# Nulls in every column, NaN and -0.0 among the doubles.
printf '%s\n' 'id,name,score,day' '1,alice,1.5,2024-01-02' '2,,NaN,2024-02-29' '3,bob,,' \
    '4,,-0.0,2023-12-31' '5,carol,2.25,' '6,alice,0,2024-01-15' > "$WORK/nulls.csv"
"$PLANK" convert "$WORK/nulls.csv" "$WORK/nulls.parquet" --schema 'day:date,score:double' \
    --page-rows 2 2> "$WORK/err"
check "convert nulls.csv: $(cat "$WORK/err")" [ -f "$WORK/nulls.parquet" ]

# Queries: TABLE<TAB>COLUMNS (- for all)<TAB>WHERE, the WHERE text the same
# for plank and DuckDB.
TAB=$(printf '\t')
cat > "$WORK/queries" <<EOF
lineitem${TAB}l_orderkey,l_linenumber,l_extendedprice,l_discount${TAB}l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24
lineitem${TAB}-${TAB}l_shipmode IN ('MAIL', 'SHIP') AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1994-04-01'
lineitem${TAB}l_orderkey,l_comment${TAB}l_comment LIKE 'carefully%'
lineitem${TAB}l_orderkey,l_comment${TAB}l_comment NOT LIKE 'the%' AND l_orderkey < 300
lineitem${TAB}l_orderkey,l_commitdate,l_receiptdate${TAB}l_commitdate < l_receiptdate
lineitem${TAB}l_orderkey${TAB}l_comment IS NULL
lineitem${TAB}l_orderkey,l_partkey${TAB}l_partkey IS NOT NULL AND l_orderkey = 32
lineitem${TAB}l_orderkey,l_linenumber,l_quantity${TAB}l_orderkey IN (1, 7, 32, 59972, 60000, 1000000)
lineitem${TAB}l_returnflag,l_linestatus,l_quantity${TAB}(l_returnflag = 'R' OR l_linestatus <> 'F') AND NOT l_quantity >= 3
lineitem${TAB}l_orderkey,l_extendedprice${TAB}l_extendedprice > 100000.5 OR l_extendedprice <= 905
lineitem${TAB}l_orderkey${TAB}l_quantity > 1000
lineitem${TAB}l_shipdate,l_orderkey${TAB}l_shipdate = DATE '1998-12-01' OR l_shipinstruct >= 'TAKE BACK RETURN'
orders${TAB}o_orderkey,o_orderdate,o_orderpriority${TAB}o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1995-03-31' AND o_orderpriority = '1-URGENT'
orders${TAB}-${TAB}o_totalprice >= 400000 AND o_orderstatus != 'F'
orders${TAB}o_orderkey,o_clerk${TAB}o_clerk IN ('Clerk#000000951', 'Clerk#000000001') AND o_custkey < o_orderkey
nulls${TAB}-${TAB}name IS NULL
nulls${TAB}id,name${TAB}name <> 'alice'
nulls${TAB}-${TAB}NOT (name = 'alice') OR day IS NULL
nulls${TAB}id,score${TAB}score > 0
nulls${TAB}id,score${TAB}score = 0
nulls${TAB}id,day${TAB}day >= DATE '2024-01-02' AND score IS NOT NULL
nulls${TAB}id${TAB}name IN ('bob', 'carol') OR score < 1
EOF

# ---- Checks without DuckDB ------------------------------------------------------------

L=$WORK/dict/lineitem.parquet
# Without --where: plank cat's output, in every format.
for args in "" "--columns l_shipmode,l_orderkey" "--format csv" "--format table --limit 7" \
    "--format table --columns l_comment,l_tax" "--limit 3"; do
    # shellcheck disable=SC2086
    "$PLANK" cat "$L" $args > "$WORK/cat.out" 2>&1
    # shellcheck disable=SC2086
    scan "$WORK/scan.out" "$L" $args &&
        check "scan = cat ($args)" same_text "$WORK/cat.out" "$WORK/scan.out"
done
"$PLANK" cat "$WORK/nulls.parquet" --format csv > "$WORK/cat.out" 2>&1
scan "$WORK/scan.out" "$WORK/nulls.parquet" --format csv --mmap &&
    check "scan = cat (nulls, csv)" same_text "$WORK/cat.out" "$WORK/scan.out"
# Nested files of parquet-testing, when present.
CORPUS=${PLANK_TESTING_DIR:-$SRC/../shared/parquet-testing}/data
for f in nested_structs.rust.parquet nested_maps.snappy.parquet list_columns.parquet \
    nullable.impala.parquet alltypes_tiny_pages.parquet; do
    [ -f "$CORPUS/$f" ] || continue
    "$PLANK" cat "$CORPUS/$f" > "$WORK/cat.out" 2>&1
    scan "$WORK/scan.out" "$CORPUS/$f" &&
        check "scan = cat ($f)" same_text "$WORK/cat.out" "$WORK/scan.out"
done

# A filtered table: the footer counts every matching row, not only those shown.
W="l_shipmode = 'AIR'"
scan "$WORK/count" "$L" --where "$W" --count &&
    scan "$WORK/table" "$L" --where "$W" --format table --columns l_orderkey,l_shipmode &&
    check "table of $W: $(wc -l < "$WORK/table") lines, the last '$(tail -n 1 "$WORK/table")', count $(cat "$WORK/count")" \
        eval '[ "$(tail -n 1 "$WORK/table")" = "(100 of $(cat "$WORK/count") rows)" ] &&
            [ "$(wc -l < "$WORK/table")" -eq 103 ]'

# --limit: the first N rows of the whole output; --count counts at most N.
W="l_discount = 0.02 AND l_tax > 0.05"
scan "$WORK/all" "$L" --where "$W" --columns l_orderkey,l_discount,l_tax
for n in 0 1 5 70000; do
    head -n "$n" "$WORK/all" > "$WORK/want"
    scan "$WORK/got" "$L" --where "$W" --columns l_orderkey,l_discount,l_tax --limit "$n" &&
        check "--limit $n" same_text "$WORK/want" "$WORK/got"
done
check "more than 5 rows of $W" [ "$(wc -l < "$WORK/all")" -gt 5 ]
scan "$WORK/got" "$L" --where "$W" --count --limit 5 &&
    check "--count --limit 5 printed $(cat "$WORK/got")" [ "$(cat "$WORK/got")" = 5 ]

# --explain: the plan, then every statistic as "name: value" on stderr;
# stdout holds only the rows (or the count).
STATS="row_groups row_groups_pruned_statistics row_groups_pruned_bloom
row_groups_pruned_page_index row_groups_no_match pages pages_pruned_page_index
pages_skipped pages_decoded bytes_read bytes_not_read rows rows_candidate rows_matched
values_evaluated dictionary_entries_evaluated"
# explained ROWS_MATCHED: $WORK/err holds a plan, then each statistic once,
# rows_matched as given and rows those of lineitem.
explained() {
    for s in $STATS; do
        [ "$(grep -c "^$s: -\{0,1\}[0-9][0-9]*\$" "$WORK/err")" -eq 1 ] || return 1
    done
    [ "$(stat_of rows_matched)" = "$1" ] && [ "$(stat_of rows)" = 60175 ] &&
        [ "$(wc -l < "$WORK/err")" -gt 16 ] && head -n 1 "$WORK/err" | grep -vq ': -\{0,1\}[0-9]*$'
}
n=$(wc -l < "$WORK/all")
if scan "$WORK/got" "$L" --where "$W" --columns l_orderkey,l_discount,l_tax --explain; then
    check "--explain: rows on stdout" same_text "$WORK/all" "$WORK/got"
    check "--explain: plan and statistics on stderr: $(cat "$WORK/err")" explained "$n"
fi
scan "$WORK/got" "$L" --where "$W" --count --explain &&
    check "--count --explain: plan and statistics on stderr: $(cat "$WORK/err")" explained "$n"
# --explain says how each step ran: the ship mode on dictionary codes where the
# chunks have dictionaries, on values in the DELTA file (no dictionary).
SM="l_shipmode IN ('MAIL', 'SHIP') AND l_quantity < 30"
scan "$WORK/got" "$L" --where "$SM" --count --explain &&
    check "--explain on the dictionary file: $(grep '^step' "$WORK/err")" \
        eval 'grep -q "^step [0-9] (dictionary codes): l_shipmode" "$WORK/err"'
scan "$WORK/got" "$WORK/delta/lineitem.parquet" --where "$SM" --count --explain &&
    check "--explain on the DELTA file: $(grep '^step' "$WORK/err")" \
        eval 'grep -q "^step [0-9]: l_shipmode" "$WORK/err" && ! grep -q "dictionary codes" "$WORK/err"'
# No order key 600001 exists: statistics prune every row group of the delta
# file (8 of them).
scan "$WORK/got" "$WORK/delta/lineitem.parquet" --where "l_orderkey = 600001" --count --explain &&
    check "l_orderkey = 600001: count $(cat "$WORK/got"), $(stat_of row_groups_pruned_statistics) of $(stat_of row_groups) row groups pruned by statistics" \
        eval '[ "$(cat "$WORK/got")" = 0 ] && [ "$(stat_of row_groups)" -eq 8 ] &&
            [ "$(stat_of row_groups_pruned_statistics)" -eq 8 ]'
# Order key 9 is inside the first row group's range but not in the table
# (keys go 1-7, 32-39, ...): its bloom filter prunes it.
scan "$WORK/got" "$WORK/delta/lineitem.parquet" --where "l_orderkey = 9" --count --explain &&
    check "l_orderkey = 9: count $(cat "$WORK/got"), pruned by statistics $(stat_of row_groups_pruned_statistics), by bloom filters $(stat_of row_groups_pruned_bloom) of $(stat_of row_groups) row groups" \
        eval '[ "$(cat "$WORK/got")" = 0 ] && [ "$(stat_of row_groups_pruned_bloom)" -ge 1 ] &&
            [ $(($(stat_of row_groups_pruned_statistics) + $(stat_of row_groups_pruned_bloom))) -eq 8 ]'
# The page index passes over pages (500 rows each) outside a narrow key range.
scan "$WORK/got" "$WORK/delta/lineitem.parquet" --where "l_orderkey BETWEEN 100 AND 200" \
    --columns l_orderkey --explain &&
    check "l_orderkey BETWEEN 100 AND 200: $(stat_of pages_pruned_page_index) pages pruned by the page index, rows_matched $(stat_of rows_matched) for $(wc -l < "$WORK/got") rows" \
        eval '[ "$(stat_of pages_pruned_page_index)" -gt 0 ] &&
            [ "$(stat_of rows_matched)" -eq "$(wc -l < "$WORK/got")" ]'

# Errors in the query: exit 1, one line naming the position or the column.
check "syntax error at the end" query_error "--where: at 19: " "$L" --where "l_quantity < 24 AND"
check "syntax error: no ')'" query_error "--where: at 33: " \
    "$L" --where "l_quantity < 24 AND (l_tax > 0.01" --count
check "syntax error: '!'" query_error "--where: at 11: " "$L" --where "l_quantity ! 3"
check "unknown filter column" query_error "nosuch" "$L" --where "nosuch > 1"
check "string against a decimal" query_error "l_quantity" "$L" --where "l_quantity = 'abc'"
check "unknown projected column" query_error "l_nosuch" "$L" --columns l_orderkey,l_nosuch
check "unknown projected column with --count" query_error "zzz" \
    "$L" --where "l_tax > 0.02" --columns zzz --count
# usage_error ARGS...: plank scan ARGS exits 2.
usage_error() {
    "$PLANK" scan "$@" > /dev/null 2>&1
    [ $? -eq 2 ]
}
check "--where without a value" usage_error "$L" --where
check "--format xml" usage_error "$L" --format xml
check "--limit -1" usage_error "$L" --limit -1
check "an unknown option" usage_error "$L" --no-such-option
check "no FILE" usage_error --count
# bench read --batch-rows: the file's rows (SF 0.01 lineitem has 60,175, as
# the reference table's lines), read in batches of that size; usage errors.
"$PLANK" bench read "$L" --arrow --batch-rows 1000 --repeat 1 > "$WORK/bench" 2> "$WORK/err"
check "bench read --arrow --batch-rows 1000: $(cat "$WORK/err")" \
    grep -q "^rows: *60175 in " "$WORK/bench"
bench_usage() {
    "$PLANK" bench read "$@" > /dev/null 2>&1
    [ $? -eq 2 ]
}
check "bench read --batch-rows 0" bench_usage "$L" --arrow --batch-rows 0
check "bench read --batch-rows without --arrow" bench_usage "$L" --batch-rows 100
bench_scan_exit() {
    want=$1
    shift
    "$PLANK" bench scan "$@" > /dev/null 2>&1
    [ $? -eq "$want" ]
}
"$PLANK" bench scan "$L" --repeat 1 > "$WORK/bench" 2> "$WORK/err"
check "bench scan without --where: every row: $(cat "$WORK/err")" grep -q "^matched: 60175 rows$" "$WORK/bench"
check "bench scan without FILE" bench_scan_exit 2 --where "l_tax > 0"
check "bench scan --threads 2000" bench_scan_exit 2 "$L" --where "l_tax > 0" --threads 2000
check "bench scan of an unknown column" bench_scan_exit 1 "$L" --where "zzz > 0"
check "bench scan of a syntax error" bench_scan_exit 1 "$L" --where "l_tax >"
check "bench scan of a missing file" bench_scan_exit 1 "$WORK/absent.parquet" --where "l_tax > 0"

# ---- Datasets: a directory, a glob, several files -------------------------------------
# The dataset scan's rows and counts are checked against DuckDB in test_dataset;
# here the CLI: a hive dataset of two orders files (dictionary and PLAIN
# writings of the same rows) under p=1 and p=2 counts what the single-file
# scans count, partition predicates select one file, and the three ways of
# naming the files agree.
mkdir -p "$WORK/ds/p=1" "$WORK/ds/p=2"
cp "$WORK/dict/orders.parquet" "$WORK/ds/p=1/orders.parquet"
cp "$WORK/plain/orders.parquet" "$WORK/ds/p=2/orders.parquet"
W="o_totalprice > 100000 AND o_orderpriority = '1-URGENT'"
scan "$WORK/one" "$WORK/plain/orders.parquet" --count --where "$W"
one=$(cat "$WORK/one")
scan "$WORK/got" "$WORK/ds" --count --where "$W"
check "dataset count = twice the file's" [ "$(cat "$WORK/got")" -eq $((one * 2)) ]
scan "$WORK/got" "$WORK/ds" --count --where "p = 2 AND $W"
check "dataset: p = 2 selects one file" [ "$(cat "$WORK/got")" -eq "$one" ]
scan "$WORK/got" "$WORK/ds/**/*.parquet" --count --where "p >= 1 AND $W" --threads 1
check "dataset by glob" [ "$(cat "$WORK/got")" -eq $((one * 2)) ]
scan "$WORK/got" "$WORK/ds/p=1/orders.parquet" "$WORK/ds/p=2/orders.parquet" --count --where "p IS NULL"
check "dataset by files: p IS NULL matches nothing" [ "$(cat "$WORK/got")" -eq 0 ]
scan "$WORK/got" "$WORK/ds" --where "p = 1 AND o_orderkey = 7" --columns o_orderkey,p
check "dataset rows with the partition column" \
    [ "$(cat "$WORK/got")" = '{"o_orderkey":7,"p":1}' ]
"$PLANK" schema "$WORK/ds" > "$WORK/got" 2>&1
check "dataset schema lists the partition key" grep -q '^  p: l$' "$WORK/got"
"$PLANK" cat "$WORK/ds" --limit 3 > "$WORK/got" 2>&1
check "dataset cat --limit 3" [ "$(wc -l < "$WORK/got")" -eq 3 ]

# ---- Against DuckDB ---------------------------------------------------------------------

# peer.mjs SRC FILE QUERIES OUT: for line N of QUERIES (COLUMNS<TAB>WHERE),
# OUT/N.count holds DuckDB's count(*) and OUT/N.jsonl its rows in file order.
cat > "$WORK/peer.mjs" <<'EOF'
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [src, file, queries, out] = process.argv.slice(2);
let peer;
try {
    peer = await import(pathToFileURL(join(src, 'tests/peer/duckdb_jsonl.mjs')).href);
} catch (e) {
    console.log(`DuckDB is not installed (npm ci): ${e.message}`);
    process.exit(77);
}
const con = await peer.openDuck();
const top = await peer.duckSchema(con, file);
const from = `read_parquet('${file.replace(/'/g, "''")}', binary_as_string=false, file_row_number=true)`;
const lines = readFileSync(queries, 'utf8').split('\n').filter((l) => l !== '');
for (let n = 0; n < lines.length; n++) {
    const [columns, where] = lines[n].split('\t');
    const cols = columns === '-' ? top : columns.split(',').map((c) => top.find((t) => t.name === c));
    const sel = cols.map((c) => `"${c.name}"`).join(', ');
    const count = await con.runAndReadAll(`SELECT count(*) FROM ${from} WHERE ${where}`);
    writeFileSync(join(out, `${n + 1}.count`), `${count.getRows()[0][0]}\n`);
    const r = await con.runAndReadAll(`SELECT ${sel} FROM ${from} WHERE ${where} ORDER BY file_row_number`);
    const keys = cols.map((c) => JSON.stringify(c.name));
    const text = r.getRows().map((row) =>
        '{' + row.map((v, i) => `${keys[i]}:${peer.formatShaped(cols[i].shape, v)}`).join(',') + '}\n');
    writeFileSync(join(out, `${n + 1}.jsonl`), text.join(''));
}
EOF

skipped=
nq=0 # files done, so that the options' rotation differs between files
command -v "$NODE" > /dev/null 2>&1 || skipped="node was not found"
for variant in dict delta plain; do
    [ -z "$skipped" ] || break
    for table in lineitem orders nulls; do
        f=$WORK/$variant/$table.parquet
        if [ "$table" = nulls ]; then
            [ "$variant" = dict ] || continue
            f=$WORK/nulls.parquet
        fi
        d=$WORK/peer-$variant-$table
        mkdir -p "$d"
        grep "^$table$TAB" "$WORK/queries" | cut -f 2- > "$d/queries"
        "$NODE" "$WORK/peer.mjs" "$SRC" "$f" "$d/queries" "$d" > "$d/log" 2>&1
        rc=$?
        if [ "$rc" -eq 77 ]; then skipped=$(cat "$d/log"); break; fi
        check "DuckDB on $f: $(cat "$d/log")" [ "$rc" -eq 0 ] || continue
        n=0
        nq=$((nq + 1))
        while IFS="$TAB" read -r cols where; do
            n=$((n + 1))
            set -- "$f" --where "$where"
            [ "$cols" = - ] || set -- "$@" --columns "$cols"
            label="$variant $table: $where"
            scan "$d/got" "$@" --count && check "$label: --count" same_text "$d/$n.count" "$d/got"
            # plank bench scan: the same count, in JSON and in text, with
            # one of its options in turn
            case $(((n + nq) % 5)) in
            0) bopt=--count ;; 1) bopt=--mmap ;; 2) bopt=--no-pushdown ;;
            3) bopt=--no-verify-checksums ;; *) bopt=--threads=2 ;;
            esac
            # shellcheck disable=SC2086
            "$PLANK" bench scan "$@" $(echo "$bopt" | tr = ' ') --repeat 2 --json > "$d/bench" 2> "$WORK/err"
            check "$label: bench scan $bopt --json: $(cat "$WORK/err")" [ \
                "$(sed -n 's/^{.*"rows_matched":\([0-9]*\),"repeat":2,.*}$/\1/p' "$d/bench")" = "$(cat "$d/$n.count")" ]
            # shellcheck disable=SC2086
            "$PLANK" bench scan "$@" $(echo "$bopt" | tr = ' ') --repeat 1 > "$d/bench" 2> "$WORK/err"
            check "$label: bench scan $bopt: $(cat "$WORK/err")" [ \
                "$(sed -n 's/^matched: \([0-9]*\) rows.*/\1/p' "$d/bench")" = "$(cat "$d/$n.count")" ]
            k=0
            for opt in --format=jsonl --no-pushdown --no-stats --no-bloom --no-page-index \
                --no-dictionary --mmap; do
                # PLANK_SCAN_QUICK (the sanitizer builds): the rows, and one
                # of the six other options in turn, query by query
                k=$((k + 1))
                [ -z "${PLANK_SCAN_QUICK:-}" ] || [ "$k" -eq 1 ] ||
                    [ $(((n + nq) % 6)) -eq $((k - 2)) ] || continue
                scan "$d/got" "$@" "$opt" && check "$label: rows ($opt)" same_text "$d/$n.jsonl" "$d/got"
            done
        done < "$d/queries"
    done
done

echo "$passed checks passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
if [ -n "$skipped" ]; then
    [ "${CI:-}" = true ] && { echo "cli_scan: the comparisons with DuckDB did not run (CI needs them): $skipped"; exit 1; }
    skip_test "cli_scan: the comparisons with DuckDB did not run: $skipped"
fi
exit 0
