// The MCP server's frontmatter against the official SDK's own frontmatter reader, differentially.
//
//   node sdk_frontmatter.cjs --peers DIR --cli PATH --tmp DIR [--corpus DIR]
//
// The SDK's client re-parses every SKILL.md it verifies with its own YAML subset reader
// (`src/ext/skills/frontmatter.ts` of @modelcontextprotocol/server and /client 2.4.0); `skillEntry`
// of @modelcontextprotocol/server/ext/skills is its public way in. For every skill directory of a
// generated library of YAML shapes, of 600 mutated corpus frontmatters and of every library of
// ../shared/corpus, this compares what
// `agentskills mcp --root LIB` serves (skills/list, 2026-07-28, over stdio) with what skillEntry
// makes of the same SKILL.md:
//
//   * a skill we serve: the SDK reads it, and to the same frontmatter JSON;
//   * a skill we leave out as outside the SDK's subset: the SDK's reader refuses it;
//   * a skill the SDK accepts that we do not serve: counted, with its reason (our loader's rules).
//
// Prints one line per library and a total; exits 1 on the first kind of difference above.
'use strict';
const { spawn } = require('node:child_process');
const { createRequire } = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

// The SDK client's comparison: objects in any key order, arrays in order, values by === (so 0
// and -0 are one number, as JSON has it).
function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  const object = (v) => v !== null && typeof v === 'object';
  if (object(a) || object(b)) {
    if (!object(a) || !object(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => Object.hasOwn(a, k) && Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const k of ['peers', 'cli', 'tmp']) if (!out[k]) throw new Error(`missing --${k}`);
  return out;
}
const args = parseArgs(process.argv.slice(2));
const peerRequire = createRequire(path.join(path.resolve(args.peers), 'package.json'));
const { skillEntry } = peerRequire('@modelcontextprotocol/server/ext/skills');

// Values of the shapes YAML readers disagree on, each under `x-shape` of a valid skill, and some
// whole frontmatters around them.
const VALUES = [
  '[optional: date]', '[a, {b: c}]', '[{a: b}, {c: d}]', '{a: b}', '{a: [b, c]}', '[[a, b], [c]]', '[a, [b, [c]]]',
  '{a: {b: {c: d}}}', '[a: b, c]', '{a}', '{a: }', '{a:b}', '[a, b,]', '[]', '{}', '[ a , b ]', '["a, b", \'c\']',
  '[a,\n  b]', '{a: b,\n  c: d}', '|\n  x\n  y', '|-\n  x', '|+\n  x\n\n', '>\n  x\n  y', '>-\n  folded\n  text',
  '>\n  a\n\n  b\n    c\n  d', '|2\n   x', '|1-\n  x', '>+2\n    x', '&a x', '*a', '!!str x', '!!int 1', '!custom x',
  'plain\n  continued\n  again', 'plain\n\n  after a blank', 'x # comment', "'it''s'", '"esc\\n\\t\\u00e9\\x41"',
  '"two\n  lines"', "'two\n  lines'", '', '~', 'null', 'Null', 'true', 'False', '1.5', '0x1F', '0o17', '007', '+1', '1e3',
  '.5', '12345678901234567890', '-0', 'a b c', 'x:y', 'http://x/y', '- x', '? x', '@at', '`tick', '%pct', ',x', '#x',
  "'quoted' # c", '"a" # c', 'tab\there', '"\\u263A"', '😀 emoji', '[optional: date, other]',
];
const FRONTMATTERS = [
  (n) => `name: ${n}\ndescription: d\nmetadata:\n  a: b\n  c: "d"\n`,
  (n) => `name: ${n}\ndescription: >\n  folded\n  description\n`,
  (n) => `name: ${n}\ndescription: d\nallowed-tools:\n- Read\n- Write\n`,
  (n) => `name: ${n}\ndescription: d\nlist:\n  - a: 1\n    b: 2\n  - - x\n    - y\n`,
  (n) => `name: ${n}\ndescription: d\n1: one\n`,
  (n) => `name: ${n}\ndescription: d\ntrue: yes\n`,
  (n) => `name: ${n}\ndescription: d\n"quoted key": v\n`,
  (n) => `name: ${n}\ndescription: d\n? complex\n: value\n`,
  (n) => `name: ${n}\ndescription: d\n__proto__: x\n`,
  (n) => `name: ${n}\ndescription: d\nnested:\n\tkey: v\n`,
  (n) => `name: ${n}\ndescription: |\n  text\n\twith a tab line\n`,
  (n) => `name: ${n}\ndescription: d # comment\n# a comment line\nlicense: MIT\n`,
  (n) => `  name: ${n}\n  description: indented\n`,
  (n) => `{name: ${n}, description: d}\n`,
  (n) => `name: ${n}\ndescription: d\ndeep: ${'['.repeat(33)}x${']'.repeat(33)}\n`,
  (n) => `name: ${n}\ndescription: d\ndeep: ${'['.repeat(31)}x${']'.repeat(31)}\n`,
  (n) => `name: ${n}\ndescription: d\nkey:   spaced   \n`,
  (n) => `name: ${n}\ndescription: "d"\r\nlicense: crlf\r\n`,
];

function writeShapes(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  let i = 0;
  const add = (frontmatter) => {
    const name = `shape-${i++}`;
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    fs.writeFileSync(path.join(dir, name, 'SKILL.md'), `---\n${frontmatter(name)}---\nBody.\n`);
  };
  for (const value of VALUES) {
    const lines = value.split('\n');
    add((n) => `name: ${n}\ndescription: d\nx-shape: ${lines[0]}${lines.slice(1).map((l) => `\n${l}`).join('')}\n`);
    add((n) => `name: ${n}\ndescription: d\nx-list:\n  - ${lines[0]}${lines.slice(1).map((l) => `\n  ${l}`).join('')}\n`);
  }
  for (const f of FRONTMATTERS) add(f);
  return dir;
}

// Corpus frontmatters with YAML indicator characters inserted, deleted or replaced at random
// (a fixed seed: the same inputs on every run); `name` is set to the directory's.
function writeMutations(dir, corpus, count) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name === 'SKILL.md') files.push(path.join(d, e.name));
    }
  };
  walk(path.join(corpus, 'libraries'));
  files.sort();
  let state = 20261204;
  const random = (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const pieces = [...'-?:,[]{}#&*!|>\'"%@` \t\n', '...', '- ', ': ', '\n  ', '[a: b]', '{', '"', "'"];
  for (let i = 0; i < count && files.length; i++) {
    const text = fs.readFileSync(files[random(files.length)], 'utf8');
    const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
    if (!m) continue;
    const name = `mutation-${i}`;
    let yaml = m[1].replace(/^name:.*$/m, `name: ${name}`);
    for (let k = 1 + random(3); k > 0; k--) {
      const at = random(yaml.length + 1);
      const piece = pieces[random(pieces.length)];
      const op = random(3);
      yaml = op === 0 ? yaml.slice(0, at) + piece + yaml.slice(at)
        : op === 1 ? yaml.slice(0, at) + yaml.slice(at + 1) : yaml.slice(0, at) + piece + yaml.slice(at + 1);
    }
    fs.mkdirSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, name, 'SKILL.md'), `---\n${yaml}\n---\nBody.\n`);
  }
  return dir;
}

