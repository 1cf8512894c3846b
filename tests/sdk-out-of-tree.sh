#!/usr/bin/env bash
# A third party's plugin, built outside this tree against an installed tether: `meson install`
# into a scratch root, then the C example plugin and its harness (plugin-sdk/examples/c-minimal,
# copied out) compiled with nothing but `pkg-config tether-sdk` (its Cflags and the version
# scripts it names), the C++ SDK headers compiled the same way, and the installed
# tether-conformance validating the plugin.
# usage: sdk-out-of-tree.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tether-sdk-out-of-tree.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [sdk-out-of-tree]: $*" >&2; exit 1; }

root="$tmp/root"
meson install -C "$build" --no-rebuild --quiet --destdir "$root" >/dev/null
pc=$(find "$root" -name tether-sdk.pc -print -quit)
[ -n "$pc" ] || fail "make install put no tether-sdk.pc anywhere"
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$root"
pkg-config --exists tether-sdk || fail "pkg-config does not find tether-sdk"
cflags=$(pkg-config --cflags tether-sdk)
# A path variable, under the scratch root (pkgconf puts the sysroot in front itself).
var() {
  local v
  v=$(pkg-config --variable="$1" tether-sdk)
  [[ "$v" == "$root"/* ]] || v="$root$v"
  [ -e "$v" ] || [ "$1" == plugindir ] || fail "tether-sdk.pc names $1=$v, which is not installed"
  printf '%s' "$v"
}
plugin_map=$(var plugin_map)
harness_map=$(var harness_map)
[[ "$(var plugindir)" == */tether/backends ]] || fail "plugindir"
ls "$(var plugindir)"/tether-backend-file.so >/dev/null || fail "the file plugin is not in plugindir"

# The example, away from the tree: nothing but the installed headers can be found.
mkdir "$tmp/plugin"
cp "$src/plugin-sdk/examples/c-minimal/"{cminimal.c,harness.c,mini_json.h} "$tmp/plugin/"
cd "$tmp/plugin"
cc -std=c11 -Wall -Wextra -pedantic -Werror -fPIC -shared -fvisibility=hidden $cflags \
  -Wl,--version-script="$plugin_map" cminimal.c -o tether-backend-cexample.so
cc -std=c11 -Wall -Wextra -pedantic -Werror -fPIC -shared -fvisibility=hidden $cflags \
  -Wl,--version-script="$harness_map" harness.c -o tether-harness-cexample.so
# The C++ SDK: every installed header compiles on its own (nlohmann_json from its own .pc).
for h in tether/sdk/backend.hpp tether/sdk/types.hpp tether/harness_support.hpp; do
  printf '#include <%s>\n' "$h" | c++ -std=c++20 -fsyntax-only -Wall -Wextra -Werror $cflags \
    $(PKG_CONFIG_SYSROOT_DIR= pkg-config --cflags nlohmann_json) -x c++ - || fail "$h does not compile out of tree"
done

conformance=$(find "$root" -path '*/bin/tether-conformance' -print -quit)
[ -x "$conformance" ] || fail "tether-conformance is not installed"
"$conformance" validate ./tether-backend-cexample.so --harness ./tether-harness-cexample.so >"$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "the out-of-tree plugin fails conformance"; }
tail -3 "$tmp/out"
