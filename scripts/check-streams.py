#!/usr/bin/env python3
"""Checks what schemathesis cannot: a real scan's snapshots, SSE messages (one-job and multiplexed)
and WebSocket frames (one-job and multiplexed) against the schemas of openapi.yaml.

usage: check-streams.py OPENAPI_YAML BASE_URL TOKEN|- JPEG
needs: pip install schemathesis==4.32.5 websockets   (jsonschema, referencing, pyyaml come with it)
Prints every frame or body that does not match its schema; exits 1 if any did."""
import asyncio
import json
import sys
import uuid
import urllib.request

import jsonschema
import websockets
import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

spec_path, base, token, jpeg = sys.argv[1:5]
token = None if token == "-" else token
spec = yaml.safe_load(open(spec_path))
# Resolve "#/components/schemas/X" against the whole document.
from referencing.jsonschema import DRAFT202012
resource = Resource.from_contents(spec, default_specification=DRAFT202012)
registry = Registry().with_resource("urn:openapi", resource)
failures = 0


def check(schema_name, value, what):
    global failures
    schema = {"$ref": f"urn:openapi#/components/schemas/{schema_name}"}
    validator = Draft202012Validator(schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)
    errors = list(validator.iter_errors(value))
    if errors:
        failures += 1
        print(f"FAIL {what}: {schema_name}: {errors[0].message} at {list(errors[0].absolute_path)}")
        print("     ", json.dumps(value)[:400])


def request(method, path, body=None, headers=None):
    headers = dict(headers or {})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def sse_messages(text):
    for block in text.split("\n\n"):
        fields = {}
        data = []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            else:
                fields[name] = value
        if data:
            yield fields, "\n".join(data)


def main():
    image = open(jpeg, "rb").read()
    job = str(uuid.uuid4())
    status, headers, body = request("PUT", f"/v1/scans/{job}", image, {"Content-Type": "image/jpeg"})
    assert status == 202, (status, body)
    check("JobSnapshot", json.loads(body), "PUT 202")
    # One-job SSE until the terminal event.
    status, headers, body = request("GET", f"/v1/scans/{job}/events", headers={"Accept": "text/event-stream"})
    assert status == 200 and headers.get("Content-Type") == "text/event-stream", (status, headers)
    text = body.decode()
    assert text.startswith("retry: 1000\n: bookscan events v1\n\n"), text[:80]
    count = 0
    for fields, data in sse_messages(text):
        message = json.loads(data)
        check("ServerMessage", message, f"SSE id {fields.get('id')}")
        assert fields.get("event") == "event" and fields.get("id") == str(message["event"]["seq"]), fields
        count += 1
    print(f"one-job SSE: {count} messages")
    status, _, body = request("GET", f"/v1/scans/{job}")
    snapshot = json.loads(body)
    check("JobSnapshot", snapshot, "GET finished job")
    print("final state:", snapshot["state"], "spines:", len(snapshot.get("result", {}).get("spines", [])))
    status, _, body = request("DELETE", f"/v1/scans/{job}")
    assert status == 202
    check("JobSnapshot", json.loads(body), "DELETE finished job")
    # Multiplexed SSE: the finished job, an unknown one.
    unknown = str(uuid.uuid4())
    status, headers, body = request("GET", f"/v1/events?jobs={job}:50,{unknown}", headers={"Accept": "text/event-stream"})
    assert status == 200, (status, body)
    kinds = []
    for fields, data in sse_messages(body.decode()):
        message = json.loads(data)
        check("ServerMessage", message, f"multiplexed SSE {fields}")
        assert fields["event"] == message["type"], fields
        kinds.append(message["type"])
    print("multiplexed SSE:", kinds)
    for jobs, expected in ((f"{unknown}", 200), ("nope", 400), ("", 400)):
        status, _, body = request("GET", f"/v1/events?jobs={jobs}", headers={"Accept": "text/event-stream"})
        assert status == expected, (jobs, status, body)
        if status != 200:
            check("ErrorResponse", json.loads(body), f"multiplexed SSE jobs={jobs!r}")
    asyncio.run(websocket_checks(job, unknown))


async def websocket_checks(job, unknown):
    ws_base = base.replace("http", "ws", 1)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # One-job socket, replay after seq 0, until the server closes (1000 after the terminal event).
    async with websockets.connect(f"{ws_base}/v1/scans/{job}/events?after=0", additional_headers=headers) as ws:
        await ws.send(json.dumps({"type": "hello", "hello": {"protocolVersion": 1}}))
        count = 0
        async for frame in ws:
            check("ServerMessage", json.loads(frame), "WS frame")
            count += 1
        print(f"one-job WS: {count} frames, close {ws.close_code}")
    # Multiplexed socket: subscribe, get subscribed + replay, refused for an unknown job, a heartbeat.
    async with websockets.connect(f"{ws_base}/v1/events?jobs={job}:52", additional_headers=headers) as ws:
        await ws.send(json.dumps({"type": "hello", "hello": {"protocolVersion": 1}}))
        await ws.send(json.dumps({"type": "subscribe", "subscribe": {"jobs": [{"jobId": unknown, "after": 0}]}}))
        kinds = []
        try:
            while "heartbeat" not in kinds:
                message = json.loads(await asyncio.wait_for(ws.recv(), 5))
                check("ServerMessage", message, "multiplexed WS frame")
                kinds.append(message["type"])
        except asyncio.TimeoutError:
            pass
        await ws.send(json.dumps({"type": "unsubscribe", "unsubscribe": {"jobs": [job]}}))
        print("multiplexed WS:", kinds)
    # Token as ?access_token= on the events route.
    if token:
        async with websockets.connect(f"{ws_base}/v1/scans/{job}/events?after=53&access_token={token}") as ws:
            await ws.send(json.dumps({"type": "hello", "hello": {"protocolVersion": 1}}))
            async for frame in ws:
                check("ServerMessage", json.loads(frame), "WS frame (access_token)")
            print("access_token WS close", ws.close_code)


main()
print("stream checks:", "FAILED" if failures else "OK")
sys.exit(1 if failures else 0)
