#!/bin/sh
# cli_convert_test.sh PLANK SOURCE_DIR MODE: `plank convert` end to end.
#
# MODE text: CSV and JSON lines files with known contents (written below)
#   converted to Parquet and printed back with `plank cat`; Parquet to
#   jsonl/csv against `plank cat`; failing conversions leave no file.
# MODE corpus: parquet-testing files (PLANK_TESTING_DIR, default
#   SOURCE_DIR/../shared/parquet-testing) converted Parquet to Parquet with
#   several codecs, encodings, page versions and row group sizes; the
#   output must print the same rows (`plank cat`) and the same schema
#   (`plank schema`) as the input. Exits 77 (skipped) without the corpus;
#   files missing from it are counted and listed as skipped. The files are
#   shared among one worker per processor (PLANK_CONVERT_JOBS).
set -u
PLANK=$1
SRC=$2
MODE=$3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/plank-convert-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
failures=0
checks=0
. "$(dirname "$0")/th_skip.sh" # skip_test

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
pass() { checks=$((checks + 1)); }

# same LABEL EXPECTED ACTUAL
same() {
    if cmp -s "$2" "$3"; then pass; else
        fail "$1"
        diff "$2" "$3" | head -n 12 >&2
    fi
}

# converts LABEL ARGS...: plank convert must succeed.
converts() {
    label=$1
    shift
    if "$PLANK" convert "$@" 2>"$TMP/err"; then pass; else
        fail "$label: plank convert $*: $(cat "$TMP/err")"
        return 1
    fi
}

# refuses LABEL OUT PATTERN ARGS...: plank convert must fail with exit code 1,
# print PATTERN on stderr and leave neither OUT nor a temporary file.
refuses() {
    label=$1
    out=$2
    pattern=$3
    shift 3
    "$PLANK" convert "$@" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -ne 1 ]; then fail "$label: exit code $rc, expected 1"; return; fi
    if ! grep -q -- "$pattern" "$TMP/err"; then
        fail "$label: stderr lacks '$pattern': $(cat "$TMP/err")"
        return
    fi
    leftovers=$(ls "$(dirname "$out")" | grep -c "^$(basename "$out")") || true
    if [ -e "$out" ] || [ "$leftovers" -ne 0 ]; then fail "$label: left a file behind"; return; fi
    pass
}

finish() {
    echo "$checks checks passed, $failures failed${1:-}"
    [ "$failures" -eq 0 ]
    exit $?
}

# ---- text ------------------------------------------------------------------------

if [ "$MODE" = text ]; then
    # CSV: RFC 4180 quoting (delimiters, doubled quotes, line breaks), an
    # unquoted empty field is null and a quoted one the empty string.
    printf '%s\r\n' 'id,name,score,ok,day,at,note,price' \
        '1,alice,1.5,true,2024-01-02,2024-01-02T03:04:05Z,"hello, ""world""",12.30' \
        '2,,2,false,2024-02-29,2024-01-02 03:04:05.123456+01:00,"",-0.05' > "$TMP/a.csv"
    printf '3,"two\nlines",-1e3,TRUE,,,null,\r\n' >> "$TMP/a.csv"
    converts "csv inferred" "$TMP/a.csv" "$TMP/a.parquet" &&
        "$PLANK" cat "$TMP/a.parquet" > "$TMP/a.jsonl" &&
        "$PLANK" schema "$TMP/a.parquet" | sed -n 's/^  \([a-z]*\): optional \([A-Z0-9_]*\).*logical=\([^ ]*\).*/\1 \2 \3/p; s/^  \([a-z]*\): optional \([A-Z0-9_]*\) column.*/\1 \2/p' > "$TMP/a.types"
    cat > "$TMP/a.expect" <<'EOF'
{"id":1,"name":"alice","score":1.5,"ok":true,"day":"2024-01-02","at":"2024-01-02T03:04:05.000000Z","note":"hello, \"world\"","price":12.3}
{"id":2,"name":null,"score":2,"ok":false,"day":"2024-02-29","at":"2024-01-02T02:04:05.123456Z","note":"","price":-0.05}
{"id":3,"name":"two\nlines","score":-1e+03,"ok":true,"day":null,"at":null,"note":null,"price":null}
EOF
    same "csv inferred: rows" "$TMP/a.expect" "$TMP/a.jsonl"
    cat > "$TMP/a.types.expect" <<'EOF'
