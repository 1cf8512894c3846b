// The exported entry of tether-backend-neon.so.
#include "neon_backend.hpp"

TETHER_BACKEND_PLUGIN(tether::neon::NeonBackend, "neon", "0.1.0")
