// fuzz/history_index.cpp: the history index (engine/history_index.hpp), a cache tether keeps
// in the repository's git directory and reads back on every `gc` and `verify --all-history`.
// A damaged or edited file must be refused whole or read exactly: whatever parse() accepts,
// serialise() writes back byte for byte, and every tree and commit points inside the index.
#include "engine/history_index.hpp"
#include "fuzz_support.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::text_of(data, size));
  engine::HistoryIndex ix;
  std::string tips;
  try {
    if (!engine::HistoryIndex::parse(text, "0123456789abcdef", ix, tips)) return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("parse threw instead of refusing: ") + e.what());
  }
  if (ix.serialise("0123456789abcdef", tips) != text) fuzz::finding("an accepted index does not serialise back to itself");
  for (const auto& c : ix.commits())
    if (c.tree != engine::HistoryIndex::kNotIndexed && c.tree >= ix.tree_count()) fuzz::finding("a commit's tree is out of range");
  for (std::uint32_t t = 0; t < ix.tree_count(); ++t)
    for (std::uint32_t n : ix.tree(t))
      if (n >= ix.manifests().size()) fuzz::finding("a tree's record is out of range");
  for (const auto& m : ix.manifests())
    if (m.key.empty() || m.kind.empty() || m.locator.empty()) fuzz::finding("a record without key, kind or locator");
  return 0;
}
