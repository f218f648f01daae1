#!/bin/sh
# scripts/build.sh [DIR] [cmake options...]: configure and build plank.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
cmake -S . -B "$dir" -DPLANK_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
