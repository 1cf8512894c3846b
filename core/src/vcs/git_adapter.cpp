// git_adapter.cpp: the git adapter's writes and the detection factory.
#include "vcs/git_adapter.hpp"

#include <openssl/evp.h>

#include <algorithm>
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

}  // namespace

std::string sha256_hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1)
    throw VcsError("sha256 failed (OpenSSL)");
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < size; ++i) {
    out += digits[digest[i] >> 4];
    out += digits[digest[i] & 0xf];
  }
  return out;
}

GitAdapter::GitAdapter(const std::filesystem::path& dataset_root, const std::string& git_executable)
    : reader_(dataset_root), git_(git_executable, reader_.root()), rel_(relative_to(dataset_root, reader_.root())) {}

std::string GitAdapter::history_digest() const {
  std::vector<std::string> ids = all_commit_ids();
  std::sort(ids.begin(), ids.end());
  std::string joined;
  for (const auto& id : ids) {
    if (!joined.empty()) joined += '\n';
    joined += id;
  }
  return sha256_hex(joined).substr(0, 16);
}

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
  ProcessResult staged = git_.run(with_paths({"--literal-pathspecs", "diff", "--cached", "--quiet"}), false);
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

std::unique_ptr<VcsAdapter> detect_vcs(const std::filesystem::path& dataset_root, const std::string& git_executable) {
  return std::make_unique<GitAdapter>(dataset_root, git_executable);
}

}  // namespace tether::vcs
