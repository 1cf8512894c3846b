#include "cli/common.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/gc.hpp"
#include "tether/engine/plan.hpp"
#include "tether/errors.hpp"
#include "tether/sdk/types.hpp"
#include "tether/model/json.hpp"

namespace tether::cli {

std::unique_ptr<engine::Repo> open_repo(bool allow_outdated) {
  engine::Services services;
  services.allow_outdated = allow_outdated;
  auto repo = engine::Repo::open(std::filesystem::current_path(), std::move(services));
  for (const auto& w : repo->warnings()) warning(w);
  repo->on_warning([](const std::string& w) { warning(w); });
  return repo;
}

std::string rjust(const std::string& s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
std::string ljust(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

std::string history_line(const sdk::HistoryEntry& e, std::size_t id_width) {
  std::string when = e.when.value_or("").substr(0, 16);
  std::replace(when.begin(), when.end(), 'T', ' ');
  return ljust(e.id, id_width) + "  " + ljust(when, 16) + "  " + e.message;
}

void apply_sets(nlohmann::json& locator, const std::vector<std::string>& sets) {
  for (const auto& kv : sets) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError("--set expects key=value, got " + model::py_repr(kv));
    locator[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
}

std::string render_plan(const engine::Plan& plan) {
  std::string notes;
  for (const auto& n : plan.notes) notes += "\n  " + std::string(18, ' ') + "  " + n;
  if (plan.actions.empty()) return "  " + plan.command + ": nothing to do" + notes;
  std::size_t w = 0;
  for (const auto& a : plan.actions) w = std::max(w, a.key.size());
  std::string s = "plan: " + plan.command + " (" + std::to_string(plan.writes()) + " write(s))";
  for (const auto& a : plan.actions) {
    std::string label = w > 0 ? ljust(a.key, w) + "  " : "";
    std::string kindtag = a.kind.empty() ? "" : "[" + a.kind + "] ";
    std::string line = "  " + rjust(std::string(engine::op_name(a.op)), 18) + "  " + label + kindtag + a.target + "  " + a.detail;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s += "\n" + line;
  }
  return s + notes;
}

std::optional<engine::Plan> load_saved_plan(const PlanFlags& flags, const std::string& command) {
  if (!flags.from_plan) return std::nullopt;
  if (flags.dry_run || flags.plan_file)
    throw ConfigError("--from-plan applies a saved plan; it cannot be combined with --dry-run or --plan");
  return engine::read_plan_file(*flags.from_plan, command, engine::required_preconditions(command));
}

bool show_plan(const Global& g, const PlanFlags& flags, engine::Repo& repo, const engine::Plan& plan) {
  if (!flags.dry_run && !flags.plan_file) return false;
  if (flags.plan_file) {
    repo.require_persisted_workspace();
    engine::write_plan_file(*flags.plan_file, plan);
    std::cerr << "plan written to " << *flags.plan_file << "\n";
  }
  if (g.json) print_json(plan.to_json());
  else out(render_plan(plan));
  return true;
}

void registry_note(const Global& g) {
  if (!g.json)
    note("export/publish/import are experimental (tether.experimental.registry): the schema may change before 0.2");
}

// `  <table>  <count> row(s)` for every table, names padded to the longest (listing_entries).
void print_table_counts(const std::vector<std::pair<std::string, std::size_t>>& counts) {
  std::size_t w = 0;
  for (const auto& [t, n] : counts) w = std::max(w, t.size());
  for (const auto& [t, n] : counts) out("  " + ljust(t, w) + "  " + rjust(std::to_string(n), 7) + " row(s)");
}

void print_failed(const std::map<std::string, std::string>& failed) {
  for (const auto& [what, why] : failed) error_line(what + ": " + why);
}

void print_gc_report(const engine::GcReport& r) {
  auto count = [](const std::map<std::string, std::vector<std::string>>& m) {
    std::size_t n = 0;
    for (const auto& [k, v] : m) n += v.size();
    return n;
  };
  out("unpinned " + std::to_string(count(r.unpinned)) + " pin(s)");
  for (const auto& [kind, ids] : r.unpinned)
    for (const auto& id : ids) out("  " + kind + ": " + id);
  if (std::size_t n = count(r.kept_pins)) {
    out(yellow("kept " + std::to_string(n) + " unreferenced pin(s) this clone did not create (--release-foreign releases)"));
    for (const auto& [kind, ids] : r.kept_pins)
      for (const auto& id : ids) out("  " + kind + ": " + id);
  }
  if (std::size_t n = count(r.deleted_working_refs)) {
    out("deleted " + std::to_string(n) + " working branch(es)");
    for (const auto& [key, refs] : r.deleted_working_refs)
      for (const auto& ref : refs) out("  " + key + ": " + ref);
  }
  if (std::size_t n = count(r.kept_working_refs)) {
    out(yellow("kept " + std::to_string(n) + " working branch(es) holding unpinned data (--force-prune deletes)"));
    for (const auto& [key, refs] : r.kept_working_refs)
      for (const auto& ref : refs) out("  " + key + ": " + ref);
  }
  if (std::size_t n = count(r.forgotten_working_refs)) out("forgot " + std::to_string(n) + " working ref(s) of removed object(s)");
  if (!r.deleted_listings.empty()) out("deleted " + std::to_string(r.deleted_listings.size()) + " orphan listing(s)");
  if (!r.deleted_stores.empty()) {
    out("deleted " + std::to_string(r.deleted_stores.size()) + " created store(s)");
    for (const auto& [key, where] : r.deleted_stores) out("  " + key + ": " + where);
  }
  if (!r.kept_stores.empty()) {
    out(yellow("kept " + std::to_string(r.kept_stores.size()) + " unreferenced created store(s)"));
    for (const auto& [key, why] : r.kept_stores) out("  " + key + ": " + why);
  }
  if (!r.forgotten_stores.empty())
    out("forgot " + std::to_string(r.forgotten_stores.size()) + " store(s) with nothing of tether's left in them");
  if (!r.forgotten_touched.empty())
    out("forgot " + std::to_string(r.forgotten_touched.size()) +
        " touched store(s) no manifest names, with nothing of this dataset's left in them");
}

int gc_exit(const engine::GcReport& r) {
  if (r.failed.empty()) return 0;
  return r.wrote_anything() ? kExitPartial : kExitFailure;
}

}  // namespace tether::cli
