// tether/model/framed_hash.hpp: framed BLAKE2b (docs/FORMAT.md: "Framed BLAKE2b") fed one
// part at a time, with a copyable state, so many part lists that share a prefix hash that
// prefix once (export's manifest hashes: consecutive commits share most of their manifests).
// A header of its own so the many users of hash.hpp do not see it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tether::model {

class FramedBlake2b {
 public:
  explicit FramedBlake2b(std::size_t size);  // digest size 1..64 (std::invalid_argument otherwise)
  void add(std::string_view part);           // its 8-byte big-endian length, then its bytes
  // The digest of the parts so far as 2*size lowercase hex: the same as framed_blake2b(parts,
  // size). The state is left as it was; more parts may follow.
  std::string hex() const;

 private:
  alignas(64) unsigned char state_[384];  // libsodium's crypto_generichash_state
  std::size_t size_;
};

}  // namespace tether::model
