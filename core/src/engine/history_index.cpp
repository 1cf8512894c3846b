// engine/history_index.cpp: see history_index.hpp.
//
// The file, one record per line, fields separated by tabs, no byte below 0x20 (nor 0x7f)
// inside a field:
//   tether-history 1 <tether version> <first 16 hex of sha256(dataset path)>
//   tips <sha256 of the VCS's tips key, hex> | tips -
//   m <key> <kind> <recoverable 0|1> <pin id> <pin ref> <locator> <state>   (record 0, 1, ...)
//   t <record>,<record>,...                                                  (tree 0, 1, ...)
//   c <commit id, 40 hex> <tree | ->                                         (in all_commit_ids() order)
//   end <records> <trees> <commits>
// Under a `tips` equal to the current key, the `c` lines are every reachable commit in order.
#include "engine/history_index.hpp"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "engine/context.hpp"
#include "engine/internal.hpp"
#include "tether/errors.hpp"
#include "tether/model/manifest.hpp"
#include "tether/support/cache_file.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

namespace {

constexpr std::string_view kMagic = "tether-history 1 ";
constexpr std::size_t kFileLimit = std::size_t{1} << 30;

// `n` lower-case hex digits: a commit id (40) or a sha256 (64).
bool is_hex(std::string_view s, std::size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool parse_u32(std::string_view s, std::uint32_t& out) {
  if (s.empty() || s.size() > 10 || (s.size() > 1 && s[0] == '0')) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// Splits `line` at tabs into exactly `n` fields.
bool split_tabs(std::string_view line, std::size_t n, std::string_view* out) {
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t tab = i + 1 < n ? line.find('\t') : std::string_view::npos;
    if (i + 1 < n && tab == std::string_view::npos) return false;
    out[i] = line.substr(0, tab);
    if (i + 1 < n) line.remove_prefix(tab + 1);
  }
  return out[n - 1].find('\t') == std::string_view::npos;
}

// A record line (without "m\t") into its fields; false when it is not one.
bool record_of(std::string_view line, IndexedManifest& m) {
  // One pass: exactly six tabs, and no other byte below 0x20 (nor 0x7f) in the fields.
  std::string_view f[7];
  std::size_t n = 0, start = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto ch = static_cast<unsigned char>(line[i]);
    if (ch >= 0x20 && ch != 0x7f) continue;
    if (ch != '\t' || n == 6) return false;
    f[n++] = line.substr(start, i - start);
    start = i + 1;
  }
  if (n != 6) return false;
  f[6] = line.substr(start);
  if (f[0].empty() || f[1].empty() || (f[2] != "0" && f[2] != "1") || f[5].empty()) return false;
  if (f[3].empty() != f[4].empty()) return false;  // a pin has both an id and a ref
  m = IndexedManifest{f[0], f[1], f[5], f[6], f[3], f[4], f[2] == "1", line};
  return true;
}

std::string rel_hash_of(const Context& cx) { return vcs::sha256_hex(cx.vcs->rel()).substr(0, 16); }

std::filesystem::path file_of(const Context& cx) {
  const std::string rel = cx.vcs->rel();
  return cx.vcs->shared_dir() / (rel.empty() ? std::string("tether-history") : "tether-history-" + rel_hash_of(cx));
}

}  // namespace

