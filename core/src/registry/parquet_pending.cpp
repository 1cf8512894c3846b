// core/src/registry/parquet_pending.cpp: placeholder until the Parquet writer lands (branch
// i9-parquet); `--format parquet` says so instead of writing anything.
#include "tether/errors.hpp"
#include "tether/registry/registry.hpp"

namespace tether::registry {
void write_parquet(const Table& table, const std::filesystem::path&) {
  throw ConfigError("Parquet export is not built in yet (table " + table.name() + ")");
}
}  // namespace tether::registry
