// fuzz/hash_cache.cpp: the file backend's stat cache file (.tether/cache/file-hashes.bin,
// plugins/file/src/hash_cache.hpp) as CacheImage maps it. The cache lives in the checkout,
// so a clone or another program may have written it: every byte is hostile. Reading every
// record, searching for keys and merging the image into a new file must stay inside the
// bytes, and the merged file must be sorted, without duplicates, and read back the same.
#include <cstdlib>
#include <map>
#include <string>

#include "fuzz_support.hpp"
#include "hash_cache.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto img = file::CacheImage::adopt(std::string(fuzz::text_of(data, size)));
  std::map<std::string, file::HashEntry, std::less<>> overlay;
  for (std::size_t i = 0; i < img->size(); ++i) {
    std::string_view k = img->key(i);
    file::HashEntry e = img->entry(i);
    if (img->lower_bound(k) > img->size()) std::abort();
    if (i % 3 == 0 && !k.empty()) overlay.insert_or_assign(std::string(k) + "~", e);
  }
  auto merged = file::CacheImage::adopt(file::CacheImage::serialize(img.get(), overlay));
  if (merged->size() > img->size() + overlay.size() || merged->size() < overlay.size()) std::abort();
  for (std::size_t i = 0; i < merged->size(); ++i) {
    std::string_view k = merged->key(i);
    if (k.empty() || (i > 0 && !(merged->key(i - 1) < k)) || merged->lower_bound(k) != i) std::abort();
  }
  // A second merge of a sorted image keeps it byte for byte.
  if (file::CacheImage::serialize(merged.get(), {}) != merged->bytes()) std::abort();
  return 0;
}
