// Unit tests of the ELF export reader, on the built memory plugin (only tether_entry) and the
// broken extra-exports plugin (tether_entry and tether_debug_stats), whose paths meson passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "elf_exports.hpp"

using tether::conformance::elf_exports;

namespace {
std::string env_path(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE_MESSAGE(v != nullptr, name << " is not set (run through meson test)");
  return v;
}
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("a plugin linked with the version script exports only tether_entry") {
  CHECK(elf_exports(std::filesystem::path(env_path("MEMORY_PLUGIN"))) == std::vector<std::string>{"tether_entry"});
}

TEST_CASE("a plugin linked without it shows its extra exports, and no imports") {
  auto names = elf_exports(std::filesystem::path(env_path("BROKEN_EXTRA_EXPORTS")));
  auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  CHECK(has("tether_entry"));
  CHECK(has("tether_debug_stats"));
  CHECK(names.size() > 2);       // libstdc++ template instances leak out without the version script
  CHECK_FALSE(has("memcpy"));    // undefined: imported, not exported
  CHECK_FALSE(has("__cxa_throw"));
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("the executable running the test is read too (no .dynsym entries of its own needed)") {
  CHECK_NOTHROW(elf_exports(std::filesystem::path("/proc/self/exe")));
}

TEST_CASE("what is not a whole ELF file is refused, not misread") {
  CHECK_THROWS(elf_exports(std::string_view("not an elf file at all"), "text"));
  CHECK_THROWS(elf_exports(std::string_view(""), "empty"));
  std::string image = slurp(env_path("MEMORY_PLUGIN"));
  REQUIRE(image.size() > 4096);
  CHECK_THROWS(elf_exports(std::string_view(image).substr(0, 200), "truncated"));  // headers past the end
  std::string no_sections = image;
  no_sections[4] = 9;  // an unknown ELF class
  CHECK_THROWS(elf_exports(no_sections, "bad class"));
}
