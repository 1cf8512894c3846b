// ids: Icechunk's object ids in Crockford base32 (docs/backends.md#icechunk). Snapshot,
// manifest and chunk ids are 12 bytes (20 symbols), node ids 8 bytes (13 symbols): the bytes
// as one big-endian bit string, zero-padded to a multiple of 5 bits, one symbol per 5 bits,
// upper case, no padding symbols and no check symbol.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tether::icechunk {

std::string encode_id(const uint8_t* bytes, std::size_t n);

// The bytes of an id of `n` bytes: accepts lower case and the Crockford aliases (O -> 0,
// I/L -> 1); nullopt for another symbol, another length, or non-zero padding bits.
std::optional<std::vector<uint8_t>> decode_id(const std::string& text, std::size_t n);

// A name that is a well-formed 12-byte id, written as Icechunk writes it.
bool is_id12(const std::string& text);

inline constexpr const char* kInitialSnapshotId = "1CECHNKREP0F1RSTCMT0";

}  // namespace tether::icechunk
