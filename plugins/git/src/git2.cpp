#include "git2.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace tether::git {

std::optional<Repository> open_repository(const std::string& path) {
  git_repository* raw = nullptr;
  int rc = git_repository_open_ext(&raw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  if (rc == GIT_ENOTFOUND) return std::nullopt;
  check(rc, "cannot open the repository at " + path);
  return Repository(raw);
}

std::string short_hex(const git_oid& oid) { return oid_hex(oid).substr(0, 12); }

git_oid oid_from_hex(const std::string& hex) {
  git_oid oid;
  if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, hex.c_str()) < 0)
    throw Git2Error(GIT_EINVALID, "not a full commit id: '" + hex + "'");
  return oid;
}

Reference find_reference(git_repository* repo, const std::string& name) {
  git_reference* raw = nullptr;
  int rc = git_reference_lookup(&raw, repo, name.c_str());
  if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) return Reference();
  check(rc, "cannot read " + name);
  return Reference(raw);
}

namespace {
std::optional<git_oid> peel_to_commit(const Reference& ref, const std::string& name) {
  git_object* raw = nullptr;
  int rc = git_reference_peel(&raw, ref.get(), GIT_OBJECT_COMMIT);
  if (rc == GIT_ENOTFOUND) return std::nullopt;  // a symbolic ref to an unborn branch
  check(rc, name + " does not name a commit");
  Object obj(raw);
  return *git_object_id(obj.get());
}
}  // namespace

std::optional<git_oid> reference_commit(git_repository* repo, const std::string& name) {
  Reference ref = find_reference(repo, name);
  if (!ref) return std::nullopt;
  return peel_to_commit(ref, name);
}

// verify's common case (a lightweight pin tag at the recorded commit) without inflating the
// commit: git_reference_peel reads and parses the whole object, while the header (in a pack,
// a few bytes at the entry's offset) tells that it exists and is a commit.
bool is_expected_commit(git_repository* repo, const git_oid& id, const std::string& expected) {
  if (expected.empty() || expected.size() > GIT_OID_HEXSZ) return false;
  char hex[GIT_OID_HEXSZ];
  git_oid_fmt(hex, &id);  // lower-case, as oid_hex
  if (std::memcmp(hex, expected.data(), expected.size()) != 0) return false;
  git_odb* raw_odb = nullptr;
  if (git_repository_odb(&raw_odb, repo) != 0) return false;
  size_t len = 0;
  git_object_t type = GIT_OBJECT_INVALID;
  int rc = git_odb_read_header(&len, &type, raw_odb, &id);
  git_odb_free(raw_odb);
  return rc == 0 && type == GIT_OBJECT_COMMIT;
}

std::optional<git_oid> reference_commit_expecting(git_repository* repo, const std::string& name,
                                                  const std::string& expected) {
  Reference ref = find_reference(repo, name);
  if (!ref) return std::nullopt;
  if (git_reference_type(ref.get()) == GIT_REFERENCE_DIRECT) {
    if (const git_oid* id = git_reference_target(ref.get()); id && is_expected_commit(repo, *id, expected)) return *id;
  }
  return peel_to_commit(ref, name);
}

std::optional<git_oid> revparse_commit(git_repository* repo, const std::string& spec) {
  git_object* raw = nullptr;
  int rc = git_revparse_single(&raw, repo, spec.c_str());
  if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC || rc == GIT_EUNBORNBRANCH) return std::nullopt;
  check(rc, "cannot resolve '" + spec + "'");
  Object obj(raw);
  git_object* peeled = nullptr;
  rc = git_object_peel(&peeled, obj.get(), GIT_OBJECT_COMMIT);
  if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC || rc == GIT_EPEEL) return std::nullopt;
  check(rc, "'" + spec + "' does not name a commit");
  Object c(peeled);
  return *git_object_id(c.get());
}

std::optional<git_oid> lookup_commit_prefix(git_repository* repo, const std::string& hex) {
  git_oid oid;
  if (git_oid_fromstrn(&oid, hex.data(), hex.size()) < 0) return std::nullopt;
  git_commit* raw = nullptr;
  int rc = git_commit_lookup_prefix(&raw, repo, &oid, hex.size());
  if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) return std::nullopt;
  check(rc, "cannot read commit " + hex);
  Commit c(raw);
  return *git_commit_id(c.get());
}

Commit lookup_commit(git_repository* repo, const git_oid& oid) {
  git_commit* raw = nullptr;
  check(git_commit_lookup(&raw, repo, &oid), "cannot read commit " + oid_hex(oid));
  return Commit(raw);
}

Tree commit_tree(const git_commit* commit) {
  git_tree* raw = nullptr;
  check(git_commit_tree(&raw, commit), "cannot read the tree of " + oid_hex(*git_commit_id(commit)));
  return Tree(raw);
}

