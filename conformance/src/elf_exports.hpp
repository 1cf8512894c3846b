// conformance/src/elf_exports.hpp: the symbols a shared object exports, read from its ELF
// dynamic symbol table (.dynsym) without loading it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tether::conformance {

// Defined, default- or protected-visibility, global or weak symbols of .dynsym (functions,
// objects, TLS and untyped symbols; section and file symbols are not names a caller can
// bind to). Sorted. Throws std::runtime_error naming the file when it is not a readable
// 64- or 32-bit little-endian ELF shared object.
std::vector<std::string> elf_exports(const std::filesystem::path& file);
std::vector<std::string> elf_exports(std::string_view image, const std::string& label);

}  // namespace tether::conformance
