// fuzz/git_refs.cpp: the byte parsers of the native git ref reader (core/src/vcs/git_refs.hpp),
// all of which read files a clone or another tool wrote: a loose ref or HEAD file,
// packed-refs, a config file's plainness scan, a `.git` file, tether's own reachability
// cache, and the scan of git's index file (vcs/git_index.hpp). None may crash; each either
// declines or gives a value that holds its own invariants (ids are 40 hex, names are
// plausible, tracked paths are among those asked), and the cache round-trips through its
// serialiser.
#include <cstdlib>

#include "fuzz_support.hpp"
#include "vcs/git_index.hpp"
#include "vcs/git_refs.hpp"

using namespace tether::vcs;

namespace {

bool hex40(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = tether::fuzz::text_of(data, size);

  if (auto v = refs::parse_ref_file(text)) {
    check(v->symbolic() ? v->oid.empty() && v->target.starts_with("refs/") && refs::plausible_ref_name(v->target)
                        : hex40(v->oid));
  }
  if (auto packed = refs::parse_packed_refs(text)) {
    for (const auto& [name, v] : *packed) {
      check(refs::plausible_ref_name(name) && hex40(v.oid) && !v.symbolic());
      check(v.peeled.empty() || hex40(v.peeled));
    }
  }
  (void)refs::config_is_plain(text);
  if (auto link = refs::parse_gitfile(text)) check(!link->empty() && link->find('\n') == std::string::npos);
  (void)refs::plausible_ref_name(text);
  {
    static const std::vector<std::string> asked = {".tether/lock", ".tether/cache", "a"};
    if (auto got = index::tracked_paths(text, asked))
      for (const auto& p : *got) check(p == asked[0] || p == asked[1] || p == asked[2]);
  }

  if (auto cache = refs::parse_reach_cache(text)) {
    const std::string again = refs::serialise_reach_cache(*cache);
    auto back = refs::parse_reach_cache(again);
    check(back.has_value() && back->key == cache->key && back->branches == cache->branches &&
          back->alive == cache->alive && back->dead == cache->dead);
    for (const auto& id : cache->alive) check(hex40(id) && !cache->dead.contains(id));
  }
  return 0;
}
