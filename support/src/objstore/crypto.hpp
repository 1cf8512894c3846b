// The hashing the object-store signers share (sigv4.cpp), private to the client.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tether::support::objstore {

std::string sha256_hex(std::string_view data);
// Raw 32-byte MAC.
std::string hmac_sha256(std::string_view key, std::string_view data);
std::string to_hex(const unsigned char* data, std::size_t n);

}  // namespace tether::support::objstore
