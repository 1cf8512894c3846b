// The deferred CA bundle (ca_bundle.cpp) and libssh2 init (ssh_init.cpp): linked into this test as into the tether executable,
// so libgit2's and this file's calls bind to the deferral exactly as in tether.
#include "ca_bundle.hpp"
#include "ssh_init.hpp"

#include <dlfcn.h>
#include <unistd.h>
#include <git2.h>
#include <libssh2.h>
#include <mbedtls/certs.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "doctest/doctest.h"

namespace fs = std::filesystem;
using tether::cli::deferred_ca_bundle;

namespace {

fs::path write_file(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("tether-ca-bundle-test-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(p) << text;
  return p;
}

// A client TLS configuration trusting `chain`, and one session set up on it.
struct Session {
  mbedtls_ssl_config conf;
  mbedtls_ssl_context ssl;
  explicit Session(mbedtls_x509_crt* chain) {
    mbedtls_ssl_config_init(&conf);
    mbedtls_ssl_init(&ssl);
    REQUIRE(mbedtls_ssl_config_defaults(&conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                        MBEDTLS_SSL_PRESET_DEFAULT) == 0);
    mbedtls_ssl_conf_ca_chain(&conf, chain, nullptr);
  }
  int setup() { return mbedtls_ssl_setup(&ssl, &conf); }
  ~Session() {
    mbedtls_ssl_free(&ssl);
    mbedtls_ssl_config_free(&conf);
  }
};

}  // namespace

TEST_CASE("libgit2's init records the system bundle and parses nothing") {
  // Only a libgit2 built on mbedTLS asks for it (Debian's: /etc/ssl/certs/ca-certificates.crt).
  if (dlopen("libmbedx509.so.1", RTLD_NOW | RTLD_NOLOAD) == nullptr) {
    MESSAGE("libgit2 does not use mbedTLS here: nothing to defer");
    return;
  }
  REQUIRE(git_libgit2_init() > 0);
  auto pending = deferred_ca_bundle();
  REQUIRE(pending.has_value());
  CHECK(fs::is_regular_file(*pending));
  git_libgit2_shutdown();
}

TEST_CASE("a TLS session parses the recorded bundle into the chain it trusts") {
  fs::path bundle = write_file("ca.pem", mbedtls_test_ca_crt_ec_pem);
  mbedtls_x509_crt chain;
  mbedtls_x509_crt_init(&chain);
  REQUIRE(mbedtls_x509_crt_parse_file(&chain, bundle.c_str()) == 0);
  CHECK(chain.version == 0);  // recorded, not parsed
  CHECK(deferred_ca_bundle() == bundle.string());

  // A session on another chain leaves it pending.
  mbedtls_x509_crt other;
  mbedtls_x509_crt_init(&other);
  {
    Session s(&other);
    CHECK(s.setup() == 0);
  }
  CHECK(chain.version == 0);
  CHECK(deferred_ca_bundle() == bundle.string());

  {
    Session s(&chain);
    CHECK(s.setup() == 0);
  }
  CHECK(chain.version == 3);  // the test CA, parsed
  CHECK(chain.next == nullptr);
  CHECK_FALSE(deferred_ca_bundle().has_value());
  mbedtls_x509_crt_free(&chain);
  mbedtls_x509_crt_free(&other);
  fs::remove(bundle);
}

TEST_CASE("a bundle that does not parse leaves the chain empty: nothing is trusted") {
  fs::path bundle = write_file("bad.pem", "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
  mbedtls_x509_crt chain;
  mbedtls_x509_crt_init(&chain);
  REQUIRE(mbedtls_x509_crt_parse_file(&chain, bundle.c_str()) == 0);
  {
    Session s(&chain);
    CHECK(s.setup() == 0);
  }
  CHECK(chain.version == 0);
  CHECK(chain.raw.p == nullptr);
  mbedtls_x509_crt_free(&chain);
  fs::remove(bundle);
}

TEST_CASE("libgit2's init leaves libssh2 uninitialised until a session starts") {
  REQUIRE(git_libgit2_init() > 0);
  CHECK(tether::cli::ssh_init_deferred());
  LIBSSH2_SESSION* session = libssh2_session_init();
  REQUIRE(session != nullptr);
  CHECK_FALSE(tether::cli::ssh_init_deferred());
  // The session works on an initialised library: a method preference is accepted.
  CHECK(libssh2_session_method_pref(session, LIBSSH2_METHOD_KEX, "diffie-hellman-group14-sha256") == 0);
  libssh2_session_free(session);
  git_libgit2_shutdown();
}
