// The plugin header compiles as C++20 with -Wall -Wextra -pedantic -Werror, and its layout is
// the same in both languages (the C translation unit reports its sizes).
#include "tether/backend.h"
#include "tether/harness.h"

extern "C" int header_c11_size(void);

int main() {
  int cxx = static_cast<int>(sizeof(tether_backend_vtable) + sizeof(tether_plugin_entry));
  return header_c11_size() == cxx ? 0 : 1;
}
