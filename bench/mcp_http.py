"""What bench/mcp_idle.py and bench/mcp_trickle.py share: the 2026-07-28 `skills/list` request
over HTTP/1.1 to POST /mcp, and reading one whole answer from a socket."""
import json


def skills_list_request(url):
    """The port of URL (http://127.0.0.1:PORT/mcp) and the request's bytes."""
    port = int(url.split(':')[2].split('/')[0])
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
    req = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
           "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
           "Mcp-Method: skills/list\r\nContent-Length: %d\r\n\r\n%s" % (port, len(body), body)).encode()
    return port, req


def answer(s):
    """Reads one answer (Content-Length or chunked) from socket s; its status, or None when the
    connection closed first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return None
        data += chunk
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
