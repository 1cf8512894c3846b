// tether/engine/verify.hpp: `tether verify` (docs/cli.md): do the committed pins and states
// still resolve in their stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tether/engine/progress.hpp"

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct VerifyOptions {
  std::optional<std::string> rev;
  bool all_history = false, deep = false;
  // The process exits after this (the CLI): the walk's scratch goes to keep_until_exit
  // (tether/engine/repo.hpp) instead of being freed block by block.
  bool leave_memory_to_exit = false;
  ProgressFn reading;   // --all-history: the commits the history index lacks, read from the VCS
  ProgressFn progress;  // the distinct records verified
};

// One entry per record checked, in order (the working tree's or --rev's manifests by key; a
// history walk's by commit, newest first, then key). A history of 10,000 commits x 50 objects
// is 500,000 entries of 30,000 distinct records, so an entry is two numbers: its record (a
// key, a view into the manifests the result keeps, and an answer) and its label's prefix
// (`<commit>:` in a history walk).
struct VerifyResult {
  struct Answer {
    std::string_view status = "unknown";  // ok | drifted | missing | unknown
    std::string message;
  };
  struct Record {
    std::string_view key;
    std::uint32_t answer = 0;  // into answers
  };
  struct Row {
    std::uint32_t record = 0;  // into records
    std::uint32_t prefix = 0;  // into prefixes
  };
  std::vector<Row> rows;
  std::vector<Record> records;
  std::vector<std::string> prefixes;
  std::vector<Answer> answers;
  std::shared_ptr<const void> keep;  // what the records' keys view
  // History records skipped because they promise nothing (Observed: no pin, not recoverable).
  std::size_t skipped_observed = 0;

  std::size_t size() const { return rows.size(); }
  bool empty() const { return rows.empty(); }
  std::string label(std::size_t i) const;  // `<commit>:<key>`, or the key
  void append_label(std::string& out, std::size_t i) const;
  std::string_view status(std::size_t i) const { return answer(i).status; }
  const std::string& message(std::size_t i) const { return answer(i).message; }
  const Answer& answer(std::size_t i) const { return answers[records[rows[i].record].answer]; }
  bool ok() const;
  Json to_json() const;  // `tether verify --json`: {label: {status, message}} (docs/cli.md)
};

VerifyResult verify(Repo& repo, const VerifyOptions& options);

}  // namespace tether::engine
