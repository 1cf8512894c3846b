// tether/model/gitignore.hpp: `.tether/.gitignore`, which keeps the per-checkout files out of
// the VCS (docs/FORMAT.md#tethergitignore-and-what-is-committed).
#pragma once

#include <array>
#include <filesystem>
#include <string_view>

#include "tether/model/checkout.hpp"

namespace tether::model {

// The per-checkout names, in the order a fresh .gitignore lists them (each as `/<name>`).
inline constexpr std::array<std::string_view, 5> kIgnoredNames = {"workspace.toml", "ops.jsonl", "cache", "lock",
                                                                   "secrets.toml"};

// Append every missing `/<name>` line to tether_dir/.gitignore (creating it and tether_dir).
// With only_present, append only names that exist in tether_dir now, and write nothing when
// none is missing, so read-only commands never dirty the tree. Returns true if it wrote.
bool ensure_ignored(const CheckoutPath& tether_dir, bool only_present);

}  // namespace tether::model
