// core/cli/diff.cpp: `tether diff` and `tether verify`.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"

namespace tether::cli {

int run_diff(const Global& g, const DiffOptions& o) {
  auto repo = open_repo();
  Progress progress("diffing", !g.json);
  auto entries = repo->diff(o.revs, o.content, progress.callback());
  progress.finish();
  if (g.json) {
    auto arr = nlohmann::json::array();
    for (const auto& e : entries)
      arr.push_back({{"key", e.key},
                     {"change", e.change},
                     {"a", e.a ? *e.a : nlohmann::json(nullptr)},
                     {"b", e.b ? *e.b : nlohmann::json(nullptr)},
                     {"detail", e.detail ? nlohmann::json(*e.detail) : nlohmann::json(nullptr)},
                     {"detail_error", e.detail_error ? nlohmann::json(*e.detail_error) : nlohmann::json(nullptr)},
                     {"why", e.why}});
    print_json(arr);
    return 0;
  }
  for (const auto& e : entries) {
    if (e.change == "unchanged") continue;
    std::string line = "  " + rjust(e.change, 9) + "  " + e.key;
    if (e.detail) line += "  [" + e.detail->summary() + "]";
    else if (e.detail_error) line += "  [diff failed: " + *e.detail_error + "]";
    else if (e.change == "changed" && std::find(e.why.begin(), e.why.end(), "state") == e.why.end()) {
      std::string why;
      for (const auto& w : e.why) why += (why.empty() ? "" : " and ") + w;
      line += "  [" + why + " changed; same state]";
    }
    out(line);
    if (!e.detail) continue;
    std::size_t shown = 0;
    for (const auto& c : e.detail->entries) {
      if (shown == static_cast<std::size_t>(o.limit)) break;
      out(std::string(14, ' ') + rjust(c.change, 9) + "  " + c.path + (c.detail.empty() ? "" : "  " + c.detail));
      ++shown;
    }
    if (e.detail->entries.size() > shown)
      out(std::string(14, ' ') + "... " + std::to_string(e.detail->entries.size() - shown) + " more (use --limit)");
  }
  return 0;
}

int run_verify(const Global& g, const VerifyOptions& o) {
  auto repo = open_repo();
  engine::VerifyOptions opt;
  opt.rev = o.rev;
  opt.all_history = o.all_history;
  opt.deep = o.deep;
  Progress progress("verifying", !g.json);
  opt.progress = progress.callback();
  auto result = repo->verify(opt);
  progress.finish();
  const auto& entries = result.entries;
  bool all_ok = result.ok();
  if (g.json) {
    nlohmann::json obj = nlohmann::json::object();
    for (const auto& e : entries) obj[e.label] = {{"status", e.status}, {"message", e.message}};
    print_json(obj);
    return all_ok ? 0 : 1;
  }
  if (entries.empty() && result.skipped_observed > 0)
    out("  nothing to verify: the history holds " + std::to_string(result.skipped_observed) +
        " Observed record(s), which promise no state to check (only pinned or recoverable states are verified)");
  else if (entries.empty()) out("  nothing to verify: no committed states");
  for (const auto& e : entries) {
    std::string line = "  " + rjust(e.status, 8) + "  " + e.label + (e.message.empty() ? "" : "  " + e.message);
    out(e.status == "ok" ? green(line) : red(line));
  }
  return all_ok ? 0 : 1;
}

}  // namespace tether::cli
