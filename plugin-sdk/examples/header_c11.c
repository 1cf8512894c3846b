/* The plugin header compiles as strict C11 (see meson.build: -std=c11 -Wall -Wextra -pedantic -Werror). */
#include "tether/backend.h"
#include "tether/harness.h"

int header_c11_size(void);
int header_c11_size(void) { return (int)sizeof(tether_backend_vtable) + (int)sizeof(tether_plugin_entry); }
