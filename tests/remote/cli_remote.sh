#!/bin/sh
# cli_remote.sh PLANK: the CLI over URLs (run by remote_test.sh with the
# servers' PLANK_REMOTE_* environment): cat and scan of a URL print what they
# print for the same file on disk, over HTTP, HTTPS and S3; a missing file is
# a failure naming the status.
set -eu
plank=$1
root=$PLANK_REMOTE_ROOT
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plank-cli-remote.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
same() { # what, local output file, remote command...
    what=$1
    want=$2
    shift 2
    if ! "$@" > "$tmp/got" 2> "$tmp/err"; then
        echo "FAIL: $what: exit $? ($(cat "$tmp/err"))"
        fail=1
    elif ! cmp -s "$want" "$tmp/got"; then
        echo "FAIL: $what: output differs from the local file's"
        fail=1
    fi
}
where="l_shipdate >= DATE '1994-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
"$plank" cat "$root/lineitem.parquet" > "$tmp/cat"
"$plank" scan "$root/lineitem.parquet" --where "$where" --columns l_orderkey,l_extendedprice > "$tmp/scan"
[ -s "$tmp/cat" ] && [ -s "$tmp/scan" ] || { echo "FAIL: local reads printed nothing"; exit 1; }
same "cat http" "$tmp/cat" "$plank" cat "$PLANK_REMOTE_HTTP/lineitem.parquet"
same "scan http" "$tmp/scan" "$plank" scan "$PLANK_REMOTE_HTTP/lineitem.parquet" --where "$where" \
    --columns l_orderkey,l_extendedprice
same "cat https" "$tmp/cat" env PLANK_REMOTE_CA_FILE="$PLANK_REMOTE_CA" "$plank" cat \
    "$PLANK_REMOTE_HTTPS/lineitem.parquet"
same "scan s3" "$tmp/scan" env AWS_ENDPOINT_URL="$PLANK_REMOTE_S3" AWS_ACCESS_KEY_ID=S3RVER \
    AWS_SECRET_ACCESS_KEY=S3RVER "$plank" scan s3://plank-test/lineitem.parquet --where "$where" \
    --columns l_orderkey,l_extendedprice
same "scan fault/ok, one request per read" "$tmp/scan" env PLANK_REMOTE_PREFETCH=0 "$plank" scan \
    "$PLANK_REMOTE_FAULT/ok/lineitem.parquet" --where "$where" --columns l_orderkey,l_extendedprice
# a dataset of two URLs: the rows of both files (files are taken in the
# order of their names, the same here as on disk)
"$plank" cat "$root/lineitem.parquet" "$root/alltypes_plain.parquet" > "$tmp/ds"
same "cat dataset of URLs" "$tmp/ds" "$plank" cat "$PLANK_REMOTE_HTTP/lineitem.parquet" \
    "$PLANK_REMOTE_HTTP/alltypes_plain.parquet"
if "$plank" cat "$PLANK_REMOTE_HTTP/missing.parquet" > /dev/null 2> "$tmp/err"; then
    echo "FAIL: a missing URL was read"
    fail=1
elif ! grep -q "HTTP 404" "$tmp/err"; then
    echo "FAIL: a missing URL's error does not name 404: $(cat "$tmp/err")"
    fail=1
fi
[ $fail = 0 ] && echo "cli over URLs: ok"
exit $fail
