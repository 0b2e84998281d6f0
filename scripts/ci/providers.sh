#!/usr/bin/env bash
# scripts/ci/providers.sh BUILD_DIR [WORK_DIR]
#
# Checks the JSON that `agentskills tool-schema --format X` and `agentskills tool-call --format X`
# emit against the providers' own SDK types: OpenAI (chat completions and Responses), Anthropic and
# Google Gemini with `tsc --strict` (each JSON is an object literal typed with the SDK type, so a
# missing or unknown field fails), and MCP with the SDK's zod schemas under node (a field the
# schema does not know fails too). Negative controls: a copy of every value with one field broken
# must be rejected, so a checker that accepts anything fails the script.
#
# The npm packages come from `setup-mcp-peers.sh` (../shared/peers relative to the repo root; set
# AGENTSKILLS_PEERS_SETUP to another copy) installed into a temporary folder, or from an existing
# install: AGENTSKILLS_PROVIDER_PEERS=DIR (a folder holding node_modules/openai, ...).
# WORK_DIR (default: a new temporary folder) receives the generated files. Exits non-zero on failure.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [WORK_DIR]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
cli="$build/agentskills"
[ -x "$cli" ] || { echo "providers: no agentskills program in $build" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
fixtures="$repo/tests/providers"
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/agentskills-providers.XXXXXX")}
mkdir -p "$work"

peers=${AGENTSKILLS_PROVIDER_PEERS:-}
if [ -z "$peers" ]; then
    setup=${AGENTSKILLS_PEERS_SETUP:-$repo/../shared/peers/setup-mcp-peers.sh}
    peers="$work/peers"
    echo "providers: installing the SDKs into $peers"
    bash "$setup" "$peers" >/dev/null
fi
for pkg in openai @anthropic-ai/sdk @google/genai @modelcontextprotocol/core typescript; do
    [ -d "$peers/node_modules/$pkg" ] || { echo "providers: $pkg is not installed in $peers" >&2; exit 2; }
done
echo "providers: SDKs openai $(node -p "require('$peers/node_modules/openai/package.json').version")," \
    "@anthropic-ai/sdk $(node -p "require('$peers/node_modules/@anthropic-ai/sdk/package.json').version")," \
    "@google/genai $(node -p "require('$peers/node_modules/@google/genai/package.json').version")," \
    "@modelcontextprotocol/core $(node -p "require('$peers/node_modules/@modelcontextprotocol/core/package.json').version")," \
    "typescript $(node -p "require('$peers/node_modules/typescript/package.json').version")"

ln -sfn "$peers/node_modules" "$work/node_modules"
echo '{"name":"agentskills-provider-check","private":true,"type":"module"}' >"$work/package.json"
cp "$fixtures/types.ts" "$fixtures/mcp_check.mjs" "$fixtures/mutate.mjs" "$work/"

# The JSON values, one compact line each: the activation tool, the model's call as the provider
# sends it (a fixture), that call written back, a result, an error result.
emit() {  # FORMAT KIND -> JSON on stdout
    local format=$1 kind=$2
    case $kind in
        tool) "$cli" tool-schema --format "$format" --compact ;;
        call_in) node "$work/mutate.mjs" compact <"$fixtures/calls/$format.json" ;;
        call_out) "$cli" tool-call --format "$format" --input "$fixtures/calls/$format.json" --content "Skill text." |
            sed -n 1p ;;
        result) "$cli" tool-call --format "$format" --input "$fixtures/calls/$format.json" --content "Skill text." |
            sed -n 2p ;;
        error) "$cli" tool-call --format "$format" --input "$fixtures/calls/$format.json" \
            --content "There is no skill named \"x\"." --error | sed -n 2p ;;
    esac
}

# A copy of a value with one field broken (tests/providers/mutate.mjs): the checker must reject it.
breakage() {  # FORMAT KIND < JSON -> JSON
    node "$work/mutate.mjs" break "$1" "$2"
}

