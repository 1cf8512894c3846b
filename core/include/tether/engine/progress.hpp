// tether/engine/progress.hpp: how a long command reports how far it got (the CLI draws it on
// a terminal). Shared by the option structs of the commands that walk many objects or commits.
#pragma once

#include <cstddef>
#include <functional>

namespace tether::engine {

using ProgressFn = std::function<void(std::size_t done, std::size_t total)>;

}  // namespace tether::engine
