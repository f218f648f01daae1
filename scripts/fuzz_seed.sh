#!/bin/sh
# scripts/fuzz_seed.sh [BUILD_DIR]: (re)creates the seed part of the fuzz
# corpus under fuzz/corpus/ from parquet-testing ($PLANK_TESTING_DIR, default
# ../shared/parquet-testing or ../../shared/parquet-testing): whole small
# files (< 75 KB, not encrypted, large_string_map excluded) and
# bad_data/ for fuzz_file, their footers for fuzz_footer, column chunk starts
# for fuzz_page_header, compressed pages for fuzz_codec (extracted with
# BUILD_DIR/fuzz/fuzz_seed_corpus, default build/), and synthetic pages of
# every encoding for fuzz_decoders (fuzz/seed_decoders.py). Seeds are named
# seed-*; minimised crashers (crash-*) and fuzzer finds are left alone.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
testing=${PLANK_TESTING_DIR:-../shared/parquet-testing}
[ -d "$testing/data" ] || testing=../../shared/parquet-testing
[ -d "$testing/data" ] || { echo "parquet-testing not found at $testing" >&2; exit 1; }
c=fuzz/corpus
for t in footer page_header decoders codec file; do
    mkdir -p $c/$t
    rm -f $c/$t/seed-*
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/footer" "$tmp/page_header" "$tmp/codec"
# large_string_map.brotli.parquet is small but holds a 1 GiB page: too slow
# to replay on every run (test_reader reads it).
files=$(find "$testing/data" -maxdepth 1 -name '*.parquet' -size -75k \
        ! -name large_string_map.brotli.parquet | sort)
for f in $files "$testing"/bad_data/*.parquet; do
    cp "$f" "$c/file/seed-$(basename "$f")"
done
"$build/fuzz/fuzz_seed_corpus" "$tmp" $files
for t in footer page_header codec; do
    for f in "$tmp/$t"/*; do cp "$f" "$c/$t/seed-$(basename "$f")"; done
done
python3 fuzz/seed_decoders.py "$c/decoders"
du -sh $c/*
