#!/bin/sh
# Quick start: install the build dependencies, build plank, generate the
# TPC-H tables at scale factor 1 with plank's own generator (rows identical
# to the reference dbgen; ZSTD Parquet) and run the main job on lineitem:
# schema, the first rows, the read benchmark; then the writer: a Parquet to
# Parquet conversion (read back and compared) and the write benchmark.
# Needs no Node.js: the peers are for the tests and benchmarks only.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --no-node
scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
D=build/data/tpch-sf1
[ -f $D/lineitem.parquet ] || build/plank tpch gen --sf 1 --out $D --codec zstd
set -x
build/plank schema $D/lineitem.parquet
build/plank cat $D/lineitem.parquet --limit 5 --format table
build/plank bench read $D/lineitem.parquet --repeat 5
build/plank convert $D/orders.parquet build/data/orders_copy.parquet --codec snappy --page-version 2
build/plank cat $D/orders.parquet > build/data/orders.jsonl
build/plank cat build/data/orders_copy.parquet | cmp - build/data/orders.jsonl
build/plank bench write --rows 1000000 --repeat 3
