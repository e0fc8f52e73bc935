#!/usr/bin/env python3
"""Pillow peer of PrepareBench: the same preparation on the same in-memory JPEG bytes.

  prepare_pillow.py [--iterations N] [--warmup N] [--long-side 1920] [--filter lanczos|bilinear] [--raw FILE] IMAGE...

Per call: Image.open(BytesIO) -> draft('RGB', (L, L)) -> ImageOps.exif_transpose -> thumbnail((L, L), FILTER)
-> save(JPEG, quality=85). File reading is not timed. With --raw, appends `pillow-FILTER<TAB>image<TAB>ms` lines.
"""
import argparse
import io
import os
import statistics
import time

from PIL import Image, ImageOps

FILTERS = {"lanczos": Image.Resampling.LANCZOS, "bilinear": Image.Resampling.BILINEAR}


def prepare(data, long_side, resample):
    im = Image.open(io.BytesIO(data))
    im.draft("RGB", (long_side, long_side))
    im = ImageOps.exif_transpose(im)
    im.thumbnail((long_side, long_side), resample)
    out = io.BytesIO()
    im.save(out, "JPEG", quality=85)
    return im.size, out.tell()


def pct(values, p):
    s = sorted(values)
    rank = p * (len(s) - 1)
    lo, hi = int(rank), min(len(s) - 1, int(rank) + 1)
    return s[lo] + (s[hi] - s[lo]) * (rank - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--long-side", type=int, default=1920)
    ap.add_argument("--filter", choices=sorted(FILTERS), default="lanczos")
    ap.add_argument("--raw")
    ap.add_argument("images", nargs="+")
    a = ap.parse_args()
    resample = FILTERS[a.filter]
    print(f"Pillow {Image.__version__ if hasattr(Image, '__version__') else ''}: draft+exif_transpose+thumbnail({a.filter})+save q85, "
          f"{a.iterations} timed + {a.warmup} warm-up calls per image")
    print("| image | output | bytes out | median ms | p90 ms |")
    print("|---|---|---|---|---|")
    lines, everything = [], []
    for path in a.images:
        with open(path, "rb") as f:
            data = f.read()
        times = []
        size = nbytes = None
        for i in range(a.warmup + a.iterations):
            t0 = time.perf_counter()
            size, nbytes = prepare(data, a.long_side, resample)
            ms = (time.perf_counter() - t0) * 1000
            if i >= a.warmup:
                times.append(ms)
        name = os.path.basename(path)
        lines += [f"pillow-{a.filter}\t{name}\t{t:.3f}" for t in times]
        everything += times
        print(f"| {name} | {size[0]}×{size[1]} | {nbytes} | {statistics.median(times):.1f} | {pct(times, 0.9):.1f} |")
    print(f"| **all** | | | **{statistics.median(everything):.1f}** | **{pct(everything, 0.9):.1f}** |")
    if a.raw:
        with open(a.raw, "a") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
