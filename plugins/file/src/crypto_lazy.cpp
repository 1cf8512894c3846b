// crypto_lazy.cpp: libcrypto is loaded at the plugin's first SHA-256, not when the plugin is.
//
// SHA-256 goes through OpenSSL's EVP (hashing.cpp): its SHA-NI code hashes a large file as fast
// as `openssl dgst -sha256`, several times libsodium's portable C. But linked, libcrypto.so.3
// is loaded, relocated and initialised in every command that loads the file plugin, including
// a `tether status` with nothing to hash. So the plugin defines the EVP functions it calls,
// each forwarding to the real one in libcrypto, opened on the first call
// (tether/support/lazy_library.hpp; signatures from evp.h by decltype, so a mismatch does not
// compile, and a function called but not defined here fails to link the plugin, -z defs). The
// calls are per file and per 1 MiB buffer: the forwarding is one indirect call among them.
// A missing libcrypto is a BackendError.
#include <openssl/evp.h>
#include <openssl/opensslv.h>

#include <string>

#include "tether/sdk/error.hpp"
#include "tether/support/lazy_library.hpp"

namespace {

#define TETHER_STR2(x) #x
#define TETHER_STR(x) TETHER_STR2(x)

constinit tether::support::LazyLibrary libcrypto("libcrypto.so." TETHER_STR(OPENSSL_SHLIB_VERSION),
                                                 "the OpenSSL crypto library",
                                                 "install OpenSSL (Debian: libssl3) to hash files");

[[noreturn]] void fail(const std::string& message) { throw tether::sdk::BackendError(message); }

}  // namespace

#define TETHER_EVP(ret, name, params, args) TETHER_LAZY_FORWARD(libcrypto, fail, ret, name, params, args)

TETHER_EVP(EVP_MD*, EVP_MD_fetch, (OSSL_LIB_CTX * ctx, const char* algorithm, const char* properties),
           (ctx, algorithm, properties))
TETHER_EVP(int, EVP_Digest,
           (const void* data, size_t count, unsigned char* md, unsigned int* size, const EVP_MD* type, ENGINE* impl),
           (data, count, md, size, type, impl))
TETHER_EVP(EVP_MD_CTX*, EVP_MD_CTX_new, (void), ())
TETHER_EVP(void, EVP_MD_CTX_free, (EVP_MD_CTX * ctx), (ctx))
TETHER_EVP(int, EVP_DigestInit_ex2, (EVP_MD_CTX * ctx, const EVP_MD* type, const OSSL_PARAM params[]),
           (ctx, type, params))
TETHER_EVP(int, EVP_DigestUpdate, (EVP_MD_CTX * ctx, const void* d, size_t cnt), (ctx, d, cnt))
TETHER_EVP(int, EVP_DigestFinal_ex, (EVP_MD_CTX * ctx, unsigned char* md, unsigned int* s), (ctx, md, s))
