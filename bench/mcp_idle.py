#!/usr/bin/env python3
"""1,000 idle keep-alive connections (each has had one answer from a 2026-07-28 skills/list), then
a fresh client's request timed five times, then one idle connection in a hundred asked again.
One JSON line. For bench/mcp_wrk.sh and bench/mcp_engines.sh.
    usage: mcp_idle.py URL NAME"""
import json, os, socket, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_http import answer, skills_list_request
url, name = sys.argv[1], sys.argv[2]
port, req = skills_list_request(url)
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
