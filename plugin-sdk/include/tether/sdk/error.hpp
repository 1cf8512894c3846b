// tether/sdk/error.hpp: the errors a backend throws. The SDK's trampolines turn each into
// one host->fail() call with its status category, message and JSON details.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "tether/sdk/types.hpp"

namespace tether::sdk {

class Error : public std::runtime_error {
 public:
  Error(tether_status status, const std::string& message, Json details = Json::object())
      : std::runtime_error(message), status_(status), details_(std::move(details)) {}
  tether_status status() const { return status_; }
  const Json& details() const { return details_; }

 private:
  tether_status status_;
  Json details_;
};

// A generic backend failure ("pin tether.X already points elsewhere").
struct BackendError : Error {
  explicit BackendError(const std::string& m, Json details = Json::object())
      : Error(TETHER_E_BACKEND, m, std::move(details)) {}
};
struct NotFound : Error {
  explicit NotFound(const std::string& m) : Error(TETHER_E_NOT_FOUND, m) {}
};
struct InvalidArgument : Error {
  explicit InvalidArgument(const std::string& m) : Error(TETHER_E_INVALID_ARGUMENT, m) {}
};
struct IoError : Error {
  explicit IoError(const std::string& m) : Error(TETHER_E_IO, m) {}
};
struct Unsupported : Error {
  Unsupported(const std::string& capability, const std::string& m)
      : Error(TETHER_E_UNSUPPORTED, m, Json{{"capability", capability}}) {}
};
// A compare-and-swap lost: `actual` is null when the ref does not exist.
struct RefMoved : Error {
  RefMoved(const std::string& m, const std::string& ref, const Json& expected, const Json& actual)
      : Error(TETHER_E_REF_MOVED, m, Json{{"ref", ref}, {"expected", expected}, {"actual", actual}}) {}
};
// A merge stopped on conflicts; nothing was written.
struct MergeConflict : Error {
  MergeConflict(const std::string& m, const std::vector<std::string>& conflicts)
      : Error(TETHER_E_MERGE_CONFLICT, m, Json{{"conflicts", conflicts}}) {}
};

}  // namespace tether::sdk
