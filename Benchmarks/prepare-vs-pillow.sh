#!/usr/bin/env bash
# Runs PrepareBench (Swift, libjpeg) and its Pillow peer on the same 12 MP JPEGs in the same run,
# interleaved in rounds so machine load hits both alike, then prints median/p90 and the ratios.
#
#   Benchmarks/prepare-vs-pillow.sh [ROUNDS] [ITERATIONS_PER_ROUND]
#   IMAGES="a.jpg b.jpg" Benchmarks/prepare-vs-pillow.sh      # other images
#
# Needs: swift build -c release --product PrepareBench --scratch-path .build-bench ; python3 with Pillow.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
ITER=${2:-10}
SET=${EVAL_SET:-../shared/eval/set}  # ../shared beside the repository root
IMAGES=${IMAGES:-"$SET/shelf_000.jpg $SET/shelf_019.jpg $SET/shelf_023.jpg $SET/shelf_027.jpg $SET/shelf_028.jpg $SET/shelf_034.jpg"}
BENCH=${PREPARE_BENCH:-.build-bench/release/PrepareBench}
[ -x "$BENCH" ] || { echo "build first: swift build -c release --product PrepareBench --scratch-path .build-bench" >&2; exit 1; }
python3 -c "import PIL" 2>/dev/null || { echo "Pillow missing: pip install pillow" >&2; exit 1; }
RAW=$(mktemp /tmp/prepare-bench.XXXXXX.tsv)
trap 'rm -f "$RAW"' EXIT
for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round/$ROUNDS" >&2
  # shellcheck disable=SC2086
  "$BENCH" --iterations "$ITER" --warmup 1 --raw "$RAW" $IMAGES >&2
  # shellcheck disable=SC2086
  python3 Benchmarks/prepare_pillow.py --filter bilinear --iterations "$ITER" --warmup 1 --raw "$RAW" $IMAGES >&2
  # shellcheck disable=SC2086
  python3 Benchmarks/prepare_pillow.py --filter lanczos --iterations "$ITER" --warmup 1 --raw "$RAW" $IMAGES >&2
done
python3 - "$RAW" <<'PY'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    parts = line.split("\t")
    if len(parts) == 3:
        rows.setdefault(parts[0], []).append(float(parts[2]))
def pct(v, p):
    s = sorted(v); r = p * (len(s) - 1); lo = int(r); hi = min(len(s) - 1, lo + 1)
    return s[lo] + (s[hi] - s[lo]) * (r - lo)
base = statistics.median(rows["swift"])
print("| implementation | calls | median ms | p90 ms | median ÷ Swift median |")
print("|---|---|---|---|---|")
for name in ["swift", "pillow-bilinear", "pillow-lanczos"]:
    v = rows.get(name, [])
    if v:
        print(f"| {name} | {len(v)} | {statistics.median(v):.1f} | {pct(v, 0.9):.1f} | {statistics.median(v) / base:.2f}× |")
PY
