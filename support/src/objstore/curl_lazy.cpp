// curl_lazy.cpp: libcurl is loaded when an object store is first reached, not when a plugin
// linking the object-store client is loaded.
//
// Debian's libcurl.so.4 brings about 30 shared objects (GnuTLS and its ASN.1 tables, LDAP,
// Kerberos, SASL, RTMP, SSH, nghttp2, p11-kit) into every process that loads the file,
// icechunk or ducklake plugin, even for a local directory that never touches the network:
// their loading and constructors were a third of a small `tether status`. So the client
// defines the few libcurl functions it calls, each forwarding to libcurl.so.4 opened on the
// first call. Signatures come from curl.h (decltype), so a mismatch does not compile.
#define CURL_DISABLE_TYPECHECK  // curl.h's checking macros would rename the definitions below
#include <curl/curl.h>

#include <string>

#include "tether/support/lazy_library.hpp"
#include "tether/support/objstore.hpp"

namespace {

using tether::support::objstore::ErrorKind;
using tether::support::objstore::StoreError;

constinit tether::support::LazyLibrary libcurl("libcurl.so.4", "the HTTP client library",
                                               "install libcurl (Debian: libcurl4) to reach object stores",
                                               "install libcurl 7.85 or later");

[[noreturn]] void fail(const std::string& message) { throw StoreError(ErrorKind::Other, message); }

template <class F>
F real(const char* name) {
  return libcurl.get<F>(name, fail);
}

}  // namespace

#define TETHER_CURL(ret, name, params, args) TETHER_LAZY_FORWARD(libcurl, fail, ret, name, params, args)

TETHER_CURL(CURLcode, curl_global_init, (long flags), (flags))
TETHER_CURL(CURL*, curl_easy_init, (void), ())
TETHER_CURL(void, curl_easy_cleanup, (CURL * h), (h))
TETHER_CURL(void, curl_easy_reset, (CURL * h), (h))
TETHER_CURL(CURLcode, curl_easy_perform, (CURL * h), (h))
TETHER_CURL(const char*, curl_easy_strerror, (CURLcode code), (code))
TETHER_CURL(curl_slist*, curl_slist_append, (curl_slist * list, const char* s), (list, s))
TETHER_CURL(void, curl_slist_free_all, (curl_slist * list), (list))

// curl_varargs.cpp defines curl_easy_setopt and curl_easy_getinfo without curl.h: what it
// relies on, checked here against curl.h.
static_assert(CURLOPTTYPE_OBJECTPOINT == 10000 && CURLOPTTYPE_FUNCTIONPOINT == 20000 && CURLOPTTYPE_OFF_T == 30000 &&
              CURLOPTTYPE_BLOB == 40000);
static_assert(sizeof(CURLoption) == sizeof(int) && sizeof(CURLINFO) == sizeof(int) && sizeof(CURLcode) == sizeof(int));
static_assert(sizeof(curl_off_t) == 8);

namespace tether::support::objstore {

// For curl_varargs.cpp: the real libcurl function `name` (throws StoreError when missing).
void* curl_symbol(const char* name) { return real<void*>(name); }

}  // namespace tether::support::objstore
