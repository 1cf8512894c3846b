// ssh_init.cpp: libssh2 (and with it OpenSSL) is initialised for the first SSH session, not in
// libgit2's init.
//
// git_libgit2_init calls libssh2_init(0) (libgit2 1.5, transports/ssh.c), which initialises
// OpenSSL for libssh2: its configuration file, every cipher and digest name in its tables, and
// OPENSSL_cleanup's teardown at exit. tether never speaks SSH through libgit2, so that was
// pure start-up cost in every command. As with the CA bundle (ca_bundle.cpp), the executable
// defines libssh2_init, which the dynamic linker binds libgit2's call to: it only notes the
// request; libssh2_session_init_ex, where every SSH connection starts, makes the real call
// first. libssh2_exit without a real init is a no-op in libssh2 (global.c), so the shutdown
// side needs nothing.
#include "ssh_init.hpp"

#if __has_include(<libssh2.h>)
#include <libssh2.h>

#include <mutex>

#include "next_symbol.hpp"

namespace {

std::mutex& init_mutex() {
  static std::mutex mu;
  return mu;
}
bool deferred = false;  // guarded by init_mutex()
int deferred_flags = 0;

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(tether::cli::next_symbol(name));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int libssh2_init(int flags) {
  std::lock_guard lock(init_mutex());
  deferred = true;
  deferred_flags |= flags;
  return 0;
}

extern "C" __attribute__((visibility("default"))) LIBSSH2_SESSION* libssh2_session_init_ex(
    LIBSSH2_ALLOC_FUNC((*my_alloc)), LIBSSH2_FREE_FUNC((*my_free)), LIBSSH2_REALLOC_FUNC((*my_realloc)), void* abstract) {
  {
    std::lock_guard lock(init_mutex());
    if (deferred) {
      static const auto init = next<int (*)(int)>("libssh2_init");
      if (init == nullptr || init(deferred_flags) < 0) return nullptr;  // as a failed session start
      deferred = false;
    }
  }
  static const auto session_init = next<decltype(&::libssh2_session_init_ex)>("libssh2_session_init_ex");
  if (session_init == nullptr) return nullptr;
  return session_init(my_alloc, my_free, my_realloc, abstract);
}

namespace tether::cli {

bool ssh_init_deferred() {
  std::lock_guard lock(init_mutex());
  return deferred;
}

}  // namespace tether::cli

#else

namespace tether::cli {

bool ssh_init_deferred() { return false; }

}  // namespace tether::cli

#endif
