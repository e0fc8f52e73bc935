#!/usr/bin/env bash
# Issue 15 benchmarks: jobs in PostgreSQL vs in memory, in the same run, on a throw-away cluster this
# script starts (Unix socket only, fsync off like the tests; as root through runuser -u postgres).
#
#   Benchmarks/store-bench.sh throughput [JOBS]          jobs/s, zero-cost engine: memory, 1, 2, 3 instances on the database
#   Benchmarks/store-bench.sh latency [ServerBench options…]   emit → frame latency and RSS: in memory, then 2 instances on the database
#       e.g. latency --phases 1000x1,1000x10 --step-delay 6 --hold 15   (zero-cost engine, a step delay keeps 1,000 jobs in flight)
#
# Needs: swift build -c release --scratch-path .build-bench --product bookscan  (and --product ServerBench); PostgreSQL (scripts/bootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-throughput}
shift || true
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "store-bench: PostgreSQL is not installed (scripts/bootstrap installs it)" >&2; exit 2; }
dir=$(mktemp -d /tmp/bookscan-bench-pg.XXXXXX)
as=()
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$dir"; as=(runuser -u postgres --); fi
port=5499
"${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -w -l "$dir/server.log" -o "-c listen_addresses='' -k $dir -p $port -c fsync=off -c max_connections=300" start >/dev/null
trap '"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -w -m immediate stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
"${as[@]}" "$bin/psql" -h "$dir" -p $port -U postgres -qc "CREATE DATABASE bench" postgres
url="postgres://postgres@localhost:$port/bench?host=$dir"
ulimit -n 30000 2>/dev/null || true
image=SampleImages/shelf_one_row.jpg
bench=${BIN:-.build-bench/release}  # BIN=.build/debug measures a debug build (say so with the results)
case "$mode" in
  throughput) "$bench/ServerBench" --serve "$bench/bookscan" --image "$image" --throughput "${1:-1000}" --database "$url" ;;
  latency)
    # Every job in flight at once: one worker per job (in memory), half the jobs' workers on each of the two instances.
    "$bench/ServerBench" --serve "$bench/bookscan" --image "$image" --engine instant "$@"
    "$bench/ServerBench" --serve "$bench/bookscan" --image "$image" --engine instant --database "$url" --instances 2 --port 18580 \
        --workers "${PG_WORKERS:-500}" "$@" ;;
  *) echo "usage: $0 throughput [JOBS] | latency [ServerBench options…]" >&2; exit 64 ;;
esac
