// fuzz/objstore.cpp: what an object store answers, as tether's client reads it: the XML of
// S3's ListObjectsV2 and ListObjectVersions and of Azure's List Blobs (support/src/objstore).
// The first byte picks the parser; the rest is the answer. A store is someone else's server:
// the only error allowed out is StoreError.
#include "fuzz_support.hpp"
#include "stores.hpp"
#include "tether/support/objstore.hpp"
#include "xml.hpp"

using namespace tether::support::objstore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string body(tether::fuzz::text_of(data + 1, size - 1));
  try {
    switch (data[0] % 4) {
      case 0: (void)parse_xml(body); break;
      case 1: (void)parse_s3_list(body, "s3://fuzz/p"); break;
      case 2: (void)parse_s3_versions(body, "s3://fuzz/p"); break;
      default: (void)parse_azure_list(body, "az://fuzz/p", data[0] & 4); break;
    }
  } catch (const StoreError&) {
  }
  return 0;
}
