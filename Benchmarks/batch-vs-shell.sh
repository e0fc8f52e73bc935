#!/usr/bin/env bash
# `bookscan batch --jobs 4` vs the shell peer a user would write (xargs -P4 + curl -T + a curl
# polling loop every 2 s, Benchmarks/shell-peer.sh), against ONE standalone `bookscan serve
# --workers 2` on loopback, plus a "pure" run that measures the service's own scan time for the
# same 100 photos with no client in the way. Two peers: `peer` is plain `curl -T` as a user would
# write it; `peer-noexpect` adds `-H 'Expect:'` to the upload, because plain `curl -T` sends
# `Expect: 100-continue`, which the service never answers, so each upload waits curl's 1 s timeout.
#
#   Benchmarks/batch-vs-shell.sh BOOKSCAN_BIN [ROUNDS=2] [COPIES_PER_SAMPLE=20]
#
# Builds nothing. Build first (from the repository root):
#   swift build -c release --product bookscan --scratch-path .build-bench
#   Benchmarks/batch-vs-shell.sh .build-bench/release/bookscan 2 20
#
# Photos: COPIES_PER_SAMPLE byte-identical copies of each SampleImages/*.jpg (5 samples → 100 photos,
# 1050×1400 … 1800×1350, 220–321 KB). Every run gets a fresh server (started and stopped by this
# script), so no contender inherits another's queue or job table. Order per round alternates:
#   odd rounds:  pure, bookscan, peer, peer-noexpect      even rounds: peer-noexpect, peer, bookscan, pure
# (pure sits next to bookscan so the two see similar machine load; the peers alternate their order)
# Each run is timed from just before the client process starts to just after it exits
# (time-to-last-result). After it, each job's snapshot (GET /v1/scans/ID) is fetched (not timed)
# for createdAt/startedAt/finishedAt. "pure": the same 100 original files PUT back to back with
# `curl -H 'Expect:' -T` (no tracking at all), then wait for the queue to drain; its service span (first startedAt → last
# finishedAt) is the service's scan time with no client overhead.
# Environment: WORK (default: a new /tmp dir), WORKERS (2), JOBS (4), POLL (2); ORDER_ODD / ORDER_EVEN
# override the contenders per round (e.g. ORDER_ODD="pure bookscan" ORDER_EVEN="bookscan pure").
# Also recorded: client CPU (GNU time, user+sys) and server CPU (/proc/PID/stat) per run.
# Everything stays on 127.0.0.1. Loops are bounded.
set -euo pipefail
BIN=$(realpath "${1:?usage: $0 BOOKSCAN_BIN [ROUNDS] [COPIES_PER_SAMPLE]}")
ROUNDS=${2:-2}
COPIES=${3:-20}
WORKERS=${WORKERS:-2}
JOBS=${JOBS:-4}
POLL=${POLL:-2}
cd "$(dirname "$0")/.."
REPO=$(pwd)
WORK=${WORK:-$(mktemp -d /tmp/batch-vs-shell.XXXXXX)}
mkdir -p "$WORK"
echo "work dir: $WORK" >&2

# Clean, private state for bookscan: no user config, analytics and adaptive memory in WORK.
export XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config"
unset BOOKSCAN_SERVER BOOKSCAN_TOKEN BOOKSCAN_ANALYTICS_LOG || true
mkdir -p "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"

