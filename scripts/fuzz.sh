#!/usr/bin/env bash
# Builds one libFuzzer target with -sanitize=fuzzer,address and fuzzes it for SECONDS.
#
#   scripts/fuzz.sh jpeg|wire SECONDS [extra libFuzzer flags...]
#   scripts/fuzz.sh jpeg|wire replay FILE_OR_DIR...   # run saved inputs through the fuzz build
#
# Scratch path .build-fuzz (kept apart from .build). The working corpus grows in
# .build-fuzz/corpus/TARGET, seeded from Fuzz/corpus/KIND (and SampleImages for jpeg); crashes,
# leaks, timeouts and OOMs land in .build-fuzz/artifacts/TARGET/. Keep every one as a regression
# case under Tests/FuzzRegressionTests/Regressions/KIND after fixing the bug.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/fuzz.sh jpeg|wire SECONDS|replay ...}
mode=${2:?usage: scripts/fuzz.sh jpeg|wire SECONDS|replay ...}
shift 2
case "$kind" in
  jpeg) target=FuzzJPEGPreparation; max_len=16384; seeds=(Fuzz/corpus/jpeg .build-fuzz/seeds/sample-images) ;;
  wire) target=FuzzWireDecoding; max_len=4096; seeds=(Fuzz/corpus/wire) ;;
  *) echo "fuzz.sh: unknown target '$kind' (jpeg or wire)" >&2; exit 64 ;;
esac
config=${FUZZ_CONFIG:-release}
scratch=.build-fuzz

# -D FUZZING compiles the @_cdecl("LLVMFuzzerTestOneInput") entry point instead of the replay main;
# the replay @main is then left out, and libFuzzer brings main().
# The C shim gets the same instrumentation as the Swift code. -Xswiftc -sanitize=fuzzer,address
# repeats the two sanitizers as one flag: SwiftPM 6.3 passes them as two -sanitize= flags in
# varying order and the last one wins, which leaves the Swift code without coverage half the time.
swift build -c "$config" --scratch-path "$scratch" --product "$target" \
  --sanitize=fuzzer --sanitize=address \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
  -Xcc -fsanitize=fuzzer-no-link,address >&2
binary="$scratch/$config/$target"

if [ "$mode" = replay ]; then
  files=()
  for path in "$@"; do
    if [ -d "$path" ]; then while IFS= read -r f; do files+=("$f"); done < <(find "$path" -type f | sort); else files+=("$path"); fi
  done
  exec "$binary" "${files[@]}"
fi

corpus="$scratch/corpus/$target"
artifacts="$scratch/artifacts/$target"
mkdir -p "$corpus" "$artifacts" "$scratch/seeds/sample-images"
cp SampleImages/*.jpg "$scratch/seeds/sample-images/"  # libFuzzer truncates them to -max_len: headers and EXIF
echo "fuzz.sh: $target for $mode s, corpus $corpus, artifacts $artifacts" >&2
exec "$binary" "$corpus" "${seeds[@]}" \
  -max_total_time="$mode" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
  -dict="Fuzz/$kind.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 "$@"
