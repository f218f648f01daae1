#!/bin/sh
# scripts/fuzz.sh [SECONDS] [TARGET...]: builds the libFuzzer targets
# (clang, -DPLANK_FUZZ=ON, in $FUZZ_BUILD, default build-fuzz) and runs each
# target for SECONDS (default 60) one after the other, with one worker
# (libFuzzer's -fork=1: a crash, OOM or timeout is recorded and fuzzing goes
# on). Each target starts from the committed corpus fuzz/corpus/<target>/ and
# keeps what it finds in $FUZZ_BUILD/corpus/<target>/ (not committed);
# crashers land in $FUZZ_BUILD/artifacts/<target>/. At the end it prints,
# per target: executions, coverage (libFuzzer's cov: edges and ft: features
# at the end of the run) and the crashes, OOMs and timeouts found.
# Extra libFuzzer flags may be given in $FUZZ_FLAGS.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-footer page_header decoders codec file write scan variant expr textin}
build=${FUZZ_BUILD:-build-fuzz}
case $build in /*) ;; *) build="$PWD/$build" ;; esac
root=$PWD
CC=clang scripts/build.sh "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLANK_FUZZ=ON
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in $targets; do
    mkdir -p "$build/corpus/$t" "$build/artifacts/$t" "$build/logs"
    echo "fuzzing $t for ${secs}s" >&2
    # fork mode writes its workers' logs to the current directory.
    (cd "$build/logs" && "$build/fuzz/fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_ooms=1 \
        -ignore_timeouts=1 -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 \
        -artifact_prefix="$build/artifacts/$t/" ${FUZZ_FLAGS:-} \
        "$build/corpus/$t" "$root/fuzz/corpus/$t" >"$t.log" 2>&1) || true
done
printf '%-12s %12s %8s %8s %8s %6s %9s\n' target executions cov ft crashes ooms timeouts
for t in $targets; do
    log="$build/logs/$t.log"
    # The last status line of fork mode: "#N: cov: A ft: B ... oom/timeout/crash: o/t/c".
    line=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
    execs=$(echo "$line" | sed -E 's/^#([0-9]+):.*/\1/')
    cov=$(echo "$line" | sed -E 's/.* cov: ([0-9]+).*/\1/')
    ft=$(echo "$line" | sed -E 's/.* ft: ([0-9]+).*/\1/')
    otc=$(echo "$line" | sed -E 's/.*oom\/timeout\/crash: ([0-9]+\/[0-9]+\/[0-9]+).*/\1/')
    printf '%-12s %12s %8s %8s %8s %6s %9s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
        "$(echo "$otc" | cut -d/ -f3)" "$(echo "$otc" | cut -d/ -f1)" "$(echo "$otc" | cut -d/ -f2)"
done
