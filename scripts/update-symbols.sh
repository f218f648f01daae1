#!/bin/sh
# update-symbols.sh [--check]: the committed public symbol list, from plank.h.
#
# abi/plank.symbols lists, one per line and sorted (LC_ALL=C), every function
# include/plank.h declares with PLANK_API. The shared library exports exactly
# those (a linker version script made from the list) and include/plank_namespace.h,
# generated from it, renames them under PLANK_NAMESPACE. After an intended change
# to the API, run this script and commit both files with the header.
#
# The declarations are read from the preprocessed header ($CC -E, default cc),
# so comments, #if blocks and line breaks inside declarations do not matter.
#
# --check: write nothing; exit 1, naming each difference, when either file is
# not what the header makes (tests/abi: ctest abi_symbols).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HEADER=$ROOT/include/plank.h
LIST=$ROOT/abi/plank.symbols
NSHEADER=$ROOT/include/plank_namespace.h
CC=${CC:-cc}
export LC_ALL=C
check=0
if [ "${1:-}" = "--check" ]; then
    check=1
elif [ $# -gt 0 ]; then
    echo "usage: $0 [--check]" >&2
    exit 2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/plank-symbols.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

# Every PLANK_API declaration ends at a ';' and carries visibility("default")
# once preprocessed; the name is the identifier before its parameter list
# (other __attribute__((...)) groups removed first).
"$CC" -E -P -UPLANK_NAMESPACE -x c "$HEADER" > "$WORK/plank.i"
tr '\n' ' ' < "$WORK/plank.i" | tr ';' '\n' |
    grep 'visibility *( *"default" *)' |
    sed -E 's/__attribute__ *\( *\(([^()]|\([^()]*\))*\) *\)//g' > "$WORK/decls"
: > "$WORK/names"
while IFS= read -r decl; do
    name=$(printf '%s\n' "$decl" | sed -E 's/\(.*//; s/\[.*//; s/[[:space:]]+$//; s/.*[^A-Za-z0-9_]//')
    case $name in
    plank_*) printf '%s\n' "$name" >> "$WORK/names" ;;
    *)
        echo "update-symbols.sh: cannot read a plank_ name from this PLANK_API declaration:" >&2
        printf '  %s\n' "$decl" >&2
        exit 1
        ;;
    esac
done < "$WORK/decls"
sort -u "$WORK/names" > "$WORK/plank.symbols"
if [ ! -s "$WORK/plank.symbols" ]; then
    echo "update-symbols.sh: no PLANK_API declarations found in $HEADER ($CC -E)" >&2
    exit 1
fi

# The rename header: one macro per symbol, plank_x -> <PLANK_NAMESPACE>_plank_x.
{
    cat <<'EOF'
/*
 * plank_namespace.h: plank's public functions renamed for embedding.
 * Generated from abi/plank.symbols by scripts/update-symbols.sh: DO NOT EDIT.
 *
 * plank.h includes this header when PLANK_NAMESPACE is defined. Each public
 * function plank_x is then declared and called as <PLANK_NAMESPACE>_plank_x,
 * the name a library built with the CMake option PLANK_NAMESPACE defines
 * (the option also passes the definition on to the targets that link it),
 * so that two copies of plank built with different namespaces link into one
 * program. Types and constants keep their names.
 */
#ifndef PLANK_NAMESPACE_H
#define PLANK_NAMESPACE_H

#define PLANK_NS_JOIN_(ns, name) ns##_##name
#define PLANK_NS_JOIN(ns, name) PLANK_NS_JOIN_(ns, name)
#define PLANK_NS_SYMBOL(name) PLANK_NS_JOIN(PLANK_NAMESPACE, name)

EOF
    sed 's/.*/#define & PLANK_NS_SYMBOL(&)/' "$WORK/plank.symbols"
    cat <<'EOF'

#endif /* PLANK_NAMESPACE_H */
EOF
} > "$WORK/plank_namespace.h"

if [ $check = 1 ]; then
    status=0
    if [ ! -f "$LIST" ]; then
        echo "abi/plank.symbols is missing; run scripts/update-symbols.sh" >&2
        exit 1
    fi
    if ! sort -u -c "$LIST" 2> /dev/null; then
        echo "abi/plank.symbols is not sorted and unique (LC_ALL=C); run scripts/update-symbols.sh" >&2
        status=1
    fi
    added=$(sort -u "$LIST" | comm -13 - "$WORK/plank.symbols" | tr '\n' ' ')
    removed=$(sort -u "$LIST" | comm -23 - "$WORK/plank.symbols" | tr '\n' ' ')
    if [ -n "$added" ]; then
        echo "declared in include/plank.h but not in abi/plank.symbols: $added" >&2
        echo "  (a new function: run scripts/update-symbols.sh if intended)" >&2
        status=1
    fi
    if [ -n "$removed" ]; then
        echo "in abi/plank.symbols but no longer declared in include/plank.h: $removed" >&2
        echo "  (removing or renaming a function breaks the ABI: a MAJOR version bump, see" >&2
        echo "  README.md, ABI policy; run scripts/update-symbols.sh if intended)" >&2
        status=1
    fi
    if [ -z "$added$removed" ] && ! cmp -s "$WORK/plank_namespace.h" "$NSHEADER"; then
        echo "include/plank_namespace.h is out of date (or edited); run scripts/update-symbols.sh" >&2
        status=1
    fi
    exit $status
fi

mkdir -p "$ROOT/abi"
if [ -f "$LIST" ]; then
    sort -u "$LIST" | comm -13 - "$WORK/plank.symbols" | sed 's/^/added:   /'
    sort -u "$LIST" | comm -23 - "$WORK/plank.symbols" | sed 's/^/removed: /'
fi
cp "$WORK/plank.symbols" "$LIST"
cp "$WORK/plank_namespace.h" "$NSHEADER"
echo "abi/plank.symbols: $(wc -l < "$LIST") symbols; include/plank_namespace.h regenerated"
