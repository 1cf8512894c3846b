// tether/testing/objstore.hpp (tests only): what an object-store call failed with.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "tether/support/objstore.hpp"

namespace tether::testing {

// The kind of the StoreError `f` throws (its message into `message`, when given); a test
// failure when it throws none.
inline support::objstore::ErrorKind kind_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const support::objstore::StoreError& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  FAIL("no StoreError");
  return support::objstore::ErrorKind::Other;
}

}  // namespace tether::testing
