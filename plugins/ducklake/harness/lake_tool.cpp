// ducklake-lake: a command-line face of the catalog builder, so scenarios and `make demo`
// can make and change SQLite DuckLake catalogs the way the extension would (no DuckDB here).
//   ducklake-lake create PATH
//   ducklake-lake create-table PATH NAME [COLUMN:TYPE...]   (default a:INTEGER)
//   ducklake-lake insert PATH TABLE N                       (inlined when N <= 10, else one file)
//   ducklake-lake delete PATH TABLE N                       (the N oldest inlined rows)
//   ducklake-lake drop PATH TABLE
//   ducklake-lake expire PATH SNAPSHOT...
// Each commit prints the snapshot id it made.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "builder.hpp"

using tether::ducklake::harness::CatalogBuilder;
using tether::ducklake::harness::Column;

namespace {

int usage() {
  std::cerr << "usage: ducklake-lake create PATH | create-table PATH NAME [COLUMN:TYPE...] | insert PATH TABLE N |\n"
               "       delete PATH TABLE N | drop PATH TABLE | expire PATH SNAPSHOT...\n";
  return 2;
}

int64_t number(const std::string& s) {
  std::size_t used = 0;
  long long v = std::stoll(s, &used);
  if (used != s.size() || v < 0) throw std::invalid_argument("not a count: " + s);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() < 2) return usage();
  const std::string& cmd = a[0];
  const std::string& path = a[1];
  try {
    if (cmd == "create" && a.size() == 2) {
      std::cout << CatalogBuilder::create(path).current_snapshot() << "\n";
      return 0;
    }
    auto lake = CatalogBuilder::open(path);
    if (cmd == "create-table" && a.size() >= 3) {
      std::vector<Column> cols;
      for (std::size_t i = 3; i < a.size(); ++i) {
        auto colon = a[i].find(':');
        if (colon == std::string::npos) return usage();
        cols.push_back({a[i].substr(0, colon), a[i].substr(colon + 1)});
      }
      if (cols.empty()) cols.push_back({"a", "INTEGER"});
      std::cout << lake.create_table(a[2], cols) << "\n";
    } else if (cmd == "insert" && a.size() == 4) {
      int64_t n = number(a[3]);
      int64_t t = lake.table_id(a[2]);
      std::cout << (n <= 10 ? lake.insert_inlined(t, n) : lake.insert_file(t, n)) << "\n";
    } else if (cmd == "delete" && a.size() == 4) {
      std::cout << lake.delete_inlined(lake.table_id(a[2]), number(a[3])) << "\n";
    } else if (cmd == "drop" && a.size() == 3) {
      std::cout << lake.drop_table(lake.table_id(a[2])) << "\n";
    } else if (cmd == "expire" && a.size() >= 3) {
      std::vector<int64_t> ids;
      for (std::size_t i = 2; i < a.size(); ++i) ids.push_back(number(a[i]));
      lake.expire(ids);
    } else {
      return usage();
    }
  } catch (const std::exception& e) {
    std::cerr << "ducklake-lake: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
