// tether/support/cache_file.hpp: the files tether keeps beside a repository for speed only
// (the reachability cache, the history index), and the small files git keeps (refs,
// config), read without trusting what is there: at most `limit` bytes, a regular file only,
// a final symlink not followed; written by renaming a new file over the old one.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace tether::support {

enum class ReadStatus {
  ok,        // `out` holds the whole file
  absent,    // no such file (or a missing directory on the way)
  declined,  // a symlink, not a regular file, larger than `limit`, or a read error
};

ReadStatus read_bounded_file(const std::filesystem::path& path, std::size_t limit, std::string& out);

// Replaces `path` with `text`: a new file beside it (O_EXCL, O_NOFOLLOW, mode 0644 before
// the umask), then rename, which replaces whatever the name held (a symlink included)
// without following it. Not fsynced: after a crash the file may be torn or empty, so its
// reader must check that it is whole. False (and nothing left behind) when it could not be
// written, e.g. in a read-only repository.
bool replace_cache_file(const std::filesystem::path& path, std::string_view text);

}  // namespace tether::support
