// The backend through its C vtable, on real temporary directories. Hash and digest
// constants were computed with Python's hashlib (see hashing_test.cpp for the recipe).
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include <doctest/doctest.h>

#include "support.hpp"

namespace tether::file::test {
namespace {

using V = tether_backend_vtable;

Json loc(const fs::path& p) { return Json{{"uri", p.string()}}; }
Json req(const fs::path& p) { return Json{{"locator", loc(p)}}; }
// Every fresh file is a cache hit at once.
std::string hex(const std::array<unsigned char, 32>& raw) {
  std::string out;
  for (unsigned char c : raw) out += "0123456789abcdef"[c >> 4], out += "0123456789abcdef"[c & 15];
  return out;
}

FileBackendOptions no_racy_window() {
  FileBackendOptions o;
  o.racy_window_ns = 0;
  return o;
}

// The tree of the digest vector: hidden files count, the root marker does not, a nested
// marker is content, a symlink to a file is read through, other symlinks are tokens.
void make_vector_tree(const fs::path& root) {
  write_file(root / "a.txt", "alpha\n");
  write_file(root / "sub" / "b.txt", "beta\n");
  write_file(root / "sub" / ".tether-owner", "x\n");
  write_file(root / ".hidden", "h");
  write_file(root / "\xc3\xa9" / "a b", "");
  write_file(root / ".tether-owner", "0a1b2c3d\n");
  fs::create_symlink("a.txt", root / "lf");
  fs::create_directory_symlink("sub", root / "link");
  fs::create_symlink("nowhere", root / "dead");
}

// Python: the rows of make_vector_tree, json.dumps'd line by line (see listing_test.cpp).
const char* kVectorListing =
    "{\"p\":\".hidden\",\"k\":\"aaa9402664f1a41f40ebbc52c9993eb66aeb366602958fdfaa283b71e64db123\",\"s\":1}\n"
    "{\"p\":\"a.txt\",\"k\":\"b6a98d9ce9a2d9149288fa3df42d377c3e42737afdcdaf714e33c0a100b51060\",\"s\":6}\n"
    "{\"p\":\"dead\",\"k\":\"symlink:20aeff0494e828d188c704e1f488a589b15ae01d11f6cb129f62129caa6cc543\",\"s\":0}\n"
    "{\"p\":\"lf\",\"k\":\"b6a98d9ce9a2d9149288fa3df42d377c3e42737afdcdaf714e33c0a100b51060\",\"s\":6}\n"
    "{\"p\":\"link\",\"k\":\"symlink:ddc6e2b224d0fd821669202258386936fc9ce2899e215eec6322b95f8dd96d6a\",\"s\":0}\n"
    "{\"p\":\"sub/.tether-owner\",\"k\":\"73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac\",\"s\":2}\n"
    "{\"p\":\"sub/b.txt\",\"k\":\"f2c82decdd7181cf98945929a62598db7e6b477e11f6e0eb0ae97020eff151ad\",\"s\":5}\n"
    "{\"p\":\"\\u00e9/a b\",\"k\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\",\"s\":0}\n";

}  // namespace

TEST_CASE("describe") {
  FileBackend b(Json::object());
  Driver d(b);
  Json desc = d.ok(&V::describe, Json::object());
  CHECK(desc["kind"] == "file");
  CHECK(desc["maturity"] == "stable");
  CHECK(desc["capabilities"] == (TETHER_CAP_FINGERPRINT | TETHER_CAP_CHEAP_FINGERPRINT | TETHER_CAP_DIFF |
                                 TETHER_CAP_CREATE));
  CHECK(desc["local_path_keys"] == Json::array({"uri", "path"}));
  CHECK(desc["uri_keys"] == Json::array({"uri", "path"}));
  CHECK(desc["key_suffixes"] == Json::array());
  CHECK(desc["thread_safe"] == true);
  CHECK(desc["safe_config_keys"] == Json::array({"storage_options"}));
  // No pins, no forks, no history: those slots are absent.
  const tether_backend_vtable* t = sdk::Backend<FileBackend>::vtable();
  CHECK_FALSE(static_cast<bool>(t->pin));
  CHECK_FALSE(static_cast<bool>(t->fork));
  CHECK_FALSE(static_cast<bool>(t->history));
  CHECK_FALSE(static_cast<bool>(t->promote));
}

TEST_CASE("a regular file's state is its size and sha256") {
  TempDir tmp;
  write_file(tmp.path / "h.txt", "hello\n");
  FileBackend b(Json::object());
  Driver d(b);
  CHECK(d.state((tmp.path / "h.txt").string()) ==
        Json{{"type", "file"},
             {"size", 6},
             {"sha256", "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"}});
}

TEST_CASE("a directory's state and listing match the reference's vector") {
  TempDir tmp;
  make_vector_tree(tmp.path / "d");
  FileBackend b(Json::object());
  Driver d(b);
  Json s = d.state((tmp.path / "d").string());
  CHECK(s == Json{{"type", "dir"}, {"count", 8}, {"size", 20}, {"digest", "ca998a3bafcbece5fe235fbcc83b6554"}});
  CHECK(s["count"].is_number_integer());
  Json l = d.ok(&V::listing, Json{{"locator", loc(tmp.path / "d")}, {"state", s}});
  CHECK(l["listing"] == kVectorListing);

  // A fresh instance has no rows in memory: it walks again and still answers.
  FileBackend other(Json::object());
  Driver d2(other);
  CHECK(d2.ok(&V::listing, Json{{"locator", loc(tmp.path / "d")}, {"state", s}})["listing"] == kVectorListing);
  // Once the directory changed, the recorded state can no longer be described.
  write_file(tmp.path / "d" / "new", "n");
  FileBackend third(Json::object());
  Driver d3(third);
  CHECK(d3.ok(&V::listing, Json{{"locator", loc(tmp.path / "d")}, {"state", s}})["listing"].is_null());
  // Single files have no listing.
  write_file(tmp.path / "f", "x");
  CHECK(d.ok(&V::listing, Json{{"locator", loc(tmp.path / "f")}, {"state", d.state((tmp.path / "f").string())}})
            ["listing"]
                .is_null());
}

TEST_CASE("an empty directory has the empty digest; a missing path names itself") {
  TempDir tmp;
  fs::create_directory(tmp.path / "e");
  FileBackend b(Json::object());
  Driver d(b);
  CHECK(d.state((tmp.path / "e").string()) ==
        Json{{"type", "dir"}, {"count", 0}, {"size", 0}, {"digest", "cae66941d9efbd404e4d88758ea67670"}});
  Result r = d.call(&V::fingerprint, req(tmp.path / "nope"));
  CHECK(r.status == TETHER_E_BACKEND);
  CHECK(r.fails == 1);
  CHECK(r.message == "path does not exist: " + (tmp.path / "nope").string());
}

TEST_CASE("a symlinked root is fingerprinted through the link; a link loop below is only a token") {
  TempDir tmp;
  write_file(tmp.path / "d" / "f", "x");
  fs::create_directory_symlink(".", tmp.path / "d" / "loop");
  fs::create_directory_symlink(tmp.path / "d", tmp.path / "alias");
  FileBackend b(Json::object());
  Driver d(b);
  Json s = d.state((tmp.path / "alias").string());
  CHECK(s["count"] == 2);
  CHECK(s == d.state((tmp.path / "d").string()));
}

TEST_CASE("the stat cache: an unchanged tree is not read again, in or across processes") {
  TempDir tmp;
  for (int i = 0; i < 20; ++i) write_file(tmp.path / "d" / ("f" + std::to_string(i)), "content " + std::to_string(i));
  fs::path cache_dir = tmp.path / "cache";
  Json configure{{"cache_dir", cache_dir.string()}, {"checkout", tmp.path.string()}};

  FileBackend b(Json::object(), no_racy_window());
  Driver d(b);
  d.ok(&V::configure, configure);
  Json s1 = d.state((tmp.path / "d").string());
  CHECK(b.files_hashed() == 20);
  Json s2 = d.state((tmp.path / "d").string());
  CHECK(s2 == s1);
  CHECK(b.files_hashed() == 20);

  // Written once, atomically: one file, sorted, holding every file's hash.
  auto image = CacheImage::open((cache_dir / "file-hashes.bin").string());
  REQUIRE(image->size() == 20);
  std::string f3 = (tmp.path / "d" / "f3").string();
  std::size_t at = image->lower_bound(f3);
  REQUIRE(at < image->size());
  CHECK(image->key(at) == f3);
  CHECK(image->entry(at).stat.size == 9);  // hashlib.sha256(b"content 3")
  CHECK(hex(image->entry(at).sha256) == "b910ce7ef3d90e013867bae074fcccaed29ee9262a006ef5af04c06d9b6bc1eb");
  for (std::size_t i = 1; i < image->size(); ++i) CHECK(image->key(i - 1) < image->key(i));
  for (auto& p : fs::directory_iterator(cache_dir)) CHECK(p.path().filename() == "file-hashes.bin");

  // Another instance (another process) reads the file and hashes nothing.
  FileBackend again(Json::object(), no_racy_window());
  Driver d2(again);
  d2.ok(&V::configure, configure);
  CHECK(d2.state((tmp.path / "d").string()) == s1);
  CHECK(again.files_hashed() == 0);

  // A changed mtime is a miss: that file, and only it, is read.
  set_mtime(tmp.path / "d" / "f3", 1000000);
  CHECK(d2.state((tmp.path / "d").string()) == s1);  // same bytes: same state
  CHECK(again.files_hashed() == 1);
  // The save after that one miss kept every other entry, and the same instance reads the
  // new file: nothing is read again, here or in a third instance.
  CHECK(d2.state((tmp.path / "d").string()) == s1);
  CHECK(again.files_hashed() == 1);
  CHECK(CacheImage::open((cache_dir / "file-hashes.bin").string())->size() == 20);
  FileBackend third(Json::object(), no_racy_window());
  Driver d3(third);
  d3.ok(&V::configure, configure);
  CHECK(d3.state((tmp.path / "d").string()) == s1);
  CHECK(third.files_hashed() == 0);
}

TEST_CASE("a cache hit returns the cached hash without reading; racy or changed entries are re-read") {
  TempDir tmp;
  fs::path file = tmp.path / "f.txt";
  write_file(file, "hello\n");
  fs::path cache_dir = tmp.path / "cache";
  Json configure{{"cache_dir", cache_dir.string()}};
  const std::string real = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
  const std::string fake(64, 'f');
  {
    FileBackend b(Json::object());
    Driver d(b);
    d.ok(&V::configure, configure);
    CHECK(d.state(file.string())["sha256"] == real);
  }
  const fs::path cache_file = cache_dir / "file-hashes.bin";
  // Rewrites the recorded hash and its hashing time, keeping the stat key.
  auto tamper = [&](int64_t hashed_after_change_ns) {
    auto image = CacheImage::open(cache_file.string());
    REQUIRE(image->size() == 1);
    HashEntry e = image->entry(0);
    e.sha256.fill(0xff);
    e.hashed_at_ns = std::max(e.stat.mtime_ns, e.stat.ctime_ns) + hashed_after_change_ns;
    write_file(cache_file, CacheImage::serialize(nullptr, {{file.string(), e}}));
  };
  auto fresh_state = [&] {
    FileBackend b(Json::object());
    Driver d(b);
    d.ok(&V::configure, configure);
    return d.state(file.string())["sha256"].get<std::string>();
  };
  tamper(10'000'000'000);  // hashed 10 s after the last change: trusted
  CHECK(fresh_state() == fake);
  tamper(1'000'000'000);  // hashed 1 s after the last change: racy, read again
  CHECK(fresh_state() == real);
  tamper(10'000'000'000);
  set_mtime(file, 12345);  // the stat key moved: read again
  CHECK(fresh_state() == real);
  // A corrupt cache counts as empty.
  write_file(cache_file, "{not json");
  CHECK(fresh_state() == real);
}

// The cache lives in the checkout: a clone, another program or a torn disk may have written
// it. Whatever its bytes, the worst they may cost is reading the files again: a wrong hash
// is served only for a record whose key and stat match exactly, as a true one would.
TEST_CASE("a truncated, corrupt or hostile cache file costs a rehash, never a wrong hash") {
  TempDir tmp;
  for (int i = 0; i < 5; ++i) write_file(tmp.path / "d" / ("f" + std::to_string(i)), "content " + std::to_string(i));
  fs::path cache_dir = tmp.path / "cache";
  const fs::path cache_file = cache_dir / "file-hashes.bin";
  Json configure{{"cache_dir", cache_dir.string()}};
  Json expected;
  {
    FileBackend b(Json::object(), no_racy_window());
    Driver d(b);
    d.ok(&V::configure, configure);
    expected = d.state((tmp.path / "d").string());
  }
  const std::string good = read_file(cache_file);
  auto image = CacheImage::open(cache_file.string());
  REQUIRE(image->size() == 5);
  // What a fresh process makes of the file as `bytes` leaves it: its state, and how many
  // files it read.
  auto run = [&](const std::string& bytes) {
    write_file(cache_file, bytes);
    FileBackend b(Json::object(), no_racy_window());
    Driver d(b);
    d.ok(&V::configure, configure);
    CHECK(d.state((tmp.path / "d").string()) == expected);
    return b.files_hashed();
  };
  CHECK(run(good) == 0);

  // Cut anywhere: the header no longer matches the size, and everything is read again.
  for (std::size_t cut : {std::size_t(0), std::size_t(7), std::size_t(31), std::size_t(32), std::size_t(100),
                          good.size() / 2, good.size() - 1})
    CHECK(run(good.substr(0, cut)) == 5);
  CHECK(run(good + "x") == 5);
  // A header claiming more records than the file has, or a path area past its end.
  std::string bad = good;
  bad[16] = '\x7f';
  CHECK(run(bad) == 5);
  bad = good;
  bad[24] = static_cast<char>(bad[24] + 1);
  CHECK(run(bad) == 5);
  // Another format or byte order.
  bad = good;
  bad[8] = static_cast<char>(bad[8] ^ 1);
  CHECK(run(bad) == 5);
  CHECK(run("{\"" + (tmp.path / "d" / "f0").string() + "\": [9, 0, 0, 0, \"" + std::string(64, 'f') + "\", 0]}") == 5);

  // Records whose path offsets point outside the path area, or past other records: misses.
  std::map<std::string, HashEntry, std::less<>> all;
  for (std::size_t i = 0; i < image->size(); ++i) all.emplace(std::string(image->key(i)), image->entry(i));
  bad = good;
  const std::size_t records = 32, record = 80;
  for (std::size_t i = 0; i < 5; ++i) bad[records + i * record + 3] = '\x7f';  // offsets 2^31 and more
  CHECK(run(bad) == 5);
  bad = good;
  for (std::size_t i = 0; i < 5; ++i) bad[records + i * record + 4] = '\x7f';  // lengths into other paths or past the end
  CHECK(run(bad) == 5);

  // Records out of order: still no wrong hash; found or not, each file gets its true one.
  bad = good;
  std::swap_ranges(bad.begin() + records, bad.begin() + records + record, bad.begin() + records + 4 * record);
  CHECK(run(bad) <= 5);
  // and the next save writes a sorted file again.
  auto resaved = CacheImage::open(cache_file.string());
  for (std::size_t i = 1; i < resaved->size(); ++i) CHECK(resaved->key(i - 1) < resaved->key(i));

  // A record with the right key and a wrong stat (any field) is a miss: the file is read.
  for (int field = 0; field < 4; ++field) {
    auto copy = all;
    HashEntry& e = copy.begin()->second;
    e.sha256.fill(0xee);
    (field == 0 ? e.stat.size : field == 1 ? reinterpret_cast<uint64_t&>(e.stat.mtime_ns)
                              : field == 2 ? reinterpret_cast<uint64_t&>(e.stat.ctime_ns)
                                           : e.stat.inode) += 1;
    CHECK(run(CacheImage::serialize(nullptr, copy)) == 1);
  }
  // A cache path that is not a regular file (a FIFO would block a plain open) counts as empty.
  fs::remove(cache_file);
  REQUIRE(::mkfifo(cache_file.c_str(), 0600) == 0);
  {
    FileBackend b(Json::object(), no_racy_window());
    Driver d(b);
    d.ok(&V::configure, configure);
    CHECK(d.state((tmp.path / "d").string()) == expected);
    CHECK(b.files_hashed() == 5);
  }
}

TEST_CASE("the JSON cache of earlier versions is not read, and goes at the next save") {
  TempDir tmp;
  fs::path file = tmp.path / "f.txt";
  write_file(file, "hello\n");
  fs::path cache_dir = tmp.path / "cache";
  // An old entry whose stat matches, with a wrong hash: were it read, it would be served.
  struct stat st;
  REQUIRE(::stat(file.c_str(), &st) == 0);
  int64_t mtime = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  int64_t ctime = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  Json old{{file.string(), {6, mtime, ctime, st.st_ino, std::string(64, 'f'), std::max(mtime, ctime) + 10'000'000'000}}};
  write_file(cache_dir / "file-hashes.json", old.dump());
  FileBackend b(Json::object());
  Driver d(b);
  d.ok(&V::configure, Json{{"cache_dir", cache_dir.string()}});
  CHECK(d.state(file.string())["sha256"] == "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  CHECK(b.files_hashed() == 1);
  CHECK(!fs::exists(cache_dir / "file-hashes.json"));
  CHECK(fs::exists(cache_dir / "file-hashes.bin"));
}

TEST_CASE("diff through the plugin: listings, missing listings, files") {
  TempDir tmp;
  fs::path dir = tmp.path / "d";
  write_file(dir / "keep", "same");
  write_file(dir / "mod", "v1");
  write_file(dir / "gone", "bye");
  FileBackend b(Json::object());
  Driver d(b);
  Json a = d.state(dir.string());
  std::string la = d.ok(&V::listing, Json{{"locator", loc(dir)}, {"state", a}})["listing"];
  write_file(dir / "mod", "v2 longer");
  fs::remove(dir / "gone");
  write_file(dir / "new", "hello");
  Json s = d.state(dir.string());
  std::string lb = d.ok(&V::listing, Json{{"locator", loc(dir)}, {"state", s}})["listing"];
  Json diff = d.ok(&V::diff, Json{{"locator", loc(dir)}, {"a", a}, {"b", s}, {"listing_a", la}, {"listing_b", lb}});
  CHECK(diff["unit"] == "files");
  CHECK(diff["summary"] == "+1 -1 ~1 files");
  CHECK(diff["entries"] == Json::array({{{"path", "gone"}, {"change", "removed"}, {"detail", "-3 B"}},
                                        {{"path", "mod"}, {"change", "modified"}, {"detail", "+7 B"}},
                                        {{"path", "new"}, {"change", "added"}, {"detail", "+5 B"}}}));
  Json self = d.ok(&V::diff, Json{{"locator", loc(dir)}, {"a", s}, {"b", s}, {"listing_a", lb}, {"listing_b", lb}});
  CHECK(self["entries"].empty());
  CHECK(self["added"] == 0);
  Json summary = d.ok(&V::diff, Json{{"locator", loc(dir)}, {"a", a}, {"b", s}, {"listing_a", nullptr}, {"listing_b", lb}});
  CHECK(summary["note"] == "no stored listing for side a");
  CHECK(summary["entries"][0]["detail"] == "3 -> 3 files, +9 B");
}

TEST_CASE("verify: ok, drifted, missing, and unknown for versioned states") {
  TempDir tmp;
  fs::path dir = tmp.path / "d";
  write_file(dir / "a", "1");
  FileBackend b(Json::object());
  Driver d(b);
  Json s = d.state(dir.string());
  auto verify = [&](const Json& state, bool deep = false) {
    return d.ok(&V::verify, Json{{"locator", loc(dir)}, {"state", state}, {"pin", nullptr}, {"deep", deep}});
  };
  CHECK(verify(s) == Json{{"status", "ok"}, {"message", ""}});
  write_file(dir / "a", "2");
  CHECK(verify(s) == Json{{"status", "drifted"}, {"message", "content changed since commit"}});
  fs::remove_all(dir);
  Json missing = verify(s);
  CHECK(missing["status"] == "missing");
  CHECK(missing["message"] == "path does not exist: " + dir.string());
  Json versioned{{"type", "object"}, {"size", 1}, {"etag", "e"}, {"version_id", "v1"}};
  CHECK(verify(versioned) == Json{{"status", "unknown"}, {"message", "pass --deep to confirm the version"}});
}

TEST_CASE("open gives a read-only handle and refuses a writable one") {
  TempDir tmp;
  write_file(tmp.path / "d" / "a", "1");
  FileBackend b(Json::object());
  Driver d(b);
  std::string uri = (tmp.path / "d").string() + "/";
  Json h = d.ok(&V::open, Json{{"locator", {{"uri", uri}}}, {"target", Json::object()}, {"read_only", true}});
  CHECK(h["handle"]["address"] == uri);
  CHECK(h["handle"]["uri"] == uri);
  CHECK(h["handle"]["read_only"] == true);
  Result w = d.call(&V::open, Json{{"locator", {{"uri", uri}}}, {"target", Json::object()}, {"read_only", false}});
  CHECK(w.status == TETHER_E_UNSUPPORTED);
  CHECK(w.fails == 1);
  CHECK(w.replies == 0);
}

TEST_CASE("refused locators: `at`, object stores, other schemes, no uri") {
  TempDir tmp;
  FileBackend b(Json::object());
  Driver d(b);
  auto refused = [&](tether_op V::*slot, const Json& locator) {
    Result r = d.call(slot, Json{{"locator", locator}, {"working_ref", nullptr}});
    CHECK(r.status == TETHER_E_BACKEND);
    CHECK(r.fails == 1);
    return r.message;
  };
  Json at{{"uri", tmp.path.string()}, {"at", "v3"}};
  CHECK(refused(&V::fingerprint, at) ==
        "file objects have no history to detach from (`at`); use `--file versioned` on a versioned bucket instead");
  CHECK(refused(&V::validate_locator, at).find("no history to detach from") != std::string::npos);
  // Object-store URLs are locators (s3_test.cpp reads them); one that names no bucket, or a
  // region that is no region name, is refused before anything is sent.
  for (const char* uri : {"s3://bucket/key", "gs://bkt/p/", "az://ctr/x", "https://host/file.csv", "s3://bucket"}) {
    CAPTURE(uri);
    d.ok(&V::validate_locator, Json{{"locator", {{"uri", uri}}}});
    CHECK(refused(&V::fingerprint, Json{{"uri", uri}, {"at", "v1"}}).find("no history to detach from") != std::string::npos);
  }
  CHECK(refused(&V::validate_locator, Json{{"uri", "s3:///key"}}).rfind("cannot use object-store URL 's3:///key': ", 0) == 0);
  CHECK(refused(&V::fingerprint, Json{{"uri", "s3:///key"}}).rfind("cannot use object-store URL 's3:///key': ", 0) == 0);
  CHECK(refused(&V::validate_locator, Json{{"uri", "s3://bkt/k"}, {"region", "evil.example/x"}}) ==
        "file locator 'region' must be a region name (lowercase letters, digits, '-'), not \"evil.example/x\"");
  d.ok(&V::validate_locator, Json{{"locator", {{"uri", "s3://bkt/k"}, {"region", "eu-west-1"}}}});
  CHECK(refused(&V::validate_locator, Json{{"uri", "ftp://h/x"}}) == "unsupported file URI scheme: 'ftp'");
  CHECK(refused(&V::validate_locator, Json{{"branch", "main"}}) == "file locator needs 'uri'");
  // A path that does not exist yet is a valid locator (`add --create` makes it).
  d.ok(&V::validate_locator, req(tmp.path / "later"));
  // Malformed requests are refused without a reply.
  Result bad = d.call_raw(&V::fingerprint, "{not json");
  CHECK(bad.status == TETHER_E_INVALID_ARGUMENT);
  CHECK(bad.fails == 1);
}

TEST_CASE("identity, default key, effective capabilities") {
  TempDir tmp;
  fs::create_directories(tmp.path / "real" / "raw");
  fs::create_directory_symlink(tmp.path / "real", tmp.path / "via");
  FileBackend b(Json::object());
  Driver d(b);
  std::string want = (tmp.path / "real" / "raw").string();
  for (std::string uri : {want, want + "/", "file://" + want, (tmp.path / "via" / "raw").string()})
    CHECK(d.ok(&V::identity, Json{{"locator", {{"uri", uri}}}}) == Json{{"identity", {{"uri", want}}}});
  auto key = [&](const std::string& uri) { return d.ok(&V::default_key, Json{{"locator", {{"uri", uri}}}})["key"]; };
  CHECK(key("/data/raw/") == "raw");
  CHECK(key("/data/table.csv") == "table.csv");
  CHECK(key("file:///data/x") == "x");
  CHECK(key("/").is_null());
  auto caps = [&](const std::string& uri, const char* file_policy) {
    return d.ok(&V::effective_capabilities,
                Json{{"locator", {{"uri", uri}}}, {"policy", {{"file", file_policy}, {"pin", "native"}}}})["capabilities"]
        .get<uint32_t>();
  };
  const uint32_t base = TETHER_CAP_FINGERPRINT | TETHER_CAP_CHEAP_FINGERPRINT | TETHER_CAP_DIFF;
  CHECK(caps(want, "immutable") == (base | TETHER_CAP_CREATE));
  CHECK(caps(want, "versioned") == (base | TETHER_CAP_CREATE));  // local stays Observed
  CHECK(caps("s3://bkt/k.csv", "versioned") == (base | TETHER_CAP_ADDRESSABLE));
  CHECK(caps("s3://bkt/prefix/", "versioned") == base);
  CHECK(caps("s3://bkt/k.csv", "immutable") == base);
  CHECK(caps("ftp://b/k", "versioned") == base);
  CHECK(caps("s3:///k.csv", "versioned") == base);  // no bucket: only the base set
  CHECK(caps("s3://bkt", "versioned") == base);        // the whole bucket is a prefix
  for (std::string uri : {"s3://bkt/k.csv", "gs://bkt/p/", "s3://bkt"})
    CHECK(d.ok(&V::identity, Json{{"locator", {{"uri", uri}}}}) == Json{{"identity", {{"uri", uri}}}});
  CHECK(key("s3://b/run/041/") == "041");
  CHECK(key("s3://b/k.csv") == "k.csv");
  CHECK(d.ok(&V::state_addressable, Json{{"locator", {{"uri", want}}}, {"state", {{"type", "object"}, {"etag", "e"}}}})
            ["addressable"] == false);
}

TEST_CASE("create, owner, is_ref_empty, delete_store") {
  TempDir tmp;
  fs::path store = tmp.path / "stores" / "new";
  FileBackend b(Json::object());
  Driver d(b);
  Json created = d.ok(&V::create, Json{{"locator", loc(store)}, {"owner", "0a1b2c3d"}});
  CHECK(created["state"] ==
        Json{{"type", "dir"}, {"count", 0}, {"size", 0}, {"digest", "cae66941d9efbd404e4d88758ea67670"}});
  CHECK(read_file(store / ".tether-owner") == "0a1b2c3d\n");
  CHECK(d.ok(&V::owner, req(store))["owner"] == "0a1b2c3d");
  CHECK(d.ok(&V::is_ref_empty, Json{{"locator", loc(store)}, {"ignoring", Json::array()}})["result"] == true);
  CHECK(d.state(store.string()) == created["state"]);  // the marker is not content

  Result again = d.call(&V::create, Json{{"locator", loc(store)}, {"owner", "ffffffff"}});
  CHECK(again.status == TETHER_E_BACKEND);
  CHECK(again.message == store.string() + " already exists; `create` never adopts it");
  CHECK(d.ok(&V::owner, req(store))["owner"] == "0a1b2c3d");

  write_file(store / "data", "x");
  CHECK(d.ok(&V::is_ref_empty, Json{{"locator", loc(store)}, {"ignoring", Json::array()}})["result"] == false);
  Result busy = d.call(&V::delete_store, req(store));
  CHECK(busy.status == TETHER_E_BACKEND);
  CHECK(busy.message == store.string() + " is not empty; not removing it");
  CHECK(fs::exists(store / "data"));

  fs::remove(store / "data");
  d.ok(&V::delete_store, req(store));
  CHECK_FALSE(fs::exists(store));
  CHECK(d.ok(&V::owner, req(store))["owner"].is_null());
  CHECK(d.ok(&V::is_ref_empty, Json{{"locator", loc(store)}, {"ignoring", Json::array()}})["result"].is_null());
  CHECK(d.call(&V::fingerprint, req(store)).status == TETHER_E_BACKEND);
  // The name is free again.
  CHECK(d.ok(&V::create, Json{{"locator", loc(store)}, {"owner", "0a1b2c3d"}})["state"] == created["state"]);

  // Remote stores are managed by their bucket.
  Result remote = d.call(&V::create, Json{{"locator", {{"uri", "s3://b/p/"}}}, {"owner", "0a1b2c3d"}});
  CHECK(remote.message.rfind("file create: only a local directory", 0) == 0);
}

TEST_CASE("concurrent fingerprints of shared and separate trees agree") {
  TempDir tmp;
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 50; ++i)
      write_file(tmp.path / ("d" + std::to_string(t)) / ("f" + std::to_string(i)), std::to_string(t * 1000 + i));
  FileBackend b(Json::object(), no_racy_window());
  Driver d(b);
  d.ok(&V::configure, Json{{"cache_dir", (tmp.path / "cache").string()}});
  std::vector<Json> expected;
  {
    FileBackend reference(Json::object());
    Driver rd(reference);
    for (int t = 0; t < 4; ++t) expected.push_back(rd.state((tmp.path / ("d" + std::to_string(t))).string()));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int n = 0; n < 8; ++n)
    threads.emplace_back([&, n] {
      for (int round = 0; round < 3; ++round) {
        int t = (n + round) % 4;
        Result r = d.call(&V::fingerprint, req(tmp.path / ("d" + std::to_string(t))));
        if (r.status != TETHER_OK || r.reply["state"] != expected[static_cast<std::size_t>(t)]) ++mismatches;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(mismatches == 0);
  CHECK(CacheImage::open((tmp.path / "cache" / "file-hashes.bin").string())->size() == 200);
}

TEST_CASE("fingerprint reports the walk and the hashing of misses, in files and bytes; a warm tree hashes nothing") {
  TempDir tmp;
  uint64_t bytes = 0;
  for (int dir = 0; dir < 3; ++dir)
    for (int i = 0; i < 200; ++i) {
      std::string content = "file " + std::to_string(dir) + "/" + std::to_string(i);
      bytes += content.size();
      write_file(tmp.path / "d" / ("s" + std::to_string(dir)) / ("f" + std::to_string(i)), content);
    }
  FileBackend b(Json::object(), no_racy_window());
  Driver d(b);
  d.ok(&V::configure, Json{{"cache_dir", (tmp.path / "cache").string()}, {"checkout", tmp.path.string()}});

  // The walk and the reading overlap: once files are read, each report is the files read of
  // those scanned so far, with bytes; the last one counts everything.
  Result cold = d.call(&V::fingerprint, req(tmp.path / "d"));
  REQUIRE(cold.status == TETHER_OK);
  std::vector<Result::Step> hashing;
  for (const auto& s : cold.steps) {
    CHECK(s.unit == "files");
    if (s.step == "hashing") hashing.push_back(s);
    else CHECK((s.step == "scanning" && s.total == 0 && s.done <= 600));
  }
  REQUIRE(hashing.size() >= 600 / 64);
  for (const auto& s : hashing) CHECK((s.done >= 1 && s.done <= s.total && s.total <= 600));
  REQUIRE(!cold.steps.empty());
  const auto& last = cold.steps.back();
  CHECK(last.step == "hashing");
  CHECK(last.done == 600);
  CHECK(last.total == 600);
  CHECK(last.bytes == bytes);

  Result warm = d.call(&V::fingerprint, req(tmp.path / "d"));
  REQUIRE(warm.status == TETHER_OK);
  CHECK(warm.reply == cold.reply);
  REQUIRE(!warm.steps.empty());  // 600 files: reports at 256 and 512
  for (const auto& s : warm.steps) CHECK((s.step == "scanning" && s.total == 0 && s.done >= 256 && s.done <= 600));
}

}  // namespace tether::file::test

