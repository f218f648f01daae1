#!/bin/sh
# Loopback servers for plank's remote-read tests.
#
#   servers.sh start ROOT STATEDIR
#       Starts, all on 127.0.0.1 only:
#         nginx        HTTP and HTTPS (self-signed cert for 127.0.0.1/localhost)
#         fault server tests/remote/fault_server.mjs (Node, no dependencies)
#         S3 server    tests/remote/s3_server.mjs (s3rver + SigV4 check),
#                      bucket plank-test holding every file under ROOT
#       waits until each answers, and writes STATEDIR/env (KEY=VALUE lines and
#       an export line; use `. STATEDIR/env`):
#         PLANK_REMOTE_HTTP  PLANK_REMOTE_HTTPS  PLANK_REMOTE_CA
#         PLANK_REMOTE_FAULT PLANK_REMOTE_S3 (+ _S3_BUCKET/_REGION/_ACCESS_KEY/
#         _SECRET_KEY)
#       If PLANK_REMOTE_OWNER_PID is set, a watchdog stops the servers once
#       that process is gone (and, with PLANK_REMOTE_OWNER_RMDIR=1, removes
#       STATEDIR) -- so a SIGKILLed test leaves nothing running.
#   servers.sh stop STATEDIR
#       Stops everything recorded in STATEDIR/pids.  Safe to repeat.
#
# Exit status of start: 0 ready; 77 a tool is missing (nginx, openssl, node,
# curl, or node_modules/s3rver at the repo root) -- 1 instead when CI=true or
# PLANK_REQUIRE_CORPUS=1; 1 anything else went wrong; 2 usage.

set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
self="$here/servers.sh"

say() { printf 'servers.sh: %s\n' "$*" >&2; }

usage() {
    say "usage: servers.sh start ROOT STATEDIR | servers.sh stop STATEDIR"
    exit 2
}

# ---------------------------------------------------------------- stop

# alive PID: running (a zombie waiting for init to reap it counts as gone)
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    if [ -r "/proc/$1/stat" ]; then
        st=$(sed 's/.*) \([A-Za-z]\).*/\1/' "/proc/$1/stat" 2>/dev/null)
        [ "$st" != Z ] || return 1
    fi
    return 0
}

# pid_matches PID WORD: true if PID is alive and (where /proc tells) its
# command line mentions WORD -- guards against a recycled pid.
pid_matches() {
    alive "$1" || return 1
    [ -r "/proc/$1/cmdline" ] || return 0
    tr '\000' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q -- "$2"
}

children_of() {
    ps -o pid= --ppid "$1" 2>/dev/null || true
}

do_stop() {
    statedir=$1
    pidfile="$statedir/pids"
    [ -f "$pidfile" ] || return 0
    targets=""
    while read -r name pid word; do
        [ -n "${pid:-}" ] || continue
        # never the caller itself (the watchdog runs stop as its child)
        [ "$pid" = "$$" ] && continue
        [ "$pid" = "$PPID" ] && continue
        if pid_matches "$pid" "$word"; then
            kids=""
            [ "$name" = nginx ] && kids=$(children_of "$pid")
            kill -TERM "$pid" 2>/dev/null
            targets="$targets $pid $kids"
        fi
    done <"$pidfile"
    rm -f "$pidfile"
    # wait up to 5 s, then SIGKILL what is left
    i=0
    while [ $i -lt 50 ]; do
        left=""
        for p in $targets; do
            alive "$p" && left="$left $p"
        done
        [ -z "$left" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    for p in $left; do
        kill -KILL "$p" 2>/dev/null
    done
    return 0
}

# ---------------------------------------------------------------- start

missing() {
    say "missing: $*"
    if [ "${CI:-}" = true ] || [ "${PLANK_REQUIRE_CORPUS:-}" = 1 ]; then
        exit 1
    fi
    exit 77
}

find_nginx() {
    if command -v nginx >/dev/null 2>&1; then
        command -v nginx
        return 0
    fi
    for n in /usr/sbin/nginx /usr/local/sbin/nginx /usr/local/nginx/sbin/nginx; do
        if [ -x "$n" ]; then
            echo "$n"
            return 0
        fi
    done
    return 1
}

# two free loopback ports, asked from the kernel via node
free_ports() {
    node -e '
const net = require("net");
const a = net.createServer().listen(0, "127.0.0.1", () => {
  const b = net.createServer().listen(0, "127.0.0.1", () => {
    console.log(a.address().port + " " + b.address().port);
    a.close(); b.close();
  });
});'
}

# answers URL [curl args...]: true once anything HTTP answers
answers() {
    code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$@" 2>/dev/null)
    [ -n "$code" ] && [ "$code" != 000 ]
}

# wait_port FILE: wait (10 s) for "PORT n" in FILE, print n
wait_port() {
    i=0
    while [ $i -lt 100 ]; do
        p=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$1" 2>/dev/null | head -n 1)
        if [ -n "$p" ]; then
            echo "$p"
            return 0
        fi
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# env_line KEY VALUE: shell-safe KEY=VALUE
env_line() {
    case $2 in
        *[!A-Za-z0-9_./:@%+,=-]*) printf "%s='%s'\n" "$1" "$(printf '%s' "$2" | sed "s/'/'\\\\''/g")" ;;
        *) printf '%s=%s\n' "$1" "$2" ;;
    esac
}

