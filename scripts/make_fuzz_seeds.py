#!/usr/bin/env python3
"""Writes the fuzz seed corpus: small hand-made JPEGs (Fuzz/corpus/jpeg) and sample wire messages
(Fuzz/corpus/wire). Deterministic; needs Pillow. scripts/fuzz.sh also seeds from SampleImages/*.jpg.

    python3 scripts/make_fuzz_seeds.py
"""
import io
import json
import os
import struct

from PIL import Image, ImageDraw

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fuzz", "corpus")


def exif(orientation, big_endian):
    """An APP1 Exif payload with one IFD0 entry: the orientation tag."""
    e = ">" if big_endian else "<"
    tiff = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8)
    tiff += struct.pack(e + "H", 1) + struct.pack(e + "HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(e + "I", 0)
    return b"Exif\x00\x00" + tiff


def picture(width, height, mode="RGB"):
    image = Image.new("RGB", (width, height), (120, 90, 60))
    draw = ImageDraw.Draw(image)
    for x in range(0, width, 6):
        draw.rectangle([x, height // 5, x + 3, height - 2], fill=((x * 37) % 256, (x * 91) % 256, 140))
    return image.convert(mode)


def jpeg(image, **options):
    out = io.BytesIO()
    image.save(out, "JPEG", **options)
    return out.getvalue()


def jpegs():
    yield "baseline_32x24", jpeg(picture(32, 24), quality=80)
    yield "progressive_40x30", jpeg(picture(40, 30), quality=70, progressive=True)
    yield "gray_24x24", jpeg(picture(24, 24, "L"), quality=60)
    yield "cmyk_16x16", jpeg(picture(16, 16, "CMYK"), quality=60)
    yield "subsampling444_24x16", jpeg(picture(24, 16), quality=75, subsampling=0)
    yield "subsampling422_24x16", jpeg(picture(24, 16), quality=75, subsampling=1)
    yield "restart_48x16", jpeg(picture(48, 16), quality=75, restart_marker_blocks=1)
    yield "tall_8x200", jpeg(picture(8, 200), quality=50)
    yield "wide_300x8", jpeg(picture(300, 8), quality=50)
    yield "exif_right_le_40x24", jpeg(picture(40, 24), quality=70, exif=exif(6, False))
    yield "exif_left_be_40x24", jpeg(picture(40, 24), quality=70, exif=exif(8, True))
    yield "exif_mirrored_progressive_24x40", jpeg(picture(24, 40), quality=70, progressive=True, exif=exif(5, True))
    full = jpeg(picture(64, 48), quality=85)
    yield "truncated_64x48", full[: len(full) * 2 // 3]


def stamp(ms):
    return "2026-11-21T14:05:%02d.%03dZ" % (ms // 1000 % 60, ms % 1000)


def wire():
    job = "6f1c2a8e-3b4d-4c5e-9f60-718293a4b5c6"
    box = {"x": 0.1, "y": 0.2, "width": 0.05, "height": 0.6}
    result = {
        "imageWidth": 1920, "imageHeight": 1280, "workingWidth": 960, "workingHeight": 640,
        "rows": [{"index": 0, "box": {"x": 0, "y": 0.1, "width": 1, "height": 0.4}, "spineCount": 1}],
        "spines": [{"index": 0, "row": 0, "box": box, "confidence": 0.87, "color": {"r": 200, "g": 30, "b": 7}, "pose": "leaning"}],
        "timings": [{"stage": "decoding", "milliseconds": 12.5}, {"stage": "finding_rows", "milliseconds": 3}],
    }
    error = {"code": "scan_failed", "message": "the engine gave up", "retryable": False}
    event = {"jobId": job, "seq": 3, "state": "running", "stage": "segmenting_spines", "fraction": 0.5, "timestamp": stamp(1234)}
    links = {"status": "/v1/scans/" + job, "events": "/v1/scans/" + job + "/events?after=0"}
    snapshot = {
        "jobId": job, "state": "succeeded", "stage": "done", "fraction": 1, "seq": 7, "createdAt": stamp(1000),
        "updatedAt": stamp(2500), "startedAt": stamp(1100), "finishedAt": stamp(2500), "expiresAt": "2026-11-21T15:05:00Z",
        "imageBytes": 245123, "result": result, "links": links,
    }
    yield "server_event", {"type": "event", "event": event}
    yield "server_event_succeeded", {"type": "event", "event": dict(event, seq=7, state="succeeded", stage="done", fraction=1, result=result)}
    yield "server_event_failed", {"type": "event", "event": dict(event, seq=4, state="failed", error=error)}
    yield "server_heartbeat", {"type": "heartbeat", "heartbeat": {"latestSeq": 3, "timestamp": stamp(9)}}
    yield "client_hello", {"type": "hello", "hello": {"protocolVersion": 1}}
    yield "snapshot_succeeded", snapshot
    yield "snapshot_queued", dict(snapshot, state="queued", stage="queued", fraction=0, seq=0, startedAt=None, finishedAt=None, result=None)
    yield "error_response", {"error": {"code": "too_many_pixels", "message": "image is 90000×90000", "retryable": False}}
    yield "limits", {"protocolVersion": 1, "maxBytes": 26214400, "maxPixels": 100000000, "recommendedLongSide": 1920,
                     "acceptedTypes": ["image/jpeg"], "heartbeatSeconds": 10, "jobTTLSeconds": 3600}
    yield "health", {"status": "ok", "version": "1.0.0", "jobsQueued": 0, "jobsRunning": 1, "jobsHeld": 4, "scansStarted": 9}
    yield "stage", "finding_rows"
    yield "date_no_fraction", {"latestSeq": 0, "timestamp": "1970-01-01T00:00:00Z"}


def main():
    for kind, items, suffix in (("jpeg", jpegs(), ".jpg"), ("wire", wire(), ".json")):
        directory = os.path.join(ROOT, kind)
        os.makedirs(directory, exist_ok=True)
        for name, value in items:
            data = value if isinstance(value, bytes) else json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
            with open(os.path.join(directory, name + suffix), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
