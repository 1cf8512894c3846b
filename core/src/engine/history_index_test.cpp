// Unit tests of the history index (history_index.cpp): it holds exactly what each commit's
// manifests say, is read back without a walk under unchanged tips, reads only the commits it
// lacks, forgets the ones no ref reaches, leaves out a commit whose manifest does not parse,
// and a damaged, edited or misplaced file is ignored and rebuilt. gc and verify answer the
// same from the stored file as from an index built in memory. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include <cstdio>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/context.hpp"
#include "engine/history_index.hpp"
#include "engine/internal.hpp"
#include "engine/testing/dataset.hpp"
#include "tether/engine/gc.hpp"
#include "tether/engine/verify.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/testing/errors.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<const HistoryIndex> load(const Dataset& ds) {
  auto repo = ds.open();
  return HistoryIndex::load(Context::of(*repo));
}

fs::path index_file(const Dataset& ds) {
  fs::path common = ds.git({"rev-parse", "--git-common-dir"});
  return (common.is_absolute() ? common : ds.root() / common) / "tether-history";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// Each commit's records as text, read from the index and read from the VCS and parsed: the
// two must be equal for every commit reachable.
std::string from_index(const HistoryIndex& ix) {
  std::string out;
  for (const auto& c : ix.commits()) {
    out += c.id + "\n";
    REQUIRE(c.tree != HistoryIndex::kNotIndexed);
    for (std::uint32_t n : ix.tree(c.tree)) {
      const auto& r = ix.manifests()[n];
      out += "  " + std::string(r.key) + " " + std::string(r.kind) + " " + std::string(r.locator) + " " +
             std::string(r.state) + " " + std::string(r.pin_id) + " " + std::string(r.pin_ref) + " " +
             (r.recoverable ? "1" : "0") + "\n";
    }
  }
  return out;
}

std::string from_history(const Dataset& ds) {
  auto repo = ds.open();
  auto& cx = Context::of(*repo);
  std::string out;
  for (const auto& id : cx.vcs->all_commit_ids()) {
    out += id + "\n";
    for (const auto& [key, m] : parse_manifest_files(*cx.vcs->manifests_at(id, ".tether/objects"), id))
      out += "  " + key + " " + m.kind + " " + tether::support::canonical_json(m.locator) + " " +
             (m.state ? tether::support::canonical_json(*m.state) : "") + " " + (m.pin ? m.pin->id : "") + " " +
             (m.pin ? m.pin->ref : "") + " " + (m.recoverable ? "1" : "0") + "\n";
  }
  return out;
}

// Three commits of one memory object, then a second object.
void history(const Dataset& ds) {
  ds.add_memory("m", "sys1");
  ds.commit("one");
  ds.advance("sys1");
  ds.commit("two");
  ds.add_memory("n", "sys2");
  ds.commit("three");
}

}  // namespace

TEST_CASE("the history index holds what every commit's manifests say, and is read back without a walk") {
  Dataset ds;
  history(ds);
  const auto first = load(ds);
  CHECK_FALSE(first->stats().file_used);
  CHECK(first->stats().commits_read == 4);  // the initial commit has no manifest
  CHECK(first->stats().stored);
  CHECK(from_index(*first) == from_history(ds));
  CHECK(first->manifests().size() == 3);  // m twice, n once: equal records are one

  const auto again = load(ds);
  CHECK(again->stats().file_used);
  CHECK(again->stats().tips_matched);
  CHECK(again->stats().commits_read == 0);
  CHECK_FALSE(again->stats().stored);
  CHECK(from_index(*again) == from_history(ds));
}

TEST_CASE("the history index reads only the commits it lacks, and a moved ref only re-keys it") {
  Dataset ds;
  history(ds);
  load(ds);
  ds.advance("sys1");
  ds.commit("four");
  const auto grown = load(ds);
  CHECK(grown->stats().file_used);
  CHECK_FALSE(grown->stats().tips_matched);
  CHECK(grown->stats().commits_read == 1);
  CHECK(grown->stats().stored);
  CHECK(from_index(*grown) == from_history(ds));

  ds.git({"branch", "side", "HEAD~2"});  // new tips, the same commits
  const auto rekeyed = load(ds);
  CHECK(rekeyed->stats().commits_read == 0);
  CHECK(rekeyed->stats().stored);
  CHECK(load(ds)->stats().tips_matched);
}