// What `agentskills mcp` serves (each skill with the SKILL.md bytes it serves, read back with
// resources/read as a client reads them) and leaves out (name -> [path, reason]), over stdio.
function serve(root) {
  return new Promise((resolve, reject) => {
    const child = spawn(args.cli, ['mcp', '--root', root], { stdio: ['pipe', 'pipe', 'pipe'] });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const pending = new Map();
    let id = 0;
    const call = (method, params) => new Promise((res, rej) => {
      pending.set(++id, { res, rej });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } })}\n`);
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk) => { err += chunk; });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      let nl;
      while ((nl = out.indexOf('\n')) >= 0) {
        const msg = JSON.parse(out.slice(0, nl));
        out = out.slice(nl + 1);
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) p.rej(new Error(JSON.stringify(msg.error)));
        else p.res(msg.result);
      }
    });
    const exited = new Promise((res) => child.on('exit', res));
    child.on('error', reject);
    (async () => {
      const served = new Map();
      let cursor;
      do {
        const page = await call('skills/list', cursor ? { cursor } : {});
        for (const s of page.skills) served.set(s.frontmatter.name, { entry: s });
        cursor = page.nextCursor;
      } while (cursor);
      for (const [, s] of served) {
        const read = await call('resources/read', { uri: s.entry.uri });
        s.text = read.contents[0].text;
      }
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`agentskills mcp exited ${code}: ${err.slice(-2000)}`);
      const leftOut = new Map();
      for (const m of err.matchAll(/^agentskills mcp: left out (\S+) \((.*)\): (.*) \[mcp-skill-left-out\]$/gm)) {
        leftOut.set(m[1], [m[2], m[3]]);
      }
      return { served, leftOut };
    })().then(resolve, (e) => { child.kill(); reject(e); });
  });
}

async function sdkVerdict(dirName, text) {
  try {
    const skill = await skillEntry(dirName, { 'SKILL.md': text });
    return { ok: true, frontmatter: skill.frontmatter };
  } catch (e) {
    const problems = (e.problems || []).map((p) => p.message);
    const reader = problems.find((p) => p.startsWith('SKILL.md frontmatter:'));
    return reader ? { reader } : { rules: problems.length ? problems : [String(e)] };
  }
}

const SUBSET = "which the official MCP SDK's frontmatter reader does not read";

async function checkLibrary(root) {
  const { served, leftOut } = await serve(root);
  const failures = [];
  let agree = 0;
  let outsideSubset = 0;
  for (const [name, s] of served) {
    const sdk = await sdkVerdict(name, s.text);
    if (!sdk.ok) failures.push(`${name}: served, but the SDK refuses it: ${sdk.reader || sdk.rules.join('; ')}`);
    else if (!same(s.entry.frontmatter, sdk.frontmatter)) {
      failures.push(`${name}: served as ${JSON.stringify(s.entry.frontmatter)}, the SDK reads ${JSON.stringify(sdk.frontmatter)}`);
    } else agree++;
  }
  for (const [name, [file, reason]] of leftOut) {
    if (!reason.includes(SUBSET)) continue;
    outsideSubset++;
    const sdk = await sdkVerdict(name, fs.readFileSync(file, 'utf8'));
    if (!sdk.reader) failures.push(`${name}: left out as outside the SDK's subset (${reason}), but the SDK reads it`);
  }
  // What the SDK would serve from a directory that we do not serve under that name.
  const notServed = [];
  for (const dirName of fs.readdirSync(root).sort()) {
    const file = path.join(root, dirName, 'SKILL.md');
    if (served.has(dirName) || !fs.existsSync(file)) continue;
    if ((await sdkVerdict(dirName, fs.readFileSync(file, 'utf8'))).ok) {
      notServed.push(`${dirName}: ${leftOut.has(dirName) ? leftOut.get(dirName)[1] : 'skipped by the loader'}`);
    }
  }
  return { failures, agree, outsideSubset, notServed };
}

