#!/usr/bin/env python3
"""Turns bookscan's own results into ../shared/eval/evaluate.py predictions, so the evaluation can score
the product's real path (prepare → upload → service → result) and not only the engine in-process.

    scripts/scan-results-to-eval.py --images DIR --out PRED RESULT...
    scripts/scan-results-to-eval.py --pixels PHOTO      # prints width × height of a JPEG

RESULT is a `bookscan batch` result file (DIR/.bookscan/<photo>.json, or under `--out`) or the output
of `bookscan scan --json` (one object per photo). Boxes and polygons are normalised in bookscan's results; they are scaled
to the pixel size of the photo in --images with the same name (read from its JPEG header). time_ms is
the job's wall time as the client saw it (upload to result).
"""
import argparse
import json
import os
import struct
import sys


def jpeg_size(path):
    """(width, height) from the first SOF marker of a JPEG file."""
    with open(path, "rb") as f:
        data = f.read()
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    raise ValueError(f"{path}: no JPEG frame header")


def reports(path):
    """Every scan report in a batch result file or in `scan --json` output (one object per photo)."""
    with open(path) as f:
        text = f.read()
    decoder, at = json.JSONDecoder(), 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return
        document, at = decoder.raw_decode(text, at)
        yield document.get("report", document)


def prediction(report, width, height):
    result = report.get("result") or {}
    books = []
    for spine in result.get("spines", []):
        box = spine["box"]
        book = {
            "box": [box["x"] * width, box["y"] * height, box["width"] * width, box["height"] * height],
            "confidence": spine.get("confidence", 1),
        }
        if spine.get("polygon"):
            book["polygon"] = [[x * width, y * height] for x, y in spine["polygon"]]
        for key in ("title", "author", "text"):
            if spine.get(key):
                book[key] = spine[key]
        books.append(book)
    return {"books": books, "time_ms": report.get("totalSeconds", 0) * 1000}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pixels", help="print the pixel count of this JPEG and exit")
    parser.add_argument("--images")
    parser.add_argument("--out")
    parser.add_argument("results", nargs="*")
    args = parser.parse_args()
    if args.pixels:
        width, height = jpeg_size(args.pixels)
        print(width * height)
        return
    if not (args.images and args.out and args.results):
        parser.error("--images, --out and at least one RESULT are needed")
    os.makedirs(args.out, exist_ok=True)
    written = 0
    for path in args.results:
        for report in reports(path):
            name = os.path.basename(report["image"])
            if report.get("outcome") != "succeeded":
                print(f"{name}: {report.get('outcome')}, no prediction", file=sys.stderr)
                continue
            width, height = jpeg_size(os.path.join(args.images, name))
            with open(os.path.join(args.out, os.path.splitext(name)[0] + ".json"), "w") as f:
                json.dump(prediction(report, width, height), f)
            written += 1
    print(f"{written} predictions in {args.out}")


if __name__ == "__main__":
    main()
