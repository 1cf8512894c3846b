// hashing: SHA-256 through OpenSSL's EVP interface, BLAKE2b-16 through libsodium (OpenSSL 3.0
// has no unkeyed BLAKE2b with a 16-byte digest: a truncated BLAKE2b-512 is a different hash).
#include "hashing.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <openssl/evp.h>
#include <sodium.h>

#include "listing.hpp"
#include "tether/sdk/error.hpp"

namespace tether::file {
namespace {

constexpr std::size_t kReadBuffer = 1 << 20;  // 1 MiB per hashing thread

// Fetched once: the implicit fetch inside EVP_sha256() costs a lookup per init.
const EVP_MD* sha256_md() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (!md) throw std::runtime_error("OpenSSL has no SHA256 implementation");
  return md;
}

std::string to_hex(const unsigned char* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  return out;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), out, &len, sha256_md(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  return to_hex(out, len);
}

FileHasher::FileHasher() : ctx_(EVP_MD_CTX_new()), buffer_(kReadBuffer) {
  if (!ctx_) throw std::bad_alloc();
}

FileHasher::~FileHasher() { EVP_MD_CTX_free(ctx_); }

std::string FileHasher::hash_file(const std::string& path, int dir_fd, const char* name) {
  Fd f{::openat(dir_fd, name ? name : path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) throw sdk::BackendError("cannot read " + path + ": " + std::strerror(errno));
  if (EVP_DigestInit_ex2(ctx_, sha256_md(), nullptr) != 1) throw std::runtime_error("SHA-256 init failed");
  for (;;) {
    ssize_t n = ::read(f.fd, buffer_.data(), buffer_.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw sdk::BackendError("cannot read " + path + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    if (EVP_DigestUpdate(ctx_, buffer_.data(), static_cast<std::size_t>(n)) != 1)
      throw std::runtime_error("SHA-256 update failed");
  }
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_, out, &len) != 1) throw std::runtime_error("SHA-256 final failed");
  return to_hex(out, len);
}

std::string rows_digest(const std::vector<Row>& rows) {
  crypto_generichash_state st;
  constexpr std::size_t kSize = 16;
  if (crypto_generichash_init(&st, nullptr, 0, kSize) != 0) throw std::runtime_error("BLAKE2b init failed");
  static const unsigned char nul = 0;
  for (const Row& r : rows) {
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(r.path.data()), r.path.size());
    crypto_generichash_update(&st, &nul, 1);
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(r.token.data()), r.token.size());
    crypto_generichash_update(&st, &nul, 1);
  }
  unsigned char out[kSize];
  crypto_generichash_final(&st, out, kSize);
  return to_hex(out, kSize);
}

}  // namespace tether::file
