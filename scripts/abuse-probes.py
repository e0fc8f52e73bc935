#!/usr/bin/env python3
"""Abuse probes against a real `bookscan serve`: what the server does to clients that misbehave.

    scripts/abuse-probes.py [BIN] [--port 18641] [--quick]

Starts BIN (default .build/release/bookscan) as `serve` on loopback with its default limits (with
--quick: --header-timeout 2 --idle-timeout 3, to shorten the two waits), runs each probe on fresh
sockets and prints one markdown row per probe: what was sent, what came back, and the measured figure
(seconds until the server closed, bytes it took, status or close code). Standard library only.
"""
import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import time
import uuid

parser = argparse.ArgumentParser()
parser.add_argument("bin", nargs="?", default=".build/release/bookscan")
parser.add_argument("--port", type=int, default=18641)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()
PORT = args.port
JPEG = open(os.path.join(os.path.dirname(__file__), "..", "SampleImages", "shelf_one_row.jpg"), "rb").read()


def connect(timeout=60.0):
    s = socket.create_connection(("127.0.0.1", PORT))
    s.settimeout(timeout)
    return s


def read_until_closed(s):
    """Everything until EOF/reset; (bytes, how it ended)."""
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return data, "closed (FIN)"
            data += chunk
    except ConnectionResetError:
        return data, "closed (reset)"
    except socket.timeout:
        return data, "still open at the 60 s guard"


def status_of(data):
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def request(method, path, body=None, headers=None):
    s = connect()
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
    for k, v in (headers or {}).items():
        head += f"{k}: {v}\r\n"
    if body is not None:
        head += f"Content-Length: {len(body)}\r\n"
    s.sendall(head.encode() + b"\r\n" + (body or b""))
    data, _ = read_until_closed(s)
    s.close()
    return status_of(data), data.split(b"\r\n\r\n", 1)[-1]


def error_code(body):
    """The protocol error code in a JSON body, or "-"."""
    try:
        return json.loads(body).get("error", {}).get("code", "-")
    except (ValueError, AttributeError):
        return "-"


