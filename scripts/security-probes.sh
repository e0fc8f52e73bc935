#!/usr/bin/env bash
# The attacks of issue 36 (items 1, 4) against a live `bookscan serve --token`: each spelling, its status.
# Usage: scripts/security-probes.sh BOOKSCAN_BINARY PHOTO.jpg
set -u
BIN=$1; JPG=$2; TOKEN=t0ken
LOG=$(mktemp); $BIN serve --port 0 --token $TOKEN --workers 1 --scan-step-delay 2 2>$LOG & PID=$!
for i in $(seq 1 100); do PORT=$(grep -o 'listening on [^ ]*' $LOG | grep -o '[0-9]*$'); [[ -n $PORT ]] && break; sleep 0.1; done
B=http://127.0.0.1:$PORT; ID=$(python3 -c 'import uuid;print(uuid.uuid4())')
code() { curl -s --path-as-is -o /dev/null -m 3 -w '%{http_code}' "$@"; }
curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -T $JPG $B/v1/scans/$ID
echo "GET //v1/limits            -> $(code $B//v1/limits)"
echo "GET /metrics/              -> $(code $B/metrics/)"
echo "PUT //v1/scans/NEW         -> $(code -T $JPG $B//v1/scans/$(python3 -c 'import uuid;print(uuid.uuid4())'))"
echo "DELETE //v1/scans/ID       -> $(code -X DELETE $B//v1/scans/$ID)"
echo "SSE //v1/scans/ID/events   -> $(code -H 'Accept: text/event-stream' $B//v1/scans/$ID/events)"
echo "SSE //v1/events?jobs=ID    -> $(code -H 'Accept: text/event-stream' "$B//v1/events?jobs=$ID")"
echo "WS  //v1/scans/ID/events   -> $(code -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' -H 'Sec-WebSocket-Version: 13' $B//v1/scans/$ID/events)"
echo "WS  /v1//events/?jobs=ID   -> $(code -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' -H 'Sec-WebSocket-Version: 13' "$B/v1//events/?jobs=$ID")"
echo "GET /v1/./limits           -> $(code $B/v1/./limits)"
echo "GET /v1/%6Cimits           -> $(code $B/v1/%6Cimits)"
echo "POST //v1/limits           -> $(code -X POST $B//v1/limits)"
echo "PUT Expect:100 no token    -> $(curl -s -o /dev/null -w '%{http_code}' -H 'Expect: 100-continue' -T $JPG -v $B/v1/scans/$ID 2>&1 | grep -c '< HTTP/1.1 100') x '100 Continue' received"
echo "GET /healthz (public)      -> $(code $B/healthz)"
echo "GET //v1/limits with token -> $(code -H "Authorization: Bearer $TOKEN" $B//v1/limits)"
for i in $(seq 1 40); do code -I -H "Authorization: Bearer $TOKEN" -H 'Accept: text/event-stream' $B/v1/scans/$ID/events >/dev/null; done
echo "40 x HEAD SSE, then GET SSE-> $(code -H "Authorization: Bearer $TOKEN" -H 'Accept: text/event-stream' $B/v1/scans/$ID/events) (curl -m 3 ends the stream: 200 = stream opened)"
kill $PID; wait $PID 2>/dev/null; rm -f $LOG
