// zstd_lazy.cpp: libzstd is loaded when a command first writes a Parquet page (export,
// publish), not at start-up. Linked, it was one of the four libraries every tether process
// loads: about 0.2 M instructions and 0.05 ms of an empty program's start (docs/PERFORMANCE.md,
// "Start-up: libraries opened at first use"). Same scheme as libpq_lazy.cpp: the registry
// defines the zstd functions parquet.cpp calls, each forwarding to the real one (signatures
// from zstd.h by decltype; tether/support/lazy_library.hpp).
#include <zstd.h>

#include <string>

#include "tether/errors.hpp"
#include "tether/support/lazy_library.hpp"

namespace {

constinit tether::support::LazyLibrary libzstd("libzstd.so.1", "the zstd library",
                                               "install zstd (Debian: libzstd1) to write Parquet");

[[noreturn]] void fail(const std::string& message) { throw tether::TetherError(message); }

}  // namespace

#define TETHER_ZSTD(ret, name, params, args) TETHER_LAZY_FORWARD(libzstd, fail, ret, name, params, args)

TETHER_ZSTD(size_t, ZSTD_compressBound, (size_t srcSize), (srcSize))
TETHER_ZSTD(unsigned, ZSTD_isError, (size_t code), (code))
TETHER_ZSTD(const char*, ZSTD_getErrorName, (size_t code), (code))
TETHER_ZSTD(ZSTD_CCtx*, ZSTD_createCCtx, (void), ())
TETHER_ZSTD(size_t, ZSTD_freeCCtx, (ZSTD_CCtx * cctx), (cctx))
TETHER_ZSTD(size_t, ZSTD_compressCCtx,
            (ZSTD_CCtx * cctx, void* dst, size_t dstCapacity, const void* src, size_t srcSize, int compressionLevel),
            (cctx, dst, dstCapacity, src, srcSize, compressionLevel))
