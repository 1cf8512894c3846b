// tether/errors.hpp: the engine's error types. Every user-facing failure is a TetherError;
// the CLI prints `error: <message>` and exits 1. Backend failures carry the object key (or
// the kind) and are printed with a `[key] ` prefix so the user sees which object failed.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tether {

class TetherError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Invalid configuration, manifest, plan or key.
class ConfigError : public TetherError {
 public:
  using TetherError::TetherError;
};

// No tether.toml at or above the directory; the CLI prints it without `error: `.
class DatasetNotFound : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// A version-control operation failed.
class VcsError : public TetherError {
 public:
  using TetherError::TetherError;
};

class StaleWorkingCopyError : public TetherError {
 public:
  using TetherError::TetherError;
};

class StalePlanError : public TetherError {
 public:
  using TetherError::TetherError;
};

// A backend operation failed. The message is prefixed with `[key] ` (or `[kind] `).
class BackendError : public TetherError {
 public:
  explicit BackendError(const std::string& message, std::string key = {}, std::string kind = {})
      : TetherError(prefix(message, key, kind)), bare_(message), key_(std::move(key)), kind_(std::move(kind)) {}
  const std::string& bare_message() const { return bare_; }
  const std::string& key() const { return key_; }
  const std::string& kind() const { return kind_; }

 private:
  static std::string prefix(const std::string& m, const std::string& key, const std::string& kind) {
    if (!key.empty()) return "[" + key + "] " + m;
    if (!kind.empty()) return "[" + kind + "] " + m;
    return m;
  }
  std::string bare_, key_, kind_;
};

class CapabilityError : public BackendError {
 public:
  using BackendError::BackendError;
};
class RefMovedError : public BackendError {
 public:
  using BackendError::BackendError;
};
class MergeConflict : public BackendError {
 public:
  MergeConflict(const std::string& message, std::vector<std::string> conflicts, std::string key = {},
                std::string kind = {})
      : BackendError(message, std::move(key), std::move(kind)), conflicts_(std::move(conflicts)) {}
  const std::vector<std::string>& conflicts() const { return conflicts_; }

 private:
  std::vector<std::string> conflicts_;
};
class ImmutableObjectModified : public BackendError {
 public:
  using BackendError::BackendError;
};
class UnpinnedStateError : public BackendError {
 public:
  using BackendError::BackendError;
};
class PinDriftError : public BackendError {
 public:
  using BackendError::BackendError;
};

// Exit codes of the CLI (docs/cli.md).
enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitPartial = 3 };

}  // namespace tether
