// git2.cpp: the error helpers and the library's reference count.
#include "tether/support/git2.hpp"

namespace tether::support::git2 {

std::string last_error_message() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "";
}

int check(int rc, const std::string& what) {
  if (rc >= 0) return rc;
  std::string msg = last_error_message();
  throw Git2Error(rc, msg.empty() ? what + " failed" : what + ": " + msg);
}

std::string oid_hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

// Objects are not re-hashed on every read: git itself checks ids when objects arrive (fetch's
// index-pack) and in fsck, never on read, and libgit2's check cost 7% of a history walk.
// What a read returns is parsed as untrusted input either way.
Library::Library() {
  git_libgit2_init();
  git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}
Library::~Library() { git_libgit2_shutdown(); }

}  // namespace tether::support::git2
