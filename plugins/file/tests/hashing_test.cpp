// Hash vectors. Every expected value was computed independently with Python's hashlib:
//   hashlib.sha256(data).hexdigest()
//   h = hashlib.blake2b(digest_size=16); for name, token in sorted(pairs):
//       h.update(name.encode()); h.update(b"\0"); h.update(token.encode()); h.update(b"\0")
//   h.hexdigest()
// (the reference's _digest_pairs).
#include <sys/stat.h>

#include <doctest/doctest.h>

#include "hashing.hpp"
#include "listing.hpp"
#include "support.hpp"
#include "tether/sdk/error.hpp"

namespace tether::file::test {

TEST_CASE("sha256 of bytes and of a file") {
  CHECK(sha256_hex("hello\n") == "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  TempDir tmp;
  write_file(tmp.path / "h", "hello\n");
  FileHasher hasher;
  CHECK(hasher.hash_file((tmp.path / "h").string()) ==
        "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  // Larger than the read buffer: 3 MiB + 1 of 'a'. hashlib.sha256(b"a" * (3 * 2**20 + 1))
  write_file(tmp.path / "big", std::string(3 * (1 << 20) + 1, 'a'));
  CHECK(hasher.hash_file((tmp.path / "big").string()) ==
        "2b98b70051781969f52a33c9cd0e8392bb7a634a92a3be4597b25e13feb41ee6");
  CHECK_THROWS_AS(hasher.hash_file((tmp.path / "missing").string()), sdk::BackendError);
}

// A file the walk saw as regular can be swapped for something else before it is read: a
// FIFO with no writer must be refused at once, not waited on; a directory is refused too.
TEST_CASE("a FIFO or a directory where a file was is one error naming it, never a hang") {
  TempDir tmp;
  fs::path fifo = tmp.path / "was-a-file";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  FileHasher hasher;
  try {
    hasher.hash_file(fifo.string());
    FAIL("a FIFO was hashed");
  } catch (const sdk::BackendError& e) {
    CHECK(std::string(e.what()).find(fifo.string() + ": it is no longer a regular file") != std::string::npos);
  }
  fs::create_directory(tmp.path / "dir");
  CHECK_THROWS_AS(hasher.hash_file((tmp.path / "dir").string()), sdk::BackendError);
}

TEST_CASE("directory digest: BLAKE2b-16 over path NUL token NUL, sorted") {
  CHECK(rows_digest({}) == "cae66941d9efbd404e4d88758ea67670");
  Rows one{{"data.txt", sha256_hex("v0\n"), 3}};
  CHECK(rows_digest(one) == "c93adce39473a5e25bfc03029bf033f9");
  // Sorting is by path bytes (code points), then token.
  Rows rows{{"b", "2", 1}, {"a", "1", 1}, {"\xc3\xa9", "3", 1}, {"Z", "0", 1}};
  sort_rows(rows);
  CHECK(rows[0].path == "Z");
  CHECK(rows[1].path == "a");
  CHECK(rows[3].path == "\xc3\xa9");
  CHECK(rows_digest(rows) == "b00bf9e691bc9d31327d4cf4832efc47");
}

}  // namespace tether::file::test