std::vector<std::string> reference_names(git_repository* repo, const std::string& glob) {
  std::vector<std::string> out;
  git_reference_iterator* raw = nullptr;
  check(git_reference_iterator_glob_new(&raw, repo, glob.c_str()), "cannot list " + glob);
  RefIterator it(raw);
  const char* name = nullptr;
  int rc;
  while ((rc = git_reference_next_name(&name, it.get())) == 0) out.emplace_back(name);
  if (rc != GIT_ITEROVER) check(rc, "cannot list " + glob);
  return out;
}

namespace {

std::optional<std::string> head_branch_of(git_repository* repo) {
  Reference head = find_reference(repo, "HEAD");
  if (!head || git_reference_type(head.get()) != GIT_REFERENCE_SYMBOLIC) return std::nullopt;
  std::string target = git_reference_symbolic_target(head.get());
  const std::string prefix = "refs/heads/";
  if (target.rfind(prefix, 0) != 0) return std::nullopt;
  return target.substr(prefix.size());
}

}  // namespace

std::optional<std::string> checked_out_branch(git_repository* repo) {
  if (git_repository_is_bare(repo)) return std::nullopt;
  return head_branch_of(repo);
}

std::vector<Checkout> checkouts(git_repository* repo) {
  std::vector<Checkout> out;
  // The main working tree: the one of the common directory, which may not be `repo` when
  // the locator names a linked worktree.
  std::string common = git_repository_commondir(repo);
  if (auto main = open_repository(common)) {
    if (!git_repository_is_bare(main->get())) {
      if (auto b = head_branch_of(main->get())) {
        const char* wd = git_repository_workdir(main->get());
        out.push_back({*b, wd ? wd : common});
      }
    }
  } else if (auto b = checked_out_branch(repo)) {
    const char* wd = git_repository_workdir(repo);
    out.push_back({*b, wd ? wd : common});
  }
  git_strarray names{};
  if (git_worktree_list(&names, repo) < 0) return out;
  for (size_t i = 0; i < names.count; ++i) {
    git_worktree* wraw = nullptr;
    if (git_worktree_lookup(&wraw, repo, names.strings[i]) < 0) continue;
    Worktree wt(wraw);
    if (git_worktree_validate(wt.get()) < 0) continue;  // its directory is gone: prunable
    git_repository* rraw = nullptr;
    if (git_repository_open_from_worktree(&rraw, wt.get()) < 0) continue;
    Repository wrepo(rraw);
    if (auto b = head_branch_of(wrepo.get())) out.push_back({*b, git_worktree_path(wt.get())});
  }
  git_strarray_dispose(&names);
  return out;
}

namespace {
int stop_at_first(const char*, unsigned int, void*) { return 1; }
}  // namespace

bool working_tree_dirty(git_repository* repo) {
  if (git_repository_is_bare(repo)) return false;
  auto opts = init_options(git_status_options_init, GIT_STATUS_OPTIONS_VERSION);
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED;
  int rc = git_status_foreach_ext(repo, &opts, stop_at_first, nullptr);
  if (rc == 1) return true;
  check(rc, "cannot read the working tree status of " + std::string(git_repository_workdir(repo)));
  return false;
}

std::string iso8601(git_time_t seconds, int offset_minutes) {
  std::time_t local = static_cast<std::time_t>(seconds) + static_cast<std::time_t>(offset_minutes) * 60;
  std::tm tm{};
  gmtime_r(&local, &tm);
  char buf[96];
  int off = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, offset_minutes < 0 ? '-' : '+', off / 60, off % 60);
  return buf;
}

std::string summary_line(const git_commit* commit) {
  const char* msg = git_commit_message(commit);
  std::string s = msg ? msg : "";
  auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

namespace {
std::string config_string(git_repository* repo, const char* name) {
  git_config* raw = nullptr;
  if (git_repository_config_snapshot(&raw, repo) < 0) return "";
  Config cfg(raw);
  const char* value = nullptr;
  if (git_config_get_string(&value, cfg.get(), name) < 0 || !value) return "";
  return value;
}
std::string env_or(const char* var, const std::string& fallback) {
  const char* v = std::getenv(var);
  return v && *v ? v : fallback;
}
}  // namespace

Signature default_signature(git_repository* repo) {
  std::string name = env_or("GIT_COMMITTER_NAME", config_string(repo, "user.name"));
  std::string email = env_or("GIT_COMMITTER_EMAIL", config_string(repo, "user.email"));
  if (name.empty()) name = "tether";
  if (email.empty()) email = "tether@localhost";
  git_signature* raw = nullptr;
  check(git_signature_now(&raw, name.c_str(), email.c_str()), "cannot make a commit signature for " + name);
  return Signature(raw);
}

}  // namespace tether::git
