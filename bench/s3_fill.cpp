// s3_fill BUCKET PREFIX COUNT: makes BUCKET in the S3 store TETHER_TEST_S3_* name and writes
// COUNT small objects (20-200 bytes, like bench/gen_tree.py's files) under PREFIX, in 1,000
// directories, on 16 threads through tether's object-store client. bench/run's s3 section
// uses it to fill the throwaway Ceph gateway.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tether/support/objstore.hpp"
#include "tether/testing/s3.hpp"

namespace os = tether::support::objstore;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: s3_fill BUCKET PREFIX COUNT\n");
    return 2;
  }
  os::Options o = tether::testing::S3Cluster::from_env().options();
  try {
    auto store = os::open(*os::parse_location(std::string("s3://") + argv[1] + "/"), o);
    store->create_bucket();
    std::string prefix = argv[2];
    long count = std::stol(argv[3]);
    std::atomic<long> next{0};
    std::atomic<bool> failed{false};
    std::vector<std::thread> ts;
    for (int t = 0; t < 16; ++t)
      ts.emplace_back([&] {
        for (long i; !failed && (i = next++) < count;) {
          char key[96];
          std::snprintf(key, sizeof key, "d%03ld/f%06ld.txt", i % 1000, i);
          try {
            store->put(prefix + key, std::string(static_cast<std::size_t>(20 + i * 37 % 181), static_cast<char>('a' + i % 26)));
          } catch (const os::StoreError& e) {
            if (!failed.exchange(true)) std::fprintf(stderr, "s3_fill: %s\n", e.what());
          }
        }
      });
    for (auto& t : ts) t.join();
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "s3_fill: %s\n", e.what());
    return 1;
  }
}
