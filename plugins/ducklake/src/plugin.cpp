// The exported entry of tether-backend-ducklake.so.
#include "ducklake_backend.hpp"

TETHER_BACKEND_PLUGIN(tether::ducklake::DuckLakeBackend, "ducklake", "0.1.0")
