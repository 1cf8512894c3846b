// walk: one directory tree as rows to fingerprint (docs/backends.md#file).
// Real directories are descended; regular files and symlinks to regular files are stat'ed
// through the link; every other symlink (to a directory, dangling, to a special file) is
// recorded by its target; other special files are skipped; the owner marker at the root is
// not content.
//
// The tree is kept as it was scanned, one node per directory with its children's names in
// one buffer, never as a path string per file: at 10^6 files a string per path, per cache
// key and per hex token was most of status's memory and a fifth of its time. Full paths
// exist only one at a time, while `each` visits the rows in order.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tether::file {

inline constexpr const char* kOwnerMarker = ".tether-owner";

// What the stat cache is keyed by.
struct FileStat {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t inode = 0;
  bool operator==(const FileStat&) const = default;
};

// One child of a scanned directory.
struct WalkChild {
  enum Kind : uint8_t { kDir, kFile, kLink };
  uint32_t name_at = 0;   // where its name starts in the node's `names`
  uint32_t name_len = 0;
  uint32_t node = 0;      // a directory: its node in WalkTree::nodes
  Kind kind = kFile;
  FileStat stat;          // a file row: the stat through any link
  // A file row: the SHA-256 of its content once HashCache::fill has run; a symlink row: the
  // SHA-256 of the raw target bytes (its token is "symlink:<hex>").
  std::array<unsigned char, 32> sha256{};
};

struct WalkNode {
  std::string names;               // the children's names, back to back
  std::vector<WalkChild> children;  // sorted so that a depth-first visit is in path order
  std::string_view name(const WalkChild& c) const { return std::string_view(names).substr(c.name_at, c.name_len); }
};

// Every row under one root, in the order Python's sort of the relative paths gives.
class WalkTree {
 public:
  std::deque<WalkNode> nodes;  // nodes[0] is the root; a deque keeps nodes in place as it grows
  std::size_t files = 0;        // file rows
  std::size_t links = 0;        // symlink rows

  std::size_t rows() const { return files + links; }

  // Calls f(rel_path, child) for every row (files and symlinks, not directories) in path
  // order; `rel_path` is valid only during the call.
  template <class F>
  void each(F&& f) {
    visit(*this, f);
  }
  template <class F>
  void each(F&& f) const {
    visit(*this, f);
  }

 private:
  template <class Self, class F>
  static void visit(Self& self, F& f) {
    if (self.nodes.empty()) return;
    struct Frame {
      uint32_t node;
      std::size_t next;
      std::size_t path_len;  // of `path` when this frame's directory was entered
    };
    std::string path;
    std::vector<Frame> stack{{0, 0, 0}};
    while (!stack.empty()) {
      Frame& fr = stack.back();
      auto& node = self.nodes[fr.node];
      if (fr.next == node.children.size()) {
        stack.pop_back();
        continue;
      }
      auto& c = node.children[fr.next++];
      path.resize(fr.path_len);
      if (fr.path_len) path += '/';
      path += node.name(c);
      if (c.kind == WalkChild::kDir) {
        stack.push_back({c.node, 0, path.size()});
        continue;
      }
      f(std::string_view(path), c);
    }
  }
};

// Called on the scanning thread for each directory as soon as it is scanned, before the
// tree holds it: `rel_dir` is its path below the root ("" for the root). It may fill in the
// children's hashes (the file backend hashes there, so reading overlaps the walk); what it
// throws ends the walk. `alone` says no other directory is queued or being scanned: only
// then is it worth starting threads of its own (otherwise the walk's threads are busy with
// other directories, and more threads than cores only take turns).
using WalkHook = std::function<void(const std::string& rel_dir, WalkNode& node, bool alone)>;

// The tree under `root` (an existing directory). Throws sdk::BackendError naming the path on
// an unreadable directory or a name that is not UTF-8.
WalkTree walk_directory(const std::string& root, const WalkHook& hook = {});

// `root` joined with a relative path, as the cache keys paths.
std::string join_path(const std::string& root, const std::string& rel);

}  // namespace tether::file
