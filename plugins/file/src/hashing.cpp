// hashing: SHA-256 through OpenSSL's EVP interface, BLAKE2b-16 through libsodium (OpenSSL 3.0
// has no unkeyed BLAKE2b with a 16-byte digest: a truncated BLAKE2b-512 is a different hash).
#include "hashing.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
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
  std::string out(n * 2, '0');
  hex_into(p, n, out.data());
  return out;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void hex_into(const unsigned char* raw, std::size_t n, char* out) {
  static const char* digits = "0123456789abcdef";
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[raw[i] >> 4];
    out[2 * i + 1] = digits[raw[i] & 15];
  }
}

void sha256_raw(std::string_view bytes, unsigned char* out) {
  unsigned int len = 0;
  unsigned char md[EVP_MAX_MD_SIZE];
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, sha256_md(), nullptr) != 1 || len != 32)
    throw std::runtime_error("SHA-256 failed");
  std::memcpy(out, md, 32);
}

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
  unsigned char raw[32];
  hash_file(raw, path, dir_fd, name);
  return to_hex(raw, sizeof raw);
}

void FileHasher::hash_file(unsigned char* raw, const std::string& path, int dir_fd, const char* name) {
  // O_NONBLOCK: a file the walk saw as regular may be a FIFO by now, and opening a FIFO
  // with no writer would wait forever. It changes nothing for a regular file.
  Fd f{::openat(dir_fd, name ? name : path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) throw sdk::BackendError("cannot read " + path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(f.fd, &st) != 0) throw sdk::BackendError("cannot read " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw sdk::BackendError("cannot read " + path + ": it is no longer a regular file (it changed during the walk); run the command again");
  if (EVP_DigestInit_ex2(ctx_, sha256_md(), nullptr) != 1) throw std::runtime_error("SHA-256 init failed");
  uint64_t unreported = 0;
  for (;;) {
    ssize_t n = ::read(f.fd, buffer_.data(), buffer_.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw sdk::BackendError("cannot read " + path + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    if (EVP_DigestUpdate(ctx_, buffer_.data(), static_cast<std::size_t>(n)) != 1)
      throw std::runtime_error("SHA-256 update failed");
    if (on_read_ && (unreported += static_cast<uint64_t>(n)) >= read_every_) {
      on_read_(unreported);
      unreported = 0;
    }
  }
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_, out, &len) != 1 || len != 32) throw std::runtime_error("SHA-256 final failed");
  std::memcpy(raw, out, 32);
}

std::string rows_digest(const std::vector<Row>& rows) {
  RowsDigest d;
  for (const Row& r : rows) d.add(r.path, r.token);
  return d.hex();
}

namespace {
constexpr std::size_t kDigestSize = 16;
constexpr std::size_t kDigestBuffer = 64 * 1024;
crypto_generichash_state* state_of(unsigned char* p) { return reinterpret_cast<crypto_generichash_state*>(p); }
}  // namespace

// libsodium wants the state 64-byte aligned.
RowsDigest::RowsDigest()
    : state_(static_cast<unsigned char*>(::operator new(sizeof(crypto_generichash_state), std::align_val_t{64}))) {
  if (crypto_generichash_init(state_of(state_), nullptr, 0, kDigestSize) != 0) {
    ::operator delete(state_, std::align_val_t{64});
    throw std::runtime_error("BLAKE2b init failed");
  }
  buffer_.reserve(kDigestBuffer);
}

RowsDigest::~RowsDigest() { ::operator delete(state_, std::align_val_t{64}); }

void RowsDigest::flush() {
  crypto_generichash_update(state_of(state_), reinterpret_cast<const unsigned char*>(buffer_.data()), buffer_.size());
  buffer_.clear();
}

void RowsDigest::add(std::string_view path, std::string_view token) {
  if (buffer_.size() + path.size() + token.size() + 2 > kDigestBuffer) flush();
  buffer_.append(path);
  buffer_ += '\0';
  buffer_.append(token);
  buffer_ += '\0';
}

std::string RowsDigest::hex() {
  flush();
  unsigned char out[kDigestSize];
  crypto_generichash_final(state_of(state_), out, kDigestSize);
  return to_hex(out, kDigestSize);
}

}  // namespace tether::file
