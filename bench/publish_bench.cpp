// bench/publish_bench.cpp: times `publish` of a synthetic bundle (COMMITS commits x OBJECTS
// objects, states changing every commit) into the PostgreSQL that $TETHER_TEST_PG_CONNINFO
// names, once by COPY and once by multi-row INSERTs, each into a fresh schema, then once more
// by COPY into the populated schema (everything skipped). Not built by default:
//   ninja -C build bench/publish_bench
//   tests/pg/with-cluster sh -c 'build/bench/publish_bench 10000 50'
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "tether/registry/publish.hpp"

using namespace tether::registry;

namespace {

std::string hex(std::size_t n, std::size_t width) {
  static const char* digits = "0123456789abcdef";
  std::string s(width, '0');
  for (std::size_t i = width; i-- > 0 && n; n >>= 4) s[i] = digits[n & 15];
  return s;
}

Bundle make_bundle(std::size_t commits, std::size_t objects) {
  Bundle b;
  b.exported_at = "2026-01-01T00:00:00+00:00";
  b["objects"].reserve(commits * objects);
  std::string prev;
  for (std::size_t c = 0; c < commits; ++c) {
    std::string id = hex(c * 2654435761u + 1, 40);
    std::string at = "2026-01-01T00:00:" + std::to_string(c % 60 / 10) + std::to_string(c % 10) + "+00:00";
    b["commits"].add_row({b.text(id), Cell::null(), b.text("bench"), b.text("bench@example.invalid"), b.text(at),
                          b.text(at), b.text("commit " + std::to_string(c) + "\nwith a body\tand a tab"),
                          b.text(hex(c, 64))});
    if (!prev.empty()) b["commit_parents"].add_row({b.text(id), b.text(prev), Cell::integer(0)});
    for (std::size_t o = 0; o < objects; ++o) {
      std::string key = "data/object-" + std::to_string(o);
      std::string sys = "sys" + std::to_string(o);
      std::size_t version = c / (1 + o % 7);  // objects change at different rates
      std::string snap = sys + ":s" + std::to_string(version);
      std::string pin = "abcd1234." + hex(o * 1000003 + version, 16);
      b["objects"].add_row({b.text(id), b.text(key), b.text("memory"), b.text("mem://" + sys),
                            b.text("{\"branch\":\"main\",\"uri\":\"mem://" + sys + "\"}"),
                            b.text("{\"system\":\"" + sys + "\"}"), b.text(hex(o, 32)), b.text("immutable"),
                            b.text("native"), b.text("{\"snapshot_id\":\"" + snap + "\"}"), b.text(hex(version, 32)),
                            b.text(pin), b.text("tether." + pin), Cell::boolean(true), b.text(at)});
    }
    prev = id;
  }
  b.head = prev;
  b["refs"].add_row({b.text("main"), b.text("branch"), b.text(prev)});
  b["refs"].add_row({b.text("HEAD"), b.text("head"), b.text(prev)});
  for (const char* k : {"schema_version", "exported_at", "head", "vcs", "tether_version"})
    b["tether_meta"].add_row({b.text(k), b.text("x")});
  return b;
}

double timed_publish(const Bundle& b, const std::string& dsn, const std::string& schema, std::size_t threshold) {
  PublishOptions o;
  o.dsn = dsn;
  o.schema = schema;
  o.copy_threshold = threshold;
  auto t0 = std::chrono::steady_clock::now();
  PublishReport r = publish(b, o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  %-8s %-22s %9zu row(s) %6zu skipped  %7.2f s\n", schema.c_str(),
              threshold == 0 ? "COPY" : threshold == std::numeric_limits<std::size_t>::max() ? "multi-row INSERT" : "mixed",
              r.total(), r.skipped_commits, s);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const char* dsn = std::getenv("TETHER_TEST_PG_CONNINFO");
  if (!dsn) {
    std::fprintf(stderr, "publish_bench: set TETHER_TEST_PG_CONNINFO (tests/pg/with-cluster does)\n");
    return 2;
  }
  std::size_t commits = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
  std::size_t objects = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 50;
  auto t0 = std::chrono::steady_clock::now();
  Bundle b = make_bundle(commits, objects);
  std::printf("bundle: %zu commits x %zu objects (%zu object rows), built in %.2f s\n", commits, objects,
              b["objects"].rows(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  try {
    timed_publish(b, dsn, "b_copy", 0);
    timed_publish(b, dsn, "b_insert", std::numeric_limits<std::size_t>::max());
    timed_publish(b, dsn, "b_copy", 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "publish_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
