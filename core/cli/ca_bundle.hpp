// ca_bundle.hpp: the CA bundle libgit2's init asked for, parsed only when a TLS session starts
// (ca_bundle.cpp says how and why).
#pragma once

#include <optional>
#include <string>

namespace tether::cli {

// The bundle recorded and not parsed yet (the file libgit2's init named), if any; nullopt when
// none is pending or the deferral is not built (libgit2 without mbedTLS 2).
std::optional<std::string> deferred_ca_bundle();

}  // namespace tether::cli
