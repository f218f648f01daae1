#!/bin/sh
# Quick start: install dependencies, build plank, generate a sample file
# (1M lineitem-like rows, ZSTD) and run the main job on it: schema, metadata,
# the first rows and the read benchmark; then the writer: a Parquet to
# Parquet conversion (read back and compared) and the write benchmark.
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
build/plank convert build/data/sample.parquet build/data/sample_copy.parquet --codec snappy --page-version 2
build/plank cat build/data/sample.parquet > build/data/sample.jsonl
build/plank cat build/data/sample_copy.parquet | cmp - build/data/sample.jsonl
build/plank bench write --rows 1000000 --repeat 3
