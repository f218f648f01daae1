#!/bin/sh
# Quick start: install dependencies, build plank, generate a sample file
# (1M lineitem-like rows, ZSTD) and run the main job on it: schema, metadata,
# the first rows, and the read benchmark.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
mkdir -p build/data
[ -f build/data/sample.parquet ] || node bench/gen_sample.mjs build/data/sample.parquet 1000000 zstd
set -x
build/plank schema build/data/sample.parquet
build/plank cat build/data/sample.parquet --limit 5 --format table
build/plank bench read build/data/sample.parquet --repeat 5
