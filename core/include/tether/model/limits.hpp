// tether/model/limits.hpp: how large and how deeply nested the TOML and JSON tether reads may
// be. A clone, a store, a plugin, a plan file or an import source is someone else's text, and
// the parsers and everything that walks their results recurse; these numbers keep that inside
// the stack and the memory. docs/security.md ("Parsers") lists where each one applies.
#pragma once

#include <cstddef>

#include "tether/sdk/json_limits.hpp"

namespace tether::model {

// Nesting: a TOML document (the document itself is level 1; each header key segment, `[[...]]`,
// dotted-key segment, inline table and array one more) and every JSON document from outside.
inline constexpr std::size_t kMaxNesting = sdk::kMaxJsonNesting;
// The records tether writes around values it read under kMaxNesting (op-log lines, plans,
// plugin requests and replies) get this much headroom, so a state at the limit still round-trips.
inline constexpr std::size_t kMaxWrappedNesting = sdk::kMaxJsonWrappedNesting;

// tether.toml, a manifest, secrets.toml, workspace.toml; one listing line, one JSONL import
// row, one locator_json cell (it becomes a manifest).
inline constexpr std::size_t kMaxDocumentBytes = sdk::kMaxJsonDocumentBytes;
// One op-log line; one JSON reply a plugin reads from its store's API.
inline constexpr std::size_t kMaxRecordBytes = sdk::kMaxJsonRecordBytes;
// One request or reply across the plugin ABI, one emitted item.
inline constexpr std::size_t kMaxMessageBytes = sdk::kMaxJsonMessageBytes;
// A --plan / --from-plan file.
inline constexpr std::size_t kMaxPlanBytes = std::size_t{256} << 20;
// A whole CSV or JSONL import source.
inline constexpr std::size_t kMaxImportBytes = std::size_t{1} << 30;

}  // namespace tether::model
