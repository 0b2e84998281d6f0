-- wrk script for bench/mcp_wrk.sh: 2026-07-28 era (stateless) MCP requests over Streamable HTTP,
-- in turn: skills/list, skills/get, resources/read (the skill's SKILL.md) and, unless MIX is 3,
-- tools/call of the activation tool; each with MCP-Protocol-Version, Mcp-Method and, where the
-- transport asks for it, Mcp-Name. A response that is not 200 or whose body holds a JSON-RPC
-- error counts as an error (printed at the end as one JSON line).
--   wrk ... -s bench/mcp_wrk.lua URL -- SKILL_NAME [MIX] [TOOL]
local requests = {}
local next_request = 1
errors = 0

local meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
  .. '"io.modelcontextprotocol/clientCapabilities":{}}'

local function add(method, params, name)
  local headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2026-07-28",
    ["Mcp-Method"] = method,
  }
  if name then headers["Mcp-Name"] = name end
  local sep = params == "" and "" or ","
  local body = '{"jsonrpc":"2.0","id":1,"method":"' .. method .. '","params":{' .. params .. sep .. meta .. '}}'
  requests[#requests + 1] = wrk.format("POST", nil, headers, body)
end

function init(args)
  local skill = args[1] or "alpha"
  local mix = tonumber(args[2] or "4")
  local tool = args[3] or "activate_skill"
  local uri = "skill://" .. skill .. "/SKILL.md"
  add("skills/list", "", nil)
  add("skills/get", '"uri":"' .. uri .. '"', nil)
  add("resources/read", '"uri":"' .. uri .. '"', uri)
  if mix >= 4 then
    add("tools/call", '"name":"' .. tool .. '","arguments":{"name":"' .. skill .. '"}', tool)
  end
  next_request = 1
end

function request()
  local r = requests[next_request]
  next_request = next_request % #requests + 1
  return r
end

function response(status, headers, body)
  if status ~= 200 or string.find(body, '"error":', 1, true) then errors = errors + 1 end
end

local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
end

function done(summary, latency, requests_done)
  local bad = 0
  for _, t in ipairs(threads) do bad = bad + t:get("errors") end
  io.write(string.format(
    '{"requests":%d,"seconds":%.2f,"req_per_s":%.0f,"p50_ms":%.2f,"p99_ms":%.2f,"max_ms":%.2f,'
      .. '"errors":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    bad, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
