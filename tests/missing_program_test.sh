#!/bin/sh
# missing_program_test.sh TEST PROGRAM: stands in for TEST when CMake did not
# find PROGRAM (node) at configure time. Skipped (exit 77); a failure under
# PLANK_REQUIRE_CORPUS=1 or CI=true, where every test must really run.
set -u
if { [ -n "${PLANK_REQUIRE_CORPUS:-}" ] && [ "$PLANK_REQUIRE_CORPUS" != 0 ]; } || [ "${CI:-}" = true ]; then
    echo "FAIL: $1: $2 was not found when configuring (required under PLANK_REQUIRE_CORPUS=1 / CI=true)"
    exit 1
fi
echo "SKIP: $1: $2 was not found when configuring"
exit 77
