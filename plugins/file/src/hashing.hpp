// hashing: the two digests the file backend's states are made of. SHA-256 of file content
// (OpenSSL EVP, streamed through a fixed buffer) and the directory digest, a BLAKE2b-16 over
// the sorted (path, token) rows, byte-for-byte the construction of the Python reference.
#pragma once

#include <fcntl.h>

#include <string>
#include <string_view>
#include <vector>

struct evp_md_ctx_st;

namespace tether::file {

struct Row;

// Lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

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

 private:
  evp_md_ctx_st* ctx_;
  std::vector<unsigned char> buffer_;
};

// The digest of a directory or prefix state: BLAKE2b with a 16-byte digest (unkeyed) fed,
// for every row in order, path UTF-8, NUL, token UTF-8, NUL; 32 lowercase hex characters.
// `rows` must already be sorted by (path, token), as Python's sorted(pairs) orders them.
std::string rows_digest(const std::vector<Row>& rows);

}  // namespace tether::file
