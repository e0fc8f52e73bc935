#!/usr/bin/env python3
"""Writes the client bad-input corpus: one file per malformed-input class, plus one good control photo.

    python3 scripts/generate_bad_input_corpus.py [--out Tests/CLITests/Corpus/bad-input]

Deterministic: the control photo is drawn with Pillow (no randomness) and every bad file is derived
from it or written byte by byte, so running the script again rewrites identical files (the committed
files are the reference; the tests read those). Needs Pillow (`pip install pillow`).
The README.md next to the files lists each one with the exit code and message `bookscan scan` gives.
The directory, no-permission and vanishing-file cases cannot be committed; the tests make them.
"""
import argparse
import io
import os
import struct
import zlib

from PIL import Image, ImageDraw


def control_jpeg():
    """A small synthetic shelf: eight coloured spines on a board, baseline JPEG without metadata."""
    image = Image.new("RGB", (480, 360), (40, 28, 20))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 330, 479, 359], fill=(150, 110, 70))
    for i in range(8):
        h = 150 + (i * 37 + 11) % 120
        shade = (i * 53 + 29) % 200 + 40
        x = 16 + i * 56
        draw.rectangle([x, 330 - h, x + 51, 329], fill=(shade, 255 - shade, i * 30 % 255))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90, optimize=False, progressive=False, subsampling=2)
    return out.getvalue()


def segments(jpeg):
    """(marker, offset) of every marker segment up to and including SOS."""
    found, i = [], 2
    while i < len(jpeg):
        assert jpeg[i] == 0xFF, "not at a marker"
        marker = jpeg[i + 1]
        length = struct.unpack(">H", jpeg[i + 2:i + 4])[0]
        found.append((marker, i))
        if marker == 0xDA:
            return found, i + 2 + length  # offset of the entropy-coded data
        i += 2 + length
    raise ValueError("no SOS")


