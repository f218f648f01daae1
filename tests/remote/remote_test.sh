#!/bin/sh
# remote_test.sh PLANK TEST_BINARY: the files test_remote reads (corpus files,
# and a TPC-H lineitem of several row groups that plank generates), served by
# the loopback servers of run_with_servers.sh, then the test itself and the
# CLI over URLs (cli_remote.sh).
set -eu
plank=$1
test_bin=$2
here=$(cd "$(dirname "$0")" && pwd)
corpus=${PLANK_TESTING_DIR:-$here/../../../shared/parquet-testing}
root=$(mktemp -d "${TMPDIR:-/tmp}/plank-remote-root.XXXXXX")
trap 'rm -rf "$root"' EXIT
if [ ! -f "$corpus/data/alltypes_plain.parquet" ]; then
    echo "SKIP: no parquet-testing corpus at $corpus"
    if [ "${CI:-}" = true ] || [ "${PLANK_REQUIRE_CORPUS:-}" = 1 ]; then exit 1; fi
    exit 77
fi
cp "$corpus/data/alltypes_plain.parquet" "$corpus/bad_data/PARQUET-1481.parquet" "$root/"
# 12k rows in row groups of 2048: streams and scans cross row groups, and the
# page index is there for the scan to announce.
"$plank" tpch gen --sf 0.002 --tables lineitem --row-group-size 2048 --out "$root" >/dev/null
mkdir -p "$root/dir with space"
cp "$corpus/data/alltypes_plain.parquet" "$root/dir with space/a+b.parquet"
set +e
sh "$here/run_with_servers.sh" "$root" sh -c '"$1" && sh "$2" "$3"' sh "$test_bin" \
    "$here/cli_remote.sh" "$plank"
rc=$?
exit $rc
