#!/bin/sh
# check_archives.sh NM SYMBOL_LIST ARCHIVE NAMESPACE [ARCHIVE NAMESPACE ...]:
# each embeddable archive (ctest embed_archives_local) defines, as global
# symbols, only NAMESPACE_plank_* (every function of SYMBOL_LIST among them),
# and keeps every internal pk_ symbol local, so that two copies of plank
# cannot clash with each other or with the program.
set -eu
if [ $# -lt 4 ]; then
    echo "usage: $0 NM SYMBOL_LIST ARCHIVE NAMESPACE [ARCHIVE NAMESPACE ...]" >&2
    exit 2
fi
NM=$1
LIST=$2
shift 2
export LC_ALL=C
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plank-embed-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
status=0
while [ $# -ge 2 ]; do
    ar=$1
    ns=$2
    shift 2
    name=$(basename "$ar")
    # Defined symbols: "VALUE TYPE NAME"; upper-case types (and u, unique) are global.
    "$NM" "$ar" | awk 'NF == 3' > "$WORK/all"
    awk '$2 ~ /^[A-TV-Z]$/ || $2 == "u" { print $3 }' "$WORK/all" | sort -u > "$WORK/global"
    awk '$2 ~ /^[a-z]$/ && $2 != "u" && $3 ~ /^pk_/ { print $3 }' "$WORK/all" | sort -u > "$WORK/local_pk"
    leaked=$(grep '^pk_' "$WORK/global" | tr '\n' ' ' || true)
    foreign=$(grep -v "^${ns}_plank_" "$WORK/global" | grep -v '^pk_' | tr '\n' ' ' || true)
    sed "s/^/${ns}_/" "$LIST" | sort -u | comm -23 - "$WORK/global" > "$WORK/missing"
    if [ -n "$leaked" ]; then
        echo "$name: internal symbols left global: $leaked" >&2
        status=1
    fi
    if [ -n "$foreign" ]; then
        echo "$name: global symbols without the ${ns}_plank_ prefix: $foreign" >&2
        status=1
    fi
    if [ -s "$WORK/missing" ]; then
        echo "$name: listed functions not defined: $(tr '\n' ' ' < "$WORK/missing")" >&2
        status=1
    fi
    if [ ! -s "$WORK/local_pk" ]; then
        echo "$name: no local pk_ symbol: is this plank's archive?" >&2
        status=1
    fi
    if [ $status = 0 ]; then
        echo "$name: $(wc -l < "$WORK/global") global symbols, all ${ns}_plank_*;" \
            "$(wc -l < "$WORK/local_pk") pk_ symbols, all local"
    fi
done
exit $status