id INT64
name BYTE_ARRAY STRING
score DOUBLE
ok BOOLEAN
day INT32 DATE
at INT64 TIMESTAMP(MICROS,utc=true)
note BYTE_ARRAY STRING
price DOUBLE
EOF
    same "csv inferred: types" "$TMP/a.types.expect" "$TMP/a.types"

    # --schema overrides some columns; the rest are inferred.
    converts "csv --schema" "$TMP/a.csv" "$TMP/b.parquet" --codec zstd \
        --schema 'price:decimal(10,2),id:int32,at:timestamptz[ns],score:float,day:string' &&
        "$PLANK" cat "$TMP/b.parquet" --columns id,price,at,score,day > "$TMP/b.jsonl"
    cat > "$TMP/b.expect" <<'EOF'
{"id":1,"price":"12.30","at":"2024-01-02T03:04:05.000000000Z","score":1.5,"day":"2024-01-02"}
{"id":2,"price":"-0.05","at":"2024-01-02T02:04:05.123456000Z","score":2,"day":"2024-02-29"}
{"id":3,"price":null,"at":null,"score":-1e+03,"day":null}
EOF
    same "csv --schema: rows" "$TMP/b.expect" "$TMP/b.jsonl"

    # Wide decimals (FIXED_LEN_BYTE_ARRAY), a tab-separated file, int64 limits.
    printf 'x\ty\n-12345678901234567890.5\t9223372036854775807\n0.25\t-9223372036854775808\n' > "$TMP/c.tsv"
    converts "tsv decimal(38,3)" "$TMP/c.tsv" "$TMP/c.parquet" --schema 'x:decimal(38,3)' &&
        "$PLANK" cat "$TMP/c.parquet" > "$TMP/c.jsonl"
    cat > "$TMP/c.expect" <<'EOF'
{"x":"-12345678901234567890.500","y":9223372036854775807}
{"x":"0.250","y":-9223372036854775808}
EOF
    same "tsv decimal(38,3): rows" "$TMP/c.expect" "$TMP/c.jsonl"

    # JSON lines: escapes, nested values kept as JSON text, missing keys and
    # null are null, "NaN" joins numbers, dates and timestamps from strings.
    cat > "$TMP/d.jsonl" <<'EOF'
{"id": 1, "name": "a\u00e9\"b\ud83d\ude00", "v": 1.25, "flag": true, "d": "2024-03-01", "tags": [1, {"x": "]"}], "t": "2024-03-01T10:00:00"}

