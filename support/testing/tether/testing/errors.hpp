// tether/testing/errors.hpp (tests only): checking what an error says.
#pragma once

#include <doctest/doctest.h>

#include <exception>
#include <string>

namespace tether::testing {

// The message of the exception `fn` throws; a test failure when it throws none.
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  FAIL("no error");
  return {};
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace tether::testing
