// skip.mjs: how a peer test ends when an input it needs is missing (node
// modules from `npm ci`, the parquet-testing corpus, reference data).
// Normally "SKIP: ..." and exit 77 (ctest: skipped); with
// PLANK_REQUIRE_CORPUS=1 (CI) "FAIL: ..." and exit 1, so that a run that
// compared nothing cannot pass.
export const requireInputs = !!process.env.PLANK_REQUIRE_CORPUS && process.env.PLANK_REQUIRE_CORPUS !== '0';

export function skipTest(label, msg) {
    if (requireInputs) {
        console.log(`FAIL: ${label}: ${msg} (a missing input fails under PLANK_REQUIRE_CORPUS=1)`);
        process.exit(1);
    }
    console.log(`SKIP: ${label}: ${msg}`);
    process.exit(77);
}