fail_start() {
    say "$*"
    for f in nginx.out nginx-error.log fault.err s3.err; do
        if [ -s "$statedir/$f" ]; then
            say "--- $statedir/$f:"
            tail -n 20 "$statedir/$f" >&2
        fi
    done
    do_stop "$statedir"
    exit 1
}

write_nginx_conf() {
    # $1 http port, $2 https port
    {
        [ "$(id -u)" = 0 ] && echo "user root;"
        cat <<EOF
worker_processes 1;
daemon off;
pid "$statedir/nginx.pid";
error_log "$statedir/nginx-error.log" warn;
events { worker_connections 512; }
http {
    access_log "$statedir/nginx-access.log";
    client_body_temp_path "$statedir/nginx-tmp/body";
    proxy_temp_path "$statedir/nginx-tmp/proxy";
    fastcgi_temp_path "$statedir/nginx-tmp/fastcgi";
    uwsgi_temp_path "$statedir/nginx-tmp/uwsgi";
    scgi_temp_path "$statedir/nginx-tmp/scgi";
    default_type application/octet-stream;
    sendfile on;
    keepalive_timeout 60s;
    keepalive_requests 100000;
    server {
        listen 127.0.0.1:$1;
        server_name localhost;
        root "$root";
        location / { autoindex off; }
    }
    server {
        listen 127.0.0.1:$2 ssl;
        server_name localhost;
        ssl_certificate "$statedir/cert.pem";
        ssl_certificate_key "$statedir/key.pem";
        root "$root";
        location / { autoindex off; }
    }
}
EOF
    } >"$statedir/nginx.conf"
}

