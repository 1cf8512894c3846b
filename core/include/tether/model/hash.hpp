// tether/model/hash.hpp: framed BLAKE2b and the random ids (docs/FORMAT.md: "Framed BLAKE2b",
// "Ids").
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace tether::model {

// BLAKE2b with digest_size = size (1..64), unkeyed; each part is fed as its length (8-byte
// big-endian) then its bytes. Returns 2*size lowercase hex characters.
std::string framed_blake2b(const std::vector<std::string_view>& parts, std::size_t size);
std::string framed_blake2b(std::initializer_list<std::string_view> parts, std::size_t size);

// Plain (unframed) BLAKE2b of `data` with digest_size = size, as lowercase hex.
std::string blake2b_hex(std::string_view data, std::size_t size);

// Lowercase hex of bytes.
std::string to_hex(const unsigned char* data, std::size_t len);

// `^[0-9a-f]{8}$`.
bool is_dataset_id(std::string_view id);
// `^[0-9a-f]{n}$` for any n >= 1.
bool is_lower_hex(std::string_view text, std::size_t n);

// Fresh random ids from libsodium's randombytes. new_workspace_id() is a uuid4 in hex (version
// and variant bits set as Python's uuid4().hex); the others are its first 8 / 12 characters.
std::string new_dataset_id();    // 8 hex
std::string new_workspace_id();  // 32 hex
std::string new_op_id();         // 12 hex

}  // namespace tether::model
