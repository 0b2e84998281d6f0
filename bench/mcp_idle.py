#!/usr/bin/env python3
"""1,000 idle keep-alive connections (each has had one answer from a 2026-07-28 skills/list), then
a fresh client's request timed five times, then one idle connection in a hundred asked again.
One JSON line. For bench/mcp_wrk.sh and bench/mcp_engines.sh.
    usage: mcp_idle.py URL NAME"""
import json, socket, sys, time
url, name = sys.argv[1], sys.argv[2]
port = int(url.split(':')[2].split('/')[0])
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
req = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
       "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
       "Mcp-Method: skills/list\r\nContent-Length: %d\r\n\r\n%s" % (port, len(body), body)).encode()
def answer(s):
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    head, rest = data.split(b"\r\n\r\n", 1)
    status = int(head.split(b" ")[1])
    length = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
    if length:
        while len(rest) < length[0]:
            rest += s.recv(65536)
    else:  # chunked: read to the last chunk
        while not rest.endswith(b"0\r\n\r\n"):
            rest += s.recv(65536)
    return status
held = []
for _ in range(1000):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(req)
    assert answer(s) == 200
    held.append(s)
times = []
for _ in range(5):
    t = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(req)
    ok = answer(s) == 200
    times.append((time.monotonic() - t) * 1000)
    s.close()
alive = 0
for s in held[::100]:
    s.sendall(req)
    alive += answer(s) == 200
print(json.dumps({"server": name, "idle_connections": len(held), "fresh_client_ms": [round(x, 2) for x in times],
                  "ok": ok, "idle_still_served": "%d/%d" % (alive, len(held[::100]))}))
