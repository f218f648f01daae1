# th_skip.sh: sourced by the shell tests (the shell side of tharness.h's
# TEST_SKIP). skip_test MESSAGE: an input this test needs is missing: exit 77
# (skipped), or 1 under PLANK_REQUIRE_CORPUS=1 (CI), where a missing input is
# a failure.
skip_test() {
    if [ -n "${PLANK_REQUIRE_CORPUS:-}" ] && [ "$PLANK_REQUIRE_CORPUS" != 0 ]; then
        echo "FAIL: $* (a missing input fails under PLANK_REQUIRE_CORPUS=1)"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}
