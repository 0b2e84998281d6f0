// The SDK's own skills server over Streamable HTTP, for scripts/ci/mcp_client.sh: loadSkills(DIR)
// attached to a fresh McpServer for each request (createMcpHandler, both protocol eras), its
// fetch(Request) served by node:http on 127.0.0.1 at a free port. Prints the port (one line) once
// it listens; runs until killed.
//   node bench/mcp_sdk_http_server.mjs PEERS_DIR LIBRARY
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

const [peers, library] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(peers), 'package.json'));
const { McpServer, createMcpHandler } = require('@modelcontextprotocol/server');
const { loadSkills } = require('@modelcontextprotocol/server/ext/skills/node');

const catalog = await loadSkills(library);
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'sdk-skills', version: '2.4.0' });
  catalog.attach(server);
  return server;
});

const listener = http.createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const bodyless = req.method === 'GET' || req.method === 'HEAD';
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body: bodyless ? undefined : Buffer.concat(chunks),
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, [...response.headers].flat());
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  } catch (error) {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(String(error));
  }
});
listener.listen(0, '127.0.0.1', () => console.log(listener.address().port));
