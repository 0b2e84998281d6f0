// Checks JSON values against the MCP SDK's own zod schemas (@modelcontextprotocol/core).
// Usage: node mcp_check.mjs CASES.json, where CASES.json is an array of
// {"label", "schema" (an export of the package, e.g. "ToolSchema"), "value", "valid" (expected)}.
// A value counts as valid when the schema, made strict at the top level (MCP results admit extra
// keys, but an extra key in what the library emits is a misspelt field), accepts it and keeps
// every field: zod drops nested keys a schema does not know, so a dropped key is an unknown field.
// Exits 1 on any unexpected verdict.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import * as core from '@modelcontextprotocol/core';

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let failures = 0;
for (const c of cases) {
  const schema = core[c.schema];
  if (!schema || typeof schema.safeParse !== 'function') {
    console.error(`mcp: ${c.label}: no zod schema named ${c.schema}`);
    failures++;
    continue;
  }
  const checker = typeof schema.strict === 'function' ? schema.strict() : schema;
  const parsed = checker.safeParse(c.value);
  let problem = null;
  if (!parsed.success) problem = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  else if (!isDeepStrictEqual(parsed.data, c.value)) problem = `unknown fields dropped: ${JSON.stringify(parsed.data)}`;
  const valid = problem === null;
  if (valid !== c.valid) {
    failures++;
    console.error(`mcp: ${c.label}: expected ${c.valid ? 'valid' : 'invalid'} under ${c.schema}, got ${valid ? 'valid' : problem}`);
  } else {
    console.log(`mcp: ${c.label}: ${valid ? 'valid' : 'rejected as expected'} (${c.schema})`);
  }
}
process.exit(failures === 0 ? 0 : 1);
