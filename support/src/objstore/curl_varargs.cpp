// curl_varargs.cpp: the two variadic libcurl functions of curl_lazy.cpp, forwarded to the real
// libcurl opened there.
//
// Apart from curl.h on purpose: curl.h declares them with an enum as the last named
// parameter, and va_start after a parameter whose type promotes is undefined in C++ (clang
// says so). At the ABI level the enum is an int, so they are defined here with int, which is
// the same C symbol and the same call. Each passes its one argument on with the type libcurl
// reads it as: the option's number says which (curl.h's CURLOPTTYPE_* bases below, part of
// libcurl's ABI); a CURLINFO's argument is always a pointer.
#include <cstdarg>
#include <cstdint>

namespace tether::support::objstore {
void* curl_symbol(const char* name);
}

namespace {

constexpr int kObjectPoint = 10000;  // CURLOPTTYPE_OBJECTPOINT: pointers and strings (and SLISTPOINT, CBPOINT)
constexpr int kOffT = 30000;         // CURLOPTTYPE_OFF_T: curl_off_t
constexpr int kBlob = 40000;         // CURLOPTTYPE_BLOB: a struct curl_blob*
// Below kObjectPoint: long; 20000 (FUNCTIONPOINT) to kOffT: function pointers.

template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(tether::support::objstore::curl_symbol(name));
}

}  // namespace

extern "C" int curl_easy_setopt(void* h, int option, ...) {
  // One function, called with the argument's type (as libcurl's typed wrappers do).
  static const auto set_long = real<int (*)(void*, int, long)>("curl_easy_setopt");
  static const auto set_off = real<int (*)(void*, int, std::int64_t)>("curl_easy_setopt");
  static const auto set_ptr = real<int (*)(void*, int, void*)>("curl_easy_setopt");
  va_list ap;
  va_start(ap, option);
  int rc;
  if (option < kObjectPoint)
    rc = set_long(h, option, va_arg(ap, long));
  else if (option >= kOffT && option < kBlob)
    rc = set_off(h, option, va_arg(ap, std::int64_t));
  else
    rc = set_ptr(h, option, va_arg(ap, void*));  // object, string, function pointer or blob
  va_end(ap);
  return rc;
}

extern "C" int curl_easy_getinfo(void* h, int info, ...) {
  static const auto get = real<int (*)(void*, int, void*)>("curl_easy_getinfo");
  va_list ap;
  va_start(ap, info);
  void* out = va_arg(ap, void*);
  va_end(ap);
  return get(h, info, out);
}
