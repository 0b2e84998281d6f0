#!/usr/bin/env bash
# Set-up script (Debian 12, as root or with sudo): installs the Debian packages that are missing,
# configures, builds, then
#   tools/dev.sh demo   builds the core library and examples/quickstart only, in build-demo/,
#                       and runs it over the skills in examples/quickstart/skills. It installs
#                       only the packages that needs (no test framework, no CLI11, none of the
#                       optional components' libraries).
#   tools/dev.sh test   builds everything (library, every optional component, the program
#                       build/agentskills, the examples, the tests) in build/ and runs the whole
#                       test suite with ctest.
#   tools/dev.sh build  the same build as `test`, without running the tests.
#   tools/dev.sh deps   only installs what `test` needs.
# Each mode sets the CMake options it depends on, so a cache left by another mode (the demo's
# -DAGENTSKILLS_BUILD_TESTS=OFF, say) never carries over. Extra CMake arguments can be passed in
# AGENTSKILLS_CMAKE_ARGS; the test build goes to ${AGENTSKILLS_BUILD_DIR:-build}, the demo's to
# ${AGENTSKILLS_DEMO_BUILD_DIR:-build-demo}.
set -euo pipefail

cd "$(dirname "$0")/.."
mode=${1:-}
case "$mode" in
  demo|test|build|deps) ;;
  *) echo "usage: tools/dev.sh demo|test|build|deps" >&2; exit 2 ;;
esac

# What the core library and the examples need.
core_packages=(build-essential cmake ninja-build libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libutf8proc-dev)
# What the program, the tests and the optional components add.
full_packages=(pkg-config catch2 libcli11-dev libsqlite3-dev libpq-dev postgresql libcpp-httplib-dev libboost-dev libssl-dev libzip-dev libgit2-dev git
               python3 python3-jsonschema nginx groff-base)
packages=("${core_packages[@]}")
[ "$mode" = demo ] || packages+=("${full_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "dev.sh: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  # postgresql: the tests start a server of their own; no system cluster (create_main_cluster).
  if [[ " ${missing[*]} " == *" postgresql "* ]] && [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    $sudo_cmd mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" | $sudo_cmd tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  # nginx: scripts/ci/replicas.sh runs one of its own in the foreground; its package must not
  # start (or enable) the system service, so invoke-rc.d is told no for this install
  # (policy-rc.d exit 101), unless the machine already has a policy of its own.
  policy_added=""
  if [[ " ${missing[*]} " == *" nginx "* ]] && [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo_cmd tee /usr/sbin/policy-rc.d >/dev/null
    $sudo_cmd chmod 755 /usr/sbin/policy-rc.d
    policy_added=1
  fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" >/dev/null
  [ -z "$policy_added" ] || $sudo_cmd rm -f /usr/sbin/policy-rc.d
fi
[ "$mode" = deps ] && exit 0

jobs=$(nproc 2>/dev/null || echo 2)
configure() {
  local dir=$1
  shift
  # shellcheck disable=SC2086
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=${AGENTSKILLS_BUILD_TYPE:-RelWithDebInfo} \
    -DAGENTSKILLS_WARNINGS_AS_ERRORS=ON "$@" ${AGENTSKILLS_CMAKE_ARGS:-} >/dev/null
}

if [ "$mode" = demo ]; then
  build=${AGENTSKILLS_DEMO_BUILD_DIR:-build-demo}
  configure "$build" -C tools/demo-cache.cmake
  cmake --build "$build" -j "$jobs" --target quickstart
  "$build/examples/quickstart/quickstart" examples/quickstart/skills
  exit 0
fi

build=${AGENTSKILLS_BUILD_DIR:-build}
configure "$build" -DBUILD_TESTING=ON -DAGENTSKILLS_BUILD_TESTS=ON -DAGENTSKILLS_BUILD_CLI=ON \
  -DAGENTSKILLS_BUILD_EXAMPLES=ON -DAGENTSKILLS_SQLITE=ON -DAGENTSKILLS_POSTGRES=ON -DAGENTSKILLS_LOCK=ON -DAGENTSKILLS_MCP=ON \
  -DAGENTSKILLS_ARCHIVES=ON -DAGENTSKILLS_GIT=ON -DAGENTSKILLS_INSTALL=ON
cmake --build "$build" -j "$jobs"
[ "$mode" = test ] && ctest --test-dir "$build" --output-on-failure -j "$jobs"
exit 0