def upgrade_head(path):
    return (f"GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


def read_head(s):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def ws_frame(opcode, payload, declared=None, fin=True):
    length = len(payload) if declared is None else declared
    header = bytes([(0x80 if fin else 0) | opcode])
    if length < 126:
        header += bytes([0x80 | length])
    elif length <= 0xFFFF:
        header += bytes([0x80 | 126]) + struct.pack(">H", length)
    else:
        header += bytes([0x80 | 127]) + struct.pack(">Q", length)
    mask = b"\x12\x34\x56\x78"
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def ws_close_code(s, rest):
    """Reads server frames until a close frame; its code (or how the connection ended)."""
    buf = rest
    try:
        while True:
            while len(buf) < 2:
                chunk = s.recv(65536)
                if not chunk:
                    return "EOF without close frame"
                buf += chunk
            opcode, length, off = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if length == 126:
                length, off = struct.unpack(">H", buf[2:4])[0], 4
            elif length == 127:
                length, off = struct.unpack(">Q", buf[2:10])[0], 10
            while len(buf) < off + length:
                chunk = s.recv(65536)
                if not chunk:
                    return "EOF without close frame"
                buf += chunk
            payload, buf = buf[off:off + length], buf[off + length:]
            if opcode == 0x8:
                return struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else "close without code"
    except (ConnectionResetError, socket.timeout) as error:
        return type(error).__name__


def new_job(step_delay_job=True):
    job = str(uuid.uuid4())
    status, _ = request("PUT", f"/v1/scans/{job}", JPEG, {"Content-Type": "image/jpeg"})
    assert status == 202, status
    return job


rows = []


def row(probe, sent, result, figure):
    rows.append(f"| {probe} | {sent} | {result} | {figure} |")
    print(rows[-1], flush=True)


def probe_half_head():
    s = connect()
    t0 = time.monotonic()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    data, how = read_until_closed(s)
    waited = "closed after" if how.startswith("closed") else "client gave up after"
    row("half a request head, then silence", "41 bytes of head", f"{how}, {len(data)} bytes answered",
        f"{waited} {time.monotonic() - t0:.2f} s")


def probe_trickle():
    s = connect()
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 400 + b"\r\n\r\n"
    t0, sent, how = time.monotonic(), 0, "closed after"
    try:
        for b in head:
            if time.monotonic() - t0 > 40:
                how = "still open after"
                break
            s.send(bytes([b]))
            sent += 1
            s.settimeout(0.5)  # one byte every 0.5 s; any readable data can only be the close
            try:
                if s.recv(1) == b"":
                    break
            except socket.timeout:
                pass
    except (BrokenPipeError, ConnectionResetError):
        pass
    row("head trickled 1 byte / 0.5 s (slowloris)", f"{len(head)}-byte head", f"{how} {sent} bytes, no answer",
        f"{how} {time.monotonic() - t0:.2f} s")


def probe_idle():
    s = connect()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _ = read_head(s)
    t0 = time.monotonic()
    data, how = read_until_closed(s)
    waited = "closed" if how.startswith("closed") else "client gave up"
    row("kept-alive connection left idle", "GET /healthz, then nothing", f"{status_of(head)}, then {how}",
        f"{waited} {time.monotonic() - t0:.2f} s after the response")


def probe_body(label, chunked, expect=False):
    s = connect()
    job = uuid.uuid4()
    size = 1 << 30
    head = f"PUT /v1/scans/{job} HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\n"
    head += "Transfer-Encoding: chunked\r\n" if chunked else f"Content-Length: {size}\r\n"
    if expect:
        head += "Expect: 100-continue\r\n"
    s.sendall(head.encode() + b"\r\n")
    piece, sent, t0 = b"\xff\xd8\xff" + bytes(65533), 0, time.monotonic()
    if expect:
        s.settimeout(5)
        first = s.recv(4096)
        row(label, f"PUT, Content-Length {size}, Expect: 100-continue", f"first answer {status_of(first)}, 0 body bytes sent",
            f"answered in {time.monotonic() - t0:.3f} s")
        return
    s.settimeout(30)
    try:
        while sent < size:
            frame = (b"%x\r\n" % len(piece) + piece + b"\r\n") if chunked else piece
            s.sendall(frame)
            sent += len(piece)
    except (BrokenPipeError, ConnectionResetError, socket.timeout) as error:
        ended = type(error).__name__
    else:
        ended = "server took all of it"
    try:
        s.settimeout(2)
        answer = status_of(s.recv(4096))
    except OSError:
        answer = "lost in the reset"
    row(label, f"PUT {'chunked' if chunked else f'Content-Length {size}'}, zeros until refused",
        f"{answer}, sending ended by {ended}", f"{sent / 1048576:.1f} MiB sent of 1024 in {time.monotonic() - t0:.2f} s")


def probe_connection_cap(cap=256):
    held = []
    for _ in range(cap):
        s = connect()
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        read_head(s)
        held.append(s)
    extra = connect()
    extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    data, how = read_until_closed(extra)
    body = data.split(b"\r\n\r\n", 1)[-1]
    retry = [line for line in data.split(b"\r\n") if line.lower().startswith(b"retry-after")]
    code = error_code(body)
    held.pop().close()
    time.sleep(0.5)
    status_after, _ = request("GET", "/healthz")
    for s in held:
        s.close()
    row(f"connection {cap + 1} from one address", f"{cap} kept-alive connections open, then one more",
        f"{status_of(data)} {code}, {retry[0].decode() if retry else 'no Retry-After'}, {how}",
        f"after closing one: {status_after}")


def probe_upgrades():
    for label, path in [("events upgrade, unknown job", f"/v1/scans/{uuid.uuid4()}/events?after=0"),
                        ("events upgrade, bad job id", "/v1/scans/nope/events?after=0")]:
        s = connect()
        s.sendall(upgrade_head(path))
        head, rest = read_head(s)
        code = error_code(rest)
        row(label, "GET + Upgrade: websocket", f"{status_of(head)} {code}", "no 101")
        s.close()


def probe_subscriber_cap(job, cap=32):
    held, rests = [], []
    for _ in range(cap):
        s = connect()
        s.sendall(upgrade_head(f"/v1/scans/{job}/events?after=0"))
        head, rest = read_head(s)
        held.append(s)
        rests.append(rest)
        if status_of(head) != 101:
            row(f"subscriber {len(held)} of one running job", "upgrade", f"{status_of(head)} {error_code(rest)}", "")
    for h, rest in zip(held, rests):  # each has received its replay: the server counts it
        if not rest:
            h.recv(1)
    s = connect()
    s.sendall(upgrade_head(f"/v1/scans/{job}/events?after=0"))
    head, rest = read_head(s)
    answer = f"{status_of(head)} {error_code(rest)}"
    if status_of(head) == 101:
        answer += f", then close code {ws_close_code(s, rest)}"
    row(f"subscriber {cap + 1} of one running job", f"{cap} event sockets open, then one more upgrade", answer, "")
    for h in held:
        h.close()


def probe_frames(job):
    cases = [("invalid UTF-8 text frame", [ws_frame(1, b"\xff\xfe\xc3\x28")]),
             ("binary frame", [ws_frame(2, b"\x00\x01\x02")]),
             ("5000-byte text message", [ws_frame(1, b"a" * 5000)]),
             ("frame header claiming 1 MiB", [ws_frame(1, b"a" * 64, declared=1 << 20)])]
    good = connect(timeout=20)
    good.sendall(upgrade_head(f"/v1/scans/{job}/events?after=0"))
    read_head(good)
    good.sendall(ws_frame(1, b'{"type":"hello","hello":{"protocolVersion":1}}'))
    for label, frames in cases:
        s = connect(timeout=20)
        s.sendall(upgrade_head(f"/v1/scans/{job}/events?after=0"))
        head, rest = read_head(s)
        s.sendall(ws_frame(1, b'{"type":"hello","hello":{"protocolVersion":1}}') + b"".join(frames))
        row(f"events socket: {label}", "after hello", f"close code {ws_close_code(s, rest)}", "")
        s.close()
    good.settimeout(1)
    try:
        while good.recv(65536):
            pass
        alive = "closed"
    except socket.timeout:
        alive = "still open"
    except ConnectionResetError:
        alive = "reset"
    row("another subscriber of that job", "hello, then only reads", f"{alive} after the four bad sockets closed", "")


def main():
    extra = ["--header-timeout", "2", "--idle-timeout", "3"] if args.quick else []
    server = subprocess.Popen([args.bin, "serve", "--host", "127.0.0.1", "--port", str(PORT), "--workers", "1",
                               "--scan-step-delay", "2"] + extra, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                request("GET", "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        print(f"server: {args.bin} {' '.join(extra) or '(default limits)'}; scans slowed to 2 s per step to hold jobs open")
        print("| probe | sent | server's answer | figure |\n|---|---|---|---|")
        probe_half_head()
        probe_trickle()
        probe_idle()
        probe_body("body declared over the limit", chunked=False)
        probe_body("body declared over the limit, Expect", chunked=False, expect=True)
        probe_body("chunked body crossing the limit", chunked=True)
        probe_connection_cap()
        probe_upgrades()
        job = new_job()
        probe_subscriber_cap(job)
        probe_frames(job)
        status, _ = request("GET", f"/v1/scans/{job}")
        print(f"server still healthy: GET /healthz {request('GET', '/healthz')[0]}, job status {status}")
    finally:
        server.terminate()
        server.wait()


main()
