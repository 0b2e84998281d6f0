#!/usr/bin/env python3
"""Slow clients against an MCP HTTP server (issue 34's hostile case): CLIENTS connections each send
`POST /mcp HTTP/1.1` and then one header line every 100 ms, never ending the headers, for up to
SECONDS; after one second a fresh client's skills/list is timed five times. Reports when each
slow connection was closed by the server (seconds from its first byte) or that it was still open
at the end. One JSON line. For bench/mcp_engines.sh.
    usage: mcp_trickle.py URL NAME [CLIENTS] [SECONDS]"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_http import answer, skills_list_request  # noqa: E402

url, name = sys.argv[1], sys.argv[2]
clients = int(sys.argv[3]) if len(sys.argv) > 3 else 64
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 15.0
port, req = skills_list_request(url)


def fresh_ms():
    t = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(req)
    ok = answer(s) == 200
    s.close()
    return round((time.monotonic() - t) * 1000, 2) if ok else None


start = time.monotonic()
slow = []
for _ in range(clients):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /mcp HTTP/1.1\r\n")
    s.setblocking(False)
    slow.append({"sock": s, "start": time.monotonic(), "closed": None})
fresh = []
line = 0
while time.monotonic() - start < seconds:
    time.sleep(0.1)
    line += 1
    for c in slow:
        if c["closed"] is not None:
            continue
        try:
            try:
                if c["sock"].recv(4096) == b"":  # the server closed it (or answered and closed)
                    raise ConnectionError
            except BlockingIOError:
                pass
            c["sock"].send(b"X-Trickle-%d: x\r\n" % line)
        except (ConnectionError, OSError):
            c["closed"] = time.monotonic() - c["start"]
    if not fresh and time.monotonic() - start >= 1.0:
        fresh = [fresh_ms() for _ in range(5)]
closed = sorted(c["closed"] for c in slow if c["closed"] is not None)
print(json.dumps({"server": name, "slow_clients": clients, "line_every_ms": 100, "observed_s": seconds,
                  "fresh_client_ms": fresh, "slow_closed": len(closed),
                  "slow_closed_after_s": [round(closed[0], 1), round(closed[-1], 1)] if closed else None,
                  "slow_still_open": clients - len(closed)}))
