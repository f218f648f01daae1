#!/bin/sh
# scripts/coverage.sh [BUILD_DIR]: line coverage of the library (src/) by
# the whole test suite. Builds with gcc --coverage in BUILD_DIR (default
# build-cov), runs ctest, and prints lcov's table for src/ with the files
# least covered first; the full trace is BUILD_DIR/coverage.info (genhtml
# makes pages of it). Needs lcov (apt-get install lcov). Not part of CI.
#
# -fprofile-update=atomic is required, not a refinement: with gcc's default
# for a build without -pthread ("single"), the counters are plain memory
# increments, and gcc may derive a loop's index from its counter (it did in
# the SNAPPY decoder's literal-length loop); two threads bumping the same
# counter then change the index under the loop, and test_parallel failed
# about one run in ten with a page that "decompressed wrong" while its bytes
# were right. Atomic updates keep the counters out of the program's values.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-cov}
command -v lcov >/dev/null || { echo "coverage: lcov is not installed (apt-get install lcov)" >&2; exit 1; }
CC=gcc scripts/build.sh "$build" -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_C_FLAGS_DEBUG=-g -O1 --coverage -fprofile-update=atomic" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage
lcov --zerocounters --directory "$build" -q
(cd "$build" && ctest -j 2 --timeout 900) || echo "coverage: some tests failed (the table still follows)" >&2
lcov --capture --directory "$build" --output-file "$build/all.info" -q
lcov --extract "$build/all.info" "$PWD/src/*" --output-file "$build/coverage.info" -q
lcov --list "$build/coverage.info" | grep '|' | sort -t'|' -k2 -n