do_start() {
    root_in=$1
    statedir_in=$2

    # tools first
    miss=""
    nginx_bin=$(find_nginx) || miss="$miss nginx"
    command -v openssl >/dev/null 2>&1 || miss="$miss openssl"
    command -v node >/dev/null 2>&1 || miss="$miss node"
    command -v curl >/dev/null 2>&1 || miss="$miss curl"
    [ -f "$repo/node_modules/s3rver/package.json" ] ||
        miss="$miss s3rver($repo/node_modules/s3rver; run npm ci at the repo root)"
    [ -z "$miss" ] || missing "${miss# }"

    [ -d "$root_in" ] || { say "ROOT $root_in is not a directory"; exit 1; }
    root=$(cd "$root_in" && pwd)
    mkdir -p "$statedir_in" || exit 1
    statedir=$(cd "$statedir_in" && pwd)
    if [ -f "$statedir/pids" ]; then
        say "servers already recorded in $statedir/pids; stopping them first"
        do_stop "$statedir"
    fi
    rm -f "$statedir/env"
    : >"$statedir/pids"
    mkdir -p "$statedir/nginx-tmp" "$statedir/s3data"

    # certificate
    if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
        -nodes -days 30 -subj "/CN=localhost" \
        -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
        -keyout "$statedir/key.pem" -out "$statedir/cert.pem" \
        >"$statedir/openssl.out" 2>&1; then
        cat "$statedir/openssl.out" >&2
        fail_start "openssl could not make the certificate"
    fi

    # nginx (retry with new ports if a port was taken meanwhile)
    try=0
    nginx_ok=""
    while [ $try -lt 5 ] && [ -z "$nginx_ok" ]; do
        try=$((try + 1))
        ports=$(free_ports) || fail_start "node could not pick free ports"
        p_http=${ports% *}
        p_https=${ports#* }
        write_nginx_conf "$p_http" "$p_https"
        "$nginx_bin" -p "$statedir" -c "$statedir/nginx.conf" \
            </dev/null >>"$statedir/nginx.out" 2>&1 &
        npid=$!
        i=0
        while [ $i -lt 100 ]; do
            if ! kill -0 "$npid" 2>/dev/null; then
                break
            fi
            if answers "http://127.0.0.1:$p_http/" &&
                answers "https://127.0.0.1:$p_https/" --cacert "$statedir/cert.pem"; then
                nginx_ok=1
                break
            fi
            sleep 0.1
            i=$((i + 1))
        done
        if [ -n "$nginx_ok" ]; then
            echo "nginx $npid nginx" >>"$statedir/pids"
        else
            kill -TERM "$npid" 2>/dev/null
            wait "$npid" 2>/dev/null
        fi
    done
    [ -n "$nginx_ok" ] || fail_start "nginx did not start"

    # fault server
    node "$here/fault_server.mjs" "$root" </dev/null \
        >"$statedir/fault.out" 2>"$statedir/fault.err" &
    fpid=$!
    echo "fault $fpid fault_server.mjs" >>"$statedir/pids"

    # S3 server
    node "$here/s3_server.mjs" "$root" "$statedir/s3data" </dev/null \
        >"$statedir/s3.out" 2>"$statedir/s3.err" &
    spid=$!
    echo "s3 $spid s3_server.mjs" >>"$statedir/pids"

    p_fault=$(wait_port "$statedir/fault.out" "$fpid") ||
        fail_start "fault server did not report its port"
    p_s3=$(wait_port "$statedir/s3.out" "$spid") ||
        fail_start "S3 server did not report its port"

    # everything answers? (10 s)
    i=0
    while :; do
        if answers "http://127.0.0.1:$p_fault/_stats" &&
            answers "http://127.0.0.1:$p_s3/plank-test/"; then
            break
        fi
        i=$((i + 1))
        [ $i -lt 100 ] || fail_start "servers did not answer within 10 s"
        sleep 0.1
    done

    if [ -n "${PLANK_REMOTE_OWNER_PID:-}" ]; then
        owner=$PLANK_REMOTE_OWNER_PID
        rmdir_after=${PLANK_REMOTE_OWNER_RMDIR:-}
        (
            trap '' INT
            while alive "$owner" && [ -f "$statedir/pids" ]; do
                sleep 1
            done
            if [ -f "$statedir/pids" ]; then
                # the owner is gone (killed?) without stopping us
                sh "$self" stop "$statedir"
                [ "$rmdir_after" = 1 ] && rm -rf "$statedir"
            fi
        ) </dev/null >/dev/null 2>&1 &
        echo "watchdog $! servers.sh" >>"$statedir/pids"
    fi

    {
        env_line PLANK_REMOTE_HTTP "http://127.0.0.1:$p_http"
        env_line PLANK_REMOTE_HTTPS "https://127.0.0.1:$p_https"
        env_line PLANK_REMOTE_CA "$statedir/cert.pem"
        env_line PLANK_REMOTE_FAULT "http://127.0.0.1:$p_fault"
        env_line PLANK_REMOTE_S3 "http://127.0.0.1:$p_s3"
        env_line PLANK_REMOTE_S3_BUCKET plank-test
        env_line PLANK_REMOTE_S3_REGION us-east-1
        env_line PLANK_REMOTE_S3_ACCESS_KEY S3RVER
        env_line PLANK_REMOTE_S3_SECRET_KEY S3RVER
        echo "export PLANK_REMOTE_HTTP PLANK_REMOTE_HTTPS PLANK_REMOTE_CA" \
            "PLANK_REMOTE_FAULT PLANK_REMOTE_S3 PLANK_REMOTE_S3_BUCKET" \
            "PLANK_REMOTE_S3_REGION PLANK_REMOTE_S3_ACCESS_KEY" \
            "PLANK_REMOTE_S3_SECRET_KEY"
    } >"$statedir/env.tmp" && mv "$statedir/env.tmp" "$statedir/env"
    return 0
}

# ---------------------------------------------------------------- main

[ $# -ge 1 ] || usage
case $1 in
    start)
        [ $# -eq 3 ] || usage
        do_start "$2" "$3"
        ;;
    stop)
        [ $# -eq 2 ] || usage
        [ -d "$2" ] || exit 0
        do_stop "$(cd "$2" && pwd)"
        ;;
    *) usage ;;
esac
