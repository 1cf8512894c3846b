// icechunk-bench DIR BRANCH FROM TO REPEAT: the reader's side of bench/run's Icechunk
// section. Best-of-REPEAT milliseconds inside one process, as tests/icechunk/oracle.mjs
// bench-time measures real Icechunk: open + branch lookup, the branch's whole ancestry, and
// the diff FROM..TO. Prints one JSON object.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "diff.hpp"
#include "repository.hpp"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: icechunk-bench DIR BRANCH FROM TO REPEAT\n");
    return 2;
  }
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  double open_ms = std::numeric_limits<double>::infinity(), ancestry_ms = open_ms, diff_ms = open_ms;
  std::size_t len = 0, changes = 0;
  try {
    for (int i = 0; i < std::atoi(argv[5]); ++i) {
      auto t0 = clock::now();
      auto repo = tether::icechunk::Repository::open(argv[1]);
      auto tip = repo.branch(argv[2]);
      auto t1 = clock::now();
      if (!tip) throw tether::icechunk::FormatError(std::string("no branch ") + argv[2]);
      len = repo.ancestry(*tip).size();
      auto t2 = clock::now();
      auto d = tether::icechunk::diff_snapshots(repo, argv[3], argv[4]);
      auto t3 = clock::now();
      changes = d.new_arrays.size() + d.updated_chunks.size();
      open_ms = std::min(open_ms, ms(t0, t1));
      ancestry_ms = std::min(ancestry_ms, ms(t1, t2));
      diff_ms = std::min(diff_ms, ms(t2, t3));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "icechunk-bench: %s\n", e.what());
    return 1;
  }
  std::printf("{\"open_ms\": %.3f, \"ancestry_ms\": %.3f, \"diff_ms\": %.3f, \"ancestry_len\": %zu, \"diff_changes\": %zu}\n",
              open_ms, ancestry_ms, diff_ms, len, changes);
  return 0;
}
