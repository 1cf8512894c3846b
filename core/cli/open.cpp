// core/cli/open.cpp: `tether open`: a native handle on an object.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/open.hpp"

namespace tether::cli {

int run_open(const Global& g, const OpenOptions& o) {
  auto repo = open_repo();
  std::optional<bool> writable;
  if (o.writable_flag) writable = true;
  if (o.read_only_flag) writable = false;
  auto r = engine::open_object(*repo, o.key, o.rev, writable, o.with_password);
  if (g.json) {
    // The backend's own fields (an ATTACH statement, a path and sha, ...) under "handle".
    print_json(r.to_json());
    return 0;
  }
  // --with-password asks for the password in the printed handle; nothing else is shown raw.
  if (o.with_password) out_unredacted(r.display);
  else out(r.display);
  return 0;
}

}  // namespace tether::cli
