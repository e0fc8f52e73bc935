#!/usr/bin/env bash
# Titles, speed and memory of bookscan's scan engine with OCR (EngineEval: decode → detect → read titles,
# 2 reading threads) against the Python OpenCV + Tesseract peer, measured in the same run on
# ../shared/eval/set. Also the product's own path, end to end: `bookscan scan` of the 40 photos (prepare,
# upload, the embedded service, the result over the WebSocket), scored by the same evaluate.py. The peer's venv lives outside the repository (set-up: ../shared/eval/peer/README.md):
#
#     PEER_VENV=/path/to/peer-venv [PEER_LIMIT=N] Benchmarks/ocr-vs-peer.sh [OUTDIR]
#
# PEER_LIMIT runs the (slow) peer on the first N photos only; the speed ratio then compares both on those.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared"
venv=${PEER_VENV:?set PEER_VENV to the peer venv (see ../shared/eval/peer/README.md)}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
swift build -c release --product EngineEval --scratch-path "$root/.build-ocr" >/dev/null
# The CLI as the README's first command builds it.
(cd "$root" && swift build -c release --product bookscan >/dev/null)

# 1. bookscan's engine with OCR.
"$root/.build-ocr/release/EngineEval" --images "$shared/eval/set" --out "$out/bookscan" >"$out/bookscan.log"
# 1b. The product: one `bookscan scan` of every photo on its embedded service, analytics off. time_ms is
# the client's wall time per photo from the start of preparing it to its result.
scratch=$(mktemp -d)
HOME="$scratch" XDG_STATE_HOME="$scratch" XDG_CONFIG_HOME="$scratch" "$root/.build/release/bookscan" scan "$shared"/eval/set/*.jpg \
  --json --quiet --no-analytics >"$out/cli.jsonl" 2>"$out/cli.log" || true
rm -rf "$scratch"
python3 "$root/scripts/scan-results-to-eval.py" --images "$shared/eval/set" --out "$out/cli" "$out/cli.jsonl" >/dev/null
# 2. The peer, one OCR thread per process (as its README says).
OMP_THREAD_LIMIT=1 "$venv/bin/python" "$shared/eval/peer/baseline_cv_tess.py" --images "$shared/eval/set" --out "$out/peer" \
  --limit "${PEER_LIMIT:-0}" >"$out/peer.log" 2>&1
# 3. Peak memory of one scan of a 12 MP photo (4032×3024), in a process of its own.
one="$out/one-12mp"
mkdir -p "$one"
ln -sf "$shared/eval/set/shelf_000.jpg" "$one/"
"$root/.build-ocr/release/EngineEval" --images "$one" --out "$out/one-12mp-pred" | grep "peak memory" >"$out/memory.txt"

for who in peer bookscan cli; do
  echo "== $who"
  python3 "$shared/eval/evaluate.py" --gt "$shared/eval/set" --pred "$out/$who" | grep -E "titles|by tier|bag|time per image|spine detection \(box"
done
python3 - "$out" <<'PY'
import json, glob, os, statistics, sys
out = sys.argv[1]
names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(out, "peer", "*.json")))
def median(who):
    return statistics.median(json.load(open(os.path.join(out, who, n)))["time_ms"] for n in names)
p, b, c = median("peer"), median("bookscan"), median("cli")
print(f"median time per photo on the {len(names)} photos both ran: peer {p:.0f} ms, bookscan {b:.0f} ms, "
      f"bookscan {p / b:.2f}x faster; end to end through `bookscan scan` {c:.0f} ms, {p / c:.2f}x faster")
PY
cat "$out/memory.txt"
