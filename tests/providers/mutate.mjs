// Helpers for scripts/ci/providers.sh (node instead of jq, which CI may lack).
//   node mutate.mjs compact            < JSON  -> the same value on one line
//   node mutate.mjs break FORMAT KIND  < JSON  -> a copy with one field broken, on one line
//   node mutate.mjs request-body       < JSON  -> {method, params} of a JSON-RPC request
// Each broken copy renames a field the provider requires or adds one it does not know, so the
// checker that accepts the original must reject the copy.
import { readFileSync } from 'node:fs';

const value = JSON.parse(readFileSync(0, 'utf8'));
const [mode, format, kind] = process.argv.slice(2);

function rename(obj, from, to) {
  if (!(from in obj)) throw new Error(`mutate: no field ${from} to rename`);
  const out = {};
  for (const [k, v] of Object.entries(obj)) out[k === from ? to : k] = v;
  return out;
}

const breakers = {
  'openai-chat:tool': (v) => ({ ...v, function: rename(v.function, 'parameters', 'input_schema') }),
  'openai-chat:result': (v) => rename(v, 'tool_call_id', 'id'),
  'openai-responses:tool': (v) => rename(v, 'parameters', 'input_schema'),
  'openai-responses:result': (v) => rename(v, 'output', 'content'),
  'anthropic:tool': (v) => rename(v, 'input_schema', 'inputSchema'),
  'anthropic:result': (v) => rename(v, 'tool_use_id', 'tool_call_id'),
  'anthropic:error': (v) => ({ ...v, is_error: 'yes' }),
  'gemini:tool': (v) => ({
    ...v,
    functionDeclarations: [rename(v.functionDeclarations[0], 'parametersJsonSchema', 'input_schema')],
  }),
  'gemini:call_out': (v) => ({ ...v, functionCall: rename(v.functionCall, 'args', 'arguments') }),
  'gemini:result': (v) => ({ ...v, functionResponse: rename(v.functionResponse, 'response', 'output') }),
  'mcp:tool': (v) => rename(v, 'inputSchema', 'input_schema'),
  'mcp:call_out': (v) => ({ ...v, arguments: '{}' }),
  'mcp:result': (v) => rename(v, 'content', 'contents'),
  'mcp:error': (v) => rename(v, 'isError', 'is_error'),
};

let out;
if (mode === 'compact') out = value;
else if (mode === 'request-body') out = { method: value.method, params: value.params };
else if (mode === 'break') {
  const fn = breakers[`${format}:${kind}`] ?? ((v) => ({ ...v, agentskills_unknown_field: true }));
  out = fn(value);
} else {
  console.error(`mutate: unknown mode ${mode}`);
  process.exit(2);
}
process.stdout.write(JSON.stringify(out) + '\n');
