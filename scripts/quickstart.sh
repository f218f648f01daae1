#!/bin/sh
# Quick start: install the build dependencies, build plank, generate the
# TPC-H tables at scale factor 1 with plank's own generator (rows identical
# to the reference dbgen; ZSTD Parquet) and run the main job on lineitem:
# schema, the first rows, the read benchmark, TPC-H Q1, Q6 and Q12 on
# plank's scanner (their answers compared with the official SF 1 answers
# when ../shared/tpch-reference is there); then the writer: a Parquet to
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
for q in q1 q6 q12; do
    build/plank tpch $q $D --repeat 5 > build/data/$q.out
    cat build/data/$q.out
    A=../shared/tpch-reference/answers-sf1/$q.out
    # the official answers pad their fields and shorten header names: the rows are compared
    if [ -f "$A" ]; then
        tail -n +2 build/data/$q.out > build/data/$q.rows
        tail -n +2 "$A" | tr -d ' ' | cmp - build/data/$q.rows
    fi
done
build/plank convert $D/orders.parquet build/data/orders_copy.parquet --codec snappy --page-version 2
build/plank cat $D/orders.parquet > build/data/orders.jsonl
build/plank cat build/data/orders_copy.parquet | cmp - build/data/orders.jsonl
build/plank bench write --rows 1000000 --repeat 3
