// Drives replicas of `agentskills mcp --http ... --state URL` behind nginx with the official MCP
// TypeScript SDK client (v2) and its SkillsClient, in both eras (scripts/ci/replicas.sh).
//
//   node replicas_test.cjs --peers DIR --url http://127.0.0.1:PORT/mcp --skills N --kill PID
//
// Phase 1: per era, 3 clients (the 2025-11-25 ones each with its Mcp-Session-Id): every skill
// listed (N of them), and by the first client of each era every file read and verified; the
// activation tool called twice for one skill: the first call gives its instructions, the second
// (2025-11-25) says it is already active, whichever replica answered which. Then both first
// clients read every file again, 8 at a time, and replica PID is killed with SIGKILL in the
// middle, with reads in flight. Phase 2 goes on with the same sessions and with new clients: the
// skill of phase 1 is still active (exactly once per session), a second skill activates once,
// every skill is listed again, and the new clients read and verify every file. Any error the
// client sees fails the test. Prints one JSON summary line.
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

/// Lists every skill (N of them); with `full`, also reads every file of every skill, `width` at a
/// time, each verified against its listed digest. `onRead` runs after each read. The names of the
/// model-invocable skills.
async function verifyAll(c, { full = false, onRead = () => {} } = {}) {
  assert.ok(c.skills.supported, 'the server declares the skills extension');
  const listing = await c.skills.list();
  stats.requests += 1;
  assert.deepEqual(listing.invalid, []);
  assert.equal(listing.skills.length, expectedSkills, 'every served skill is listed');
  if (full) {
    const reads = [];
    for (const entry of listing.skills) {
      for (const resource of entry.resources) reads.push([entry, resource.uri]);
    }
    let next = 0;
    const worker = async () => {
      while (next < reads.length) {
        const [entry, uri] = reads[next];
        next += 1;
        const file = await c.skills.read(entry, uri);
        assert.equal(file.verified, true, `${uri} verified`);
        stats.requests += 1;
        stats.files += 1;
        onRead();
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
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
  // Phase 1: every client lists, the first of each era reads every file; each activates one skill.
  let invocable = [];
  const firsts = [clients[0], clients[3]];
  for (const c of clients) {
    const before = stats.files;
    invocable = await verifyAll(c, { full: firsts.includes(c) });
    if (firsts.includes(c)) stats.filesPerSkillSet = stats.files - before;
    assert.ok(invocable.length >= 1, 'a model-invocable skill to activate');
    await activateOnce(c, invocable[0]);
  }
  const second = invocable[invocable.length > 1 ? 1 : 0];

  // One replica dies while requests are in flight: the first client of each era reads every file
  // again, 8 reads at a time each, and the replica is killed with SIGKILL once a third of them
  // are done. nginx passes the requests that were on it to the others; the client sees nothing.
  const killAt = Math.max(1, Math.floor((2 * stats.filesPerSkillSet) / 3));
  let done = 0;
  let killed = false;
  const onRead = () => {
    done += 1;
    if (!killed && done >= killAt) {
      killed = true;
      process.kill(Number(args.kill), 'SIGKILL');
      stats.killedAfterReads = done;
    }
  };
  await Promise.all(firsts.map((c) => verifyAll(c, { full: true, onRead })));
  assert.ok(killed, 'the replica was killed while the reads went on');

  // Phase 2: the sessions go on through the others, and new clients come.
  const fresh = [await open('legacy'), await open('modern')];
  for (const c of clients) {
    const again = await call(c, invocable[0]);
    if (c.modern) {
      assert.ok(again.includes(`<skill_content name="${invocable[0]}">`));
    } else {
      assert.equal(again, alreadyText(invocable[0]), 'activated exactly once in the session, across replicas');
      stats.already += 1;
    }
    if (second !== invocable[0]) await activateOnce(c, second);
    await verifyAll(c);
  }
  for (const c of fresh) {
    await verifyAll(c, { full: true });
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