bool HistoryIndex::parse(std::string text, const std::string& rel_hash, HistoryIndex& out, std::string& tips) {
  HistoryIndex ix;
  ix.text_ = std::move(text);
  std::string_view rest = ix.text_;
  auto next_line = [&](std::string_view& line) {
    std::size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) return false;
    line = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    return true;
  };
  std::string_view line;
  if (!next_line(line) || line != std::string(kMagic) + TETHER_VERSION + " " + rel_hash) return false;
  if (!next_line(line) || line.substr(0, 5) != "tips ") return false;
  std::string_view t = line.substr(5);
  if (t != "-" && !is_hex(t, 64)) return false;
  std::string tips_read(t == "-" ? "" : t);
  while (true) {
    if (!next_line(line) || line.size() < 2) return false;
    if (line[0] == 'm' && line[1] == '\t') {
      if (!ix.tree_start_.empty() || !ix.commits_.empty()) return false;
      IndexedManifest m;
      if (!record_of(line.substr(2), m)) return false;
      ix.manifests_.push_back(m);
    } else if (line[0] == 't' && line[1] == '\t') {
      if (!ix.commits_.empty()) return false;
      ix.tree_start_.push_back(static_cast<std::uint32_t>(ix.tree_items_.size()));
      // <record>,<record>,...: decimal, no leading zero, each below the record count; none
      // at all for an empty tree.
      std::string_view items = line.substr(2);
      const std::uint64_t records = ix.manifests_.size();
      std::size_t i = 0;
      while (i < items.size()) {
        const std::size_t from = i;
        std::uint64_t n = 0;
        while (i < items.size() && items[i] >= '0' && items[i] <= '9' && i - from < 10) n = n * 10 + static_cast<unsigned>(items[i++] - '0');
        if (i == from || (i - from > 1 && items[from] == '0') || n >= records) return false;
        ix.tree_items_.push_back(static_cast<std::uint32_t>(n));
        if (i == items.size()) break;
        if (items[i] != ',' || ++i == items.size()) return false;  // a stray byte, or a trailing comma
      }
    } else if (line[0] == 'c' && line[1] == '\t') {
      std::string_view f[2];
      if (!split_tabs(line.substr(2), 2, f) || !is_hex(f[0], 40)) return false;
      Commit c{std::string(f[0]), kNotIndexed};
      if (f[1] != "-" && (!parse_u32(f[1], c.tree) || c.tree >= ix.tree_start_.size())) return false;
      ix.commits_.push_back(std::move(c));
    } else if (line.substr(0, 4) == "end\t") {
      std::string_view f[3];
      std::uint32_t nm = 0, nt = 0, nc = 0;
      if (!split_tabs(line.substr(4), 3, f) || !parse_u32(f[0], nm) || !parse_u32(f[1], nt) || !parse_u32(f[2], nc))
        return false;
      if (nm != ix.manifests_.size() || nt != ix.tree_start_.size() || nc != ix.commits_.size() || !rest.empty())
        return false;
      break;
    } else {
      return false;
    }
  }
  // One line per commit: a commit listed twice is not what serialise() writes.
  std::vector<std::string_view> ids;
  ids.reserve(ix.commits_.size());
  for (const auto& c : ix.commits_) ids.push_back(c.id);
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) return false;
  out = std::move(ix);
  // The views into text_ survive the move: a moved std::string keeps its buffer only when it
  // is not a short string, and an index that parsed is never one.
  tips = std::move(tips_read);
  return true;
}

std::string HistoryIndex::serialise(const std::string& rel_hash, const std::string& tips) const {
  std::string out;
  std::size_t size = 64 + commits_.size() * 46 + tree_items_.size() * 7;
  for (const auto& m : manifests_) size += m.line.size() + 3;
  out.reserve(size);
  out += kMagic;
  out += TETHER_VERSION;
  out += ' ';
  out += rel_hash;
  out += "\ntips ";
  out += tips.empty() ? "-" : tips;
  out += '\n';
  for (const auto& m : manifests_) {
    out += "m\t";
    out += m.line;
    out += '\n';
  }
  for (std::size_t t = 0; t < tree_start_.size(); ++t) {
    out += "t\t";
    bool first = true;
    for (std::uint32_t n : tree(static_cast<std::uint32_t>(t))) {
      if (!first) out += ',';
      first = false;
      out += std::to_string(n);
    }
    out += '\n';
  }
  for (const auto& c : commits_) {
    out += "c\t";
    out += c.id;
    out += '\t';
    out += c.tree == kNotIndexed ? std::string("-") : std::to_string(c.tree);
    out += '\n';
  }
  out += "end\t" + std::to_string(manifests_.size()) + "\t" + std::to_string(tree_start_.size()) + "\t" +
         std::to_string(commits_.size()) + "\n";
  return out;
}

