#!/usr/bin/env bash
# Start-up loads what a command uses (issue 19). tether links neither libgit2, libcrypto,
# libzstd nor libexpat: `--version` loads none of them (nor libgit2's mbedTLS and libssh2), a
# warm `status` on a file object no libzstd or libexpat, and no libcrypto unless libgit2 brought
# it (the file plugin opens it at its first hash). A command that reads the
# repository through libgit2 opens it at run time (core/src/vcs/git2_lazy.cpp), and the
# deferrals of core/cli/ca_bundle.cpp and ssh_init.cpp still hold: libgit2's calls to the
# mbedTLS and libssh2 functions tether defines bind to the executable, which exports them by
# name, and to nothing else of it (none of tether's libgit2 forwarders).
. "$(dirname "$0")/lib.sh"
cd "$TMP"

# ld_debug WHAT CMD...: runs CMD with LD_DEBUG=WHAT, its report in LD (the dynamic linker's
# lines of every process it started; git's children add their own, none naming tether).
ld_debug() {
  local what=$1
  shift
  rm -rf "$TMP/ld" && mkdir "$TMP/ld"
  LD_DEBUG=$what LD_DEBUG_OUTPUT="$TMP/ld/out" run "$@"
  LD=$(cat "$TMP"/ld/out.* 2>/dev/null || true)
}
loaded() { sed -n 's/.*calling init: //p' <<<"$LD"; }

ld_debug files tether --version
[ "$RC" -eq 0 ] || fail "tether --version failed under LD_DEBUG (exit $RC)"
grep -q 'libstdc++' <<<"$(loaded)" || fail "LD_DEBUG=files reported no loaded object: $LD"
for lib in libgit2 libcrypto libzstd libexpat libssh2 libmbedtls libmbedx509; do
  ! grep -q "/$lib\.so" <<<"$(loaded)" || fail "tether --version loaded $lib: $(loaded)"
done

new_dataset
mkdir data
echo one >data/a.txt
ok tether add data data --kind file
ok tether commit -m one
ld_debug files tether status
[ "$RC" -eq 0 ] || fail "tether status failed under LD_DEBUG (exit $RC): $ERR"
grep -q '/tether-backend-file\.so' <<<"$(loaded)" || fail "tether status did not load the file plugin: $(loaded)"
for lib in libzstd libexpat; do
  ! grep -q "/$lib\.so" <<<"$(loaded)" || fail "a warm tether status loaded $lib: $(loaded)"
done
if ! grep -q '/libgit2\.so' <<<"$(loaded)"; then
  ! grep -q '/libcrypto\.so' <<<"$(loaded)" || fail "a warm tether status loaded libcrypto: $(loaded)"
fi

mkdir more
echo two >more/b.txt
ok tether add more more --kind file
ld_debug files,bindings tether commit -m two
[ "$RC" -eq 0 ] || fail "tether commit failed under LD_DEBUG (exit $RC): $ERR"
grep -q '/libgit2\.so' <<<"$(loaded)" || fail "tether commit did not open libgit2 (choose a command that does): $(loaded)"
binds() { grep -E "binding file [^ ]*/$1[^ ]* \[0\] to $TETHER \[0\]: normal symbol \`$2'" <<<"$LD" >/dev/null; }
if grep -q '/libssh2\.so' <<<"$(loaded)"; then
  binds libgit2 libssh2_init || fail "libgit2's libssh2_init does not bind to tether"
  binds libgit2 libssh2_session_init_ex || fail "libgit2's libssh2_session_init_ex does not bind to tether"
fi
if grep -q '/libmbedx509\.so' <<<"$(loaded)"; then
  binds libgit2 mbedtls_x509_crt_parse_file || fail "libgit2's mbedtls_x509_crt_parse_file does not bind to tether"
  binds libgit2 mbedtls_ssl_setup || fail "libgit2's mbedtls_ssl_setup does not bind to tether"
fi
! grep -E "to $TETHER \[0\]: normal symbol \`git_" <<<"$LD" >/dev/null ||
  fail "a libgit2 function bound to tether's forwarder: $(grep -E "to $TETHER \[0\]: normal symbol \`git_" <<<"$LD" | head -3)"
if command -v nm >/dev/null; then
  exported=$(nm -D --defined-only "$TETHER" | grep -E ' (git|EVP|PQ|sqlite3|curl)_' || true)
  [ -z "$exported" ] || fail "tether exports forwarders: $exported"
fi

# Once what status keeps between runs has settled (the tracked-file, drift and reachability
# records are trusted only for files over 2 s old), status and ops on an unchanged repository
# read git natively (core/src/vcs/git_refs.cpp) and load no libgit2, and so no libcrypto.
sleep 2.1
ok tether status
ok tether ops -n 1
for cmd in status ops; do
  ld_debug files tether $cmd
  [ "$RC" -eq 0 ] || fail "tether $cmd failed under LD_DEBUG (exit $RC): $ERR"
  for lib in libgit2 libcrypto; do
    ! grep -q "/$lib\.so" <<<"$(loaded)" || fail "a settled tether $cmd loaded $lib: $(loaded)"
  done
done
