/* conformance/broken/no_fail.c: the C example (plugin-sdk/examples/c-minimal) with one defect:
 * every error returns its status without calling host->fail(). */
#define CMINIMAL_FAIL(call, status, message) ((void)(call), (void)(message), (status))
#include "cminimal.c"
