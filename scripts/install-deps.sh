#!/bin/sh
# Installs what plank needs on Debian 12: compilers, CMake, the compression
# libraries, and (for the tests and benchmarks) Node.js plus the pinned npm
# peers (DuckDB, Polars, hyparquet) from package-lock.json.
# --no-node: the library's build dependencies only (the quick start's main
# job needs neither Node.js nor the peers).
set -eu
NODE=1
[ "${1:-}" = --no-node ] && NODE=0
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
PKGS="build-essential cmake clang pkg-config libzstd-dev libsnappy-dev liblz4-dev libdeflate-dev libbrotli-dev libxxhash-dev libclang-rt-14-dev libcurl4-openssl-dev"
# The remote-file tests serve files from loopback nginx (HTTP and HTTPS with
# a certificate openssl makes) next to the Node fault server and s3rver.
[ $NODE = 0 ] || PKGS="$PKGS nginx-light openssl"
[ $NODE = 0 ] || command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"
missing=""
for p in $PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
if [ $NODE = 1 ] && { [ ! -d node_modules/@duckdb/node-api ] || [ package-lock.json -nt node_modules ]; }; then
    npm ci --no-audit --no-fund --loglevel=error
fi
