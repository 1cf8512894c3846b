// The exported entry of tether-backend-file.so.
#include "file_backend.hpp"

TETHER_BACKEND_PLUGIN(tether::file::FileBackend, "file", "0.1.0")