{"id": 2, "name": null, "v": 3, "flag": false, "d": null, "t": "2024-03-01T10:00:00.5"}
{"v": "NaN", "id": -9007199254740993, "obj": {"k": "v"}}
EOF
    converts "jsonl inferred" "$TMP/d.jsonl" "$TMP/d.parquet" --page-version 2 &&
        "$PLANK" cat "$TMP/d.parquet" > "$TMP/d.out"
    cat > "$TMP/d.expect" <<'EOF'
{"id":1,"name":"aé\"b😀","v":1.25,"flag":true,"d":"2024-03-01","tags":"[1, {\"x\": \"]\"}]","t":"2024-03-01T10:00:00.000000","obj":null}
{"id":2,"name":null,"v":3,"flag":false,"d":null,"tags":null,"t":"2024-03-01T10:00:00.500000","obj":null}
{"id":-9007199254740993,"name":null,"v":"NaN","flag":null,"d":null,"tags":null,"t":null,"obj":"{\"k\": \"v\"}"}
EOF
    same "jsonl inferred: rows" "$TMP/d.expect" "$TMP/d.out"

    # Parquet to text is exactly `plank cat`.
    converts "parquet to jsonl" "$TMP/a.parquet" "$TMP/e.jsonl" &&
        same "parquet to jsonl" "$TMP/a.jsonl" "$TMP/e.jsonl"
    "$PLANK" cat --format csv "$TMP/d.parquet" > "$TMP/d.csv.expect"
    converts "parquet to csv" "$TMP/d.parquet" "$TMP/e.out" --to csv &&
        same "parquet to csv" "$TMP/d.csv.expect" "$TMP/e.out"
    # ... and the CSV of cat reads back to the same rows.
    converts "cat csv back" "$TMP/e.out" "$TMP/f.parquet" --from csv &&
        "$PLANK" cat "$TMP/f.parquet" --columns id,name,flag,d,t > "$TMP/f.jsonl" &&
        "$PLANK" cat "$TMP/d.parquet" --columns id,name,flag,d,t > "$TMP/f.expect" &&
        same "cat csv back" "$TMP/f.expect" "$TMP/f.jsonl"

    # Failures leave no file: a value that does not fit the inferred type,
    # a key after the sample, malformed input, a corrupt Parquet file.
    mkdir "$TMP/fail"
    printf 'n,s\n1,a\n2,b\nx,c\n' > "$TMP/g.csv"
    refuses "csv late value" "$TMP/fail/g.parquet" 'line 4, column n: "x" is not a valid int64' \
        "$TMP/g.csv" "$TMP/fail/g.parquet" --infer-rows 2
    printf '{"a": 1}\n{"a": 2, "b": 3}\n' > "$TMP/h.jsonl"
    refuses "jsonl late key" "$TMP/fail/h.parquet" 'line 2: key "b"' \
        "$TMP/h.jsonl" "$TMP/fail/h.parquet" --infer-rows 1
    printf '{"a": 1}\n{"a": 2,}\n' > "$TMP/i.jsonl"
    refuses "jsonl syntax" "$TMP/fail/i.parquet" 'line 2' "$TMP/i.jsonl" "$TMP/fail/i.parquet"
    printf 'a,b\n1,2,3\n' > "$TMP/j.csv"
    refuses "csv field count" "$TMP/fail/j.parquet" '3 fields where the header has 2' \
        "$TMP/j.csv" "$TMP/fail/j.parquet"
    refuses "missing input" "$TMP/fail/k.parquet" 'cannot open' "$TMP/none.csv" "$TMP/fail/k.parquet"
    size=$(wc -c < "$TMP/a.parquet")
    head -c $((size - 20)) "$TMP/a.parquet" > "$TMP/trunc.parquet"
    refuses "corrupt parquet to parquet" "$TMP/fail/l.parquet" 'plank:' \
        "$TMP/trunc.parquet" "$TMP/fail/l.parquet"
    refuses "corrupt parquet to jsonl" "$TMP/fail/l.jsonl" 'plank:' \
        "$TMP/trunc.parquet" "$TMP/fail/l.jsonl"
    refuses "unknown column option" "$TMP/fail/m.parquet" 'plank:' \
        "$TMP/a.csv" "$TMP/fail/m.parquet" --encoding nosuch=PLAIN
    if [ -n "$(ls "$TMP/fail")" ]; then fail "files left in fail/: $(ls "$TMP/fail")"; else pass; fi

    # A CSV of 6,000 columns: a batch's buffers are sized by the row width
    # (64 MiB in all), not 65,536 rows a column (3.6 GB of address space for
    # these columns before), so it converts within 2 GB of address space.
    # A sanitizer build reserves terabytes of shadow memory and cannot run
    # under any such limit: the bound is then reported as skipped, the rows
    # still checked.
    awk 'BEGIN { n = 6000
        for (c = 0; c < n; c++) printf "%sc%d", (c ? "," : ""), c; printf "\n"
        for (r = 1; r <= 3; r++) { for (c = 0; c < n; c++) printf "%s%d", (c ? "," : ""), c * r; printf "\n" } }' \
        > "$TMP/wide.csv"
    awk 'BEGIN { n = 6000
        for (r = 1; r <= 3; r++) { printf "{"; for (c = 0; c < n; c++) printf "%s\"c%d\":%d", (c ? "," : ""), c, c * r; printf "}\n" } }' \
        > "$TMP/wide.expect"
    limit=
    if sh -c 'ulimit -v 2000000 && "$0" --version' "$PLANK" >/dev/null 2>&1; then limit=2000000; else
        echo "SKIP: wide csv under a 2 GB address-space limit (this build cannot run under one)"
    fi
    if (if [ -n "$limit" ]; then ulimit -v "$limit"; fi
        "$PLANK" convert "$TMP/wide.csv" "$TMP/wide.parquet") 2>"$TMP/err"; then
        pass
        "$PLANK" cat "$TMP/wide.parquet" > "$TMP/wide.jsonl" 2>&1
        same "wide csv: rows" "$TMP/wide.expect" "$TMP/wide.jsonl"
    else
        fail "wide csv: plank convert: $(head -c 300 "$TMP/err")"
    fi
    # a fraction outside 0..1: a usage error (exit code 2) naming the option
    "$PLANK" convert "$TMP/a.csv" "$TMP/fail/n.parquet" --v2-min-saving 1.5 2>"$TMP/err"
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q -- '--v2-min-saving needs a fraction' "$TMP/err"; then
        fail "--v2-min-saving 1.5: exit code $rc: $(cat "$TMP/err")"
    else
        pass
    fi

    # Data-page encodings without the dictionary (RLE: the levels of these
    # optional columns): the default (DELTA for the int64 id, PLAIN for the
    # double score), `--encoding ENC` for every
    # column it applies to, and format 1 (PLAIN).
    encs() { # FILE COLUMN: the chunk's encodings line of `plank meta`
        "$PLANK" meta "$1" | awk -v c="($2):" '$1 == "column" && $3 == c { f = 1 }
            f && $1 == "encodings:" { sub(/^ *encodings: */, ""); print; exit }'
    }
    expect_encs() { # LABEL FILE COLUMN EXPECTED
        got=$(encs "$2" "$3")
        if [ "$got" = "$4" ]; then pass; else fail "$1: $3 encodings '$got', expected '$4'"; fi
    }
    converts "default fallback" "$TMP/a.csv" "$TMP/e1.parquet" --dictionary off &&
        expect_encs "default fallback" "$TMP/e1.parquet" id 'RLE, DELTA_BINARY_PACKED' &&
        expect_encs "default fallback" "$TMP/e1.parquet" score 'RLE, PLAIN'
    converts "--encoding PLAIN" "$TMP/a.csv" "$TMP/e2.parquet" --dictionary off --encoding PLAIN &&
        expect_encs "--encoding PLAIN" "$TMP/e2.parquet" id 'RLE, PLAIN'
    converts "--encoding BYTE_STREAM_SPLIT" "$TMP/a.csv" "$TMP/e3.parquet" --dictionary off \
        --encoding BYTE_STREAM_SPLIT &&
        expect_encs "--encoding BYTE_STREAM_SPLIT" "$TMP/e3.parquet" id 'RLE, BYTE_STREAM_SPLIT' &&
        expect_encs "--encoding BYTE_STREAM_SPLIT" "$TMP/e3.parquet" name 'RLE, PLAIN'
    converts "format 1" "$TMP/a.csv" "$TMP/e4.parquet" --dictionary off --format-version 1 &&
        expect_encs "format 1" "$TMP/e4.parquet" id 'RLE, PLAIN'
    for f in e1 e2 e3 e4; do
        "$PLANK" cat "$TMP/$f.parquet" > "$TMP/$f.jsonl" 2>&1
        same "$f read back" "$TMP/a.jsonl" "$TMP/$f.jsonl"
    done
    finish