// Brings a stored index (or an empty one) up to date with the VCS: the commits it lacks are
// read through the VCS's tree cache, each distinct manifest text parsed once.
struct HistoryIndexBuilder {
  Context& cx;
  HistoryIndex& ix;
  const std::string dir;
  std::unordered_map<std::string_view, std::uint32_t> record_by_line;    // built on the first new record
  std::unordered_map<std::string, std::uint32_t> tree_by_items;          // built on the first new tree
  std::unordered_map<const vcs::FileMap*, std::uint32_t> tree_of_map;    // this run's trees
  std::unordered_map<const std::string*, std::uint32_t> record_of_text;  // this run's texts

  HistoryIndexBuilder(Context& c, HistoryIndex& i) : cx(c), ix(i), dir(vcs_path(c, ".tether/objects")) {}

  static std::string items_key(const std::vector<std::uint32_t>& items) {
    return std::string(reinterpret_cast<const char*>(items.data()), items.size() * sizeof(std::uint32_t));
  }

  // The record of one manifest file's text, or kNotIndexed when it does not parse (or holds
  // what a line cannot).
  std::uint32_t record(const std::string& commit, const std::string& rel, const vcs::Text& text) {
    auto known = record_of_text.find(text.id());
    if (known != record_of_text.end()) return known->second;
    std::uint32_t n = HistoryIndex::kNotIndexed;
    try {
      auto m = model::parse_manifest_file(text.str(), commit.substr(0, 12) + ":.tether/objects/" + rel, rel);
      std::string line = m.key + '\t' + m.kind + '\t' + (m.recoverable ? "1" : "0") + '\t' +
                         (m.pin ? m.pin->id + '\t' + m.pin->ref : std::string("\t")) + '\t' +
                         support::canonical_json(m.locator) + '\t' + (m.state ? support::canonical_json(*m.state) : "");
      IndexedManifest im;
      if (record_of(line, im)) {
        if (record_by_line.empty())
          for (std::uint32_t i = 0; i < ix.manifests_.size(); ++i) record_by_line.emplace(ix.manifests_[i].line, i);
        auto same = record_by_line.find(line);
        if (same != record_by_line.end()) {
          n = same->second;
        } else {
          ix.arena_.push_back(std::move(line));
          record_of(ix.arena_.back(), im);
          n = static_cast<std::uint32_t>(ix.manifests_.size());
          ix.manifests_.push_back(im);
          record_by_line.emplace(im.line, n);
        }
      }
    } catch (const std::exception&) {
      // not indexed: the command reads this commit itself and reports the error as before
    }
    record_of_text.emplace(text.id(), n);
    return n;
  }

  std::uint32_t tree_of(const std::string& commit) {
    auto files = cx.vcs->manifests_at(commit, dir);
    auto known = tree_of_map.find(files.get());
    if (known != tree_of_map.end()) return known->second;
    std::vector<std::uint32_t> items;
    std::uint32_t t = HistoryIndex::kNotIndexed;
    bool whole = true;
    for (const auto& [rel, text] : *files) {
      if (rel.size() < 5 || rel.compare(rel.size() - 5, 5, ".toml") != 0) continue;  // not a manifest
      std::uint32_t n = record(commit, rel, text);
      if (n == HistoryIndex::kNotIndexed) {
        whole = false;
        break;
      }
      items.push_back(n);
    }
    if (whole) {
      if (tree_by_items.empty())
        for (std::uint32_t i = 0; i < ix.tree_start_.size(); ++i) {
          auto s = ix.tree(i);
          tree_by_items.emplace(items_key({s.begin(), s.end()}), i);
        }
      auto [it, inserted] = tree_by_items.emplace(items_key(items), static_cast<std::uint32_t>(ix.tree_start_.size()));
      if (inserted) {
        ix.tree_start_.push_back(static_cast<std::uint32_t>(ix.tree_items_.size()));
        ix.tree_items_.insert(ix.tree_items_.end(), items.begin(), items.end());
      }
      t = it->second;
    }
    tree_of_map.emplace(files.get(), t);
    return t;
  }

