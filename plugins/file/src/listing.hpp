// listing: the rows of a directory state, their JSON Lines form (docs/FORMAT.md#listings) and
// the diff of two states (docs/backends.md#file): added/removed/modified files from two stored
// listings, a summary entry when one is missing, one modified entry for single files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tether/sdk/types.hpp"

namespace tether::file {

// One listing row: a file (token = its sha256 hex, size its length) or a recorded symlink
// (token "symlink:<sha256 of the link target>", size 0).
struct Row {
  std::string path;  // relative, '/'-separated
  std::string token;
  int64_t size = 0;
};
using Rows = std::vector<Row>;

// Sorts by path, then token: the order of the digest and of the listing.
void sort_rows(Rows& rows);

// One line per row, `{"p":..,"k":..,"s":..}` in that key order, compact, Python's
// ensure_ascii escaping, "\n" after every line including the last.
std::string render_listing(const Rows& rows);
// The same for a walked directory, whose file rows' hashes are filled in.
class WalkTree;
std::string render_listing(const WalkTree& tree);

// path -> (token, size), later duplicates win; blank lines are skipped. Throws
// sdk::BackendError on a malformed line, naming `side`.
struct ListedFile {
  std::string token;
  int64_t size = 0;
  bool operator==(const ListedFile&) const = default;
};
std::vector<std::pair<std::string, ListedFile>> parse_listing(const std::string& text, const char* side);

// Python's _human: "+5 B", "-2.0 KiB", ..., up to TiB.
std::string human_size(int64_t n);

// The diff of two states of one object. `uri` is the locator's raw uri (the path of the
// single entry of a file/object diff).
sdk::ObjectDiff diff_states(const std::string& uri, const sdk::State& a, const sdk::State& b,
                            const std::optional<std::string>& listing_a,
                            const std::optional<std::string>& listing_b);

// An integer state field that may travel as a JSON number or a decimal string.
int64_t state_int(const sdk::State& s, const char* key, int64_t fallback = 0);

}  // namespace tether::file
