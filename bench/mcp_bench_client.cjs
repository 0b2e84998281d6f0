// The client of the side-by-side benchmark (bench/mcp_compare.sh): starts SERVER... over stdio
// under /usr/bin/time, lists every skill with the SDK's SkillsClient and reads (and verifies)
// every file, then prints {skills, files, bytes, server_cpu_s} as one JSON line.
//   node bench/mcp_bench_client.cjs PEERS_DIR TIME_OUTPUT SERVER_COMMAND [ARGS...]
'use strict';
const { createRequire } = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

const [peers, timeOut, command, ...args] = process.argv.slice(2);
const peerRequire = createRequire(path.join(path.resolve(peers), 'package.json'));
const { Client } = peerRequire('@modelcontextprotocol/client');
const { StdioClientTransport } = peerRequire('@modelcontextprotocol/client/stdio');
const { SkillsClient } = peerRequire('@modelcontextprotocol/client/ext/skills');

async function main() {
  const transport = new StdioClientTransport({
    command: '/usr/bin/time',
    args: ['-f', '%U %S', '-o', timeOut, command, ...args],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const skills = new SkillsClient(client, { skipInvalid: true });
  const { skills: entries, invalid } = await skills.list();
  let files = 0;
  let bytes = 0;
  for (const entry of entries) {
    for (const resource of entry.resources) {
      const file = await skills.read(entry, resource.uri);
      files += 1;
      bytes += file.bytes.byteLength;
    }
  }
  await client.close();
  for (let i = 0; i < 100 && !(fs.existsSync(timeOut) && fs.readFileSync(timeOut, 'utf8').trim()); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const [user, sys] = fs.readFileSync(timeOut, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
  console.log(JSON.stringify({ skills: entries.length, invalid: invalid.length, files, bytes, server_cpu_s: +(user + sys).toFixed(3) }));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
