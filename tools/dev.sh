#!/usr/bin/env bash
# Set-up script: installs what is missing (Debian 12, as root), configures, builds, then
#   tools/dev.sh demo   runs the quickstart example over the skills in examples/quickstart/skills
#   tools/dev.sh test   runs the whole test suite with ctest
# Extra CMake arguments can be passed in AGENTSKILLS_CMAKE_ARGS; the build goes to
# ${AGENTSKILLS_BUILD_DIR:-build}.
set -euo pipefail

cd "$(dirname "$0")/.."
mode=${1:-}
case "$mode" in
  demo|test|build|deps) ;;
  *) echo "usage: tools/dev.sh demo|test|build|deps" >&2; exit 2 ;;
esac

packages=(build-essential cmake ninja-build pkg-config libyaml-cpp-dev nlohmann-json3-dev libfmt-dev
          catch2 libutf8proc-dev libcli11-dev libsqlite3-dev libcpp-httplib-dev libssl-dev libzip-dev libgit2-dev git
          python3 python3-jsonschema)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "dev.sh: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "$mode" = deps ] && exit 0

build=${AGENTSKILLS_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${AGENTSKILLS_BUILD_TYPE:-RelWithDebInfo} \
  -DAGENTSKILLS_WARNINGS_AS_ERRORS=ON ${AGENTSKILLS_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs"

case "$mode" in
  demo) "$build/examples/quickstart/quickstart" examples/quickstart/skills ;;
  test) ctest --test-dir "$build" --output-on-failure -j "$jobs" ;;
  build) ;;
esac
