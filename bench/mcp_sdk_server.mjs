// The SDK's own skills server, for the side-by-side benchmark (bench/mcp_compare.sh):
// loadSkills(DIR) attached to an McpServer, served over stdio with serveStdio.
//   node bench/mcp_sdk_server.mjs PEERS_DIR LIBRARY
import { createRequire } from 'node:module';
import path from 'node:path';

const [peers, library] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(peers), 'package.json'));
const { McpServer } = require('@modelcontextprotocol/server');
const { serveStdio } = require('@modelcontextprotocol/server/stdio');
const { loadSkills } = require('@modelcontextprotocol/server/ext/skills/node');

const catalog = await loadSkills(library);
serveStdio(() => {
  const server = new McpServer({ name: 'sdk-skills', version: '2.4.0' });
  catalog.attach(server);
  return server;
});
