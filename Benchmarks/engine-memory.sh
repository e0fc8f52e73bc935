#!/usr/bin/env bash
# Peak memory of one scan (decode → detect → read titles, 2 reading threads) for every photo of
# ../shared/eval/set, each in a process of its own: VmHWM of the whole process, and what the scan added
# to what the process held before it (the Swift runtime, the libraries, the first Tesseract handle).
#
#     Benchmarks/engine-memory.sh [OUTFILE] [EngineEval options, e.g. --threads 1 or --no-ocr]
#
# Prints one line per photo (name, VmHWM kB, added kB) to OUTFILE and the median / max in MiB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared"
out=${1:-$(mktemp)}
shift || true
if ! log=$(swift build -c release --product EngineEval --scratch-path "$root/.build-ocr" 2>&1); then
  echo "$log" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$out"
for photo in "$shared"/eval/set/*.jpg; do
  name=$(basename "$photo" .jpg)
  mkdir -p "$work/$name"
  ln -sf "$photo" "$work/$name/"
  line=$("$root/.build-ocr/release/EngineEval" --images "$work/$name" --out "$work/pred" "$@" | grep "peak memory")
  # "peak memory VmHWM <kB> kB; before the first scan VmRSS <kB> kB, the scans added <kB> kB"
  echo "$name $(echo "$line" | sed -E 's/.*VmHWM ([0-9]+) kB.*added ([0-9]+) kB.*/\1 \2/')" >>"$out"
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
for label, column in (("VmHWM", 1), ("added by the scan", 2)):
    values = [int(r[column]) / 1024 for r in rows]
    worst = max(rows, key=lambda r: int(r[column]))[0]
    print(f"{label}: median {statistics.median(values):.1f} MiB, max {max(values):.1f} MiB ({worst}), {len(values)} photos")
PY
