// Tests of support/lazy_library: a real library's function through the loader, and the two
// failures (no library, no such function) with their messages, as LazyLibraryError or as the
// caller's own error.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "tether/support/lazy_library.hpp"

using tether::support::LazyLibrary;
using tether::support::LazyLibraryError;

namespace {

struct CallerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void caller_fail(const std::string& message) { throw CallerError(message); }

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

static_assert(std::is_trivially_destructible_v<LazyLibrary>, "a forwarder may run after static destructors");

TEST_CASE("a function of a real library, opened on the first call") {
  static constinit LazyLibrary libm("libm.so.6", "the maths library", "install libc6");
  using Cos = double (*)(double);
  const Cos real_cos = libm.get<Cos>("cos");
  CHECK(real_cos(0.0) == 1.0);
  CHECK((libm.get<Cos>("cos", caller_fail) == real_cos));
  CHECK(libm.handle() == libm.handle());  // opened once
}

TEST_CASE("a missing library: the same message on every call, in the caller's error when asked") {
  static constinit LazyLibrary nope("libtether-no-such-library.so.0", "the test library",
                                    "install it (Debian: tether-test)");
  const std::string m = message_of([] { nope.get<void (*)()>("f"); });
  CHECK(m.starts_with("cannot load the test library (libtether-no-such-library.so.0): "));
  CHECK(m.find("libtether-no-such-library.so.0: cannot open shared object file") != std::string::npos);
  CHECK(m.ends_with("; install it (Debian: tether-test)"));
  CHECK(message_of([] { nope.get<void (*)()>("g"); }) == m);
  CHECK_THROWS_AS(nope.get<void (*)()>("f"), LazyLibraryError);
  CHECK_THROWS_AS(nope.get<void (*)()>("f", caller_fail), CallerError);
  CHECK(message_of([] { nope.get<void (*)()>("f", caller_fail); }) == m);
}

TEST_CASE("a missing function names the function and the upgrade") {
  static constinit LazyLibrary libm("libm.so.6", "the maths library", "install libc6", "install a newer libc6");
  CHECK(message_of([] { libm.get<void (*)()>("tether_no_such_function"); }) ==
        "the maths library (libm.so.6) has no tether_no_such_function; install a newer libc6");
  CHECK_THROWS_AS(libm.get<void (*)()>("tether_no_such_function", caller_fail), CallerError);
}

TEST_CASE("a library opened first is loaded along, and its absence changes nothing") {
  static constinit LazyLibrary libm("libm.so.6", "the maths library", "install libc6", nullptr, RTLD_LAZY,
                                    "libtether-no-such-library.so.0");
  CHECK(libm.get<double (*)(double)>("cos")(0.0) == 1.0);
}
