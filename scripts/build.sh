#!/bin/sh
# scripts/build.sh [DIR] [cmake options...] [-- TARGET...]: configure and
# build plank; with targets after `--`, only those and what they need (a CI
# step that runs two tests need not compile the whole tree).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
# Split the arguments at `--`: the options stay in "$@", the targets go to
# $targets (target names have no spaces).
targets=""
after=""
i=0
n=$#
while [ "$i" -lt "$n" ]; do
    a=$1
    shift
    i=$((i + 1))
    if [ -z "$after" ] && [ "$a" = -- ]; then after=1
    elif [ -n "$after" ]; then targets="$targets $a"
    else set -- "$@" "$a"
    fi
done
cmake -S . -B "$dir" -DPLANK_WERROR=ON "$@" >/dev/null
# shellcheck disable=SC2086 # one word per target
cmake --build "$dir" -j "$(nproc)" ${targets:+--target $targets}
