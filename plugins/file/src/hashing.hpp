// hashing: the two digests the file backend's states are made of. SHA-256 of file content
// (OpenSSL EVP, streamed through a fixed buffer) and the directory digest, a BLAKE2b-16 over
// the sorted (path, token) rows, byte-for-byte the construction of the Python reference.
#pragma once

#include <fcntl.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include <string>
#include <string_view>
#include <vector>

struct evp_md_ctx_st;

namespace tether::file {

struct Row;

// Lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);
// The raw SHA-256 of `bytes` into out[0..32).
void sha256_raw(std::string_view bytes, unsigned char* out);
// Lowercase hex of n raw bytes into out[0..2n).
void hex_into(const unsigned char* raw, std::size_t n, char* out);

// Hashes whole files. One per thread: it owns its context and read buffer.
class FileHasher {
 public:
  FileHasher();
  ~FileHasher();
  FileHasher(const FileHasher&) = delete;
  FileHasher& operator=(const FileHasher&) = delete;

  // Lowercase hex SHA-256 of the file's content. Throws sdk::BackendError naming `path`.
  // With `name`, the file opened is `name` in the open directory `dir_fd` (which must be
  // `path`'s directory): no walk of the whole path again for every file.
  std::string hash_file(const std::string& path, int dir_fd = AT_FDCWD, const char* name = nullptr);
  // The same as raw bytes into out[0..32).
  void hash_file(unsigned char* out, const std::string& path, int dir_fd = AT_FDCWD, const char* name = nullptr);

  // While a file is read: `on_read(n)` after each `every` bytes or more, so one big file shows
  // progress (and can be cancelled: what on_read throws ends the read). Empty: no calls.
  void on_read(std::function<void(uint64_t)> fn, uint64_t every) {
    on_read_ = std::move(fn);
    read_every_ = every;
  }

 private:
  evp_md_ctx_st* ctx_;
  std::vector<unsigned char> buffer_;
  std::function<void(uint64_t)> on_read_;
  uint64_t read_every_ = 0;
};

// The digest of a directory or prefix state: BLAKE2b with a 16-byte digest (unkeyed) fed,
// for every row in order, path UTF-8, NUL, token UTF-8, NUL; 32 lowercase hex characters.
// `rows` must already be sorted by (path, token), as Python's sorted(pairs) orders them.
std::string rows_digest(const std::vector<Row>& rows);

// The same digest fed one row at a time, buffered: the hash's update is called per 64 KiB,
// not four times per row.
class RowsDigest {
 public:
  RowsDigest();
  ~RowsDigest();
  RowsDigest(const RowsDigest&) = delete;
  RowsDigest& operator=(const RowsDigest&) = delete;
  void add(std::string_view path, std::string_view token);
  std::string hex();  // once, at the end

 private:
  void flush();
  unsigned char* state_;  // libsodium's crypto_generichash_state, kept out of this header
  std::string buffer_;
};

}  // namespace tether::file
