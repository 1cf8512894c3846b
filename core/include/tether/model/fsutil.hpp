// tether/model/fsutil.hpp: the small file and clock utilities the model writes with.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

namespace tether::model {

// Write `text` to a temporary file in the same directory (`.<name>.<random>.tmp`), fsync it,
// rename it over `path`, fsync the directory. Readers see the old or the new file, never a
// torn one. The new file gets `mode` (before the umask). Throws TetherError naming the path.
void atomic_write_file(const std::filesystem::path& path, std::string_view text, unsigned mode = 0644);
// The same inside the open directory `dir_fd`: the temp file is created there with
// O_EXCL | O_NOFOLLOW and renamed to `name` there, so no symlink on the way is followed
// (model/checkout.hpp opens the directory). `shown` names the file in errors.
void atomic_write_at(int dir_fd, const std::string& name, std::string_view text, unsigned mode,
                     const std::filesystem::path& shown);

// Whole file as bytes. Throws TetherError `cannot read <path>: <reason>`.
std::string read_file(const std::filesystem::path& path);

// A temp-file name beside `path` for atomic writes and create-if-absent claims.
std::filesystem::path temp_path_for(const std::filesystem::path& path);

// Python datetime.now(UTC).isoformat(): `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`, microseconds
// omitted when they are zero (as Python does).
std::string now_iso_utc();
// The same to whole seconds (`2026-11-29T23:01:02+00:00`): plan and op-log times.
std::string now_iso_utc_seconds();
std::string format_iso_utc(std::chrono::system_clock::time_point when);

}  // namespace tether::model