def truncated(jpeg):
    """Cut in the middle of the entropy-coded data: the header is whole, the pixels stop early."""
    _, data = segments(jpeg)
    return jpeg[: data + (len(jpeg) - data) // 2]


def corrupt_markers(jpeg):
    """Whole file (ends with EOI), but the middle of the scan holds a stray RST marker and garbage."""
    _, data = segments(jpeg)
    middle = data + (len(jpeg) - data) // 2
    garbage = bytes([0xFF, 0xD3]) + bytes((i * 97 + 13) % 255 for i in range(62))
    return jpeg[:middle] + garbage + jpeg[middle + len(garbage):]


def huge_header(jpeg):
    """The control photo with its SOF0 claiming 60000×60000 (3.6 gigapixels); the file stays small."""
    found, _ = segments(jpeg)
    sof = next(offset for marker, offset in found if marker == 0xC0)
    out = bytearray(jpeg)
    out[sof + 5:sof + 9] = struct.pack(">HH", 60000, 60000)
    return bytes(out)


def png():
    """A real 16×16 RGB PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"".join(bytes([x * 16, 255 - x * 16, 80]) for x in range(16)) for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def heic():
    """An ISO-BMFF HEIF file start as an iPhone writes it: ftyp (major brand heic; compatible mif1, heic)
    then a meta box with a handler of type pict. Enough for any magic-byte sniffer to say HEIC."""
    ftyp = box(b"ftyp", b"heic" + struct.pack(">I", 0) + b"mif1" + b"heic")
    hdlr = box(b"hdlr", b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00" + b"pict" + b"\x00" * 12 + b"\x00")
    pitm = box(b"pitm", b"\x00\x00\x00\x00" + struct.pack(">H", 1))
    meta = box(b"meta", b"\x00\x00\x00\x00" + hdlr + pitm)
    return ftyp + meta


def webp():
    """A real 1×1 lossless WebP (RIFF/WEBP/VP8L), byte by byte."""
    vp8l = bytes([0x2F, 0x00, 0x00, 0x00, 0x00, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xFE, 0x07, 0x00])
    chunk = b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def gif():
    """A real 1×1 GIF89a."""
    return (b"GIF89a" + struct.pack("<HH", 1, 1) + bytes([0x80, 0, 0]) + bytes([0, 0, 0, 255, 255, 255])
            + b"\x2c" + struct.pack("<HHHH", 0, 0, 1, 1) + b"\x00" + bytes([0x02, 0x02, 0x44, 0x01, 0x00]) + b"\x3b")


FILES = [
    # name, exit code, message fragment, what it is
    ("good.jpg", 0, "books in", "control: a small valid shelf photo (scans successfully)"),
    ("zero-bytes.jpg", 15, "is empty (0 bytes)", "an empty file"),
    ("truncated.jpg", 16, "is truncated", "the control photo cut in the middle of its entropy-coded data"),
    ("corrupt-markers.jpg", 6, "is a corrupt JPEG", "whole file, but a stray RST marker and 62 garbage bytes in the middle of the scan data"),
    ("png-named.jpg", 5, "is a PNG image", "a real 16×16 PNG"),
    ("heic-named.jpg", 5, "is a HEIC image", "an HEIF start: ftyp box (brand heic) and a meta box"),
    ("webp-named.jpg", 5, "is a WebP image", "a real 1×1 lossless WebP"),
    ("gif-named.jpg", 5, "is a GIF image", "a real 1×1 GIF89a"),
    ("header-60000x60000.jpg", 17, "is 60000×60000 pixels", "the control photo with its SOF0 claiming 60000×60000 (refused from the header, nothing allocated)"),
    ("not-an-image.jpg", 18, "is not an image", "a text file"),
]


def build():
    good = control_jpeg()
    return {
        "good.jpg": good,
        "zero-bytes.jpg": b"",
        "truncated.jpg": truncated(good),
        "corrupt-markers.jpg": corrupt_markers(good),
        "png-named.jpg": png(),
        "heic-named.jpg": heic(),
        "webp-named.jpg": webp(),
        "gif-named.jpg": gif(),
        "header-60000x60000.jpg": huge_header(good),
        "not-an-image.jpg": b"Shelf inventory, living room.\nNot a photo.\n",
    }


def readme(files):
    lines = [
        "# Client bad-input corpus",
        "",
        "Made by `python3 scripts/generate_bad_input_corpus.py` (deterministic; rerunning it rewrites identical files).",
        "`Tests/CLITests/BadInputCorpusTests.swift` runs `bookscan scan` on each file and checks the exit code, that the",
        "one error line names the file and contains the message below, that nothing on stdout claims success and that",
        "the process exited normally (never by a signal). `bookscan batch` over this folder fails each bad file with its",
        "own reason and goes on.",
        "",
        "| file | bytes | exit code | message (after `bookscan: PATH: `) | what it is |",
        "|---|---|---|---|---|",
    ]
    for name, code, message, what in FILES:
        lines.append(f"| `{name}` | {len(files[name])} | {code} | {message}… | {what} |")
    lines += [
        "",
        "Made by the tests at run time (they cannot be committed):",
        "",
        "| case | exit code | message |",
        "|---|---|---|",
        "| a missing path | 3 | no such file |",
        "| a directory | 14 | is a directory, not an image… |",
        "| no read permission (chmod 000; as root, run without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH via `setpriv`) | 4 | cannot be read (permission denied) |",
        "| a FIFO at the .jpg path whose writer sends half the photo, unlinks the path, then closes | 19 | vanished (deleted while being read, after N bytes); nothing was uploaded |",
        "",
    ]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "Tests", "CLITests", "Corpus", "bad-input"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    files = build()
    assert [name for name, *_ in FILES] == list(files)
    for name, data in files.items():
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(data)
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write(readme(files))
    print(f"wrote {len(files)} files to {os.path.normpath(args.out)}")


if __name__ == "__main__":
    main()
