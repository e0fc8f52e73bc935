#!/usr/bin/env bash
# Runs ServerBench against release `bookscan serve` processes it starts itself (loopback only).
#
#   Benchmarks/server-bench.sh [ServerBench options…]      e.g. --phases 100x1,1000x1,1000x10 --step-delay 0.8 --hold 20
#
# ServerBench starts each server with --max-connections-per-client 0: all its sockets come from loopback.
# Needs: swift build -c release --scratch-path .build-bench --product bookscan  (and --product ServerBench); python3 + Pillow.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-/tmp/bookscan-bench-shelf.jpg}
# A small synthetic 640×480 shelf photo: cheap for the engine, so the scans' length is the step delay.
python3 - "$IMAGE" <<'PY'
import sys
from PIL import Image, ImageDraw
im = Image.new("RGB", (640, 480), (40, 28, 20))
d = ImageDraw.Draw(im)
d.rectangle([0, 440, 639, 479], fill=(150, 110, 70))
for i in range(10):
    h = 220 + (i * 37) % 150
    shade = (i * 53) % 200 + 40
    d.rectangle([20 + i * 60, 440 - h, 20 + i * 60 + 55, 439], fill=(shade, 255 - shade, i * 30 % 255))
im.save(sys.argv[1], quality=90)
PY
ulimit -n 20000 2>/dev/null || true
exec .build-bench/release/ServerBench --serve .build-bench/release/bookscan --image "$IMAGE" "$@"
