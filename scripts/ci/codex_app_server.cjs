// Drives `codex app-server` over stdio (JSON-RPC, one JSON object per line) without a model call:
// initialize, initialized, then the requests asked for, and checks their answers.
//
//   node codex_app_server.cjs --codex PATH [--server NAME,NAME,... --tool TOOL --resources URI,URI,...
//                             [--thread-cwd DIR]] [--skills-cwd DIR --skills NAME,NAME,...
//                             [--descriptions FILE]]
//
// --server: `mcpServerStatus/list` must list each MCP server NAME (as `codex mcp add` wrote them
// into $CODEX_HOME/config.toml) with its serverInfo (the initialize handshake completed), no tool
// error, the tool TOOL (codex keys its tools by name) and exactly the resources whose URIs are
// given (in any order). Without a thread, `runtimeStatus` is null: Codex connects to each server
// for the listing itself. --thread-cwd: then `thread/start` (ephemeral, no turn) in DIR and the
// same listing for that thread, where each server's `runtimeStatus` must be `connected`.
// --skills-cwd: `skills/list {cwds: [DIR]}` must list, for DIR, exactly the skills NAME,... (the
// skills Codex itself finds from DIR: its project folders and the user's; a check of its folders).
// --descriptions: a JSON object {NAME: DESCRIPTION}; each skill listed that it names must have
// that description, and the skills Codex refuses are printed with its message.
//
// The protocol is the one `codex app-server generate-json-schema --out DIR` writes out
// (ClientRequest.json: `initialize` with `clientInfo`, the `initialized` notification,
// `mcpServerStatus/list` -> `{data: [McpServerStatus], nextCursor}`, `skills/list` -> `{data:
// [{cwd, skills, errors}]}`). HOME and CODEX_HOME come from the environment: a temporary home.
// Prints what it found; exits 1 with the message and the app-server's answer on a difference.
'use strict';
const { spawn } = require('node:child_process');
const readline = require('node:readline');

function args() {
  const out = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      throw new Error(`bad argument ${argv[i]}`);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  const required = out.server === undefined ? ['codex'] : ['codex', 'tool', 'resources'];
  for (const key of required) {
    if (out[key] === undefined) throw new Error(`--${key} is required`);
  }
  return out;
}

const opts = args();
const list = (text) => (text === '' ? [] : text.split(',')).sort();
const child = spawn(opts.codex, ['app-server', '--listen', 'stdio://'], {
  stdio: ['pipe', 'pipe', 'pipe'],
  env: process.env,
});
let stderr = '';
child.stderr.on('data', (chunk) => {
  stderr += chunk;
});
const pending = new Map();
let nextId = 1;
readline.createInterface({ input: child.stdout }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;  // not ours to judge: only answers to our requests count
  }
  if (message.id !== undefined && pending.has(message.id) && message.method === undefined) {
    const { resolve, reject, method } = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) {
      reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
    } else {
      resolve(message.result);
    }
  }
});
child.on('exit', (code, signal) => {
  for (const { reject, method } of pending.values()) {
    reject(new Error(`${method}: codex app-server exited (${code ?? signal}) before answering`));
  }
  pending.clear();
});

function send(message) {
  child.stdin.write(JSON.stringify(message) + '\n');
}
function request(method, params) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, method });
    send({ id, method, params });
  });
}

function fail(message, detail) {
  console.error(`codex_app_server.cjs: ${message}`);
  if (detail !== undefined) console.error(JSON.stringify(detail, null, 1));
  process.exitCode = 1;
}

