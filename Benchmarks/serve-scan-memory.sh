#!/usr/bin/env bash
# What one running scan holds at its peak inside `bookscan serve`, photo by photo over ../shared/eval/set (or the
# folder PHOTOS names, e.g. PHOTOS=../shared/eval/real for the real photos, files *.jpg and *.jpeg):
# one service process (release build, the README's), each photo sent by a separate `bookscan scan --server`
# process (so the client's memory is not counted), one scan at a time. Before each scan the service's
# peak-RSS counter is reset (`echo 5 > /proc/PID/clear_refs`); after it, held = VmHWM − VmRSS just before.
# The first scan also pays for the second Tesseract handle (the pool makes it on first use).
#
#     [BOOKSCAN_BIN=path/to/bookscan] [PHOTOS=DIR] Benchmarks/serve-scan-memory.sh [OUTFILE]
#
# BOOKSCAN_BIN: a release binary already built (e.g. scripts/package-deb's .build-release/release/bookscan);
# without it the README's release build is made first.
# Prints one line per photo (name, held kB, service VmHWM kB, pixels) to OUTFILE and a summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared"
out=${1:-$(mktemp)}
photos=$(cd "${PHOTOS:-$shared/eval/set}" && pwd)
if [ -n "${BOOKSCAN_BIN:-}" ]; then
  bin=$BOOKSCAN_BIN
else
  (cd "$root" && swift build -c release --product bookscan >/dev/null 2>&1)
  bin="$root/.build/release/bookscan"
fi
work=$(mktemp -d)
export HOME="$work" XDG_STATE_HOME="$work" XDG_CONFIG_HOME="$work"
"$bin" serve --port 0 >"$work/serve.log" 2>&1 &
service=$!
trap 'kill $service 2>/dev/null || true; wait $service 2>/dev/null || true; rm -rf "$work"' EXIT
url=""
for _ in $(seq 100); do
  url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$work/serve.log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/serve.log" >&2; exit 1; }
kb() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$service/status"; }
echo "idle service: VmRSS $(kb VmRSS) kB" >&2
: >"$out"
for photo in "$photos"/*.jpg "$photos"/*.jpeg; do
  [ -f "$photo" ] || continue
  echo 5 >"/proc/$service/clear_refs"
  before=$(kb VmRSS)
  "$bin" scan "$photo" --server "$url" --quiet --no-analytics >/dev/null 2>>"$work/scan.log"
  peak=$(kb VmHWM)
  pixels=$(python3 "$root/scripts/scan-results-to-eval.py" --pixels "$photo")
  name=$(basename "$photo"); echo "${name%.*} $((peak - before)) $peak $pixels" >>"$out"
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
held = [int(r[1]) / 1024 for r in rows]
big = [int(r[1]) / 1024 for r in rows if int(r[3]) >= 12_000_000] or [0.0]
worst = max(rows, key=lambda r: int(r[1]))
print(f"held by one scan: median {statistics.median(held):.1f} MiB, max {max(held):.1f} MiB ({worst[0]}), "
      f"first scan {held[0]:.1f} MiB; 12 MP photos ({len(big)}): median {statistics.median(big):.1f}, max {max(big):.1f} MiB; "
      f"service VmHWM max {max(int(r[2]) for r in rows) / 1024:.1f} MiB")
PY
