#!/usr/bin/env bash
# JPEG decode bombs against a release `bookscan serve` (loopback only): how fast a bomb is refused, and how
# much a normal scan slows down while four clients upload bombs in a loop beside it.
#
#     Benchmarks/bomb-bench.sh [ROUNDS]        (default 5 rounds)
#
# The bomb is the issue's file: a progressive 7071×7071 colour header with 1000 scans that each hold one
# end-of-band run (valid, about 360 KB; the same construction as Tools/BookscanTestSupport/ScanBombJPEG.swift).
#  1. refusal: 30 bomb PUTs one after another (curl's time_total): median and max, every answer must be 422.
#  2. slowdown: ROUNDS rounds, each a normal scan (`bookscan scan` of SampleImages/shelf_two_rows.jpg, titles
#     read) alone, then the same scan while four loops PUT bombs without pause (each loop one curl process
#     per 20 PUTs on a kept-alive connection, so the clients' own forks weigh little on the shared cores);
#     prints the medians and the ratio (beside / alone) from the same run. Run it on an otherwise idle machine.
#     CONTROL=1: the loops send a same-size file refused from its header (60000×60000) instead, to tell what
#     the bombs cost from what any flood of 386 KB uploads costs; PAUSE=S: each loop sleeps S s per 20 PUTs.
#  3. at the limit: one 7071×7071 gray file with exactly 32 scans (not refused from its markers: decoded at
#     1/8 with its 100 MB coefficient buffer counted in the upload budget, then scanned) and the colour one
#     with 32 scans (its 300 MB coefficient buffer is over the 256 MB upload budget: 422 from the header).
# Needs: nice -n 10 swift build -c release --scratch-path .build-release --product bookscan; curl; python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
flood=bomb.jpg pause=${PAUSE:-0}  # PAUSE: seconds each loop waits after 20 PUTs
[ "${CONTROL:-0}" = 1 ] && flood=control.jpg  # CONTROL=1: the loops send the same-size control file instead
bin="$root/.build-release/release/bookscan"
[ -x "$bin" ] || { echo "build first: swift build -c release --scratch-path .build-release --product bookscan" >&2; exit 1; }
photo="$root/SampleImages/shelf_two_rows.jpg"
work=$(mktemp -d)
export HOME="$work" XDG_STATE_HOME="$work" XDG_CONFIG_HOME="$work"

python3 - "$work" <<'PY'
import sys

def segment(marker, payload):
    return bytes([0xFF, marker, (len(payload) + 2) >> 8, (len(payload) + 2) & 0xFF]) + payload

