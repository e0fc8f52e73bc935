#!/usr/bin/env python3
"""PP-OCRv6 tiny against small, side by side, on whole shelf photos (issue 57: "keep the better trade").

PyPI faster-paddle 1.0.4 (MIT; both model sizes bundled in its wheel, Rust + ONNX Runtime 1.28) reads each photo
once with each size, one photo after the other with the sizes alternating, so load on the machine falls on both
alike. Every line found is listed as a "book" whose title is the line, in the predictions format of
../shared/eval/score_real.py: its exact and CER-0.2 recall say how many titles appear as one line at all (the
ceiling a reader that picks lines reaches; its precision means nothing here). Prints seconds per photo per size.

    python3 -m venv DIR && DIR/bin/pip install faster-paddle==1.0.4
    DIR/bin/python Benchmarks/ppocr_model_sizes.py ../shared/eval/real OUT
    python3 ../shared/eval/score_real.py --pred OUT/tiny ; python3 ../shared/eval/score_real.py --pred OUT/small
"""
import glob
import json
import os
import statistics
import sys
import time

from faster_paddle import OcrEngine

SIZES = ("tiny", "small")


def books(result):
    """Each line the engine read as a book whose title is the line (its axis-aligned box)."""
    out = []
    for bound in result.get("bounds", {}).values():
        (x1, y1), (x2, y2) = bound["topLeftCoord"], bound["bottomRightCoord"]
        text = bound["text"]
        out.append({"box": [min(x1, x2), min(y1, y2), abs(x2 - x1), abs(y2 - y1)], "title": text, "text": text})
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: ppocr_model_sizes.py IMAGES_DIR OUT_DIR")
    images, out = sys.argv[1], sys.argv[2]
    photos = sorted(glob.glob(os.path.join(images, "*.jpg")) + glob.glob(os.path.join(images, "*.jpeg")))
    # faster-paddle's own defaults (threads from the machine's cores, detector's long side capped at 1600).
    engines = {size: OcrEngine(model_size=size) for size in SIZES}
    times = {size: [] for size in SIZES}
    for size in SIZES:
        os.makedirs(os.path.join(out, size), exist_ok=True)
    for i, path in enumerate(photos):
        data = open(path, "rb").read()
        name = os.path.splitext(os.path.basename(path))[0]
        order = SIZES if i % 2 == 0 else tuple(reversed(SIZES))
        for size in order:
            start = time.perf_counter()
            result = engines[size].ocr(data)
            seconds = time.perf_counter() - start
            times[size].append(seconds)
            listed = books(result)
            with open(os.path.join(out, size, name + ".json"), "w") as f:
                json.dump({"books": listed}, f)
            print(f"{name} {size} {seconds:.2f}s {len(listed)} lines", flush=True)
    for size in SIZES:
        t = times[size]
        print(f"{size}: median {statistics.median(t):.2f}s mean {statistics.mean(t):.2f}s max {max(t):.2f}s over {len(t)} photos")


if __name__ == "__main__":
    main()
