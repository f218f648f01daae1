#!/bin/sh
# cli_bench_write_test.sh PLANK: `plank bench write --serve`, the mode
# bench/run_write.sh times plank in. Each request line must write the same
# bytes as the one-shot command with the same options, answer with the
# file's true size and row-group count, and a bad request must stop the
# server with a usage error naming the word.
set -u
PLANK=$1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/plank-bench-write-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
rows=30000

"$PLANK" bench write --rows $rows --repeat 1 --codec snappy --row-group-size 10000 \
    -o "$TMP/once.parquet" >/dev/null || fail "one-shot write"
"$PLANK" bench write --rows $rows --repeat 1 --codec none --dictionary off \
    -o "$TMP/once_plain.parquet" >/dev/null || fail "one-shot write (no dictionary)"

printf '%s\n' "--codec snappy --row-group-size 10000 -o $TMP/a.parquet" "" \
    "--codec=none --dictionary off -o $TMP/b.parquet" |
    "$PLANK" bench write --rows $rows --serve >"$TMP/answers" 2>"$TMP/err" ||
    fail "serve exited with $? ($(cat "$TMP/err"))"
[ "$(wc -l <"$TMP/answers")" -eq 3 ] || fail "expected 3 answer lines, got: $(cat "$TMP/answers")"
head -1 "$TMP/answers" | grep -q "^{\"rows\":$rows,\"columns\":16," || fail "no table line"
cmp -s "$TMP/once.parquet" "$TMP/a.parquet" || fail "serve's snappy file differs from the one-shot's"
cmp -s "$TMP/once_plain.parquet" "$TMP/b.parquet" || fail "serve's plain file differs from the one-shot's"
for f in a b; do
    n=$(sed -n "$([ $f = a ] && echo 2 || echo 3)p" "$TMP/answers")
    size=$(wc -c <"$TMP/$f.parquet" | tr -d ' ')
    echo "$n" | grep -q "\"file_bytes\":$size," || fail "answer '$n' does not give $f's size $size"
done
sed -n 2p "$TMP/answers" | grep -q '"row_groups":3}' || fail "snappy file: expected 3 row groups"
[ "$("$PLANK" cat "$TMP/a.parquet" --format csv | md5sum)" = \
  "$("$PLANK" cat "$TMP/b.parquet" --format csv | md5sum)" ] || fail "the two files hold different rows"

echo "--codec snappy --bogus -o $TMP/c.parquet" | "$PLANK" bench write --rows 100 --serve \
    >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] || fail "a bad request exited with $rc, expected 2"
grep -q "unknown argument '--bogus'" "$TMP/err" || fail "bad request message: $(head -1 "$TMP/err")"
echo "--codec snappy" | "$PLANK" bench write --rows 100 --serve >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "needs -o PATH" "$TMP/err" || fail "a request without -o was not refused"

[ $failures -eq 0 ] || exit 1
echo "cli_bench_write: all checks passed"
