// vcs/git_refs.hpp: a native, read-only reader of a git repository's layout and refs, so the
// commands that only ask where the repository is, what HEAD names and which refs exist
// (`status`, `ops`) answer without opening libgit2.
//
// libgit2 stays the authority. Every function here either gives exactly libgit2 1.5's answer
// or declines (an empty optional / Declined), and the caller then asks libgit2: anything the
// reader does not fully understand declines (repositoryformatversion > 1, any extensions.*,
// core.worktree, core.bare, config includes, a repository or checkout not owned by the
// current user, a ref file that is not "<40 lower-case hex>\n" or "ref: refs/...\n", a
// packed-refs line it cannot read, a symlink or special file among the refs, per-worktree
// refs of a linked worktree, ...). Every read is bounded and opened without following a
// final symlink. The byte parsers are separate functions for the fuzz target
// (fuzz/git_refs.cpp) and the hostile-input tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tether/support/cache_file.hpp"

namespace tether::vcs::refs {

// ---- byte parsers (pure) ----

// A loose ref or HEAD file: an object id, or a symbolic ref to a name under refs/.
struct RefValue {
  std::string oid;     // 40 lower-case hex; empty when symbolic
  std::string target;  // "refs/..." when symbolic
  std::string peeled;  // packed-refs' "^" line (40 hex), when any
  bool symbolic() const { return !target.empty(); }
  bool operator==(const RefValue&) const = default;
};

// "<40 hex>\n" or "ref: refs/...\n" exactly; nullopt = decline.
std::optional<RefValue> parse_ref_file(std::string_view bytes);

// The whole packed-refs file: an optional "# pack-refs with:" header, then "<hex> <name>\n"
// lines each optionally followed by "^<hex>\n". Names sorted or not, never twice.
// nullopt = decline (also where libgit2 would call the file corrupt: it gives that error).
std::optional<std::map<std::string, RefValue>> parse_packed_refs(std::string_view bytes);

// True when nothing in this config file changes what the native reader assumes: no include,
// no extensions, no core.worktree, core.bare absent or false, repositoryformatversion 0 or 1,
// and nothing it cannot read plainly (continued lines, a key after a section header, NULs).
bool config_is_plain(std::string_view bytes);

// "gitdir: <path>\n" (a `.git` file): the path, trimmed as libgit2 trims it; nullopt = decline.
std::optional<std::string> parse_gitfile(std::string_view bytes);

// A ref name this reader is willing to handle: "refs/" or a plain name, printable ASCII
// without git's forbidden characters, no "..", "@{", "//", component starting with '.' or
// ending with ".lock".
bool plausible_ref_name(std::string_view name);

// ---- the repository on disk ----

struct Layout {
  std::filesystem::path gitdir;     // this checkout's git directory (canonical, no trailing slash)
  std::filesystem::path commondir;  // the shared one (== gitdir unless a linked worktree)
  std::filesystem::path workdir;    // top of the working tree, as libgit2 reports it (no trailing slash)
  std::filesystem::path found_at;   // the directory holding the `.git` found
  bool linked = false;              // a linked worktree (commondir/worktrees/<name>)
};

// libgit2's git_repository_open_ext(start, flags 0) discovery: upward from `start` (its real
// path), `<dir>/.git` (a directory, or a file "gitdir: ..."), stopping at a filesystem
// boundary and at "/". nullopt = declined or not found: ask libgit2 (it gives the error).
std::optional<Layout> discover(const std::filesystem::path& start);

// Everything the history walk of GitReader::push_all_tips starts from, as read from disk:
// every ref (loose over packed), the HEAD of every checkout, the shallow, alternates and
// grafts files, and the repository's identity (commondir path, device, inode). Equal keys
// mean the same tips in the same repository.
struct Snapshot {
  std::map<std::string, RefValue> refs;  // all refs under refs/
  RefValue head;                         // this checkout's HEAD
  std::string key;                       // the serialised form of all of the above and the rest
};

// nullopt = declined (see the file comment).
std::optional<Snapshot> read_snapshot(const Layout& layout);

// HEAD of this checkout alone (one small read).
std::optional<RefValue> read_head(const Layout& layout);

// Follows a ref name through symbolic refs in `snapshot` (HEAD = snapshot.head), as libgit2
// resolves it: at most 5 levels. Outer nullopt = declined (too deep); inner nullopt = no such
// ref (unborn).
std::optional<std::optional<std::string>> resolve(const Snapshot& snapshot, const std::string& name);

// Files of a linked worktree's administrative directory commondir/worktrees/<name>.
struct LinkedWorktree {
  std::string name;
  std::filesystem::path root;  // dirname of its `gitdir` file's content, as libgit2 reads it
  RefValue head;
};
// The entries libgit2's git_worktree_list keeps (directories holding commondir, gitdir and
// HEAD files), each with its root and HEAD. nullopt = declined.
std::optional<std::vector<LinkedWorktree>> linked_worktrees(const Layout& layout);

// ---- the reachability cache (GitReader::alive_commits, branches) ----
//
// <commondir>/tether-reach-cache records, for one Snapshot::key (compared whole, so a cache
// copied from another repository or written before any ref moved never matches), libgit2's
// branches() answer and which asked commits the walk from those tips reached or did not.
// Reachability from fixed tips depends only on immutable objects, so under an equal key the
// answers stand. The file is untrusted: anything that does not parse is ignored.
struct ReachCache {
  std::string key;
  std::optional<std::map<std::string, std::string>> branches;  // branch name -> peeled commit
  std::set<std::string> alive, dead;                           // asked commits, by answer
};
inline constexpr const char* kReachCacheFile = "tether-reach-cache";
std::optional<ReachCache> parse_reach_cache(std::string_view bytes);
std::string serialise_reach_cache(const ReachCache& cache);
// Reads <commondir>/tether-reach-cache (nullopt when absent, unreadable or malformed) and
// writes it atomically (a temporary file beside it, then rename; failures are ignored).
std::optional<ReachCache> load_reach_cache(const Layout& layout);
void store_reach_cache(const Layout& layout, const ReachCache& cache);

// Bounded read of a regular file, not following a final symlink (tether/support/cache_file.hpp).
using support::ReadStatus;
inline ReadStatus read_small_file(const std::filesystem::path& path, std::size_t limit, std::string& out) {
  return support::read_bounded_file(path, limit, out);
}

}  // namespace tether::vcs::refs
