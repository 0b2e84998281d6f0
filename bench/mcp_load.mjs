// Load test of `agentskills mcp --http`: CLIENTS concurrent clients, each with its own keep-alive
// connection and handshake-era session, send REQUESTS mixed requests (skills/list pages,
// skills/get, resources/read of any listed file, tools/call of the activation tool, and every
// eighth one as a stateless 2026-07-28 request). Loopback only; stops by itself.
//
//   node bench/mcp_load.mjs URL [CLIENTS] [REQUESTS]
//
// Prints one JSON line: requests, errors, seconds, req/s, p50/p99/max latency (ms).
import http from 'node:http';

const url = new URL(process.argv[2] ?? 'http://127.0.0.1:8080/mcp');
if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') throw new Error('loopback only');
const clients = Number(process.argv[3] ?? 64);
const perClient = Number(process.argv[4] ?? 2000);
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

// The 2026-07-28 transport's header value of a mirrored field (Mcp-Name): itself when plain
// visible ASCII without outer spaces and not the sentinel pattern, else the base64 sentinel.
function headerValue(value) {
  const plain = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/.test(value);
  const sentinel = value.startsWith('=?base64?') && value.endsWith('?=');
  return plain && !sentinel ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function post(agent, body, headers = {}) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
        timeout: 30000,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode, headers: res.headers, json: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload);
  });
}

async function client(index, latencies) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let errors = 0;
  const init = await post(agent, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `load-${index}`, version: '1' } },
  });
  const session = init.headers['mcp-session-id'];
  if (init.status !== 200 || !session) throw new Error(`initialize failed: ${init.status}`);
  const legacy = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await post(agent, { jsonrpc: '2.0', method: 'notifications/initialized' }, legacy);
  const first = await post(agent, { jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} }, legacy);
  const skills = first.json.result.skills;
  const files = skills.flatMap((s) => s.resources.map((r) => r.uri));
  let cursor = first.json.result.nextCursor;
  for (let i = 0; i < perClient; i++) {
    const pick = (i * 7919 + index * 104729) >>> 0;
    const skill = skills[pick % skills.length];
    let method;
    let params;
    switch (i % 4) {
      case 0:
        method = 'skills/list';
        params = cursor ? { cursor } : {};
        break;
      case 1:
        method = 'skills/get';
        params = { uri: skill.uri };
        break;
      case 2:
        method = 'resources/read';
        params = { uri: files[pick % files.length] };
        break;
      default:
        method = 'tools/call';
        params = { name: 'activate_skill', arguments: { name: skill.frontmatter.name } };
    }
    const modern = i % 8 === 5;
    const headers = modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method } : legacy;
    const named = method === 'tools/call' ? params.name : method === 'resources/read' ? params.uri : undefined;
    if (modern && named !== undefined) headers['mcp-name'] = headerValue(named);
    const body = { jsonrpc: '2.0', id: i + 2, method, params: modern ? { ...params, _meta: META } : params };
    const start = process.hrtime.bigint();
    try {
      const res = await post(agent, body, headers);
      latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (res.status !== 200 || !res.json || res.json.error) {
        errors++;
      } else if (method === 'skills/list') {
        cursor = res.json.result.nextCursor;
      }
    } catch {
      latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
      errors++;
    }
  }
  agent.destroy();
  return errors;
}

const latencies = [];
const started = process.hrtime.bigint();
const errors = (await Promise.all(Array.from({ length: clients }, (_, i) => client(i, latencies)))).reduce(
  (a, b) => a + b,
  0,
);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
console.log(
  JSON.stringify({
    clients,
    requests: latencies.length,
    errors,
    seconds: Number(seconds.toFixed(2)),
    rps: Math.round(latencies.length / seconds),
    p50_ms: Number(at(0.5).toFixed(2)),
    p99_ms: Number(at(0.99).toFixed(2)),
    max_ms: Number(latencies[latencies.length - 1].toFixed(2)),
  }),
);
process.exit(errors === 0 && latencies.length === clients * perClient ? 0 : 1);
