// ssh_init.hpp: libssh2's init, made at the first SSH session (ssh_init.cpp says how and why).
#pragma once

namespace tether::cli {

// True while an init was asked for (libgit2's) and not made yet.
bool ssh_init_deferred();

}  // namespace tether::cli
