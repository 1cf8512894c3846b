#include "metadata_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "tether/sdk/json_limits.hpp"

namespace tether::icechunk {
namespace {

constexpr uint8_t kMagic[12] = {0x49, 0x43, 0x45, 0xF0, 0x9F, 0xA7, 0x8A, 0x43, 0x48, 0x55, 0x4E, 0x4B};

const char* type_name(FileType t) {
  switch (t) {
    case FileType::Snapshot: return "snapshot";
    case FileType::Manifest: return "manifest";
    case FileType::TransactionLog: return "transaction log";
    case FileType::RepoInfo: return "repo info";
  }
  return "unknown";
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
  // POSIX reads, not an ifstream: libstdc++'s filebuf throws ios_base::failure from a read
  // error (a directory where a file belongs), which no caller expects. Anything but a regular
  // file is a format error naming the path.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw FormatError("cannot read " + path + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) throw FormatError("cannot read " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw FormatError("cannot read " + path + ": not a regular file");
  std::vector<uint8_t> bytes;
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  uint8_t buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FormatError("cannot read " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
}

std::vector<uint8_t> zstd_decompress(const uint8_t* data, std::size_t size, std::size_t cap, const std::string& what) {
  std::unique_ptr<ZSTD_DStream, decltype(&ZSTD_freeDStream)> ds(ZSTD_createDStream(), &ZSTD_freeDStream);
  if (!ds) throw FormatError("out of memory decompressing " + what);
  ZSTD_initDStream(ds.get());
  std::vector<uint8_t> out;
  std::vector<uint8_t> chunk(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{data, size, 0};
  std::size_t last = 1;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(ds.get(), &o, &in);
    if (ZSTD_isError(last)) throw FormatError(what + ": corrupt zstd data (" + ZSTD_getErrorName(last) + ")");
    out.insert(out.end(), chunk.data(), chunk.data() + o.pos);
    if (out.size() > cap) throw FormatError(what + ": decompresses to more than " + std::to_string(cap) + " bytes");
    if (o.pos == 0 && last != 0 && in.pos == in.size) break;
  }
  // Drain whatever the decoder still holds.
  while (last != 0) {
    ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(ds.get(), &o, &in);
    if (ZSTD_isError(last)) throw FormatError(what + ": corrupt zstd data (" + ZSTD_getErrorName(last) + ")");
    if (o.pos == 0) break;
    out.insert(out.end(), chunk.data(), chunk.data() + o.pos);
    if (out.size() > cap) throw FormatError(what + ": decompresses to more than " + std::to_string(cap) + " bytes");
  }
  if (last != 0) throw FormatError(what + ": truncated zstd data");
  return out;
}

MetadataFile parse_metadata_file(const std::vector<uint8_t>& bytes, FileType expected, const std::string& what) {
  if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw FormatError(what + " is not an Icechunk metadata file (no ICE\xF0\x9F\xA7\x8A" "CHUNK header)");
  MetadataFile f;
  std::string name(reinterpret_cast<const char*>(bytes.data()) + 12, 24);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\0')) name.pop_back();
  f.writer = name;
  f.spec_version = bytes[36];
  if (f.spec_version < 1 || f.spec_version > 2)
    throw FormatError(what + " has spec version " + std::to_string(f.spec_version) + ", which this tether cannot read (1 and 2 only)");
  f.type = static_cast<FileType>(bytes[37]);
  if (f.type != expected)
    throw FormatError(what + " is file type " + std::to_string(bytes[37]) + ", expected a " + type_name(expected) + " (" +
                      std::to_string(static_cast<int>(expected)) + ")");
  if (bytes[38] != 1) throw FormatError(what + " uses compression " + std::to_string(bytes[38]) + "; Icechunk writes zstd (1) only");
  f.payload = zstd_decompress(bytes.data() + kHeaderSize, bytes.size() - kHeaderSize, kMaxPayload, what);
  if (f.payload.size() < 8 || std::memcmp(f.payload.data() + 4, "Ichk", 4) != 0) {
    // Icechunk always finishes its buffers with the identifier; a missing one is tolerated
    // on read (the schema does not declare it), a too-short buffer is not.
    if (f.payload.size() < 8) throw FormatError(what + ": empty flatbuffer");
  }
  return f;
}

MetadataFile read_metadata_file(const std::string& path, FileType expected) {
  return parse_metadata_file(read_file(path), expected, path);
}

std::optional<std::string> ref_snapshot(const std::vector<uint8_t>& bytes) {
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto j = sdk::parse_json_bounded(text, sdk::kMaxJsonDocumentBytes);
  if (!j || !j->is_object()) return std::nullopt;
  auto it = j->find("snapshot");
  if (it == j->end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace tether::icechunk