kinds="tool call_in call_out result error"
ts_type() {  # FORMAT KIND -> the alias in types.ts
    local prefix
    case $1 in
        openai-chat) prefix=OpenAIChat ;;
        openai-responses) prefix=OpenAIResponses ;;
        anthropic) prefix=Anthropic ;;
        gemini) prefix=Gemini ;;
    esac
    case $2 in
        tool) echo "${prefix}Tool" ;;
        call_in) [ "$1" = gemini ] && echo GeminiFunctionCallPart || echo "${prefix}CallIn" ;;
        call_out) [ "$1" = gemini ] && echo GeminiFunctionCallPart || echo "${prefix}CallOut" ;;
        result | error) [ "$1" = gemini ] && echo GeminiFunctionResponsePart || echo "${prefix}Result" ;;
    esac
}

# --- TypeScript: one literal per line, the good ones in check.ts, the broken ones in broken.ts.
good_ts="$work/check.ts"
bad_ts="$work/broken.ts"
header="import type * as P from './types.js';"
echo "$header" >"$good_ts"
echo "$header" >"$bad_ts"
declare -A bad_label  # line of broken.ts -> label
n=0
for format in openai-chat openai-responses anthropic gemini; do
    for kind in $kinds; do
        json=$(emit "$format" "$kind")
        [ -n "$json" ] || { echo "providers: nothing emitted for $format $kind" >&2; exit 1; }
        var="${format//-/_}_${kind}"
        type=$(ts_type "$format" "$kind")
        echo "export const $var: P.$type = $json;" >>"$good_ts"
        broken=$(breakage "$format" "$kind" <<<"$json")
        echo "export const ${var}_broken: P.$type = $broken;" >>"$bad_ts"
        line=$(wc -l <"$bad_ts")
        bad_label[$line]="$format $kind"
        n=$((n + 1))
    done
done

tsc() {  # FILE -> runs tsc --strict on FILE alone with the repo's tsconfig options
    sed "s/\"check.ts\"/\"$(basename "$1")\"/" "$fixtures/tsconfig.json" >"$work/tsconfig.$(basename "$1").json"
    (cd "$work" && node "$peers/node_modules/typescript/bin/tsc" -p "tsconfig.$(basename "$1").json")
}

status=0
if tsc "$good_ts" >"$work/check.log" 2>&1; then
    echo "providers: tsc --strict accepts all $n values (openai-chat, openai-responses, anthropic, gemini)"
else
    echo "providers: tsc --strict rejects the emitted JSON:" >&2
    cat "$work/check.log" >&2
    status=1
fi

tsc "$bad_ts" >"$work/broken.log" 2>&1 || true
for line in "${!bad_label[@]}"; do
    if ! grep -q "^broken.ts($line," "$work/broken.log"; then
        echo "providers: negative control not rejected by tsc: ${bad_label[$line]} (broken.ts line $line)" >&2
        status=1
    fi
done
[ $status -ne 0 ] || echo "providers: tsc rejects each of the $n broken values"

# --- MCP: the SDK's zod schemas under node.
mcp_schema() {
    case $1 in
        tool) echo ToolSchema ;;
        call_in) echo JSONRPCRequestSchema ;;
        call_out) echo CallToolRequestParamsSchema ;;
        result | error) echo CallToolResultSchema ;;
    esac
}
{
    echo '['
    sep=''
    for kind in $kinds; do
        json=$(emit mcp "$kind")
        [ -n "$json" ] || { echo "providers: nothing emitted for mcp $kind" >&2; exit 1; }
        broken=$(breakage mcp "$kind" <<<"$json")
        schema=$(mcp_schema "$kind")
        printf '%s{"label":"%s","schema":"%s","valid":true,"value":%s}\n' "$sep" "$kind" "$schema" "$json"
        sep=','
        printf ',{"label":"%s (broken)","schema":"%s","valid":false,"value":%s}\n' "$kind" "$schema" "$broken"
        if [ "$kind" = call_in ]; then
            # The request's method and params against the tools/call schema itself.
            inner=$(node "$work/mutate.mjs" request-body <<<"$json")
            printf ',{"label":"call_in params","schema":"CallToolRequestSchema","valid":true,"value":%s}\n' "$inner"
        fi
    done
    echo ']'
} >"$work/mcp_cases.json"
if ! (cd "$work" && node mcp_check.mjs mcp_cases.json); then
    echo "providers: the MCP zod schemas reject the emitted JSON (see above)" >&2
    status=1
fi

if [ $status -eq 0 ]; then
    echo "providers: ok ($work)"
else
    echo "providers: FAILED ($work)" >&2
fi
exit $status