async function checkServers(threadId) {
  // Every page, in full detail (tools, resources, templates).
  const servers = [];
  let cursor = null;
  do {
    const page = await request('mcpServerStatus/list', { cursor, detail: 'full', threadId });
    servers.push(...page.data);
    cursor = page.nextCursor ?? null;
  } while (cursor);
  for (const name of opts.server.split(',')) {
    const ours = servers.find((s) => s.name === name);
    if (!ours) {
      fail(`no MCP server ${name} in mcpServerStatus/list`, servers);
      continue;
    }
    const tools = Object.values(ours.tools ?? {}).map((t) => t.name);
    const resources = (ours.resources ?? []).map((r) => r.uri).sort();
    console.log(`mcpServerStatus/list${threadId ? ' (thread)' : ''}: ${ours.name}: server ${ours.serverInfo?.name}` +
      ` ${ours.serverInfo?.version}, ${threadId ? `runtime ${ours.runtimeStatus}, ` : ''}` +
      `tools [${tools.join(', ')}], ${resources.length} resources,` +
      ` ${(ours.resourceTemplates ?? []).length} resource templates`);
    if (ours.toolsError) fail(`${name}: tool discovery failed: ${ours.toolsError}`, ours);
    if ((threadId || ours.runtimeStatus) && ours.runtimeStatus !== 'connected') {
      fail(`${name}: runtime status ${ours.runtimeStatus}, not connected`, ours);
    }
    if (!ours.serverInfo) fail(`${name}: no serverInfo: the initialize handshake did not complete`);
    if (!tools.includes(opts.tool)) fail(`${name}: no tool ${opts.tool}`);
    const expected = list(opts.resources);
    if (JSON.stringify(resources) !== JSON.stringify(expected)) {
      fail(`${name}: resources differ: expected ${expected.join(' ')}, got ${resources.join(' ')}`);
    }
  }
}

async function main() {
  const init = await request('initialize', {
    clientInfo: { name: 'agentskills-ci', title: 'agentskills CI', version: '0.0.0' },
  });
  send({ method: 'initialized' });
  console.log(`codex app-server: ${init.userAgent ?? JSON.stringify(init)}`);

  if (opts.server !== undefined) {
    await checkServers(undefined);
    if (opts['thread-cwd'] !== undefined) {
      // A thread's own connections: runtimeStatus must be `connected`. No turn is started, so no
      // model is asked; the thread's model provider must point nowhere (agents.sh: 127.0.0.1:9).
      const started = await request('thread/start', { ephemeral: true, cwd: opts['thread-cwd'] });
      await checkServers(started.thread.id);
    }
  }

  if (opts['skills-cwd'] !== undefined) {
    const answer = await request('skills/list', { cwds: [opts['skills-cwd']], forceReload: true });
    const entry = answer.data.find((e) => e.cwd === opts['skills-cwd']) ?? answer.data[0];
    const found = (entry?.skills ?? []).filter((s) => s.scope !== 'system');
    const names = found.map((s) => s.name).sort();
    console.log(`skills/list: ${names.length} skills (${found.map((s) => `${s.name}:${s.scope}`).join(' ')})` +
      `${entry?.errors?.length ? `, ${entry.errors.length} errors` : ''}`);
    if (opts.descriptions !== undefined) {
      const expected = JSON.parse(require('node:fs').readFileSync(opts.descriptions, 'utf-8'));
      for (const s of found) {
        if (!(s.name in expected)) continue;
        if (s.description === expected[s.name]) {
          console.log(`skills/list: ${s.name}: ${JSON.stringify(s.description)}`);
        } else {
          fail(`skills/list: ${s.name}: description ${JSON.stringify(s.description)}, expected ` +
            JSON.stringify(expected[s.name]));
        }
      }
      for (const e of entry?.errors ?? []) console.log(`skills/list: refused ${e.path}: ${e.message}`);
    }
    const want = list(opts.skills ?? '');
    if (JSON.stringify(names) !== JSON.stringify(want)) {
      fail(`skills/list from ${opts['skills-cwd']}: expected ${want.join(' ')}, got ${names.join(' ')}`,
        { skills: found.map((s) => `${s.name} (${s.scope}): ${s.path}`), errors: entry?.errors });
    }
  }
}

const timer = setTimeout(() => {
  fail('codex app-server did not answer within 60 s');
  child.kill();
}, 60000);
main()
  .catch((error) => fail(error.message))
  .finally(() => {
    clearTimeout(timer);
    child.stdin.end();
    child.kill();
    if (process.exitCode && stderr) console.error(`codex app-server stderr:\n${stderr.slice(-4000)}`);
  });
