#!/usr/bin/env bash
# Memory of `bookscan serve` while clients push over-limit bodies at it, plus a few normal scans.
#
#   scripts/abuse-body-memory.sh [BIN]        BIN defaults to .build/release/bookscan
#   N=20 SIZE=1073741824 NORMAL=3 PORT=18631 scripts/abuse-body-memory.sh
#
# Starts its own server on loopback; a reference phase runs only NORMAL ordinary scans of
# SampleImages/shelf_one_row.jpg, then two phases run N concurrent uploads of SIZE bytes
# (a JPEG magic prefix, then zeros from /dev/zero): "declared" (curl -T of a sparse file: a
# Content-Length over the limit) and "chunked" (curl -T - from a pipe: the limit is only crossed
# mid-stream), and "hostile" (a raw client that declares SIZE and keeps sending whatever the
# server answers), each alongside the same NORMAL scans. It samples
# VmRSS of the server every 50 ms from /proc and prints RSS before / peak / after per phase, VmHWM,
# each over-limit client's HTTP status and the bytes curl managed to send, and the normal scans' states.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/bookscan}
N=${N:-20}
SIZE=${SIZE:-1073741824}
NORMAL=${NORMAL:-3}
PORT=${PORT:-18631}
IMAGE=SampleImages/shelf_one_row.jpg
URL=http://127.0.0.1:$PORT
WORK=$(mktemp -d)
SERVER=

cleanup() {
    [[ -n $SERVER ]] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

"$BIN" serve --host 127.0.0.1 --port "$PORT" >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -fsS "$URL/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "$URL/healthz" >/dev/null || { cat "$WORK/server.log"; exit 1; }

rss() { awk '/^VmRSS/ {print $2}' "/proc/$SERVER/status"; }
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$SERVER/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }           # KiB → MiB
mib_bytes() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; } # bytes → MiB
uuid() { cat /proc/sys/kernel/random/uuid; }

# The over-limit body as a sparse file: a JPEG start, then zeros (no disk space used).
printf '\xff\xd8\xff\xe0' >"$WORK/big.jpg"
truncate -s "$SIZE" "$WORK/big.jpg"

# One normal scan: upload, then poll until terminal; prints the final state.
normal_scan() {
    local id
    id=$(uuid)
    curl -sS -o /dev/null -T "$IMAGE" -H 'Content-Type: image/jpeg' -H 'Expect:' "$URL/v1/scans/$id"
    for _ in $(seq 600); do
        state=$(curl -sS "$URL/v1/scans/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
        case $state in succeeded | failed | canceled) echo "$state"; return ;; esac
        sleep 0.1
    done
    echo "timeout"
}

# A client that ignores the answer: declares SIZE bytes and keeps sending until the server closes
# (curl stops on its own once it reads a 413; this one shows whether the server drains the body).
hostile() {
    python3 - "$PORT" "$SIZE" "$(uuid)" <<'PY'
import socket, sys
port, size, job = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(60)
s.sendall(f"PUT /v1/scans/{job} HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: {size}\r\n\r\n".encode())
piece, sent = b"\xff\xd8\xff" + bytes(65533), 0
try:
    while sent < size:
        sent += s.send(piece[: size - sent])
except OSError:
    pass
s.settimeout(5)
try:
    status = s.recv(64).split(b" ")[1].decode()
except (OSError, IndexError):
    status = "none"
print(status, sent)
PY
}

run_phase() { # $1 = scans-only | declared | chunked | hostile
    local phase=$1 sampler start end n=$N
    [[ $phase == scans-only ]] && n=0
    : >"$WORK/samples"
    (while kill -0 "$SERVER" 2>/dev/null; do rss >>"$WORK/samples"; sleep 0.05; done) &
    sampler=$!
    local before
    before=$(rss)
    start=$(date +%s.%N)
    for i in $(seq "$n"); do
        if [[ $phase == hostile ]]; then
            hostile >"$WORK/over.$i" 2>/dev/null || true &
        elif [[ $phase == declared ]]; then
            curl -sS -o /dev/null -w '%{http_code} %{size_upload}\n' -T "$WORK/big.jpg" -H 'Content-Type: image/jpeg' \
                "$URL/v1/scans/$(uuid)" >"$WORK/over.$i" 2>/dev/null || true &
        else
            (head -c "$SIZE" "$WORK/big.jpg" | curl -sS -o /dev/null -w '%{http_code} %{size_upload}\n' -T - \
                -H 'Content-Type: image/jpeg' "$URL/v1/scans/$(uuid)" >"$WORK/over.$i" 2>/dev/null || true) &
        fi
    done
    for i in $(seq "$NORMAL"); do normal_scan >"$WORK/normal.$i" & done
    wait $(jobs -p | grep -v "^$sampler$" | grep -v "^$SERVER$") 2>/dev/null || true
    end=$(date +%s.%N)
    sleep 1
    local after
    after=$(rss)
    kill "$sampler"; wait "$sampler" 2>/dev/null || true
    local peak
    peak=$(sort -n "$WORK/samples" | tail -1)
    local codes sent_max sent_sum
    codes=$(cat /dev/null "$WORK"/over.* | awk '{print $1}' | sort | uniq -c | awk '{printf "%s×%s ", $1, $2}')
    sent_max=$(cat /dev/null "$WORK"/over.* | awk 'BEGIN {m = 0} {if ($2 > m) m = $2} END {print m}')
    sent_sum=$(cat /dev/null "$WORK"/over.* | awk '{s += $2} END {print s + 0}')
    local normal
    normal=$(cat /dev/null "$WORK"/normal.* | sort | uniq -c | awk '{printf "%s×%s ", $1, $2}')
    printf '| %s | %d × %s B | %s| %s MiB | %s MiB | %s MiB | %s MiB | %s MiB | %s| %.1f s |\n' \
        "$phase" "$n" "$SIZE" "$codes" "$(mib_bytes "$sent_max")" "$(mib_bytes "$sent_sum")" \
        "$(mib "$before")" "$(mib "$peak")" "$(mib "$after")" "$normal" "$(echo "$end - $start" | bc)"
    rm -f "$WORK"/over.* "$WORK"/normal.*
}

echo "server: $BIN (pid $SERVER), max body $(curl -sS "$URL/v1/limits" | python3 -c 'import json,sys; print(json.load(sys.stdin)["maxBytes"])') B"
echo "| phase | over-limit uploads | their statuses | most one client sent | all clients sent | RSS before | RSS peak (50 ms samples) | RSS after | normal scans | wall |"
echo "|---|---|---|---|---|---|---|---|---|---|"
idle=$(rss)
run_phase scans-only
run_phase declared
run_phase chunked
run_phase hostile
echo "idle RSS $(mib "$idle") MiB; VmHWM (peak RSS over the whole run) $(mib "$(hwm)") MiB"