fi

# ---- corpus --------------------------------------------------------------------------

DIR=${PLANK_TESTING_DIR:-$SRC/../shared/parquet-testing}
DATA=$DIR/data
if [ ! -d "$DATA" ]; then
    skip_test "no parquet-testing corpus at $DIR (set PLANK_TESTING_DIR)"
fi

# Jobs, the costliest first: each worker takes the next job no other has
# claimed, so the last one to finish is short. Files joined by '+' are one
# job, run in that order by one worker (see `corpus_file` on the second).
FILES="alltypes_tiny_pages.parquet+alltypes_tiny_pages_plain.parquet
delta_binary_packed.parquet delta_byte_array.parquet
alltypes_plain.parquet alltypes_plain.snappy.parquet alltypes_dictionary.parquet
data_index_bloom_encoding_stats.parquet data_index_bloom_encoding_with_length.parquet
byte_stream_split.zstd.parquet byte_stream_split_extended.gzip.parquet
delta_length_byte_array.parquet
delta_encoding_optional_column.parquet delta_encoding_required_column.parquet
nested_lists.snappy.parquet nested_maps.snappy.parquet nested_structs.rust.parquet
list_columns.parquet null_list.parquet repeated_no_annotation.parquet
repeated_primitive_no_list.parquet old_list_structure.parquet nonnullable.impala.parquet
nullable.impala.parquet nulls.snappy.parquet int32_decimal.parquet int64_decimal.parquet
byte_array_decimal.parquet fixed_length_decimal.parquet fixed_length_decimal_legacy.parquet
fixed_length_byte_array.parquet binary.parquet int96_from_spark.parquet
float16_nonzeros_and_nans.parquet datapage_v2.snappy.parquet rle_boolean_encoding.parquet
int32_with_null_pages.parquet single_nan.parquet map_no_value.parquet
column_chunk_key_value_metadata.parquet"

