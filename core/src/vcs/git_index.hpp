// vcs/git_index.hpp: a native, read-only scan of git's index file for one question: which of
// a few paths does it track? `refuse_tracked_checkout_files` asks that before most commands,
// and libgit2 answers it by loading the whole index (every entry allocated, sorted and
// hashed: about 80 ms at 100,000 files). The scan walks the entries in place, allocates
// nothing per entry, and reads only what the answer needs.
//
// Like the ref reader (git_refs.hpp), it gives exactly libgit2 1.5's answer or declines, and
// the caller then asks libgit2. libgit2's answer for a path p is "tracked" when the index
// holds p at stage 0, or any entry under "p/". The scan declines on anything it does not
// fully understand: a signature or version other than DIRC 2, 3 or 4; an entry or a name that
// runs past the end; an extended flag in version 2; entries out of order; a sparse directory
// entry; a mandatory extension (one whose signature does not start with A-Z, such as split
// index's "link" or sparse index's "sdir"); extensions that do not end exactly at the trailing
// hash; and any answer that depends on what libgit2 knows and the scan does not (a path found
// only at a conflict stage, or only when letters are compared without case, as they are under
// core.ignorecase). Like git's own reads, it does not verify the trailing checksum.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tether::vcs::index {

// Those of `paths` (repository-relative, '/'-separated) that the index bytes `bytes` track, in
// the order given; nullopt = declined. Object ids are SHA-1 (20 bytes): the caller knows the
// repository has no other object format.
std::optional<std::vector<std::string>> tracked_paths(std::string_view bytes, const std::vector<std::string>& paths);

}  // namespace tether::vcs::index
