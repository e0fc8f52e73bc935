#!/usr/bin/env bash
# Where a real photo's time goes, stage by stage, with the references measured in the same run on the same photos
# (issue 57's table in BENCHMARKS.md, "Real photos: time per stage"):
#   1. the engine (EngineEval, release, 2 reading threads) over ../shared/eval/real one photo at a time: decode,
#      detection, and the reading's stages as thread time (`ReadingStageClock`: read_spines, second_reading,
#      photo_lines, read_stack, decide) and each photo's wall time;
#   2. the product: `bookscan serve` (release) and one `bookscan scan --server` per photo, one at a time: the
#      user's wait, upload to result (and BASELINE_BIN's, another build such as the previous main, the same way);
#   3. PyPI rapidocr 3.10.0 (PP-OCRv6 small on ONNX Runtime, default settings, whole photo once) on the same photos;
#   4. the Python OpenCV + Tesseract peer on the same photos.
# Titles of 2 and 4 are scored by ../shared/eval/score_real.py; rapidocr lists every line, so only its time counts.
#
#     RAPIDOCR_VENV=DIR PEER_VENV=DIR [BOOKSCAN_BIN=bookscan] [BASELINE_BIN=bookscan] Benchmarks/reading-stages.sh [OUTDIR]
#
# RAPIDOCR_VENV: a venv outside the repository with `rapidocr==3.10.0 onnxruntime` (../shared/eval/refs/README.md);
# PEER_VENV: the peer's venv (../shared/eval/peer/README.md). Either may be left out; its column is then empty.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared"
photos="$shared/eval/real"
out=${1:-$(mktemp -d)}
mkdir -p "$out"
(cd "$root" && swift build -c release --product EngineEval >/dev/null && swift build -c release --product bookscan >/dev/null)
bin=${BOOKSCAN_BIN:-$root/.build/release/bookscan}

# 1. The engine, stage by stage.
"$root/.build/release/EngineEval" --images "$photos" --out "$out/engine" >"$out/engine.log"

# 2. The product against a running service, one photo at a time; the client's wall time per photo.
serve_and_scan() { # BINARY NAME
  local binary=$1 name=$2 work url
  work=$(mktemp -d)
  HOME="$work" XDG_STATE_HOME="$work" XDG_CONFIG_HOME="$work" "$binary" serve --port 0 >"$work/serve.log" 2>&1 &
  local service=$!
  url=""
  for _ in $(seq 200); do
    url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$work/serve.log" | head -1 || true)
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$work/serve.log" >&2; kill $service; return 1; }
  : >"$out/$name.jsonl"
  for photo in "$photos"/photo_*.jpg; do
    HOME="$work" XDG_STATE_HOME="$work" XDG_CONFIG_HOME="$work" "$binary" scan "$photo" --server "$url" --json --quiet --no-analytics \
      >>"$out/$name.jsonl" 2>>"$out/$name.log" || true
  done
  kill $service 2>/dev/null || true
  wait $service 2>/dev/null || true
  rm -rf "$work"
  python3 "$root/scripts/scan-results-to-eval.py" --images "$photos" --out "$out/$name" "$out/$name.jsonl" >/dev/null
}
serve_and_scan "$bin" scan
if [ -n "${BASELINE_BIN:-}" ]; then serve_and_scan "$BASELINE_BIN" baseline; fi

# 3. rapidocr, whole photo once (its script prints seconds per photo).
if [ -n "${RAPIDOCR_VENV:-}" ]; then
  "$RAPIDOCR_VENV/bin/python" "$shared/eval/refs/rapidocr_lines.py" "$photos" "$out/rapidocr" >"$out/rapidocr.log" 2>&1
fi
# 4. The peer, one OCR thread per process (as its README says); time_ms per photo in its predictions.
if [ -n "${PEER_VENV:-}" ]; then
  OMP_THREAD_LIMIT=1 "$PEER_VENV/bin/python" "$shared/eval/peer/baseline_cv_tess.py" --images "$photos" --out "$out/peer" >"$out/peer.log" 2>&1
fi

python3 "$root/Benchmarks/reading_stages_table.py" "$out" "$photos" | tee "$out/table.md"
