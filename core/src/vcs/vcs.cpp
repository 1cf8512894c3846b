// vcs.cpp: what VcsAdapter derives from its own reads, the same for every VCS, so an
// implementation supplies only the pure-virtual methods.
#include "tether/vcs/vcs.hpp"

#include <sodium.h>

#include <algorithm>
#include <utility>

#include "tether/errors.hpp"

namespace tether::vcs {

// libsodium's SHA-256 (linked anyway, for BLAKE2b): core links no libcrypto. The inputs are
// small (a plan's JSON, the sorted commit ids); crypto_hash_sha256 needs no sodium_init.
std::string sha256_hex(const std::string& text) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  if (crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(text.data()), text.size()) != 0)
    throw VcsError("sha256 failed (libsodium)");
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof digest);
  for (unsigned char byte : digest) {
    out += digits[byte >> 4];
    out += digits[byte & 0xf];
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
