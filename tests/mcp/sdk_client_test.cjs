// Drives `agentskills mcp` with the official MCP TypeScript SDK client (v2) and its SkillsClient.
//
//   node sdk_client_test.cjs --peers DIR --cli PATH --root LIBRARY --era legacy|modern --transport stdio|http
//
// For the era and transport given: lists every skill, reads and verifies every file (the SDK
// checks size, digest and frontmatter), gets one skill, reads its root directory, calls the
// activation tool twice, lists the prompts and gets one; compares the texts with what the CLI's
// `activate` and `render` print. Prints one JSON summary line; exits 1 on the first failure.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const { createRequire } = require('node:module');
const path = require('node:path');
const assert = require('node:assert/strict');

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const k of ['peers', 'cli', 'root', 'era', 'transport']) {
    if (!out[k]) throw new Error(`missing --${k}`);
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
const peerRequire = createRequire(path.join(path.resolve(args.peers), 'package.json'));
const { Client, StreamableHTTPClientTransport } = peerRequire('@modelcontextprotocol/client');
const { StdioClientTransport } = peerRequire('@modelcontextprotocol/client/stdio');
const { SkillsClient } = peerRequire('@modelcontextprotocol/client/ext/skills');

const TOOL = 'activate_skill';
const serverArgs = ['mcp', '--root', args.root, '--skill-directory', 'yes'];

function cli(...rest) {
  return execFileSync(args.cli, rest, { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
}

function startHttpServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(args.cli, [...serverArgs, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    let served;
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const s = /serving (\d+) skills/.exec(text);
      if (s) served = Number(s[1]);
      const m = /listening on (http:\/\/\S+)/.exec(text);
      if (m) resolve({ child, url: new URL(m[1]), served: () => served });
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${text}`)));
  });
}

async function main() {
  const started = Date.now();
  let transport;
  let httpServer;
  let servedCount;
  if (args.transport === 'stdio') {
    transport = new StdioClientTransport({ command: args.cli, args: serverArgs, stderr: 'pipe' });
    let text = '';
    transport.stderr?.on('data', (chunk) => {
      text += chunk;
      const s = /serving (\d+) skills/.exec(text);
      if (s) servedCount = Number(s[1]);
    });
  } else {
    httpServer = await startHttpServer();
    servedCount = httpServer.served();
    transport = new StreamableHTTPClientTransport(httpServer.url);
  }
  const modern = args.era === 'modern';
  const client = new Client(
    { name: 'agentskills-ci', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  try {
    await client.connect(transport);
    assert.equal(client.getNegotiatedProtocolVersion(), modern ? '2026-07-28' : '2025-11-25');

    const skills = new SkillsClient(client);
    assert.ok(skills.supported, 'the server declares the skills extension');
    assert.ok(skills.directoryRead, 'the server declares directoryRead');

    const listing = await skills.list();
    assert.deepEqual(listing.invalid, []);
    assert.ok(listing.skills.length > 0, 'at least one skill is served');
    if (servedCount !== undefined) assert.equal(listing.skills.length, servedCount, 'every served skill is listed');
    if (modern) {
      assert.equal(typeof listing.ttlMs, 'number');
      assert.equal(listing.cacheScope, 'public');
    }

    let files = 0;
    let bytes = 0;
    for (const entry of listing.skills) {
      assert.ok(Array.isArray(entry.resources));
      for (const resource of entry.resources) {
        const file = await skills.read(entry, resource.uri);
        assert.equal(file.verified, true, `${resource.uri} verified`);
        files += 1;
        bytes += file.bytes.byteLength;
      }
    }

    const first = listing.skills[0];
    const got = await skills.get(first.uri);
    assert.deepEqual(got.skill, first);
    const dir = await skills.readDirectory(first.uri.slice(0, -'/SKILL.md'.length));
    assert.ok(dir.resources.some((r) => r.uri === first.uri), 'the root directory lists SKILL.md');

    await assert.rejects(skills.get('skill://no-such-skill-here/SKILL.md'), (e) => e.code === -32602);

    // The activation tool: the same texts as the CLI's `activate` (SkillsShim).
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === TOOL);
    assert.ok(tool, 'the activation tool is listed');
    assert.equal(tool.inputSchema.type, 'object');
    const invocable = listing.skills.find((s) => s.frontmatter['disable-model-invocation'] !== true);
    // The tool takes the catalog name: the skill's URI path, `plugin/skill` read as `plugin:skill`.
    const segments = invocable.uri.slice('skill://'.length, -'/SKILL.md'.length).split('/');
    assert.equal(segments[segments.length - 1], invocable.frontmatter.name);
    const name = segments.join(':');
    const one = await client.callTool({ name: TOOL, arguments: { name } });
    const two = await client.callTool({ name: TOOL, arguments: { name } });
    assert.equal(one.isError, false);
    assert.equal(one.content[0].text, cli('activate', '--root', args.root, name).replace(/\n$/, ''));
    const already =
      `The skill "${name}" is already active: its instructions are in the <skill_content name="${name}"> block ` +
      `that an earlier ${TOOL} call returned in this conversation. Keep following that block; do not call ${TOOL} ` +
      'for this skill again.';
    // Stateless HTTP (2026-07-28) has no session: every call is a first activation.
    const statelessHttp = modern && args.transport === 'http';
    assert.equal(two.content[0].text, statelessHttp ? one.content[0].text : already);

    // Prompts: user-invocable skills; prompts/get is render(arguments).
    const { prompts } = await client.listPrompts();
    const userInvocable = listing.skills.filter((s) => s.frontmatter['user-invocable'] !== false);
    assert.equal(prompts.length, userInvocable.length);
    const prompt = prompts[0];
    assert.deepEqual(prompt.arguments.map((a) => [a.name, a.required]), [['arguments', false]]);
    const rendered = await client.getPrompt({ name: prompt.name, arguments: { arguments: 'alpha beta' } });
    assert.equal(rendered.messages[0].role, 'user');
    assert.equal(
      rendered.messages[0].content.text,
      cli('render', '--root', args.root, prompt.name, 'alpha', 'beta').replace(/\n$/, ''),
    );

    console.log(
      JSON.stringify({
        era: args.era,
        transport: args.transport,
        skills: listing.skills.length,
        files,
        bytes,
        prompts: prompts.length,
        ms: Date.now() - started,
      }),
    );
  } finally {
    await client.close().catch(() => {});
    if (httpServer) httpServer.child.kill('SIGTERM');
  }
}

main().catch((error) => {
  console.error(`sdk_client_test (${args.era}, ${args.transport}) FAILED:`, error);
  process.exit(1);
});
