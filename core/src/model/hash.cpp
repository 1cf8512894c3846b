// model/hash.cpp: framed BLAKE2b over libsodium's crypto_generichash, and random ids.
#include "tether/model/hash.hpp"
#include "tether/model/framed_hash.hpp"

#include <sodium.h>

#include <array>
#include <cstring>
#include <stdexcept>

namespace tether::model {
namespace {

void ensure_sodium() {
  static const int rc = sodium_init();  // thread-safe once; 1 means "already initialised"
  if (rc < 0) throw std::runtime_error("libsodium failed to initialise");
}

std::string random_hex(std::size_t nbytes) {
  ensure_sodium();
  std::array<unsigned char, 32> buf{};
  randombytes_buf(buf.data(), nbytes);
  return to_hex(buf.data(), nbytes);
}

}  // namespace

std::string to_hex(const unsigned char* data, std::size_t len) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(len * 2, '0');
  for (std::size_t i = 0; i < len; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0x0F];
  }
  return out;
}

std::string framed_blake2b(const std::vector<std::string_view>& parts, std::size_t size) {
  FramedBlake2b h(size);
  for (const auto& p : parts) h.add(p);
  return h.hex();
}

static_assert(sizeof(crypto_generichash_state) <= 384 && alignof(crypto_generichash_state) <= 64,
              "FramedBlake2b's storage must hold libsodium's state");

FramedBlake2b::FramedBlake2b(std::size_t size) : size_(size) {
  if (size < 1 || size > crypto_generichash_BYTES_MAX) throw std::invalid_argument("framed_blake2b: size out of range");
  ensure_sodium();
  std::memset(state_, 0, sizeof state_);
  if (crypto_generichash_init(reinterpret_cast<crypto_generichash_state*>(state_), nullptr, 0, size) != 0)
    throw std::runtime_error("crypto_generichash_init failed");
}

void FramedBlake2b::add(std::string_view part) {
  auto* st = reinterpret_cast<crypto_generichash_state*>(state_);
  unsigned char len[8];
  uint64_t n = part.size();
  for (int i = 7; i >= 0; --i) {
    len[i] = static_cast<unsigned char>(n & 0xFF);
    n >>= 8;
  }
  crypto_generichash_update(st, len, sizeof len);
  crypto_generichash_update(st, reinterpret_cast<const unsigned char*>(part.data()), part.size());
}

std::string FramedBlake2b::hex() const {
  alignas(64) unsigned char copy[sizeof state_];
  std::memcpy(copy, state_, sizeof state_);
  std::array<unsigned char, crypto_generichash_BYTES_MAX> out{};
  crypto_generichash_final(reinterpret_cast<crypto_generichash_state*>(copy), out.data(), size_);
  return to_hex(out.data(), size_);
}

std::string blake2b_hex(std::string_view data, std::size_t size) {
  if (size < 1 || size > crypto_generichash_BYTES_MAX) throw std::invalid_argument("blake2b_hex: size out of range");
  ensure_sodium();
  std::array<unsigned char, crypto_generichash_BYTES_MAX> out{};
  crypto_generichash(out.data(), size, reinterpret_cast<const unsigned char*>(data.data()), data.size(), nullptr, 0);
  return to_hex(out.data(), size);
}

std::string framed_blake2b(std::initializer_list<std::string_view> parts, std::size_t size) {
  return framed_blake2b(std::vector<std::string_view>(parts), size);
}

bool is_lower_hex(std::string_view text, std::size_t n) {
  if (text.size() != n || n == 0) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_dataset_id(std::string_view id) { return is_lower_hex(id, 8); }

std::string new_dataset_id() { return random_hex(4); }
std::string new_op_id() { return random_hex(6); }

std::string new_workspace_id() {
  ensure_sodium();
  std::array<unsigned char, 16> b{};
  randombytes_buf(b.data(), b.size());
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return to_hex(b.data(), b.size());
}

}  // namespace tether::model
