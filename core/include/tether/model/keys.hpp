// tether/model/keys.hpp: object keys and where their manifests live
// (docs/FORMAT.md#object-keys-and-manifest-paths).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace tether::model {

// True when `key` is a safe object key: non-empty, no leading/trailing `/`, no `\`, no empty,
// `.` or `..` segment, no segment starting with a drive spec (`C:`), no control character and
// no whitespace other than the plain space, and no segment git reserves
// (is_git_reserved_segment).
bool is_safe_key(std::string_view key);
// True for a path segment git refuses as a directory name on any platform it protects:
// `.git` in any case, followed by any dots and spaces or an NTFS stream (`.git.`, `.GIT `,
// `.git::$INDEX_ALLOCATION`), the 8.3 name `git~1` likewise (core.protectNTFS, on by
// default), and `.git` spelled with HFS+-ignorable code points (core.protectHFS, on by
// default on macOS). Refused in every segment, the last included: any key can become the
// prefix of another (`a/.git` then `a/.git/b`), and a manifest git does not store is silently
// missing from every clone.
bool is_git_reserved_segment(std::string_view segment);
// Throws ConfigError `unsafe object key: '<key>'` (key shown as Python repr; a git-reserved
// segment is named, with the way out).
void validate_key(std::string_view key);

// objects/<seg1>/.../<segN>.toml (".toml" appended to the last segment). Validates the key.
std::filesystem::path key_to_manifest_path(const std::filesystem::path& objects_dir, std::string_view key);
// The reverse: the path relative to objects_dir, a trailing ".toml" stripped from the last part,
// parts joined by "/". The result is not validated.
std::string manifest_path_to_key(const std::filesystem::path& objects_dir, const std::filesystem::path& path);

}  // namespace tether::model
