#!/bin/sh
# cli_hostile_test.sh PLANK SOURCE_DIR: the tool's commands over hostile
# files. The fuzz corpora (fuzz/corpus/file, scan and footer: malformed
# footers, pages and values, and crashers found so far) and parquet-testing's
# bad_data/ go through `plank schema`, `meta`, `meta --json`, `cat` in each
# output format, `scan --count` and `convert` (whose output, when it
# succeeds, must read back, and which must leave no file when it fails).
# Each run must end with exit code 0, or 1
# with a "plank: " message on stderr; a signal, any other code or a
# sanitizer's report (in the sanitizer build, where this test matters most:
# the formatters of statistics, values and schemas see what the library
# accepted from the file) is a failure. bad_data/ is skipped (and reported)
# without the corpus; under PLANK_REQUIRE_CORPUS=1 its absence fails.
set -u
PLANK=$1
SRC=$2
DIR=${PLANK_TESTING_DIR:-$SRC/../shared/parquet-testing}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/plank-hostile-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$(dirname "$0")/th_skip.sh" # skip_test
failures=0
runs=0

# run FILE ARGS...: plank ARGS FILE must end cleanly (above); its exit code
# is left in rc. `run FILE convert-to OUT` runs plank convert FILE OUT.
run() {
    rf=$1
    shift
    runs=$((runs + 1))
    if [ "$1" = convert-to ]; then
        "$PLANK" convert "$rf" "$2" --from parquet > /dev/null 2> "$TMP/err"
    else
        "$PLANK" "$@" "$rf" > /dev/null 2> "$TMP/err"
    fi
    rc=$?
    if grep -q -E 'Sanitizer|runtime error' "$TMP/err"; then
        echo "FAIL: plank $* $rf: a sanitizer report" >&2
        grep -E 'ERROR|runtime error|SUMMARY' "$TMP/err" | head -n 3 >&2
        failures=$((failures + 1))
    elif [ "$rc" -eq 1 ] && ! grep -q '^plank: ' "$TMP/err"; then
        echo "FAIL: plank $* $rf: exit code 1 without a message" >&2
        failures=$((failures + 1))
    elif [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
        echo "FAIL: plank $* $rf: exit code $rc: $(head -c 300 "$TMP/err")" >&2
        failures=$((failures + 1))
    fi
}

# Every file through meta --json and cat's table; the whole files (not the
# footer corpus) through meta's text and JSON lines too, and the file
# corpus through schema and CSV (each run is a process: about 3 ms, 8 under
# the sanitizers).
files=0
for f in "$SRC"/fuzz/corpus/file/* "$SRC"/fuzz/corpus/scan/* "$SRC"/fuzz/corpus/footer/*; do
    [ -f "$f" ] || continue
    files=$((files + 1))
    run "$f" meta --json
    run "$f" cat --format table
    case $f in */footer/*) continue ;; esac
    run "$f" meta
    run "$f" cat --format jsonl
    case $f in */scan/*) continue ;; esac
    run "$f" schema
    run "$f" cat --format csv --limit 50
    # convert: a file it writes must read back, a failure must leave none
    rm -f "$TMP/out.parquet"
    run "$f" convert-to "$TMP/out.parquet"
    if [ "$rc" -eq 0 ]; then
        run "$TMP/out.parquet" cat --format jsonl
        [ "$rc" -eq 0 ] || { echo "FAIL: convert $f: its output does not read back" >&2; failures=$((failures + 1)); }
    elif [ -e "$TMP/out.parquet" ]; then
        echo "FAIL: convert $f failed and left $TMP/out.parquet" >&2
        failures=$((failures + 1))
    fi
done
if [ "$files" -lt 100 ]; then
    echo "FAIL: only $files files in the committed fuzz corpora" >&2
    failures=$((failures + 1))
fi
if [ -d "$DIR/bad_data" ]; then
    for f in "$DIR"/bad_data/*; do
        [ -f "$f" ] || continue
        files=$((files + 1))
        run "$f" schema
        run "$f" meta --json
        run "$f" cat --format jsonl
        run "$f" scan --count --where 'true'
    done
else
    echo "SKIP: no parquet-testing corpus at $DIR: bad_data/ not run"
    if [ -n "${PLANK_REQUIRE_CORPUS:-}" ] && [ "$PLANK_REQUIRE_CORPUS" != 0 ]; then
        echo "FAIL: the corpus is required (PLANK_REQUIRE_CORPUS=1)" >&2
        failures=$((failures + 1))
    fi
fi
echo "$runs runs over $files files, $failures failed"
[ "$failures" -eq 0 ]
