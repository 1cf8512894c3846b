// git_adapter.cpp: the git adapter's writes and the detection factory.
#include "vcs/git_adapter.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <system_error>

#include "tether/errors.hpp"

namespace tether::vcs {
namespace {

std::string relative_to(const std::filesystem::path& path, const std::filesystem::path& root) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  if (ec) p = std::filesystem::absolute(path).lexically_normal();
  auto r = std::filesystem::weakly_canonical(root, ec);
  if (ec) r = root;
  std::string rel = p.lexically_relative(r).generic_string();
  if (rel == ".") return "";
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  if (rel.empty() || rel.starts_with("..")) {
    throw VcsError("the dataset at " + p.string() + " is not inside the git working tree " + r.string());
  }
  return rel;
}

// A branch name git would accept and that cannot be mistaken for an option.
bool plausible_branch_name(const std::string& name) {
  return !name.empty() && name[0] != '-' && name.find_first_of(" ~^:?*[\\") == std::string::npos &&
         name.find("..") == std::string::npos && name.find("@{") == std::string::npos && name.back() != '/' &&
         name.back() != '.' && !name.ends_with(".lock") && std::none_of(name.begin(), name.end(), [](char c) {
           return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
         });
}

// Parking names per commit: tether/<sha12>, then -2 .. -999.
constexpr int kMaxParkSuffix = 999;

bool is_parking(const std::string& branch) { return branch.starts_with(kParkingPrefix); }

void check_bookmark_name(const std::string& name) {
  if (!plausible_branch_name(name)) throw VcsError("'" + name + "' is not a valid git branch name");
  if (is_parking(name))
    throw VcsError("'" + name + "' is not a bookmark name: names starting with " + std::string(kParkingPrefix) +
                   " are tether's parking branches");
}

// A full commit id (sha1 or sha256), lowercase: what a compare-and-swap compares against.
bool is_commit_id(const std::string& s) {
  return (s.size() == 40 || s.size() == 64) &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string short_id(const std::string& id) { return id.substr(0, 12); }

// The non-empty lines of a command's output.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (nl > pos) lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

}  // namespace

GitAdapter::GitAdapter(const std::filesystem::path& dataset_root, const std::string& git_executable)
    : reader_(dataset_root), git_(git_executable, reader_.root()), rel_(relative_to(dataset_root, reader_.root())) {}

std::optional<std::string> GitAdapter::commit(const std::vector<std::string>& paths, const std::string& message) {
  // `git add` refuses a pathspec that matches nothing: keep what exists or is tracked (a
  // tracked path that is gone is a deletion to stage).
  std::vector<std::string> wanted;
  auto known = reader_.tracked(paths);
  for (const auto& p : paths) {
    std::error_code ec;
    bool on_disk = std::filesystem::symlink_status(root() / p, ec).type() != std::filesystem::file_type::not_found;
    if (on_disk || std::find(known.begin(), known.end(), p) != known.end()) wanted.push_back(p);
  }
  if (wanted.empty()) return std::nullopt;

  auto with_paths = [&](std::vector<std::string> args) {
    args.push_back("--");
    args.insert(args.end(), wanted.begin(), wanted.end());
    return args;
  };
  git_.run(with_paths({"--literal-pathspecs", "add", "-A"}));
  support::ProcessResult staged = git_.run(with_paths({"--literal-pathspecs", "diff", "--cached", "--quiet"}), false);
  if (staged.exit_code == 0) return std::nullopt;
  if (staged.exit_code != 1) git_.run(with_paths({"--literal-pathspecs", "diff", "--cached", "--quiet"}));  // throws

  // With pathspecs, `git commit` records only those paths and leaves everything else staged.
  try {
    git_.run(with_paths({"--literal-pathspecs", "commit", "--message=" + message}));
  } catch (const VcsError&) {
    // Unstage what we staged so a rejected commit (a hook, say) leaves the index as it was.
    git_.run(with_paths({"--literal-pathspecs", "reset", "-q"}), false);
    throw;
  }
  auto id = reader_.head();
  if (!id) throw VcsError("git commit succeeded but HEAD names no commit");
  return id;
}

void GitAdapter::create_branch_and_switch(const std::string& name) {
  if (!plausible_branch_name(name)) throw VcsError("'" + name + "' is not a valid git branch name");
  git_.run({"switch", "--create=" + name});
}

void GitAdapter::new_bookmark(const std::string& name, const std::optional<std::string>& rev) {
  check_bookmark_name(name);
  // Checked here rather than left to git so the message names a bookmark, not a command.
  if (reader_.branches().contains(name)) throw VcsError("bookmark '" + name + "' exists");
  std::vector<std::string> args = {"switch", "--create=" + name};
  // A resolved id: `HEAD~1` works and no revision can read as an option.
  if (rev) args.push_back(reader_.resolve(*rev));
  git_.run(args);
}

void GitAdapter::switch_to(const std::string& rev) {
  const auto all = reader_.branches();
  if (!is_parking(rev) && all.contains(rev)) {
    git_.run({"switch", "--no-guess", rev});
    return;
  }
  const std::string target = reader_.resolve(rev);
  // git checks a branch out in one worktree at a time: a name another checkout is on is taken.
  std::set<std::string> elsewhere;
  for (const Worktree& wt : reader_.worktrees())
    if (!wt.current && wt.branch) elsewhere.insert(*wt.branch);
  const std::string base = std::string(kParkingPrefix) + short_id(target);
  auto park_name = [&](int n) { return n == 1 ? base : base + "-" + std::to_string(n); };

  for (int n = 1; n <= kMaxParkSuffix; ++n) {
    std::string park = park_name(n);
    auto it = all.find(park);
    if (it == all.end() || it->second != target || elsewhere.contains(park)) continue;
    if (reader_.current_branch() != park) git_.run({"switch", "--no-guess", park});
    return;
  }
  for (int n = 1; n <= kMaxParkSuffix; ++n) {
    std::string park = park_name(n);
    if (all.contains(park) || elsewhere.contains(park)) continue;
    git_.run({"switch", "--create=" + park, target});
    return;
  }
  throw VcsError("cannot park on commit " + short_id(target) + ": " + park_name(1) + " through " +
                 park_name(kMaxParkSuffix) + " are all taken; delete unused ones with `git branch -D`");
}

void GitAdapter::bookmark_set(const std::string& name, const std::string& commit, const std::string& expected) {
  check_bookmark_name(name);
  if (!is_commit_id(expected))
    throw VcsError("cannot move bookmark '" + name + "': expected '" + expected + "' is not a full commit id");
  const std::string target = reader_.resolve(commit);
  auto moved = [&](const std::optional<std::string>& found) {
    if (!found) return VcsError("bookmark '" + name + "' does not exist (expected at " + short_id(expected) + ")");
    return VcsError("bookmark '" + name + "' moved: expected " + short_id(expected) + ", found " + short_id(*found));
  };

  bool checked_out_here = false;
  for (const Worktree& wt : reader_.worktrees()) {
    if (wt.branch != name) continue;
    if (wt.current) {
      checked_out_here = true;
      continue;
    }
    // Moving the ref under another checkout would leave its index and files behind it.
    throw VcsError("bookmark '" + name + "' is checked out in the worktree at " + wt.root.string() +
                   (wt.live ? "; move it from there" : " (its directory is gone; `git worktree prune` forgets it)"));
  }

  if (checked_out_here) {
    // reset has no compare-and-swap: check HEAD first (a commit racing in between is not caught).
    if (auto now = reader_.head(); now != expected) throw moved(now);
    git_.run({"reset", "--quiet", "--keep", target, "--"});
    return;
  }
  try {
    git_.run({"update-ref", "-m", "tether: bookmark set", "refs/heads/" + name, target, expected});
  } catch (const VcsError&) {
    // git refuses a stale old value; say so in bookmark terms, else keep git's message.
    auto now = reader_.branches();
    auto it = now.find(name);
    std::optional<std::string> found = it == now.end() ? std::nullopt : std::optional<std::string>(it->second);
    if (found != expected) throw moved(found);
    throw;
  }
}

std::vector<std::filesystem::path> GitAdapter::workspace_roots() const {
  std::vector<std::filesystem::path> roots;
  for (const Worktree& wt : reader_.worktrees())
    if (wt.live) roots.push_back(wt.root);
  return roots;
}

bool GitAdapter::uncommit(const std::string& commit) {
  auto head = reader_.head();
  if (!head || *head != commit) return false;
  // `git reset --soft` has no compare-and-swap; HEAD was just checked.
  support::ProcessResult parent = git_.run({"rev-parse", "--verify", "--quiet", commit + "^1"}, false);
  if (parent.ok()) {
    std::string p = parent.out.substr(0, parent.out.find_first_of("\r\n"));
    git_.run({"reset", "--quiet", "--soft", p});
  } else {
    // A root commit: the branch becomes unborn. A detached HEAD has no branch to leave
    // unborn, and deleting HEAD itself would leave no repository git recognises.
    if (!reader_.current_branch())
      throw VcsError("cannot uncommit the root commit " + short_id(commit) + " on a detached HEAD");
    git_.run({"update-ref", "-d", "HEAD", commit});
  }
  return true;
}

std::vector<std::string> GitAdapter::exclusive_commits(const std::string& name) const {
  auto all = reader_.branches();
  auto it = all.find(name);
  if (it == all.end() || is_parking(name)) throw VcsError("no bookmark '" + name + "'");
  // The other tips go in on stdin: a repository can have more refs than a command line holds.
  std::string others;
  support::ProcessResult refs =
      git_.run({"for-each-ref", "--format=%(objectname) %(objecttype) %(*objecttype) %(refname)", "refs/"});
  for (const std::string& line : lines_of(refs.out)) {
    // "<id> <type> <peeled type> <ref>"; the peeled type is empty for anything but a tag.
    auto sp1 = line.find(' '), sp2 = line.find(' ', sp1 + 1), sp3 = line.find(' ', sp2 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos || sp3 == std::string::npos) continue;
    if (line.substr(sp3 + 1) == "refs/heads/" + name) continue;
    std::string type = line.substr(sp1 + 1, sp2 - sp1 - 1), peeled = line.substr(sp2 + 1, sp3 - sp2 - 1);
    // A tag of a tree or blob reaches no commit (and rev-list would refuse it).
    if (type != "commit" && !(type == "tag" && peeled == "commit")) continue;
    others += "^" + line.substr(0, sp1) + "\n";
  }
  // Other checkouts' HEADs keep their commits alive too (a detached one is no ref).
  for (const Worktree& wt : reader_.worktrees()) {
    if (wt.branch == name || !wt.live || wt.current) continue;
    support::ProcessResult h = git_.run({"-C", wt.root.string(), "rev-parse", "--verify", "--quiet", "HEAD"}, false);
    if (h.ok()) others += "^" + h.out.substr(0, h.out.find_first_of("\r\n")) + "\n";
  }
  std::vector<std::string> args = {"rev-list", "--reverse", it->second, "--stdin"};
  return lines_of(git_.run(args, true, others).out);
}

void GitAdapter::delete_bookmark(const std::string& name, const std::string& expected) {
  check_bookmark_name(name);
  for (const Worktree& wt : reader_.worktrees())
    if (wt.branch == name)
      throw VcsError("bookmark '" + name + "' is checked out " +
                     (wt.current ? std::string("here; switch away first") : "in the worktree at " + wt.root.string()));
  if (!is_commit_id(expected))
    throw VcsError("cannot delete bookmark '" + name + "': expected '" + expected + "' is not a full commit id");
  auto now = reader_.branches();
  auto it = now.find(name);
  if (it == now.end()) throw VcsError("bookmark '" + name + "' does not exist (expected at " + short_id(expected) + ")");
  if (it->second != expected)
    throw VcsError("bookmark '" + name + "' moved: expected " + short_id(expected) + ", found " + short_id(it->second));
  git_.run({"update-ref", "-m", "tether: bookmark delete", "-d", "refs/heads/" + name, expected});
}

std::vector<std::string> GitAdapter::remote_counterparts(const std::string& name) const {
  // By configured remote rather than by splitting at the first '/': remote names may hold
  // slashes too ("team/up/feat" is team/up's feat, not team's up/feat).
  std::set<std::string> refs;
  for (std::string& r : lines_of(git_.run({"for-each-ref", "--format=%(refname)", "refs/remotes/"}).out))
    refs.insert(std::move(r));
  std::vector<std::string> out;
  for (const std::string& remote : lines_of(git_.run({"remote"}).out))
    if (refs.contains("refs/remotes/" + remote + "/" + name)) out.push_back(remote + "/" + name);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> GitAdapter::forget_workspace(const std::filesystem::path& root) {
  auto canon = [](const std::filesystem::path& p) {
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(p, ec);
    return ec ? p.lexically_normal() : c;
  };
  for (const Worktree& wt : reader_.worktrees()) {
    if (canon(wt.root) != canon(root)) continue;
    if (wt.main) return std::nullopt;  // the main worktree stays (a bare repository has none)
    // git would remove it, leaving this adapter (and the process) in a deleted directory.
    if (wt.current) throw VcsError("cannot forget the checkout tether runs in (" + wt.root.string() + ")");
    git_.run({"worktree", "remove", wt.root.string()});
    return "git worktree " + wt.root.string() + " removed";
  }
  return std::nullopt;
}

std::unique_ptr<VcsAdapter> detect_vcs(const std::filesystem::path& dataset_root, const std::string& git_executable) {
  return std::make_unique<GitAdapter>(dataset_root, git_executable);
}

}  // namespace tether::vcs