# Per-column encodings (with the dictionary off) from the schema's leaves:
# the dotted path and physical type of each (`plank schema` indents by depth).
leaf_encodings() { # SCHEMA_TEXT VARIANT
    awk -v variant="$2" '
        /^arrow:/ { exit }
        {
            match($0, /^ */); depth = RLENGTH / 2
            name = substr($0, RLENGTH + 1); sub(/: .*/, "", name)
            path[depth] = name
            if ($0 !~ / column=/) next
            p = path[1]; for (i = 2; i <= depth; i++) p = p "." path[i]
            split(substr($0, index($0, ": ") + 2), w, " "); t = w[2]
            if (t == "INT32" || t == "INT64") e = variant == "a" ? "DELTA_BINARY_PACKED" : "PLAIN"
            else if (t == "BYTE_ARRAY") e = variant == "a" ? "DELTA_BYTE_ARRAY" : "DELTA_LENGTH_BYTE_ARRAY"
            else if (t ~ /^FIXED_LEN_BYTE_ARRAY/) e = variant == "a" ? "DELTA_BYTE_ARRAY" : "BYTE_STREAM_SPLIT"
            else if (t == "FLOAT" || t == "DOUBLE") e = variant == "a" ? "BYTE_STREAM_SPLIT" : "PLAIN"
            else if (t == "BOOLEAN") e = variant == "a" ? "RLE" : "PLAIN"
            else e = "PLAIN"
            printf " --encoding %s=%s", p, e
        }' "$1"
}

# The row group count, from the third line of `plank meta` (sed stops
# reading there, so meta need not print the other thousands of lines of a
# file with one row group per row).
row_groups() {
    "$PLANK" meta "$1" 2>/dev/null | sed -n '/^num_row_groups:/{s/^num_row_groups: *\([0-9]*\).*/\1/p;q;}'
}

# corpus_file FILE [REF]: FILE converted under every set of options; the
# output must print the same rows and schema as the input, and have the
# row groups asked for. REF, an earlier file of the same job, left its
# outputs in $TMP/REF.N.parquet (and $TMP/REF.N.ok when every check on
# output N passed). When FILE prints the same rows and schema as REF and has
# as many row groups, the writer gets the same input from both, and an
# output byte-identical to REF's is one whose checks already passed on
# REF's: then only the conversion itself is checked (cmp), and the other
# checks are counted as passed (alltypes_tiny_pages_plain.parquet is
# alltypes_tiny_pages.parquet without the dictionary: this halves the cost
# of the two largest files). Any difference runs every check.
corpus_file() {
    f=$1
    ref=${2:-}
    in=$DATA/$f
    nfiles=$((nfiles + 1))
    "$PLANK" cat "$in" > "$TMP/$f.jsonl" 2>"$TMP/err" || { fail "$f: plank cat: $(cat "$TMP/err")"; return; }
    "$PLANK" schema "$in" > "$TMP/$f.schema"
    in_groups=$(row_groups "$in")
    echo "$in_groups" > "$TMP/$f.groups"
    rows=$(wc -l < "$TMP/$f.jsonl")
    first=$(sed -n 's/^  \([^ :]*\): [a-z]* [A-Z].* column=0 .*/\1/p' "$TMP/$f.schema" | head -n 1)
    enc_a=$(leaf_encodings "$TMP/$f.schema" a)
    enc_b=$(leaf_encodings "$TMP/$f.schema" b)
    like_ref=""
    if [ -n "$ref" ] && cmp -s "$TMP/$f.jsonl" "$TMP/$ref.jsonl" &&
        cmp -s "$TMP/$f.schema" "$TMP/$ref.schema" && cmp -s "$TMP/$f.groups" "$TMP/$ref.groups"; then
        like_ref=1
    fi
    n=0
    reused=0
    for cfg in "" \
        "--codec zstd --page-version 2 --v2-min-saving 0" \
        "--codec gzip --level 9 --dictionary off --row-group-size 3" \
        "--codec lz4_raw --row-group-size 1 --page-rows 2 --no-stats" \
        "--codec none --format-version 1 --page-size 100 --no-page-index --row-group-size 7" \
        "--codec snappy --dictionary off --page-version 2 --row-group-size 2 $enc_a" \
        "--codec brotli --dictionary off --row-group-size 5 --page-rows 3 $enc_b" \
        "--codec lz4 --page-version 2 --page-rows 1 --v2-min-saving 1 ${first:+--bloom $first}"; do
        n=$((n + 1))
        # Sanitizer builds run three of the sets (defaults, dictionary off
        # with gzip, the DELTA/BYTE_STREAM_SPLIT encodings with 2-row row
        # groups): ~1100 plank processes under ASan would take a quarter of
        # an hour. (BROTLI with tiny row groups is in a set they skip: its
        # encoder is built anew for every page.)
        if [ -n "${PLANK_CONVERT_QUICK:-}" ]; then
            case $n in 1 | 3 | 6) ;; *) continue ;; esac
        fi
        out=$TMP/$f.$n.parquet
        # shellcheck disable=SC2086 # options are split on purpose
        converts "$f [$cfg]" "$in" "$out" $cfg || continue
        case $cfg in *--row-group-size* | "") nchecks=3 ;; *) nchecks=2 ;; esac
        if [ -n "$like_ref" ] && [ -e "$TMP/$ref.$n.ok" ] && cmp -s "$out" "$TMP/$ref.$n.parquet"; then
            checks=$((checks + nchecks))
            reused=$((reused + 1))
            continue
        fi
        before=$failures
        "$PLANK" cat "$out" > "$TMP/out.jsonl" 2>"$TMP/err" || fail "$f [$cfg]: cat: $(cat "$TMP/err")"
        same "$f [$cfg]: rows" "$TMP/$f.jsonl" "$TMP/out.jsonl"
        "$PLANK" schema "$out" > "$TMP/out.schema" 2>"$TMP/err"
        same "$f [$cfg]: schema" "$TMP/$f.schema" "$TMP/out.schema"
        case $cfg in
        *--row-group-size*)
            size=$(echo "$cfg" | sed 's/.*--row-group-size \([0-9]*\).*/\1/')
            want=$(((rows + size - 1) / size))
            got=$(row_groups "$out")
            if [ "$got" = "$want" ]; then pass; else fail "$f [$cfg]: $got row groups, expected $want"; fi
            ;;
        "")
            # (the writer leaves out row groups without rows)
            want=$in_groups
            [ "$rows" -eq 0 ] && want=0
            got=$(row_groups "$out")
            if [ "$got" = "$want" ]; then pass; else fail "$f: $got row groups, expected $want (the input's)"; fi
            ;;
        esac
        [ "$failures" -eq "$before" ] && : > "$TMP/$f.$n.ok"
    done
    if [ "$reused" -gt 0 ]; then
        echo "$f: $reused outputs byte-identical to $ref's (same rows and schema): their checks held there"
    fi
}

