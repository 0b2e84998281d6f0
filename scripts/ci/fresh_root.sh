#!/usr/bin/env bash
# CI: the README's quick start on a fresh Debian 12. A `debootstrap --variant=minbase bookworm`
# root (no compiler, none of the packages the CI machine has), the checkout in it, and the quick
# start's two commands run in it under chroot:
#   bash tools/dev.sh demo   must end with the example's final answer;
#   bash tools/dev.sh test   must pass the whole suite.
# It finds what a machine that is not the CI machine lacks: a package that a test or the demo
# needs and that tools/dev.sh does not install. Needs root, debootstrap (installed when missing)
# and a Debian mirror (AGENTSKILLS_DEBIAN_MIRROR, default deb.debian.org).
#
#   scripts/ci/fresh_root.sh [--in-place] [ROOT_DIR]
#
# By default the root gets a clone of the repository's HEAD (commit what you want checked) and
# nothing of the commands' work comes back. With --in-place, the checkout itself is mounted into
# the root at its own path, with ../shared beside it (read-only) when it exists, and the commands
# build in the checkout's build-demo/ and build/: CI's one run of the test command, whose
# programs its later stages use (the root has the same Debian 12 libraries as the machine).
# CI and AGENTSKILLS_REQUIRE_CORPUS are passed into the root when set.
#
# The machine's package cache (AGENTSKILLS_APT_CACHE, default /var/cache/apt/archives; empty for
# none) serves debootstrap and is mounted as the root's own: a .deb the machine has downloaded is
# not downloaded again (debootstrap and apt check each against the mirror's checksums). Only the
# downloads are shared: the root installs every package itself, from its own package lists.
#
# ROOT_DIR must not exist yet or be empty (default: a new temporary directory); it is removed at
# the end unless KEEP_ROOT=1 (KEEP_ROOT=background: removed by a process left running at nice 19
# once the script ends and nothing is mounted in it).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
in_place=0
if [ "${1:-}" = --in-place ]; then
  in_place=1
  shift
fi
root=${1:-$(mktemp -d /tmp/agentskills-fresh-root.XXXXXX)}
mirror=${AGENTSKILLS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
fail() { echo "fresh_root.sh: FAIL: $*" >&2; exit 1; }
step() { printf '\n-- fresh_root.sh: %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

[ "$(id -u)" -eq 0 ] || fail "run as root: debootstrap and chroot need it"
mkdir -p "$root"
root=$(cd "$root" && pwd)
[ -z "$(ls -A "$root")" ] || fail "$root is not empty"

# The file systems mounted into the root, unmounted in reverse order on every exit. The root is
# removed only when none of them is still mounted: a bind mount of /dev under a removed tree
# would take the machine's device nodes with it.
mounted=()
cleanup() {
  local status=$? i busy=""
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
  done
  for m in "${mounted[@]}"; do
    if mountpoint -q "$m"; then busy="$m"; fi
  done
  if [ -n "$busy" ]; then
    echo "fresh_root.sh: $busy is still mounted; $root is left in place" >&2
  elif [ "${KEEP_ROOT:-0}" = background ]; then
    # A Debian installation of about a gigabyte: removed by a process of its own at nice 19, once
    # nothing is mounted in it (a bind mount is on the same file system: --one-file-system would
    # not stop at it).
    (nice -n 19 rm -rf --one-file-system "$root" >/dev/null 2>&1 &)
  elif [ "${KEEP_ROOT:-0}" != 1 ]; then
    rm -rf --one-file-system "$root"
  fi
  exit "$status"
}
trap cleanup EXIT

if ! command -v debootstrap >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

apt_cache=${AGENTSKILLS_APT_CACHE-/var/cache/apt/archives}
[ -z "$apt_cache" ] || { [[ $apt_cache == /* ]] && [ -d "$apt_cache" ]; } ||
  fail "the package cache $apt_cache (AGENTSKILLS_APT_CACHE) is not an absolute path to a directory"
step "debootstrap --variant=minbase bookworm $root $mirror${apt_cache:+ (cache $apt_cache)}"
if ! debootstrap --variant=minbase ${apt_cache:+"--cache-dir=$apt_cache"} bookworm "$root" "$mirror" \
     >"$root.debootstrap.log" 2>&1; then
  tail -20 "$root.debootstrap.log" >&2
  fail "debootstrap failed"
fi
rm -f "$root.debootstrap.log"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount --bind /dev "$root/dev" && mounted+=("$root/dev")
mount --bind /dev/pts "$root/dev/pts" && mounted+=("$root/dev/pts")
# A machine's /dev/shm is a tmpfs open to every user; under the bind above it is devtmpfs's own
# directory, writable by root only (PostgreSQL's server runs as nobody in the tests).
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm" && mounted+=("$root/dev/shm")
mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
if [ -n "$apt_cache" ]; then
  mount --bind "$apt_cache" "$root/var/cache/apt/archives" && mounted+=("$root/var/cache/apt/archives")
fi
if [ "$in_place" = 1 ]; then
  # The checkout at its own path, so that the build's absolute paths hold outside the root too.
  workdir=$repo
  mkdir -p "$root$repo"
  mount --bind "$repo" "$root$repo" && mounted+=("$root$repo")
  shared=$(dirname "$repo")/shared
  if [ -d "$shared" ]; then
    mkdir -p "$root$shared"
    mount --bind "$shared" "$root$shared" && mounted+=("$root$shared")
    mount -o remount,bind,ro "$root$shared"
  fi
else
  workdir=/root/agentskills-cpp
  git clone -q "$repo" "$root$workdir"
fi
passed_env=()
for v in CI AGENTSKILLS_REQUIRE_CORPUS; do
  [ -z "${!v:-}" ] || passed_env+=("$v=${!v}")
done
echo "packages in the fresh root: $(chroot "$root" dpkg-query -W -f='${Status}\n' | grep -c 'install ok installed')"

# A command of the quick start, as a root login on the fresh machine would run it.
quick_start() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    TERM=dumb LANG=C.UTF-8 "${passed_env[@]}" bash -c "cd '$workdir' && $1"
}

step "bash tools/dev.sh demo"
quick_start "bash tools/dev.sh demo" >"$root/demo.log" 2>&1 || { tail -40 "$root/demo.log" >&2; fail "the demo command failed"; }
grep -q '^===== final answer =====$' "$root/demo.log" || { tail -40 "$root/demo.log" >&2; fail "the demo printed no final answer"; }
tail -3 "$root/demo.log"

step "bash tools/dev.sh test"
quick_start "bash tools/dev.sh test" >"$root/test.log" 2>&1 || {
  # Each failed test with what it printed (ctest --output-on-failure), then the summary.
  grep -B2 -A30 -E '\*\*\*Failed|FAILED' "$root/test.log" | head -300 >&2
  tail -20 "$root/test.log" >&2
  fail "the test command failed"
}
grep -E '^[0-9]+% tests passed' "$root/test.log"
step "done"