TEST_CASE("commits no ref reaches any more leave the history index, and what only they held with them") {
  Dataset ds;
  history(ds);
  ds.git({"switch", "-q", "-c", "side"});  // a commit whose tree no other commit has
  ds.git({"rm", "-q", ".tether/objects/m.toml"});
  ds.git({"commit", "-q", "-m", "on side"});
  ds.git({"switch", "-q", "main"});
  const auto with_side = load(ds);
  CHECK(with_side->commits().size() == 5);
  const std::size_t trees = with_side->tree_count();

  ds.git({"branch", "-q", "-D", "side"});
  const auto without = load(ds);
  CHECK(without->commits().size() == 4);
  CHECK(without->tree_count() == trees - 1);
  CHECK(from_index(*without) == from_history(ds));
  CHECK(from_index(*load(ds)) == from_history(ds));
}

TEST_CASE("a commit whose manifest does not parse is left out of the index; verify and gc read it as before") {
  Dataset ds;
  history(ds);
  spit(ds.root() / ".tether" / "objects" / "bad.toml", "kind = [unterminated\n");
  ds.git({"add", ".tether/objects/bad.toml"});
  ds.git({"commit", "-q", "-m", "bad manifest"});
  ds.git({"rm", "-q", ".tether/objects/bad.toml"});
  ds.git({"commit", "-q", "-m", "fixed"});

  const auto ix = load(ds);
  std::size_t not_indexed = 0;
  for (const auto& c : ix->commits())
    if (c.tree == HistoryIndex::kNotIndexed) ++not_indexed;
  CHECK(not_indexed == 1);
  CHECK(load(ds)->stats().tips_matched);

  for (int run = 0; run < 2; ++run) {  // built, then read back: the same refusal and the same note
    VerifyOptions vo;
    vo.all_history = true;
    const std::string err = tether::testing::error_of([&] { verify(*ds.open(), vo); });
    CHECK(tether::testing::contains(err, "bad.toml"));
    GcOptions go;
    const auto plan = gc(*ds.open(), go).plan;
    bool noted = false;
    for (const auto& n : plan.notes) noted = noted || tether::testing::contains(n, "bad.toml cannot be read");
    CHECK(noted);
  }
}

TEST_CASE("verify --all-history and gc answer the same from a stored index as from one built in memory") {
  Dataset ds;
  history(ds);
  ds.advance("sys1");
  ds.untag("sys1", *ds.commit("five").pinned.at("m"));  // one pin missing: verify is not ok
  ds.advance("sys1");
  ds.commit("six");
  VerifyOptions vo;
  vo.all_history = true;
  fs::create_directory(index_file(ds));  // no index can be stored: every run reads the history
  const auto fresh = verify(*ds.open(), vo);
  const auto fresh_gc = gc(*ds.open(), GcOptions{}).plan;
  fs::remove(index_file(ds));
  load(ds);
  REQUIRE(load(ds)->stats().tips_matched);
  const auto indexed = verify(*ds.open(), vo);
  const auto indexed_gc = gc(*ds.open(), GcOptions{}).plan;
  CHECK_FALSE(fresh.ok());
  REQUIRE(fresh.size() == indexed.size());
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    CHECK(fresh.label(i) == indexed.label(i));
    CHECK(fresh.status(i) == indexed.status(i));
    CHECK(fresh.message(i) == indexed.message(i));
  }
  CHECK(fresh.skipped_observed == indexed.skipped_observed);
  CHECK(fresh_gc.actions.size() == indexed_gc.actions.size());
  CHECK(fresh_gc.notes == indexed_gc.notes);
  CHECK(fresh_gc.context == indexed_gc.context);
}

