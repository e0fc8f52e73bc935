#!/usr/bin/env python3
# Usage: scripts/trickle-uploads.py BOOKSCAN_BINARY PHOTO.jpg
# 13 PUTs declaring 20 MiB each (the whole 256 MiB upload budget at the old upfront reservation), trickling
# one byte a second; a real upload beside them; when and how each trickler is answered.
import socket, subprocess, sys, time, uuid, select, re
binary, jpg = sys.argv[1], sys.argv[2]
import tempfile
log = tempfile.TemporaryFile('w+')
srv = subprocess.Popen([binary, 'serve', '--port', '0', '--workers', '1'], stderr=log)
port = None
for _ in range(100):
    log.seek(0); m = re.search(r'listening on http://[0-9.]+:(\d+)', log.read())
    if m: port = int(m.group(1)); break
    time.sleep(0.1)
start = time.time(); socks = []
for i in range(13):
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(f'PUT /v1/scans/{uuid.uuid4()} HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: {20 << 20}\r\n\r\n'.encode() + b'\xff\xd8\xff')
    socks.append(s)
time.sleep(2)
real = subprocess.run(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', '-T', jpg, f'http://127.0.0.1:{port}/v1/scans/{uuid.uuid4()}'], capture_output=True, text=True).stdout
print(f'real upload beside 13 tricklers at t={time.time()-start:.1f}s: {real}')
answers = {}
while len(answers) < 13 and time.time() - start < 60:
    for i, s in enumerate(socks):
        if i in answers: continue
        r, _, _ = select.select([s], [], [], 0)
        if r:
            answers[i] = (time.time() - start, s.recv(4096).split(b'\r\n')[0].decode())
        else:
            try: s.send(b'\0')
            except OSError: answers[i] = (time.time() - start, 'closed')
    time.sleep(1)
for i in sorted(answers): print(f'trickler {i}: {answers[i][1]} at t={answers[i][0]:.1f}s')
srv.terminate(); srv.wait()
