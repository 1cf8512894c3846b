#include "ids.hpp"

namespace tether::icechunk {
namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int symbol_value(char c) {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  if (c == 'O') return 0;
  if (c == 'I' || c == 'L') return 1;
  for (int i = 0; i < 32; ++i)
    if (kAlphabet[i] == c) return i;
  return -1;
}

}  // namespace

std::string encode_id(const uint8_t* bytes, std::size_t n) {
  std::string out;
  out.reserve((n * 8 + 4) / 5);
  uint32_t acc = 0;
  int bits = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc = (acc << 8) | bytes[i];
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (5 - bits)) & 31];
  return out;
}

std::optional<std::vector<uint8_t>> decode_id(const std::string& text, std::size_t n) {
  if (text.size() != (n * 8 + 4) / 5) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(n);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = symbol_value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 5) | static_cast<uint32_t>(v);
    bits += 5;
    if (bits >= 8) {
      out.push_back(static_cast<uint8_t>(acc >> (bits - 8)));
      bits -= 8;
    }
  }
  if (out.size() != n || (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

bool is_id12(const std::string& text) {
  auto bytes = decode_id(text, 12);
  return bytes && encode_id(bytes->data(), bytes->size()) == text;
}

}  // namespace tether::icechunk