async function main() {
  const libraries = [writeShapes(path.join(args.tmp, 'shapes'))];
  if (args.corpus && fs.existsSync(path.join(args.corpus, 'libraries'))) {
    libraries.push(writeMutations(path.join(args.tmp, 'mutations'), args.corpus, 600));
    for (const lib of ['anthropics__skills/skills', 'getsentry__skills/skills', 'obra__superpowers/skills',
      'openai__skills/skills/.curated', 'openai__skills/skills/.system', 'openai__skills/skills/.experimental',
      'vercel-labs__agent-skills/skills', 'K-Dense-AI__claude-scientific-skills/scientific-skills',
      'github__awesome-copilot/skills', 'ComposioHQ__awesome-claude-skills',
      'ComposioHQ__awesome-claude-skills/composio-skills']) {
      const dir = path.join(args.corpus, 'libraries', lib);
      if (fs.existsSync(dir)) libraries.push(dir);
    }
  }
  let failed = 0;
  let total = 0;
  for (const root of libraries) {
    const r = await checkLibrary(root);
    total += r.agree;
    console.log(`sdk_frontmatter: ${root}: ${r.agree} served and read alike by the SDK, ${r.outsideSubset} left out ` +
      `as outside its subset (the SDK refuses each), ${r.notServed.length} it accepts that we do not serve` +
      (r.failures.length ? `, ${r.failures.length} DIFFER` : ''));
    for (const n of r.notServed.slice(0, 3)) console.log(`  not served: ${n}`);
    for (const f of r.failures.slice(0, 10)) console.log(`  DIFFERS: ${f}`);
    failed += r.failures.length;
  }
  console.log(`sdk_frontmatter: ${total} skills compared, ${failed} differences`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