# corpus_worker: runs unclaimed jobs (a job is claimed by creating its
# directory, which only one worker can) in its own directory, then writes
# its counts to $TMP/result.
corpus_worker() {
    TMP=$1
    mkdir "$TMP"
    k=0
    for job in $FILES; do
        k=$((k + 1))
        mkdir "$TMP/../claim.$k" 2>/dev/null || continue
        ref=""
        for f in $(echo "$job" | tr + ' '); do
            if [ ! -f "$DATA/$f" ]; then
                skipped="$skipped $f"
                nskipped=$((nskipped + 1))
                continue
            fi
            corpus_file "$f" "$ref"
            [ -z "$ref" ] && ref=$f
        done
        rm -f "$TMP"/*.parquet "$TMP"/*.ok "$TMP"/*.jsonl "$TMP"/*.schema "$TMP"/*.groups
    done
    echo "$checks $failures $nfiles $nskipped$skipped" > "$TMP/result"
}

# Jobs run on as many workers as there are processors (PLANK_CONVERT_JOBS
# overrides): most of the time is plank itself, one process per step.
jobs=${PLANK_CONVERT_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
skipped=""
nskipped=0
nfiles=0
w=0
while [ "$w" -lt "$jobs" ]; do
    w=$((w + 1))
    (corpus_worker "$TMP/w$w") > "$TMP/w$w.log" 2>&1 &
done
wait
w=0
while [ "$w" -lt "$jobs" ]; do
    w=$((w + 1))
    cat "$TMP/w$w.log"
    if [ ! -f "$TMP/w$w/result" ]; then fail "worker $w stopped before the end"; continue; fi
    read -r c fl nf ns sk < "$TMP/w$w/result"
    checks=$((checks + c))
    failures=$((failures + fl))
    nfiles=$((nfiles + nf))
    nskipped=$((nskipped + ns))
    skipped="$skipped${sk:+ $sk}"
done
if [ "$nskipped" -gt 0 ]; then
    echo "SKIP: $nskipped files missing from the corpus:$skipped"
    if [ -n "${PLANK_REQUIRE_CORPUS:-}" ] && [ "$PLANK_REQUIRE_CORPUS" != 0 ]; then
        fail "$nskipped corpus files missing (PLANK_REQUIRE_CORPUS=1)"
    fi
fi
finish " over $nfiles files"