  // Drops the trees and records no commit names any more (history rewritten by drop or
  // abandon), renumbering the rest, so the file does not grow with what was removed.
  void prune() {
    std::vector<std::uint32_t> tree_new(ix.tree_start_.size(), HistoryIndex::kNotIndexed);
    std::vector<std::uint32_t> rec_new(ix.manifests_.size(), HistoryIndex::kNotIndexed);
    HistoryIndex out;
    for (auto& c : ix.commits_) {
      if (c.tree == HistoryIndex::kNotIndexed) continue;
      if (tree_new[c.tree] == HistoryIndex::kNotIndexed) {
        tree_new[c.tree] = static_cast<std::uint32_t>(out.tree_start_.size());
        out.tree_start_.push_back(static_cast<std::uint32_t>(out.tree_items_.size()));
        for (std::uint32_t n : ix.tree(c.tree)) {
          if (rec_new[n] == HistoryIndex::kNotIndexed) {
            rec_new[n] = static_cast<std::uint32_t>(out.manifests_.size());
            out.manifests_.push_back(ix.manifests_[n]);
          }
          out.tree_items_.push_back(rec_new[n]);
        }
      }
      c.tree = tree_new[c.tree];
    }
    ix.manifests_ = std::move(out.manifests_);
    ix.tree_start_ = std::move(out.tree_start_);
    ix.tree_items_ = std::move(out.tree_items_);
  }
};

std::shared_ptr<const HistoryIndex> HistoryIndex::load(Context& cx, const std::function<void(std::size_t, std::size_t)>& reading) {
  auto ix = std::make_shared<HistoryIndex>();
  const auto path = file_of(cx);
  const std::string rel_hash = rel_hash_of(cx);
  std::string stored_tips;
  {
    std::string text;
    if (support::read_bounded_file(path, kFileLimit, text) == support::ReadStatus::ok &&
        parse(std::move(text), rel_hash, *ix, stored_tips))
      ix->stats_.file_used = true;
  }
  const auto key_before = cx.vcs->tips_key();
  const std::string tips_before = key_before ? vcs::sha256_hex(*key_before) : "";
  if (ix->stats_.file_used && key_before && tips_before == stored_tips) {
    ix->stats_.tips_matched = true;
    return ix;
  }
  const std::vector<std::string> ids = cx.vcs->all_commit_ids();
  std::unordered_map<std::string_view, std::uint32_t> known;
  known.reserve(ix->commits_.size());
  for (const auto& c : ix->commits_) known.emplace(c.id, c.tree);
  std::size_t missing = 0;
  for (const auto& id : ids) missing += known.count(id) ? 0 : 1;
  std::vector<Commit> now;
  now.reserve(ids.size());
  HistoryIndexBuilder b(cx, *ix);
  for (const auto& id : ids) {
    auto it = known.find(id);
    if (it != known.end()) {
      now.push_back({id, it->second});
    } else {
      now.push_back({id, b.tree_of(id)});
      ++ix->stats_.commits_read;
      if (reading) reading(ix->stats_.commits_read, missing);
    }
  }
  const bool same_commits = now.size() == ix->commits_.size() &&
                            std::equal(now.begin(), now.end(), ix->commits_.begin(),
                                       [](const Commit& a, const Commit& c) { return a.id == c.id; });
  ix->commits_ = std::move(now);
  // Stored under the key read before the walk, and only when no ref moved meanwhile.
  const auto key_after = cx.vcs->tips_key();
  if (key_before && key_after == key_before && (!same_commits || tips_before != stored_tips || !ix->stats_.file_used)) {
    if (!same_commits) b.prune();
    ix->stats_.stored = support::replace_cache_file(path, ix->serialise(rel_hash, tips_before));
  }
  return ix;
}

}  // namespace tether::engine
