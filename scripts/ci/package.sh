#!/usr/bin/env bash
# CI: build the Debian package, install it, build a consumer against /usr with CMake and with
# pkg-config, run both, check `agentskills --version`, remove the package and check that nothing
# is left. Needs root (it installs into /usr), dpkg-dev (dpkg-shlibdeps), file, pkg-config.
#
#   scripts/ci/package.sh [--build-only] [BUILD_DIR] [TMP_DIR]
#
# --build-only configures and builds BUILD_DIR and stops: no root needed, nothing installed. A
# later run with the same BUILD_DIR finds the build done (CI builds it in the background while
# other stages run).
# BUILD_DIR is where the Release build for the package goes (default: a new temporary
# directory); TMP_DIR holds the consumers' builds (default: a new temporary directory).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  shift
fi
build=${1:-$(mktemp -d /tmp/agentskills-deb-build.XXXXXX)}
tmp=
[ "$build_only" = 1 ] || tmp=${2:-$(mktemp -d /tmp/agentskills-deb-consumers.XXXXXX)}
mkdir -p "$build" ${tmp:+"$tmp"}
fail() { echo "package.sh: FAIL: $*" >&2; exit 1; }
step() { printf '\n-- package.sh: %s\n' "$*"; }

[ "$build_only" = 1 ] || [ "$(id -u)" -eq 0 ] || fail "run as root: the package is installed into /usr"
for tool in cmake cpack dpkg-deb dpkg-shlibdeps file pkg-config g++ apt-get; do
  command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install dpkg-dev file pkg-config)"
done
if [ "$build_only" = 0 ] && dpkg-query -W -f='${Status}' agentskills 2>/dev/null | grep -q "install ok installed"; then
  fail "a package named agentskills is installed already; remove it first"
fi

version=$(sed -n 's/^#define AGENTSKILLS_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
  "$repo/include/agentskills/base/version.hpp" | paste -sd.)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "cannot read the version from version.hpp ($version)"

