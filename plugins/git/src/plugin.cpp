// The exported entry of tether-backend-git.so.
#include "git_backend.hpp"

TETHER_BACKEND_PLUGIN(tether::git::GitBackend, "git", "0.1.0")
