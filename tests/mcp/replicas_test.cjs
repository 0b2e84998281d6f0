// Drives replicas of `agentskills mcp --http ... --state URL` behind nginx with the official MCP
// TypeScript SDK client (v2) and its SkillsClient, in both eras (scripts/ci/replicas.sh).
//
//   node replicas_test.cjs --peers DIR --url http://127.0.0.1:PORT/mcp --skills N --kill PID
//
// Phase 1: per era, 3 clients (the 2025-11-25 ones each with its Mcp-Session-Id): every skill
// listed (N of them) and every file read and verified; the activation tool called twice for one
// skill: the first call gives its instructions, the second (2025-11-25) says it is already
// active, whichever replica answered which. Then replica PID is killed with SIGKILL, and phase 2
// goes on with the same sessions and with new clients: the skill of phase 1 is still active
// (exactly once per session), a second skill activates once, every skill is listed and verified
// again. Any error the client sees fails the test. Prints one JSON summary line.
'use strict';
const { createRequire } = require('node:module');
const path = require('node:path');
const assert = require('node:assert/strict');

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const k of ['peers', 'url', 'skills', 'kill']) {
    if (!out[k]) throw new Error(`missing --${k}`);
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
const peerRequire = createRequire(path.join(path.resolve(args.peers), 'package.json'));
const { Client, StreamableHTTPClientTransport } = peerRequire('@modelcontextprotocol/client');
const { SkillsClient } = peerRequire('@modelcontextprotocol/client/ext/skills');

const TOOL = 'activate_skill';
const expectedSkills = Number(args.skills);
const stats = { clients: 0, requests: 0, files: 0, activations: 0, already: 0 };

function alreadyText(name) {
  return (
    `The skill "${name}" is already active: its instructions are in the <skill_content name="${name}"> block ` +
    `that an earlier ${TOOL} call returned in this conversation. Keep following that block; do not call ${TOOL} ` +
    'for this skill again.'
  );
}

async function open(era) {
  const modern = era === 'modern';
  const client = new Client(
    { name: 'agentskills-replicas', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(args.url));
  await client.connect(transport);
  assert.equal(client.getNegotiatedProtocolVersion(), modern ? '2026-07-28' : '2025-11-25');
  if (!modern) assert.ok(transport.sessionId, 'the 2025-11-25 era has an Mcp-Session-Id');
  stats.clients += 1;
  return { era, modern, client, transport, skills: new SkillsClient(client) };
}

async function verifyAll(c) {
  assert.ok(c.skills.supported, 'the server declares the skills extension');
  const listing = await c.skills.list();
  stats.requests += 1;
  assert.deepEqual(listing.invalid, []);
  assert.equal(listing.skills.length, expectedSkills, 'every served skill is listed');
  for (const entry of listing.skills) {
    for (const resource of entry.resources) {
      const file = await c.skills.read(entry, resource.uri);
      assert.equal(file.verified, true, `${resource.uri} verified`);
      stats.requests += 1;
      stats.files += 1;
    }
  }
  return listing.skills.filter((s) => s.frontmatter['disable-model-invocation'] !== true).map((s) => s.frontmatter.name);
}

async function call(c, name) {
  const r = await c.client.callTool({ name: TOOL, arguments: { name } });
  stats.requests += 1;
  assert.equal(r.isError, false, `${TOOL} ${name}`);
  return r.content[0].text;
}

/// The first call for `name` in this session: its instructions; the second: already active
/// (in the stateless era every call is a first one).
async function activateOnce(c, name) {
  const one = await call(c, name);
  assert.ok(one.includes(`<skill_content name="${name}">`), `the first ${TOOL} ${name} gives the instructions`);
  stats.activations += 1;
  const two = await call(c, name);
  if (c.modern) {
    assert.equal(two, one);
  } else {
    assert.equal(two, alreadyText(name), `the second ${TOOL} ${name} in one session says already active`);
    stats.already += 1;
  }
}

async function main() {
  const started = Date.now();
  const clients = [];
  for (const era of ['legacy', 'modern']) {
    for (let i = 0; i < 3; i += 1) clients.push(await open(era));
  }
  let invocable = [];
  for (const c of clients) {
    invocable = await verifyAll(c);
    assert.ok(invocable.length >= 2, 'two model-invocable skills to activate');
    await activateOnce(c, invocable[0]);
  }

  // One replica dies; the sessions go on through the others.
  process.kill(Number(args.kill), 'SIGKILL');

  const fresh = [await open('legacy'), await open('modern')];
  for (const c of clients) {
    const again = await call(c, invocable[0]);
    if (c.modern) {
      assert.ok(again.includes(`<skill_content name="${invocable[0]}">`));
    } else {
      assert.equal(again, alreadyText(invocable[0]), 'activated exactly once in the session, across replicas');
      stats.already += 1;
    }
    await activateOnce(c, invocable[1]);
    await verifyAll(c);
  }
  for (const c of fresh) {
    await verifyAll(c);
    await activateOnce(c, invocable[0]);
  }
  // DELETE ends each 2025-11-25 session, whichever replica answers.
  for (const c of [...clients, ...fresh]) {
    if (!c.modern) await c.transport.terminateSession();
    await c.client.close();
  }
  console.log(JSON.stringify({ ...stats, skills: expectedSkills, ms: Date.now() - started }));
}

main().catch((error) => {
  console.error('replicas_test FAILED:', error);
  process.exit(1);
});
