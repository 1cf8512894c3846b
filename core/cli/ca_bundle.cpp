// ca_bundle.cpp: the system CA bundle is parsed when a TLS session needs it, not at start-up.
//
// libgit2 1.5 built with mbedTLS (Debian's) parses the whole system CA bundle
// (/etc/ssl/certs/ca-certificates.crt, its compiled-in GIT_DEFAULT_CERT_LOCATION) inside
// git_libgit2_init (git_mbedtls_stream_global_init -> git_mbedtls__set_cert_location ->
// mbedtls_x509_crt_parse_file): about 6 ms of CPU, a third of a small `tether status`, in
// every command, for TLS connections tether never makes through libgit2 (it reads local
// repositories; pushes and fetches run the git program). No option, environment variable or
// call order avoids it (the path is compiled in and git_libgit2_opts only runs after init).
//
// So the executable defines the two mbedTLS functions libgit2 calls, and the dynamic linker
// binds libgit2's calls to them (an executable's definitions come first): parse_file records
// the chain and the file and returns at once; mbedtls_ssl_setup, the first step of every TLS
// session, parses the recorded file into that chain before handing over to the real function
// when the session's configuration uses the chain. A TLS session through libgit2 therefore
// still verifies against the same bundle. As at libgit2's init, a bundle that fails to parse
// leaves the chain empty: nothing is trusted, so the connection fails its certificate check.
// With another TLS library (OpenSSL builds of libgit2) nothing calls these and nothing changes.
#include "ca_bundle.hpp"

#if __has_include(<mbedtls/version.h>) && __has_include(<mbedtls/ssl.h>)
#include <mbedtls/version.h>
#if MBEDTLS_VERSION_MAJOR == 2  // 3.x hides mbedtls_ssl_config's fields, and libgit2 1.5 does not build with it
#define TETHER_DEFER_CA_BUNDLE 1
#endif
#endif

#ifdef TETHER_DEFER_CA_BUNDLE

#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

#include <mutex>
#include <string>

#include "next_symbol.hpp"

namespace {

using ParseFile = int (*)(mbedtls_x509_crt*, const char*);
using SslSetup = int (*)(mbedtls_ssl_context*, const mbedtls_ssl_config*);
using CrtFn = void (*)(mbedtls_x509_crt*);

std::mutex& pending_mutex() {
  static std::mutex mu;
  return mu;
}
mbedtls_x509_crt* pending_chain = nullptr;  // guarded by pending_mutex()
std::string pending_file;

// The definition after the executable's (libmbedx509's, libmbedtls's): next_symbol.hpp.
template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(tether::cli::next_symbol(name));
}

// Parses the recorded bundle into its chain when `conf` uses that chain.
void parse_pending(const mbedtls_ssl_config* conf) {
  std::lock_guard lock(pending_mutex());
  if (pending_chain == nullptr || conf == nullptr || conf->ca_chain != pending_chain) return;
  mbedtls_x509_crt* chain = pending_chain;
  pending_chain = nullptr;
  static const auto parse = next<ParseFile>("mbedtls_x509_crt_parse_file");
  if (parse != nullptr && parse(chain, pending_file.c_str()) >= 0) return;
  // What parsed before the failure goes too: an empty chain trusts nothing.
  static const auto crt_free = next<CrtFn>("mbedtls_x509_crt_free");
  static const auto crt_init = next<CrtFn>("mbedtls_x509_crt_init");
  if (crt_free != nullptr && crt_init != nullptr) {
    crt_free(chain);
    crt_init(chain);
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int mbedtls_x509_crt_parse_file(mbedtls_x509_crt* chain, const char* path) {
  if (chain == nullptr || path == nullptr) return MBEDTLS_ERR_X509_BAD_INPUT_DATA;
  std::lock_guard lock(pending_mutex());
  pending_chain = chain;
  pending_file = path;
  return 0;
}

extern "C" __attribute__((visibility("default"))) int mbedtls_ssl_setup(mbedtls_ssl_context* ssl, const mbedtls_ssl_config* conf) {
  parse_pending(conf);
  static const auto setup = next<SslSetup>("mbedtls_ssl_setup");
  if (setup == nullptr) return MBEDTLS_ERR_SSL_BAD_INPUT_DATA;
  return setup(ssl, conf);
}

namespace tether::cli {

std::optional<std::string> deferred_ca_bundle() {
  std::lock_guard lock(pending_mutex());
  if (pending_chain == nullptr) return std::nullopt;
  return pending_file;
}

}  // namespace tether::cli

#else

namespace tether::cli {

std::optional<std::string> deferred_ca_bundle() { return std::nullopt; }

}  // namespace tether::cli

#endif
