// tether/support/lazy_library.hpp: a shared library opened on first use, not at start-up.
//
// Linked directly, a library with a deep dependency tree (libpq, libcurl, libgit2, libcrypto)
// is loaded, relocated and initialised in every process that links it, whether or not the
// command uses it. Instead, the code that calls it defines each function it calls (extern "C",
// the signature taken from the library's header by decltype, so a mismatch does not compile),
// forwarding to the real one found here; the library is opened at the first call. Because the
// definitions stand in for the library at link time, a function the caller uses but does not
// define fails to link, not at run time. Used for libpq, SQLite and libzstd (core's registry),
// libgit2 (core's vcs), libcurl and libexpat (the object-store client) and libcrypto (the file
// plugin's SHA-256).
//
// Trivially destructible, so a forwarder called during exit (a static's destructor calling
// git_libgit2_shutdown) still finds the library: nothing here is torn down before it. The
// library is never closed.
#pragma once

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

namespace tether::support {

// The library or one of its functions is missing. Each caller turns it into its own layer's
// error, message unchanged.
class LazyLibraryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LazyLibrary {
 public:
  // `soname` to open; `what` names it in errors ("the PostgreSQL client library"); `install`
  // says how to get it; `upgrade` (default: `install`) what to do when a function is missing.
  // `binding`: RTLD_NOW resolves every function of the library and its dependencies at the
  // open, failing there if one is missing; RTLD_LAZY resolves each at its first call, as a
  // linked library is (unless it was linked with -z now), which for a library as deep as
  // libgit2 is 1,200 fewer symbol lookups at the open.
  // `first`: a dependency (of a dependency) to open before the library, when it is one whose
  // relocations mostly refer to its own functions. A library opened at run time searches the
  // executable's scope first and then its opener's dependencies in breadth-first order, so a
  // deep dependency's references to itself walk every object before it: libcrypto's, under
  // libgit2, were 2 M of a small `tether status`'s 15.7 M instructions. Opened on its own, it
  // comes right after the executable's scope. Nothing happens when it is missing.
  constexpr LazyLibrary(const char* soname, const char* what, const char* install, const char* upgrade = nullptr,
                        int binding = RTLD_NOW, const char* first = nullptr)
      : soname_(soname),
        what_(what),
        install_(install),
        upgrade_(upgrade != nullptr ? upgrade : install),
        binding_(binding),
        first_(first) {}

  // The real `name`, typed as F (the declaration's decltype). Throws LazyLibraryError when the
  // library or the function is missing.
  template <class F>
  F get(const char* name) {
    void* f = dlsym(handle(), name);
    if (f == nullptr)
      throw LazyLibraryError(std::string(what_) + " (" + soname_ + ") has no " + name + "; " + upgrade_);
    return reinterpret_cast<F>(f);
  }

  // The same, where a failure throws what `fail(message)` throws (the caller's own error).
  template <class F, class Fail>
  F get(const char* name, Fail fail) {
    try {
      return get<F>(name);
    } catch (const LazyLibraryError& e) {
      fail(std::string(e.what()));
      throw;  // for a `fail` that returns
    }
  }

  // The library's handle, opened (`binding` | RTLD_LOCAL) on the first call. Throws
  // LazyLibraryError when it cannot be loaded; every later call throws the same.
  void* handle() {
    std::call_once(once_, [this] {
      if (first_ != nullptr) dlopen(first_, RTLD_LAZY | RTLD_LOCAL);  // missing: the library's own open says
      handle_ = dlopen(soname_, binding_ | RTLD_LOCAL);
      if (handle_ == nullptr) {
        const char* e = dlerror();
        error_ = strdup(e != nullptr ? e : "unknown error");  // kept for the process's lifetime
      }
    });
    if (handle_ == nullptr)
      throw LazyLibraryError("cannot load " + std::string(what_) + " (" + soname_ + "): " +
                             (error_ != nullptr ? error_ : "out of memory") + "; " + install_);
    return handle_;
  }

 private:
  const char* soname_;
  const char* what_;
  const char* install_;
  const char* upgrade_;
  int binding_;
  const char* first_;
  std::once_flag once_;
  void* handle_ = nullptr;
  char* error_ = nullptr;
};

}  // namespace tether::support

// Defines `ret name params` (extern "C"), forwarding `args` to the real `name` of `library`
// (a LazyLibrary), whose failures `fail(message)` turns into the caller's error. The real
// function is looked up once, at the first call. Each loader names its own short form:
//   #define TETHER_PQ(ret, name, params, args) TETHER_LAZY_FORWARD(libpq, fail, ret, name, params, args)
#define TETHER_LAZY_FORWARD(library, fail, ret, name, params, args)      \
  extern "C" ret name params {                                            \
    static const auto fn = (library).get<decltype(&::name)>(#name, fail); \
    return fn args;                                                       \
  }