step "Release build with CMAKE_INSTALL_PREFIX=/usr in $build"
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DAGENTSKILLS_BUILD_TESTS=OFF -DAGENTSKILLS_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
[ "$build_only" = 0 ] || exit 0
(cd "$build" && rm -f agentskills_*.deb && cpack -G DEB >/dev/null)
debs=("$build"/agentskills_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "cpack made no single agentskills_*.deb"
deb=${debs[0]}
echo "package: $deb"

step "package contents and control fields"
dpkg-deb -I "$deb"
contents=$(dpkg-deb -c "$deb" | awk '{print $NF}')
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
# The package ships every component (built here: all six): library, headers, CMake part, .pc.
components=(sqlite postgres lock archive git mcp)
declare -A component_header=([sqlite]=sqlite/sqlite_store.hpp [postgres]=postgres/postgres_store.hpp [lock]=lock/lock.hpp
  [archive]=archive/archive_reader.hpp [git]=git/git_reader.hpp [mcp]=mcp/server.hpp)
for f in ./usr/bin/agentskills ./usr/include/agentskills/agentskills.hpp ./usr/include/agentskills/base/version.hpp \
         ./usr/include/agentskills/version.hpp \
         "./usr/lib/$multiarch/libagentskills.a" "./usr/lib/$multiarch/pkgconfig/agentskills.pc" \
         "./usr/lib/$multiarch/cmake/agentskills/agentskillsConfig.cmake" \
         "./usr/lib/$multiarch/cmake/agentskills/agentskillsConfigVersion.cmake" \
         ./usr/share/man/man1/agentskills.1 ./usr/share/doc/agentskills/copyright \
         ./usr/libexec/agentskills/agentskills-extras ./usr/libexec/agentskills/agentskills-extras-full; do
  grep -qxF "$f" <<<"$contents" || fail "the package lacks $f"
done
for c in "${components[@]}"; do
  for f in "./usr/lib/$multiarch/libagentskills_$c.a" "./usr/lib/$multiarch/pkgconfig/agentskills-$c.pc" \
           "./usr/lib/$multiarch/cmake/agentskills/agentskills-$c.cmake" \
           "./usr/lib/$multiarch/cmake/agentskills/agentskills-$c-targets.cmake" \
           "./usr/include/agentskills/${component_header[$c]}"; do
    grep -qxF "$f" <<<"$contents" || fail "the package lacks $f (component $c)"
  done
done
[ "$(dpkg-deb -f "$deb" Package)" = agentskills ] || fail "package name"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "package version $(dpkg-deb -f "$deb" Version), expected $version"
depends=$(dpkg-deb -f "$deb" Depends)
for d in libc6 libstdc++6 libyaml-cpp libfmt libutf8proc libyaml-cpp-dev libfmt-dev libutf8proc-dev nlohmann-json3-dev; do
  grep -qF ", $d" <<<", $depends" || fail "Depends lacks $d: $depends"
done

removed=0
cleanup() {
  if [ "$removed" -eq 0 ] && dpkg-query -W -f='${Status}' agentskills 2>/dev/null | grep -q "install ok installed"; then
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq agentskills >/dev/null || true
  fi
}
trap cleanup EXIT

step "apt-get install $deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
[ "$(/usr/bin/agentskills --version)" = "agentskills $version" ] || fail "agentskills --version: $(/usr/bin/agentskills --version)"
man -w agentskills >/dev/null 2>&1 || [ -f /usr/share/man/man1/agentskills.1 ] || fail "no man page"

step "CMake consumer (tests/find-package-test) against /usr: every component"
rm -rf "$tmp/cmake-consumer"
cmake -S "$repo/tests/find-package-test" -B "$tmp/cmake-consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "-DAGENTSKILLS_CONSUMER_COMPONENTS=sqlite;postgres;mcp;archive;git;lock" >/dev/null
cmake --build "$tmp/cmake-consumer" >/dev/null
out=$(cd "$tmp/cmake-consumer" && ./consumer "$repo/tests/data/library") || fail "CMake consumer failed: $out"
echo "$out"
grep -qx "agentskills $version" <<<"$out" || fail "CMake consumer reports another version"
grep -qE '^skills: [1-9]' <<<"$out" || fail "CMake consumer found no skill"
for c in "${components[@]}"; do
  grep -qx "$c: ok" <<<"$out" || fail "CMake consumer: the component $c did not link or answer"
done
# A component the package lacks is an error of find_package(... REQUIRED COMPONENTS ...).
rm -rf "$tmp/cmake-consumer-missing"
if cmake -S "$repo/tests/find-package-test" -B "$tmp/cmake-consumer-missing" -G Ninja \
     "-DAGENTSKILLS_CONSUMER_COMPONENTS=lock;no-such-component" >/dev/null 2>&1; then
  fail "find_package accepted an unknown component"
fi

step "pkg-config consumer (tests/pkg-config-test)"
[ "$(pkg-config --modversion agentskills)" = "$version" ] || fail "pkg-config --modversion"
modules=(agentskills)
defines=()
for c in "${components[@]}"; do
  modules+=("agentskills-$c")
  defines+=("-DAGENTSKILLS_HAVE_${c^^}=1")
done
echo "pkg-config --cflags --libs ${modules[*]}: $(pkg-config --cflags --libs "${modules[@]}")"
# shellcheck disable=SC2046
g++ -std=c++20 "$repo/tests/pkg-config-test/app.cpp" -o "$tmp/pc-app" "${defines[@]}" $(pkg-config --cflags --libs "${modules[@]}")
# shellcheck disable=SC2046
g++ -std=c++20 "$repo/tests/pkg-config-test/app.cpp" -o "$tmp/pc-app-static" "${defines[@]}" \
  $(pkg-config --static --cflags --libs "${modules[@]}")
for app in "$tmp/pc-app" "$tmp/pc-app-static"; do
  out=$("$app" "$repo/tests/data/library" "$tmp") || fail "$app failed: $out"
  grep -qx "agentskills $version" <<<"$out" || fail "$app reports another version"
  grep -qE '^skills: [1-9]' <<<"$out" || fail "$app found no skill"
  for c in "${components[@]}"; do
    grep -qx "$c: ok" <<<"$out" || fail "$app: the component $c did not link or answer"
  done
done
echo "$out"
# The CLI from the package gives the same names as the library.
/usr/bin/agentskills list --root "$repo/tests/data/library" >/dev/null || fail "agentskills list"
# A command that needs an optional component runs agentskills-extras from the installed layout.
/usr/bin/agentskills lock --root "$repo/tests/data/library" | grep -q '"skills"' || fail "agentskills lock (agentskills-extras)"
# A git: root needs libgit2: `lock` runs agentskills-extras, which runs agentskills-extras-full.
gitlib=$(mktemp -d)
cp -r "$repo/tests/data/library/." "$gitlib/"
git -C "$gitlib" init -q -b main && git -C "$gitlib" add -A &&
  git -C "$gitlib" -c user.name=ci -c user.email=ci@localhost commit -q -m library || fail "git init of the library"
[ "$(/usr/bin/agentskills lock --root "git:$gitlib@main" | grep -c '"name"')" = \
  "$(/usr/bin/agentskills lock --root "$repo/tests/data/library" | grep -c '"name"')" ] ||
  fail "agentskills lock of a git: root (agentskills-extras-full)"
/usr/bin/agentskills list --root "git:$gitlib@main" >/dev/null || fail "agentskills list of a git: root"
rm -rf "$gitlib"

step "apt-get remove agentskills"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq agentskills >/dev/null
removed=1
for p in /usr/include/agentskills /usr/bin/agentskills "/usr/lib/$multiarch/libagentskills.a" \
         "/usr/lib/$multiarch/pkgconfig/agentskills.pc" "/usr/lib/$multiarch/cmake/agentskills" \
         /usr/share/man/man1/agentskills.1 /usr/share/doc/agentskills /usr/libexec/agentskills; do
  [ ! -e "$p" ] || fail "$p is left after apt-get remove"
done
echo "package.sh: OK (agentskills $version)"
