#!/bin/sh
# check_symbols.sh LIBPLANK_SO LIBPLANK_A [NAMESPACE]: the built libraries
# against the committed symbol list (ctest abi_symbols).
#
#  1. abi/plank.symbols and include/plank_namespace.h are what include/plank.h
#     makes (scripts/update-symbols.sh --check);
#  2. the shared library exports exactly the list (nm -D --defined-only);
#  3. the objects give default visibility to exactly the list (readelf on the
#     static library): nothing else escapes -fvisibility=hidden, and every
#     declared function is defined;
#  4. the SONAME is the one README.md's ABI policy gives plank.h's version:
#     libplank.so.MAJOR, or libplank.so.0.MINOR before 1.0.
# With NAMESPACE (a -DPLANK_NAMESPACE build) every symbol carries NAMESPACE_
# and the library is libplank_NAMESPACE.so.
# CC (the preprocessor, default cc), NM and READELF may name the tools.
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 LIBPLANK_SO LIBPLANK_A [NAMESPACE]" >&2
    exit 2
fi
SO=$1
AR=$2
NS=${3:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIST=$ROOT/abi/plank.symbols
NM=${NM:-nm}
READELF=${READELF:-readelf}
CC=${CC:-cc}
export CC LC_ALL=C
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plank-check-symbols.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
status=0
fail() {
    echo "$*" >&2
    status=1
}

# 1. The list and the rename header against the header.
sh "$ROOT/scripts/update-symbols.sh" --check || status=1
sort -u "$LIST" > "$WORK/list"

# strip_ns FILE: the names without NAMESPACE_; names without it fail.
strip_ns() {
    if [ -z "$NS" ]; then
        sort -u "$1"
        return
    fi
    bad=$(grep -v "^${NS}_" "$1" | tr '\n' ' ' || true)
    [ -z "$bad" ] || fail "$2 without the namespace prefix ${NS}_: $bad"
    grep "^${NS}_" "$1" | sed "s/^${NS}_//" | sort -u
}

# 2. What the shared library exports.
"$NM" -D --defined-only "$SO" | awk 'NF >= 3 { print $3 }' > "$WORK/so.raw"
strip_ns "$WORK/so.raw" "exported by $(basename "$SO")" > "$WORK/so"
extra=$(comm -13 "$WORK/list" "$WORK/so" | tr '\n' ' ')
missing=$(comm -23 "$WORK/list" "$WORK/so" | tr '\n' ' ')
[ -z "$extra" ] || fail "exported by $(basename "$SO") but not in abi/plank.symbols: $extra
  (run scripts/update-symbols.sh if intended)"
[ -z "$missing" ] || fail "in abi/plank.symbols but not exported by $(basename "$SO"): $missing
  (declared in plank.h but not defined, or defined without PLANK_API?)"

# 3. What the objects mark for export (defined, global or weak, default visibility).
"$READELF" -sW "$AR" |
    awk '($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" && $7 != "UND" && NF >= 8 { print $8 }' \
    > "$WORK/default.raw"
strip_ns "$WORK/default.raw" "default visibility in $(basename "$AR")" > "$WORK/default"
extra=$(comm -13 "$WORK/list" "$WORK/default" | tr '\n' ' ')
missing=$(comm -23 "$WORK/list" "$WORK/default" | tr '\n' ' ')
[ -z "$extra" ] || fail "default visibility (meant for export) but not in abi/plank.symbols: $extra
  (make it static or hidden, or declare it with PLANK_API in plank.h and run scripts/update-symbols.sh)"
[ -z "$missing" ] || fail "in abi/plank.symbols but not defined with default visibility in $(basename "$AR"): $missing"

# 4. The SONAME.
printf '#include "plank.h"\nplank_version_is PLANK_VERSION_MAJOR PLANK_VERSION_MINOR\n' |
    "$CC" -E -P -I "$ROOT/include" -x c - | awk '$1 == "plank_version_is" { print $2, $3 }' > "$WORK/version"
read -r major minor < "$WORK/version"
lib=libplank${NS:+_$NS}.so
if [ "$major" = 0 ]; then
    want=$lib.0.$minor
else
    want=$lib.$major
fi
soname=$("$READELF" -dW "$SO" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ "$soname" = "$want" ] || fail "SONAME of $(basename "$SO") is '$soname'; the ABI policy (README.md) wants $want for version $major.$minor"

if [ $status = 0 ]; then
    echo "abi_symbols: $(wc -l < "$WORK/list") symbols exported as listed; SONAME $soname"
fi
exit $status
