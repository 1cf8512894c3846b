// tether/engine/gc.hpp: `tether gc` (docs/cli.md): release the pins, working branches and
// listings nothing references any more. abandon --gc and drop report through GcReport too.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"
#include "tether/engine/progress.hpp"

namespace tether::engine {

class Repo;

struct GcOptions {
  bool dry_run = true;  // gc and drop plan only unless told --no-dry-run
  bool prune_bookmarks = false;   // working branches of bookmarks that are gone
  bool prune_workspaces = false;  // working branches of checkouts that are gone (legacy per-workspace names)
  bool force_prune = false;       // ... also those holding unpinned writes
  bool release_foreign = false;   // unreferenced pins this clone did not create
  bool listings_only = false;     // only orphaned listings: no store is asked anything
  // Experimental: delete the stores `add --create` made that nothing references any more
  // (docs/cli.md#gc); `stores` names more by kind and locator (their owner marker must name
  // this dataset). Stores imply delete_stores.
  bool delete_stores = false;
  std::vector<std::pair<std::string, Json>> stores;
  std::filesystem::path cwd;  // what a relative path in `stores` is relative to
  std::vector<std::string> keep_bookmarks;
  std::optional<Plan> saved;
  ProgressFn reading;   // the commits the history index lacks, read from the VCS
  ProgressFn progress;  // the stores whose pins are listed
};
struct GcReport {
  Plan plan;
  bool applied = false;
  std::map<std::string, std::vector<std::string>> unpinned, kept_pins;  // kind -> pin ids
  // key -> refs
  std::map<std::string, std::vector<std::string>> deleted_working_refs, kept_working_refs, forgotten_working_refs;
  std::vector<std::string> deleted_listings;
  std::map<std::string, std::string> deleted_stores, kept_stores;  // key -> where / why
  std::vector<std::string> forgotten_stores;                        // keys the created-stores index lets go
  std::vector<std::string> forgotten_touched;                       // keys the touched-store index lets go
  std::map<std::string, std::string> failed;  // what -> why: the part that did not happen
  // What the plan could not list (a store, its branches) -> why; nothing of it is released.
  // Set on a dry run too, where `failed` is empty.
  std::map<std::string, std::string> unreachable;
  bool wrote_anything() const;
  Json to_json() const;  // docs/cli.md's gc JSON fields (+ "failed" when any)
};

GcReport gc(Repo& repo, const GcOptions& options);

}  // namespace tether::engine
