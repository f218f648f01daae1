#!/bin/sh
# The whole test suite: builds plank twice (optimised, and with
# AddressSanitizer + UndefinedBehaviorSanitizer under clang) and runs ctest
# on both. Skipped tests are reported by ctest as skipped, never as passed.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
(cd build && ctest --output-on-failure -j 2)
# Every codec switched off: pages in those codecs must give a clear error.
scripts/build.sh build-nocodec -DCMAKE_BUILD_TYPE=Debug -DPLANK_WITH_ZSTD=OFF \
    -DPLANK_WITH_SNAPPY=OFF -DPLANK_WITH_LZ4=OFF -DPLANK_WITH_GZIP=OFF -DPLANK_WITH_BROTLI=OFF
(cd build-nocodec && ctest --output-on-failure -j 2 -R "test_codec|test_reader")
# ThreadSanitizer over the concurrent-reader test.
CC=clang scripts/build.sh build-tsan -DCMAKE_BUILD_TYPE=Debug -DPLANK_TSAN=ON
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R test_threads)
CC=clang scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DPLANK_SANITIZE=ON
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j 2)
