// The exported entry of tether-backend-icechunk.so.
#include "icechunk_backend.hpp"

TETHER_BACKEND_PLUGIN(tether::icechunk::IcechunkBackend, "icechunk", "0.1.0")
