// vcs.cpp: what VcsAdapter derives from its own reads, the same for every VCS, so an
// implementation supplies only the pure-virtual methods.
#include "tether/vcs/vcs.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <utility>

#include "tether/errors.hpp"

namespace tether::vcs {

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

std::map<std::string, std::string> VcsAdapter::bookmarks() const {
  auto all = branches();
  std::erase_if(all, [](const auto& entry) { return entry.first.starts_with(kParkingPrefix); });
  return all;
}

std::optional<std::string> VcsAdapter::current_bookmark() const {
  auto branch = current_branch();
  if (branch && branch->starts_with(kParkingPrefix)) return std::nullopt;
  return branch;
}

std::string VcsAdapter::history_digest() const { return history_digest_of(all_commit_ids()); }

std::string history_digest_of(std::vector<std::string> ids) {
  std::sort(ids.begin(), ids.end());
  std::string joined;
  for (const auto& id : ids) {
    if (!joined.empty()) joined += '\n';
    joined += id;
  }
  return sha256_hex(joined).substr(0, 16);
}

std::set<std::string> VcsAdapter::alive_commits(const std::vector<std::string>& commits) const {
  if (commits.empty()) return {};
  std::set<std::string> all;
  for (auto& id : all_commit_ids()) all.insert(std::move(id));
  std::set<std::string> alive;
  for (const auto& c : commits)
    if (all.contains(c)) alive.insert(c);
  return alive;
}

}  // namespace tether::vcs
