// metadata_file: Icechunk's binary metadata files (docs/backends.md#icechunk): a 39-byte header
// (magic, implementation name, spec version, file type, compression) and a zstd-compressed
// flatbuffer. Reading checks every header field and caps the decompressed size, since the
// files come from a repository anyone may have written.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tether::icechunk {

// A file that is not what Icechunk writes (bad magic, unknown type, corrupt zstd, a
// flatbuffer that does not verify, ...). The message names the file.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class FileType : uint8_t { Snapshot = 1, Manifest = 2, TransactionLog = 4, RepoInfo = 6 };

struct MetadataFile {
  int spec_version = 0;   // the header's byte 36: 1 or 2; decides how values are encoded
  FileType type{};
  std::string writer;     // implementation name, e.g. "ic-2.0.5"
  std::vector<uint8_t> payload;  // the decompressed flatbuffer
};

inline constexpr std::size_t kHeaderSize = 39;
inline constexpr std::size_t kMaxPayload = std::size_t{1} << 31;  // 2 GiB, Icechunk's own limit

// Parses header and body of `bytes` (the whole file); `what` names it in errors.
MetadataFile parse_metadata_file(const std::vector<uint8_t>& bytes, FileType expected, const std::string& what);
// Reads and parses the file at `path`.
MetadataFile read_metadata_file(const std::string& path, FileType expected);

// zstd in and out (streaming: Icechunk's frames carry no content size).
std::vector<uint8_t> zstd_decompress(const uint8_t* data, std::size_t size, std::size_t cap, const std::string& what);

// The whole file, or FormatError naming it when it cannot be read.
std::vector<uint8_t> read_file(const std::string& path);

// The snapshot id a spec-1 ref file (`{"snapshot": "<id>"}`) names; nullopt when the bytes are
// not that JSON object (the SDK's limits apply: a ref is someone else's file).
std::optional<std::string> ref_snapshot(const std::vector<uint8_t>& bytes);

}  // namespace tether::icechunk