PHOTOS="$WORK/photos"
rm -rf "$PHOTOS"; mkdir -p "$PHOTOS"
for f in SampleImages/*.jpg; do
    stem=$(basename "$f" .jpg)
    for ((i = 1; i <= COPIES; i++)); do cp "$f" "$PHOTOS/$(printf '%s_%02d.jpg' "$stem" "$i")"; done
done
N=$(find "$PHOTOS" -maxdepth 1 -name '*.jpg' | wc -l)
echo "photos: $N in $PHOTOS" >&2

now() { date +%s.%N; }
SERVER_PID=
PORT=
start_server() { # $1 = log file
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    "$BIN" serve --host 127.0.0.1 --port "$PORT" --workers "$WORKERS" >"$1" 2>&1 &
    SERVER_PID=$!
    for ((i = 0; i < 100; i++)); do
        curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "server did not come up (see $1)" >&2; return 1
}
stop_server() {
    [[ -n "$SERVER_PID" ]] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}
trap stop_server EXIT

fetch_snapshots() { # $1 = file with one jobId per line, $2 = dir
    mkdir -p "$2"
    while read -r id; do
        [[ -n "$id" ]] && curl -s "http://127.0.0.1:$PORT/v1/scans/$id" >"$2/$id.json"
    done <"$1"
}

RUNS="$WORK/runs.tsv"
printf 'round\tslot\tcontender\tstart\tend\trc\tload_before\tload_after\tdir\n' >"$RUNS"

run_one() { # $1 round, $2 slot, $3 contender
    local round=$1 slot=$2 who=$3 dir="$WORK/r$1-$3" url rc=0 t0 t1 l0 l1
    rm -rf "$dir"; mkdir -p "$dir"
    start_server "$dir/server.log"
    url="http://127.0.0.1:$PORT"
    sleep 1 # let the server settle
    l0=$(cut -d' ' -f1-3 /proc/loadavg)
    case "$who" in
        bookscan)
            t0=$(now)
            /usr/bin/time -f '%U %S' -o "$dir/client.cpu" "$BIN" batch "$PHOTOS" --jobs "$JOBS" --server "$url" --out "$dir/out" --json --quiet \
                --analytics-log "$dir/analytics.jsonl" >"$dir/summary.json" 2>"$dir/client.err" || rc=$?
            t1=$(now)
            jq -r '.report.jobId // empty' "$dir"/out/*.json >"$dir/jobids" ;;
        peer | peer-noexpect)
            local extra=""
            [[ "$who" == peer-noexpect ]] && extra="-H Expect:"
            t0=$(now)
            PEER_UPLOAD_ARGS="$extra" /usr/bin/time -f '%U %S' -o "$dir/client.cpu" "$REPO/Benchmarks/shell-peer.sh" "$url" "$PHOTOS" "$dir/out" "$JOBS" "$POLL" 2>"$dir/client.err" || rc=$?
            t1=$(now)
            jq -r '.jobId // empty' "$dir"/out/*.json >"$dir/jobids" ;;
        pure)
            # Upload all photos back to back (no tracking) from ONE curl process (one connection,
            # no per-file process start), then wait until the queue is drained, checking /healthz
            # once a second with grep (cheap: this run's figure is the service span, not its wall).
            : >"$dir/jobids"; : >"$dir/curl.cfg"
            for f in "$PHOTOS"/*.jpg; do
                id=$(cat /proc/sys/kernel/random/uuid)
                echo "$id" >>"$dir/jobids"
                printf 'upload-file = "%s"\nurl = "%s/v1/scans/%s"\n' "$f" "$url" "$id" >>"$dir/curl.cfg"
            done
            t0=$(now)
            curl -sS -f -H 'Expect:' -H 'Content-Type: image/jpeg' -K "$dir/curl.cfg" >/dev/null || rc=1
            t_up=$(now)
            for ((i = 0; i < 600; i++)); do # ≤ 10 min at 1 s
                h=$(curl -s "$url/healthz")
                grep -q '"jobsQueued":0,"jobsRunning":0' <<<"$h" && break
                sleep 1
            done
            t1=$(now)
            echo "$t_up" >"$dir/uploads_done" ;;
    esac
    l1=$(cut -d' ' -f1-3 /proc/loadavg)
    awk '{print $14, $15}' "/proc/$SERVER_PID/stat" >"$dir/server.ticks" # utime stime, clock ticks
    fetch_snapshots "$dir/jobids" "$dir/snaps"
    stop_server
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$slot" "$who" "$t0" "$t1" "$rc" "$l0" "$l1" "$dir" >>"$RUNS"
    printf 'round %s %-8s %6.2f s rc=%s load %s → %s\n' "$round" "$who" "$(echo "$t1 - $t0" | bc)" "$rc" "$l0" "$l1" >&2
}

for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2 == 1)); then order=(${ORDER_ODD:-pure bookscan peer peer-noexpect}); else order=(${ORDER_EVEN:-peer-noexpect peer bookscan pure}); fi
    s=0
    for who in "${order[@]}"; do s=$((s + 1)); run_one "$r" "$s" "$who"; done
done

python3 - "$RUNS" "$N" "$WORKERS" <<'PY' | tee "$WORK/summary.md"
import csv, glob, json, os, sys, statistics
from datetime import datetime
runs_path, n, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def ts(s): return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
rows = list(csv.DictReader(open(runs_path), delimiter="\t"))
out = []
for r in rows:
    t0, t1 = float(r["start"]), float(r["end"])
    snaps = [json.load(open(p)) for p in glob.glob(os.path.join(r["dir"], "snaps", "*.json"))]
    ok = sum(1 for s in snaps if s.get("state") == "succeeded")
    st = [ts(s["startedAt"]) for s in snaps if s.get("startedAt")]
    fi = [ts(s["finishedAt"]) for s in snaps if s.get("finishedAt")]
    cr = [ts(s["createdAt"]) for s in snaps if s.get("createdAt")]
    busy = sum(ts(s["finishedAt"]) - ts(s["startedAt"]) for s in snaps if s.get("startedAt") and s.get("finishedAt"))
    per = sorted(ts(s["finishedAt"]) - ts(s["startedAt"]) for s in snaps if s.get("startedAt") and s.get("finishedAt"))
    d = dict(round=int(r["round"]), slot=int(r["slot"]), who=r["contender"], wall=t1 - t0, ok=ok, jobs=len(snaps), rc=r["rc"],
             span=(max(fi) - min(st)) if st and fi else float("nan"), busy=busy,
             scan_med=statistics.median(per) if per else float("nan"),
             first_create=(min(cr) - t0) if cr else float("nan"), tail=(t1 - max(fi)) if fi else float("nan"),
             load0=r["load_before"], load1=r["load_after"])
    hz = os.sysconf("SC_CLK_TCK")
    try: d["server_cpu"] = sum(map(int, open(os.path.join(r["dir"], "server.ticks")).read().split())) / hz
    except Exception: d["server_cpu"] = float("nan")
    try: d["client_cpu"] = sum(map(float, open(os.path.join(r["dir"], "client.cpu")).read().split()[-2:]))
    except Exception: d["client_cpu"] = float("nan")
    sj = os.path.join(r["dir"], "summary.json")
    if r["contender"] == "bookscan" and os.path.exists(sj) and os.path.getsize(sj):
        j = json.load(open(sj)); d["own_wall"] = j.get("wallSeconds"); d["strategies"] = j.get("strategies")
    out.append(d)
print(f"| round.slot | contender | wall s (time-to-last-result) | images/min | jobs ok | service span s (first startedAt → last finishedAt) | busy s ÷ {workers} workers | scan median s | start → first createdAt s | last finishedAt → exit s | client CPU s | server CPU s | load 1/5/15 before → after |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for d in out:
    extra = f" (own wallSeconds {d['own_wall']:.2f}; {d['strategies']})" if "own_wall" in d else ""
    print(f"| {d['round']}.{d['slot']} | {d['who']}{extra} | {d['wall']:.2f} | {n / d['wall'] * 60:.1f} | {d['ok']}/{d['jobs']} rc={d['rc']} | {d['span']:.2f} | {d['busy'] / workers:.2f} | {d['scan_med']:.3f} | {d['first_create']:.2f} | {d['tail']:.2f} | {d['client_cpu']:.2f} | {d['server_cpu']:.2f} | {d['load0']} → {d['load1']} |")
print()
print("| round | peer wall s | peer-noexpect wall s | bookscan wall s | bookscan ÷ peer throughput | bookscan ÷ peer-noexpect throughput | pure-run span s | bookscan own service span s | bookscan wall ÷ pure-run span | bookscan wall ÷ own service span |")
print("|---|---|---|---|---|---|---|---|---|---|")
for rnd in sorted({d["round"] for d in out}):
    g = {d["who"]: d for d in out if d["round"] == rnd}
    if {"bookscan", "pure"} <= g.keys() and not {"peer", "peer-noexpect"} <= g.keys():
        b, u = g["bookscan"], g["pure"]
        print(f"| {rnd} | – | – | {b['wall']:.2f} | – | – | {u['span']:.2f} | {b['span']:.2f} | {b['wall'] / u['span']:.3f} | {b['wall'] / b['span']:.3f} |")
    if {"peer", "peer-noexpect", "bookscan", "pure"} <= g.keys():
        p, q, b, u = g["peer"], g["peer-noexpect"], g["bookscan"], g["pure"]
        print(f"| {rnd} | {p['wall']:.2f} | {q['wall']:.2f} | {b['wall']:.2f} | **{p['wall'] / b['wall']:.2f}×** | **{q['wall'] / b['wall']:.2f}×** | {u['span']:.2f} | {b['span']:.2f} | {b['wall'] / u['span']:.3f} | {b['wall'] / b['span']:.3f} |")
PY
