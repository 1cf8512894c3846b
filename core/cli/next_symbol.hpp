// next_symbol.hpp: for ca_bundle.cpp and ssh_init.cpp, which define mbedTLS and libssh2
// functions in the executable so that libgit2's calls bind to them: the real function, which
// they call in turn.
#pragma once

#include <dlfcn.h>

#if __has_include(<git2/version.h>)
#include <git2/version.h>
#endif

namespace tether::cli {

// The definition of `name` after the executable's. Where libgit2 is linked (ca_bundle_test),
// its dependencies follow the executable in the global scope: RTLD_NEXT finds it. In tether,
// libgit2 is opened on first use (core/src/vcs/git2_lazy.cpp) or by the git plugin, with
// RTLD_LOCAL: mbedTLS and libssh2 are then in libgit2's own scope only, which dlsym on
// libgit2's handle searches (libgit2 and its dependencies, never the executable). nullptr when
// neither has it.
inline void* next_symbol(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
#ifdef LIBGIT2_SOVERSION
  // The reference NOLOAD takes is kept: libgit2 stays loaded until exit in tether anyway.
  if (void* git2 = dlopen("libgit2.so." LIBGIT2_SOVERSION, RTLD_LAZY | RTLD_NOLOAD)) return dlsym(git2, name);
#endif
  return nullptr;
}

}  // namespace tether::cli
