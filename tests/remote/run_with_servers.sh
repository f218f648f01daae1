#!/bin/sh
# shellcheck disable=SC2317,SC1091  # trap-invoked functions; env made at run time
# run_with_servers.sh ROOT COMMAND [ARGS...]
#
# Starts the loopback test servers (servers.sh) over ROOT in a fresh temporary
# state directory, exports PLANK_REMOTE_* (see servers.sh) plus
# PLANK_REMOTE_ROOT=ROOT, runs COMMAND, stops the servers and exits with
# COMMAND's status.  If servers.sh start fails, exits with its status (77 when
# a tool is missing and neither CI=true nor PLANK_REQUIRE_CORPUS=1, else 1).
# On SIGINT/SIGTERM/SIGHUP: COMMAND gets SIGTERM, the servers are stopped.
# If this script is SIGKILLed, the servers' watchdog stops them within ~1 s.

set -u

here=$(cd "$(dirname "$0")" && pwd)

if [ $# -lt 2 ]; then
    echo "usage: run_with_servers.sh ROOT COMMAND [ARGS...]" >&2
    exit 2
fi
root=$1
shift

statedir=$(mktemp -d "${TMPDIR:-/tmp}/plank-remote.XXXXXX") || exit 1

child=""
cleaned=""
cleanup() {
    [ -n "$cleaned" ] && return
    cleaned=1
    sh "$here/servers.sh" stop "$statedir" >/dev/null 2>&1
    rm -rf "$statedir"
}
on_signal() {
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
    cleanup
    exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

PLANK_REMOTE_OWNER_PID=$$ PLANK_REMOTE_OWNER_RMDIR=1 \
    sh "$here/servers.sh" start "$root" "$statedir"
rc=$?
if [ $rc -ne 0 ]; then
    exit $rc
fi

. "$statedir/env"
PLANK_REMOTE_ROOT=$(cd "$root" && pwd)
export PLANK_REMOTE_ROOT

# Run COMMAND in the background and wait for it, so that a signal to this
# script is handled at once (a foreground child would delay the trap).  Keep
# COMMAND's stdin (an asynchronous command would otherwise get /dev/null).
exec 3<&0
"$@" <&3 3<&- &
child=$!
exec 3<&-
wait "$child"
rc=$?
child=""
exit $rc