class Bits:
    def __init__(self): self.out, self.acc, self.n = bytearray(), 0, 0
    def put(self, value, count):
        for shift in range(count - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> shift) & 1); self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF: self.out.append(0)
                self.acc, self.n = 0, 0
    def zeros(self, count):
        while count and self.n: self.put(0, 1); count -= 1
        self.out += bytes(count // 8); self.put(0, count % 8)
    def done(self):
        if self.n: self.put(0xFF, 8 - self.n)
        return bytes(self.out)

def bomb(width, height, components, scans):
    out = b"\xFF\xD8" + segment(0xDB, bytes([0]) + bytes([1] * 64))
    frame = bytes([8, height >> 8, height & 0xFF, width >> 8, width & 0xFF, components])
    for c in range(1, components + 1): frame += bytes([c, 0x11, 0])
    out += segment(0xC2, frame)
    out += segment(0xC4, bytes([0x00, 1] + [0] * 15 + [0]))
    out += segment(0xC4, bytes([0x10, 0, 0, 0, 15] + [0] * 12 + [r << 4 for r in range(15)]))
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    written = 0
    for c in range(1, components + 1):
        bits = Bits(); bits.zeros(blocks)
        out += segment(0xDA, bytes([1, c, 0, 0, 0, 0])) + bits.done(); written += 1
    for k in range(1, 64):
        for c in range(1, components + 1):
            for al in range(13, -1, -1):
                if written == scans: return out + b"\xFF\xD9"
                ah = 0 if al == 13 else al + 1
                bits, left = Bits(), blocks
                while left:
                    run = min(left, 32767); r = run.bit_length() - 1
                    bits.put(r, 4); bits.put(run - (1 << r), r); left -= run
                out += segment(0xDA, bytes([1, c, 0, k, k, (ah << 4) | al])) + bits.done(); written += 1
    return out + b"\xFF\xD9"

work = sys.argv[1]
open(f"{work}/bomb.jpg", "wb").write(bomb(7071, 7071, 3, 1000))
open(f"{work}/gray32.jpg", "wb").write(bomb(7071, 7071, 1, 32))
open(f"{work}/color32.jpg", "wb").write(bomb(7071, 7071, 3, 32))
# The control: a file as large as the bomb that is refused from its header alone (60000×60000 over the pixel
# limit, padded with comments), so the service's cost per upload is the same HTTP, digest and header work.
size = len(bomb(7071, 7071, 3, 1000))
control = b"\xFF\xD8"
while len(control) + 65537 + 200 < size: control += segment(0xFE, bytes(65533))
control += segment(0xFE, bytes(size - len(control) - 200))
control += segment(0xDB, bytes([0]) + bytes([1] * 64))
control += segment(0xC0, bytes([8, 60000 >> 8, 60000 & 0xFF, 60000 >> 8, 60000 & 0xFF, 1, 1, 0x11, 0]))
open(f"{work}/control.jpg", "wb").write(control + b"\xFF\xD9")
PY

"$bin" serve --port 0 >"$work/serve.log" 2>&1 &
service=$!
bombers=()
cleanup() {
  for pid in "${bombers[@]}"; do kill "$pid" 2>/dev/null || true; done
  kill "$service" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
url=""
for _ in $(seq 100); do
  url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$work/serve.log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/serve.log" >&2; exit 1; }

put() {  # put FILE [COUNT] -> one "STATUS SECONDS" line per PUT; one curl process, one kept-alive connection
  local targets=() i
  for ((i = 0; i < ${2:-1}; i++)); do targets+=(-o /dev/null "$url/v1/scans/$(</proc/sys/kernel/random/uuid)"); done
  curl -s -w '%{http_code} %{time_total}\n' -X PUT -H 'Content-Type: image/jpeg' --data-binary "@$1" "${targets[@]}"
}
summary() {  # summary LABEL < "STATUS SECONDS" lines
  python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
codes = "/".join(sorted({r[0] for r in rows})); ms = [float(r[1]) * 1000 for r in rows]
print(f"{sys.argv[1]}: {len(ms)} PUTs, status {codes}, median {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms")
' "$1"
}

echo "bomb: $(stat -c %s "$work/bomb.jpg") bytes, 7071x7071 colour, 1000 scans"
put "$work/bomb.jpg" 30 | summary "bomb refusal"
echo "service after the bombs: $(awk '/^VmHWM|^VmRSS/ { printf "%s %s kB  ", $1, $2 }' "/proc/$service/status")"

scan_seconds() {
  local start=$EPOCHREALTIME
  "$bin" scan "$photo" --server "$url" --quiet --no-analytics >/dev/null
  python3 -c "print(f'{$EPOCHREALTIME - $start:.3f}')"
}
alone=() beside=()
for round in $(seq "$rounds"); do
  alone+=("$(scan_seconds)")
  touch "$work/bombing"
  bombers=()
  for _ in 1 2 3 4; do
    (while [ -e "$work/bombing" ]; do put "$work/$flood" 20 >>"$work/beside.log"; sleep "$pause"; done) &
    bombers+=($!)
  done
  beside+=("$(scan_seconds)")
  rm -f "$work/bombing"
  for pid in "${bombers[@]}"; do wait "$pid" 2>/dev/null || true; done
  bombers=()
  echo "round $round: alone ${alone[-1]} s, beside four bomb loops ${beside[-1]} s"
done
summary "$flood refusals during the scans" <"$work/beside.log"
python3 - "${alone[*]}" "${beside[*]}" <<'PY'
import statistics, sys
alone = [float(x) for x in sys.argv[1].split()]; beside = [float(x) for x in sys.argv[2].split()]
a, b = statistics.median(alone), statistics.median(beside)
print(f"normal scan: alone median {a:.2f} s, beside four bomb loops median {b:.2f} s, ratio {b / a:.3f}")
PY
# At the limit, last (the gray one is accepted and its scan runs on in the service).
put "$work/gray32.jpg" | summary "gray 7071x7071, 32 scans ($(stat -c %s "$work/gray32.jpg") bytes)"
put "$work/color32.jpg" | summary "colour 7071x7071, 32 scans ($(stat -c %s "$work/color32.jpg") bytes)"
echo "service after the files at the limit: $(awk '/^VmHWM|^VmRSS/ { printf "%s %s kB  ", $1, $2 }' "/proc/$service/status")"