TEST_CASE("verify sends index states that are not plain JSON through a full reader, and a broken one fails alone") {
  Dataset ds;
  history(ds);
  VerifyOptions vo;
  vo.all_history = true;
  load(ds);
  const auto before = verify(*ds.open(), vo);
  REQUIRE(before.ok());
  REQUIRE(before.size() == 4);  // m in three commits, n in one
  const fs::path file = index_file(ds);
  const std::string good = slurp(file);

  // Each record's state spelled with a \u escape for its first key's first letter: the same
  // JSON, which is_plain_json leaves to nlohmann. The answers stay the same.
  std::string escaped;
  std::size_t records = 0;
  for (std::size_t at = 0; at < good.size();) {
    std::size_t nl = good.find('\n', at);
    std::string line = good.substr(at, nl + 1 - at);
    at = nl + 1;
    if (line.rfind("m\t", 0) == 0) {
      std::size_t state = line.rfind('\t') + 1;
      REQUIRE(line.compare(state, 2, "{\"") == 0);
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned char>(line[state + 2]));
      line.replace(state + 2, 1, hex);
      ++records;
    }
    escaped += line;
  }
  REQUIRE(records == 3);
  spit(file, escaped);
  REQUIRE(load(ds)->stats().tips_matched);
  REQUIRE(slurp(file) == escaped);  // used as it is
  const auto same = verify(*ds.open(), vo);
  REQUIRE(same.size() == before.size());
  for (std::size_t i = 0; i < same.size(); ++i) {
    CHECK(same.label(i) == before.label(i));
    CHECK(same.status(i) == "ok");
  }

  // One record's state is not JSON at all: its rows fail, the rest of the batch is verified.
  std::string broken = good;
  const std::size_t line_end = broken.find('\n', broken.find("\nm\t") + 1);
  const std::size_t state = broken.rfind('\t', line_end) + 1;
  broken.replace(state, line_end - state, "{\"broken");
  spit(file, broken);
  const auto one_bad = verify(*ds.open(), vo);
  REQUIRE(one_bad.size() == before.size());
  std::size_t failed = 0;
  for (std::size_t i = 0; i < one_bad.size(); ++i) {
    CHECK(one_bad.label(i) == before.label(i));
    if (one_bad.status(i) != "ok") {
      ++failed;
      CHECK_FALSE(one_bad.message(i).empty());
    }
  }
  CHECK(failed >= 1);
  CHECK(failed < one_bad.size());
}

TEST_CASE("a damaged, edited or misplaced index file is ignored and rebuilt") {
  Dataset ds;
  history(ds);
  load(ds);
  const fs::path file = index_file(ds);
  const std::string good = slurp(file);
  const std::string truth = from_history(ds);
  const std::string rel_hash = good.substr(good.find('\n') - 16, 16);

  SUBCASE("parse accepts the file whole and refuses every part of it") {
    HistoryIndex ix;
    std::string tips;
    CHECK(HistoryIndex::parse(good, rel_hash, ix, tips));
    CHECK(ix.serialise(rel_hash, tips) == good);
    CHECK_FALSE(HistoryIndex::parse(good, "fedcba9876543210", ix, tips));  // another dataset's
    for (std::size_t cut = 0; cut < good.size(); ++cut) {
      HistoryIndex part;
      CHECK_FALSE(HistoryIndex::parse(good.substr(0, cut), rel_hash, part, tips));
    }
  }

  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    return t;
  };
  const std::string mutations[] = {
      replace("tether-history 1 ", "tether-history 2 "),
      replace("\nend\t", "\nc\t" + std::string(40, 'a') + "\t0\nend\t"),  // a commit the end line does not count
      replace("\nt\t0", "\nt\t9"),                                          // a record out of range
      replace("\nm\t", "\nm\tx\t"),                                         // a record with a field too many
      replace("\nm\t", "\nm\t\x1b[2J"),                                     // a control character
      replace("\nc\t", "\nc\tG"),                                           // not a commit id
      good + "trailing\n",
      std::string(good.size(), '\0'),
  };
  for (const auto& bad : mutations) {
    spit(file, bad);
    const auto ix = load(ds);
    CHECK_FALSE(ix->stats().file_used);
    CHECK(ix->stats().stored);
    CHECK(from_index(*ix) == truth);
    CHECK(slurp(file) == good);
  }

  // A symlink in its place is not followed, neither to read nor to write.
  const fs::path elsewhere = ds.scratch() / "elsewhere";
  spit(elsewhere, good);
  fs::remove(file);
  fs::create_symlink(elsewhere, file);
  auto ix = load(ds);
  CHECK_FALSE(ix->stats().file_used);
  CHECK(from_index(*ix) == truth);
  CHECK_FALSE(fs::is_symlink(file));
  CHECK(slurp(elsewhere) == good);

  // A directory in its place: nothing is stored, nothing fails.
  fs::remove(file);
  fs::create_directory(file);
  ix = load(ds);
  CHECK_FALSE(ix->stats().stored);
  CHECK(from_index(*ix) == truth);
}
