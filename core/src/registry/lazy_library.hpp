// registry/lazy_library.hpp: a client library the registry opens on first use (libpq, SQLite),
// so commands that never publish, import or export do not load it. libpq_lazy.cpp and
// sqlite_lazy.cpp define the library's functions the registry calls, each forwarding to the
// real one found here.
#pragma once

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "tether/errors.hpp"

namespace tether::registry {

class LazyLibrary {
 public:
  // `soname` to open; `what` names it in errors ("the PostgreSQL client library"); `install`
  // says how to get it.
  constexpr LazyLibrary(const char* soname, const char* what, const char* install)
      : soname_(soname), what_(what), install_(install) {}

  // The real `name`, typed as F (the declaration's decltype). Throws TetherError when the
  // library or the function is missing.
  template <class F>
  F get(const char* name) {
    void* f = dlsym(handle(), name);
    if (f == nullptr)
      throw TetherError(std::string(what_) + " (" + soname_ + ") has no " + name + "; " + install_);
    return reinterpret_cast<F>(f);
  }

 private:
  void* handle() {
    std::call_once(once_, [this] {
      handle_ = dlopen(soname_, RTLD_NOW | RTLD_LOCAL);
      if (handle_ == nullptr) error_ = dlerror();
    });
    if (handle_ == nullptr) throw TetherError("cannot load " + std::string(what_) + " (" + soname_ + "): " + error_ + "; " + install_);
    return handle_;
  }

  const char* soname_;
  const char* what_;
  const char* install_;
  std::once_flag once_;
  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace tether::registry
