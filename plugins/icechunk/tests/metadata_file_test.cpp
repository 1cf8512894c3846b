// The 39-byte header and the zstd body (docs/backends.md#icechunk): what is refused.
#include <doctest/doctest.h>

#include <zstd.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "metadata_file.hpp"

using namespace tether::icechunk;

namespace {

std::vector<uint8_t> header(uint8_t spec, uint8_t type, uint8_t compression) {
  const char magic[] = "ICE\xF0\x9F\xA7\x8A" "CHUNK";
  std::vector<uint8_t> h(magic, magic + 12);
  std::string name = "tether-test";
  name.resize(24, ' ');
  h.insert(h.end(), name.begin(), name.end());
  h.push_back(spec);
  h.push_back(type);
  h.push_back(compression);
  return h;
}

std::vector<uint8_t> with_body(std::vector<uint8_t> h, const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> z(ZSTD_compressBound(raw.size()));
  z.resize(ZSTD_compress(z.data(), z.size(), raw.data(), raw.size(), 3));
  h.insert(h.end(), z.begin(), z.end());
  return h;
}

const std::vector<uint8_t> kBuffer{8, 0, 0, 0, 'I', 'c', 'h', 'k', 0, 0, 0, 0};

}  // namespace

TEST_CASE("a well-formed header and body parse") {
  auto f = parse_metadata_file(with_body(header(2, 1, 1), kBuffer), FileType::Snapshot, "x");
  CHECK(f.spec_version == 2);
  CHECK(f.writer == "tether-test");
  CHECK(f.payload == kBuffer);
}

TEST_CASE("bad magic, another type, other compression, unknown spec, corrupt zstd are refused") {
  auto bad = with_body(header(2, 1, 1), kBuffer);
  bad[0] = 'X';
  CHECK_THROWS_WITH_AS(parse_metadata_file(bad, FileType::Snapshot, "f"), doctest::Contains("not an Icechunk"), FormatError);
  CHECK_THROWS_WITH_AS(parse_metadata_file(with_body(header(2, 2, 1), kBuffer), FileType::Snapshot, "f"),
                       doctest::Contains("expected a snapshot"), FormatError);
  CHECK_THROWS_WITH_AS(parse_metadata_file(with_body(header(2, 1, 0), kBuffer), FileType::Snapshot, "f"),
                       doctest::Contains("compression 0"), FormatError);
  CHECK_THROWS_WITH_AS(parse_metadata_file(with_body(header(3, 1, 1), kBuffer), FileType::Snapshot, "f"),
                       doctest::Contains("spec version 3"), FormatError);
  auto corrupt = header(2, 1, 1);
  corrupt.insert(corrupt.end(), {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK_THROWS_AS(parse_metadata_file(corrupt, FileType::Snapshot, "f"), FormatError);
  auto truncated = with_body(header(2, 1, 1), std::vector<uint8_t>(5000, 7));
  truncated.resize(truncated.size() - 3);
  CHECK_THROWS_AS(parse_metadata_file(truncated, FileType::Snapshot, "f"), FormatError);
}

TEST_CASE("decompression is capped") {
  std::vector<uint8_t> big(1 << 20, 0);
  auto framed = with_body({}, big);
  CHECK_THROWS_WITH_AS(zstd_decompress(framed.data(), framed.size(), 1000, "bomb"), doctest::Contains("more than 1000"),
                       FormatError);
  CHECK(zstd_decompress(framed.data(), framed.size(), big.size(), "ok").size() == big.size());
}

TEST_CASE("a spec-1 ref file is read within the SDK's JSON limits") {
  auto bytes = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  CHECK(ref_snapshot(bytes(R"({"snapshot": "ABCDEFGHIJKLMNOPQRST"})")) == std::optional<std::string>("ABCDEFGHIJKLMNOPQRST"));
  CHECK_FALSE(ref_snapshot(bytes(R"({"snapshot": 1})")));
  CHECK_FALSE(ref_snapshot(bytes("not json")));
  // 200,000 levels deep (a repository someone else wrote): refused, not a stack overflow.
  CHECK_FALSE(ref_snapshot(bytes("{\"snapshot\": \"x\", \"pad\": " + std::string(200000, '[') + std::string(200000, ']') + "}")));
  CHECK_FALSE(ref_snapshot(bytes("{\"snapshot\": \"" + std::string(std::size_t{1} << 20, 'x') + "\"}")));  // over 1 MiB
}

TEST_CASE("a directory, a fifo or a missing path where a metadata file belongs is a format error") {
  char tmpl[] = "/tmp/tether-icechunk-read-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  std::string fifo = dir + "/fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(read_file(dir), doctest::Contains("not a regular file"), FormatError);
  CHECK_THROWS_WITH_AS(read_file(fifo), doctest::Contains("not a regular file"), FormatError);
  CHECK_THROWS_AS(read_file(dir + "/missing"), FormatError);
  std::string real = dir + "/real";
  FILE* f = std::fopen(real.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fputs("bytes", f);
  std::fclose(f);
  CHECK(read_file(real) == std::vector<uint8_t>{'b', 'y', 't', 'e', 's'});
  ::unlink(fifo.c_str());
  ::unlink(real.c_str());
  ::rmdir(dir.c_str());
}
