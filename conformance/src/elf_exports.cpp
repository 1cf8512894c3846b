// conformance/src/elf_exports.cpp: a bounds-checked reader of .dynsym and its string table.
#include "elf_exports.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tether::conformance {
namespace {

template <class T>
T read_at(std::string_view image, uint64_t offset, const std::string& label) {
  if (offset > image.size() || image.size() - offset < sizeof(T))
    throw std::runtime_error(label + ": truncated ELF file (offset " + std::to_string(offset) + ")");
  T v;
  std::memcpy(&v, image.data() + offset, sizeof v);
  return v;
}

template <class Ehdr, class Shdr, class Sym>
std::vector<std::string> exports_of(std::string_view image, const std::string& label, unsigned char (*bind)(unsigned char),
                                    unsigned char (*type)(unsigned char)) {
  auto eh = read_at<Ehdr>(image, 0, label);
  if (eh.e_shentsize != sizeof(Shdr)) throw std::runtime_error(label + ": unexpected ELF section header size");
  std::vector<std::string> out;
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    auto sh = read_at<Shdr>(image, eh.e_shoff + i * sizeof(Shdr), label);
    if (sh.sh_type != SHT_DYNSYM) continue;
    if (sh.sh_link >= eh.e_shnum) throw std::runtime_error(label + ": .dynsym links to no string table");
    auto strtab = read_at<Shdr>(image, eh.e_shoff + uint64_t{sh.sh_link} * sizeof(Shdr), label);
    if (strtab.sh_offset > image.size() || image.size() - strtab.sh_offset < strtab.sh_size)
      throw std::runtime_error(label + ": truncated ELF string table");
    std::string_view names = image.substr(strtab.sh_offset, strtab.sh_size);
    uint64_t entsize = sh.sh_entsize ? sh.sh_entsize : sizeof(Sym);
    for (uint64_t off = entsize; off + sizeof(Sym) <= sh.sh_size; off += entsize) {  // entry 0 is null
      auto sym = read_at<Sym>(image, sh.sh_offset + off, label);
      unsigned char b = bind(sym.st_info), t = type(sym.st_info);
      unsigned char vis = ELF64_ST_VISIBILITY(sym.st_other);
      if (sym.st_shndx == SHN_UNDEF) continue;
      if (b != STB_GLOBAL && b != STB_WEAK && b != STB_GNU_UNIQUE) continue;
      if (vis != STV_DEFAULT && vis != STV_PROTECTED) continue;
      if (t == STT_SECTION || t == STT_FILE) continue;
      if (sym.st_name >= names.size()) throw std::runtime_error(label + ": symbol name outside the string table");
      std::string_view rest = names.substr(sym.st_name);
      out.emplace_back(rest.substr(0, rest.find('\0')));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

unsigned char bind32(unsigned char i) { return ELF32_ST_BIND(i); }
unsigned char type32(unsigned char i) { return ELF32_ST_TYPE(i); }
unsigned char bind64(unsigned char i) { return ELF64_ST_BIND(i); }
unsigned char type64(unsigned char i) { return ELF64_ST_TYPE(i); }

}  // namespace

std::vector<std::string> elf_exports(std::string_view image, const std::string& label) {
  if (image.size() < EI_NIDENT || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
    throw std::runtime_error(label + ": not an ELF file");
  if (image[EI_DATA] != ELFDATA2LSB) throw std::runtime_error(label + ": not a little-endian ELF file");
  if (image[EI_CLASS] == ELFCLASS64) return exports_of<Elf64_Ehdr, Elf64_Shdr, Elf64_Sym>(image, label, bind64, type64);
  if (image[EI_CLASS] == ELFCLASS32) return exports_of<Elf32_Ehdr, Elf32_Shdr, Elf32_Sym>(image, label, bind32, type32);
  throw std::runtime_error(label + ": unknown ELF class");
}

std::vector<std::string> elf_exports(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  std::ostringstream buf;
  buf << in.rdbuf();
  return elf_exports(buf.str(), file.string());
}

}  // namespace tether::conformance
