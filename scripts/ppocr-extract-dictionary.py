#!/usr/bin/env python3
"""Writes the character list of a PP-OCR recognition model (ONNX metadata key `character`) to a text file.

Usage: ppocr-extract-dictionary.py REC_MODEL.onnx OUT.txt
Standard library only: it reads the ModelProto's metadata_props (field 14) with a minimal protobuf reader.
"""
import sys


def varint(buf, i):
    result = shift = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        byte = buf[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def fields(buf):
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        elif wire == 2:
            length, i = varint(buf, i)
            value, i = buf[i:i + length], i + length
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: ppocr-extract-dictionary.py REC_MODEL.onnx OUT.txt")
    with open(sys.argv[1], "rb") as model:
        data = model.read()
    for number, wire, value in fields(data):
        if number == 14 and wire == 2:
            entry = {n: v for n, _, v in fields(value)}
            if entry.get(1, b"") == b"character":
                text = entry.get(2, b"").decode("utf-8")
                with open(sys.argv[2], "w", encoding="utf-8") as out:
                    out.write(text if text.endswith("\n") else text + "\n")
                print(f"ppocr-extract-dictionary: {len(text.splitlines())} characters", file=sys.stderr)
                return
    sys.exit(f"ppocr-extract-dictionary: no 'character' metadata in {sys.argv[1]}")


if __name__ == "__main__":
    main()
