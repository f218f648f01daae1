#!/bin/sh
# The whole test suite: builds plank twice (optimised, and with
# AddressSanitizer + UndefinedBehaviorSanitizer under clang) and runs ctest
# on both. Skipped tests are reported by ctest as skipped, never as passed.
set -eu
cd "$(dirname "$0")/.."
# Each phase's start on stdout, with the seconds since the first: CI's
# budget is 15 minutes, and the log says where it went.
t0=$(date +%s)
phase() { echo "== [$(($(date +%s) - t0)) s] $*"; }
phase "install"
scripts/install-deps.sh
phase "optimised build"
scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
phase "optimised tests"
(cd build && ctest --output-on-failure -j 2)
phase "no-codec build and tests"
# Every codec switched off: pages in those codecs must give a clear error;
# and libcurl off: URLs must (test_remote without servers).
# SNAPPY is plank's own both ways, so these builds still read and write it
# (test_compress and the codec fuzz corpus check that without libsnappy).
# Only what the step needs is built: the tests it runs, and every other test
# or fuzz replay whose source depends on the codec switches (compiled, so
# that its no-codec branch still builds); the library is built whole either
# way. The CLI and benchmarks do not name the switches (checked here: if one
# ever does, the whole tree is built again).
codec_switch='PLANK_HAVE_(ZSTD|SNAPPY|LZ4|LIBDEFLATE|BROTLI)'
nocodec_targets=$({ echo tests/test_codec.c tests/test_reader.c tests/test_remote.c tests/test_compress.c \
    fuzz/fuzz_codec.c; grep -lE "$codec_switch" tests/test_*.c fuzz/fuzz_*.c; } |
    tr ' ' '\n' | sed -e 's#^tests/\(.*\)\.c$#\1#' -e 's#^fuzz/fuzz_\(.*\)\.c$#replay_\1#' |
    sort -u | tr '\n' ' ')
if grep -rqE "$codec_switch" src/tools bench; then
    nocodec_targets=""
fi
# shellcheck disable=SC2086 # one word per target
scripts/build.sh build-nocodec -DCMAKE_BUILD_TYPE=Debug -DPLANK_WITH_ZSTD=OFF \
    -DPLANK_WITH_SNAPPY=OFF -DPLANK_WITH_LZ4=OFF -DPLANK_WITH_GZIP=OFF -DPLANK_WITH_BROTLI=OFF -DPLANK_WITH_CURL=OFF \
    ${nocodec_targets:+-- $nocodec_targets}
(cd build-nocodec && ctest --output-on-failure -j 2 \
    -R "test_codec|test_reader|test_remote|test_compress|fuzz_replay_codec")
# The sanitizer builds are compiled at -O1, as the sanitizers' own documents
# advise: the same checks, and about half the time of -O0 (test_simd_bits
# under ASan: 63 -> 30 s).
san_flags="-g -O1"
# ThreadSanitizer over the concurrent-reader and parallel-read tests and the
# TPC-H writer's threads (only those are built).
phase "TSan build"
CC=clang scripts/build.sh build-tsan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=$san_flags" \
    -DPLANK_TSAN=ON -- test_threads plank test_parallel test_remote test_arrow_zerocopy test_tpch
phase "TSan tests"
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1 PLANK_TPCH_QUICK=1 PLANK_TPCH_THREADED=1 ctest --output-on-failure -j 2 \
    -R "test_threads|test_parallel|test_remote|test_arrow_zerocopy|test_tpch")
phase "ASan+UBSan build"
CC=clang scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=$san_flags" \
    -DPLANK_SANITIZE=ON
phase "ASan+UBSan tests"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j 2)
phase "done"
