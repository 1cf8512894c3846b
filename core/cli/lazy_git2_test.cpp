// The deferred CA bundle (ca_bundle.cpp) and libssh2 init (ssh_init.cpp) where libgit2 is not
// linked but opened at run time, as tether does (core/src/vcs/git2_lazy.cpp) and as the git
// plugin's dependency is. This test links neither libgit2, mbedTLS nor libssh2 (headers only),
// and is linked with tether's export arguments: libgit2's calls must bind to the definitions
// here, and these must reach the real functions, which are then in libgit2's own scope only
// (next_symbol.hpp). Every mbedTLS and libssh2 function the test itself needs comes from
// libgit2's handle.
#include "ca_bundle.hpp"
#include "ssh_init.hpp"

#include <dlfcn.h>
#include <git2/version.h>
#include <libssh2.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "doctest/doctest.h"

namespace fs = std::filesystem;

namespace {

void* libgit2() {
  static void* handle = dlopen("libgit2.so." LIBGIT2_SOVERSION, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle != nullptr);
  return handle;
}

// The real `name`, from libgit2 and its dependencies.
template <class F>
F real(const char* name) {
  void* f = dlsym(libgit2(), name);
  REQUIRE_MESSAGE(f != nullptr, name);
  return reinterpret_cast<F>(f);
}

bool uses_mbedtls() { return dlopen("libmbedx509.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr; }

}  // namespace

TEST_CASE("nothing of libgit2 is loaded before it is opened") {
  CHECK(dlopen("libgit2.so." LIBGIT2_SOVERSION, RTLD_NOW | RTLD_NOLOAD) == nullptr);
  CHECK(dlopen("libssh2.so.1", RTLD_NOW | RTLD_NOLOAD) == nullptr);
  CHECK(dlsym(RTLD_NEXT, "mbedtls_ssl_setup") == nullptr);
}

TEST_CASE("libgit2 opened at run time defers the CA bundle and libssh2's init to the executable") {
  auto init = real<int (*)()>("git_libgit2_init");
  auto shutdown = real<int (*)()>("git_libgit2_shutdown");
  REQUIRE(init() > 0);
  CHECK(tether::cli::ssh_init_deferred());
  if (uses_mbedtls()) {
    auto pending = tether::cli::deferred_ca_bundle();
    REQUIRE(pending.has_value());
    CHECK(fs::is_regular_file(*pending));
  } else {
    MESSAGE("libgit2 does not use mbedTLS here: no CA bundle to defer");
  }
  shutdown();
}

TEST_CASE("an SSH session started after a run-time open initialises the real libssh2 first") {
  auto init = real<int (*)()>("git_libgit2_init");
  auto shutdown = real<int (*)()>("git_libgit2_shutdown");
  REQUIRE(init() > 0);
  REQUIRE(tether::cli::ssh_init_deferred());
  LIBSSH2_SESSION* session = libssh2_session_init_ex(nullptr, nullptr, nullptr, nullptr);  // this executable's
  REQUIRE(session != nullptr);
  CHECK_FALSE(tether::cli::ssh_init_deferred());
  // A real session on an initialised library: a method preference is accepted.
  auto pref = real<decltype(&::libssh2_session_method_pref)>("libssh2_session_method_pref");
  CHECK(pref(session, LIBSSH2_METHOD_KEX, "diffie-hellman-group14-sha256") == 0);
  real<decltype(&::libssh2_session_free)>("libssh2_session_free")(session);
  shutdown();
}

TEST_CASE("a TLS session after a run-time open parses the recorded bundle with the real mbedTLS") {
  libgit2();  // and with it its TLS library
  if (!uses_mbedtls()) {
    MESSAGE("libgit2 does not use mbedTLS here: nothing to defer");
    return;
  }
  const char* pem = real<const char*>("mbedtls_test_ca_crt_ec_pem");
  fs::path bundle = fs::temp_directory_path() / ("tether-lazy-git2-test-" + std::to_string(::getpid()) + ".pem");
  std::ofstream(bundle) << pem;

  auto crt_init = real<decltype(&::mbedtls_x509_crt_init)>("mbedtls_x509_crt_init");
  auto crt_free = real<decltype(&::mbedtls_x509_crt_free)>("mbedtls_x509_crt_free");
  mbedtls_x509_crt chain;
  crt_init(&chain);
  REQUIRE(mbedtls_x509_crt_parse_file(&chain, bundle.c_str()) == 0);  // this executable's: records
  CHECK(chain.version == 0);
  CHECK(tether::cli::deferred_ca_bundle() == bundle.string());

  mbedtls_ssl_config conf;
  mbedtls_ssl_context ssl;
  real<decltype(&::mbedtls_ssl_config_init)>("mbedtls_ssl_config_init")(&conf);
  real<decltype(&::mbedtls_ssl_init)>("mbedtls_ssl_init")(&ssl);
  REQUIRE(real<decltype(&::mbedtls_ssl_config_defaults)>("mbedtls_ssl_config_defaults")(
              &conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT) == 0);
  real<decltype(&::mbedtls_ssl_conf_ca_chain)>("mbedtls_ssl_conf_ca_chain")(&conf, &chain, nullptr);
  CHECK(mbedtls_ssl_setup(&ssl, &conf) == 0);  // this executable's: parses, then the real setup
  CHECK(chain.version == 3);                   // the test CA, parsed by the real mbedTLS
  CHECK_FALSE(tether::cli::deferred_ca_bundle().has_value());

  real<decltype(&::mbedtls_ssl_free)>("mbedtls_ssl_free")(&ssl);
  real<decltype(&::mbedtls_ssl_config_free)>("mbedtls_ssl_config_free")(&conf);
  crt_free(&chain);
  fs::remove(bundle);
}
