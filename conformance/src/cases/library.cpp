// conformance/src/cases/library.cpp: the shared object and its entry: what it exports, the
// entry's fields, describe, create() discipline and a load/unload/reload cycle.

#include <cctype>

#include "../elf_exports.hpp"
#include "../suite.hpp"

namespace tether::conformance {
namespace {

using host::Op;

void exports_only_entry(Fixture& fx) {
  auto names = elf_exports(fx.options().plugin);
  bool entry = false;
  std::vector<std::string> extra;
  for (const auto& n : names) {
    if (n == "tether_entry") entry = true;
    else extra.push_back(n);
  }
  expect(entry, "the plugin does not export tether_entry");
  if (extra.empty()) return;
  // Name the plain C symbols (the ones a reader recognises) and count the C++ ones.
  std::string shown;
  size_t cxx = 0;
  for (const auto& n : extra) {
    if (n.rfind("_Z", 0) == 0) ++cxx;
    else shown += (shown.empty() ? "" : ", ") + n;
  }
  if (cxx) shown += (shown.empty() ? "" : " and ") + std::to_string(cxx) + " C++ symbol(s)";
  fail("the plugin exports " + std::to_string(extra.size()) + " symbol(s) besides tether_entry: " + shown +
       " (link with hidden visibility and plugin-sdk/tether-plugin.map)");
}

// MAJOR.MINOR.PATCH, then optionally -prerelease and/or +build of [0-9A-Za-z.-].
bool semantic_version(const std::string& v) {
  size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    size_t start = i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
    if (i == start) return false;
    if (part < 2 && (i >= v.size() || v[i++] != '.')) return false;
  }
  if (i == v.size()) return true;
  if (v[i] != '-' && v[i] != '+') return false;
  if (++i == v.size()) return false;
  for (; i < v.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(v[i])) && v[i] != '.' && v[i] != '-' && v[i] != '+') return false;
  return true;
}

void entry_sanity(Fixture& fx) {
  // Plugin::load already refused a bad magic, ABI, size, kind, table or missing required op.
  const tether_plugin_entry& e = fx.plugin().entry();
  expect(e.plugin_version != nullptr, "tether_entry has no plugin_version");
  expect(semantic_version(e.plugin_version),
         std::string("plugin_version '") + e.plugin_version + "' is not a semantic version");
  expect(e.vtable->reserved == 0, "the operation table's reserved field is " + std::to_string(e.vtable->reserved) + ", not 0");
  expect(fx.plugin().plugin_vtable_size() >= offsetof(tether_backend_vtable, rename_working_ref) + sizeof(tether_op),
         "the operation table is smaller than ABI 0.1's");
  expect(e.struct_size >= sizeof(tether_plugin_entry), "tether_entry is smaller than ABI 0.1's");
}

void load_reload(Fixture& fx) {
  host::LoadOptions lo;
  if (fx.has_harness()) lo.config = fx.harness().backend_config(fx.workdir());
  std::string first;
  for (int round = 0; round < 3; ++round) {
    auto p = host::Plugin::load(fx.options().plugin, lo);
    auto d = p->call(Op::Describe, "{}");
    expect(d.ok() && d.reply, "describe failed after load #" + std::to_string(round + 1) + ": " + d.message);
    if (round == 0) first = *d.reply;
    expect(*d.reply == first, "describe after reload #" + std::to_string(round + 1) + " differs from the first load");
    p->unload();
    expect(!p->loaded(), "unload left the instance alive");
  }
}

void create_config_discipline(Fixture& fx) {
  const tether_plugin_entry& e = fx.plugin().entry();
  for (std::string config : {"[1, 2]", "{\"locator\": ", "\"text\"", "{\"zz_unknown_setting\": {\"a\": [1, null]}}"}) {
    tether_backend* inst = nullptr;
    host::CallResult r = host::invoke_create(e, fx.kind(), config, &inst);
    expect(r.problems.empty(), "create(" + config + ") broke the status protocol: " +
                                   (r.problems.empty() ? "" : r.problems.front()));
    if (r.ok()) {
      expect(inst != nullptr, "create(" + config + ") returned OK without an instance");
      e.destroy(inst);
    } else {
      expect(!r.message.empty(), "create(" + config + ") failed without a message");
    }
  }
}

void describe_valid(Fixture& fx) {
  Json d = Json::parse(fx.plugin().description_json());
  expect(d.is_object(), "describe's reply is not an object");
  expect(d.value("kind", "") == fx.kind(), "describe's kind is not the entry's");
  expect(d.contains("capabilities") && d["capabilities"].is_number_unsigned(),
         "describe has no unsigned integer 'capabilities'");
  uint32_t caps = d["capabilities"].get<uint32_t>();
  expect(caps & TETHER_CAP_FINGERPRINT, "describe's capabilities lack FINGERPRINT; every backend has it");
  expect((caps >> sdk::kCapabilityCount) == 0, "describe's capabilities set bits this ABI does not define: " +
                                                   std::to_string(caps));
  std::string maturity = d.value("maturity", "stable");
  expect(maturity == "stable" || maturity == "experimental", "maturity '" + maturity + "' is not stable or experimental");
  expect(d.contains("thread_safe") && d["thread_safe"].is_boolean(), "describe has no boolean 'thread_safe'");
  for (const char* k : {"volatile_keys", "local_path_keys", "local_path_prefixes", "uri_keys", "safe_config_keys"}) {
    if (!d.contains(k)) continue;
    expect(d[k].is_array(), std::string("describe's '") + k + "' is not a list");
    for (const auto& v : d[k]) expect(v.is_string(), std::string("describe's '") + k + "' holds a non-string");
  }
  auto again = fx.plugin().call(Op::Describe, "{}");
  expect(again.ok() && again.reply && Json::parse(*again.reply) == d, "describe answers differently the second time");
}

// Ops with a default (backend.h / BackendProxy) are optional even under their capability.
bool optional_under_capability(Op op) {
  return op == Op::WorkingRefBlockers || op == Op::Listing || op == Op::AncestorOf || op == Op::RenamePin ||
         op == Op::RenameWorkingRef || op == Op::PromoteBlockers || op == Op::Rewind;
}

void describe_consistency(Fixture& fx) {
  uint32_t caps = fx.backend().capabilities();
  std::string problems;
  for (int i = 0; i < host::kOpCount; ++i) {
    Op op = static_cast<Op>(i);
    uint32_t gate = host::op_capability(op);
    if (gate == 0) continue;
    bool declared = (caps & gate) != 0, present = fx.plugin().has(op);
    auto gate_names = sdk::capability_names(gate);
    std::string gate_name = gate_names.empty() ? "?" : gate_names.front();
    for (size_t g = 1; g < gate_names.size(); ++g) gate_name += " or " + gate_names[g];
    if (present && !declared)
      problems += std::string(problems.empty() ? "" : "; ") + "has '" + host::op_name(op) + "' but does not declare " + gate_name;
    if (declared && !present && !optional_under_capability(op))
      problems += std::string(problems.empty() ? "" : "; ") + "declares " + gate_name + " but its '" + host::op_name(op) +
                  "' slot is NULL";
  }
  expect(problems.empty(), problems);
}

}  // namespace

void add_library_cases(std::vector<Case>& out) {
  out.push_back({"exports-only-entry", "The shared object's dynamic symbol table exports tether_entry and nothing else.",
                 0, false, exports_only_entry});
  out.push_back({"entry-sanity", "The entry loads through the host's loader, with a semantic version and a sane table.",
                 0, false, entry_sanity});
  out.push_back({"load-unload-reload", "The plugin loads, unloads (destroy, deinit, dlclose) and loads again, three times.",
                 0, false, load_reload});
  out.push_back({"create-config-discipline", "create() with a malformed or odd config succeeds or fails with exactly one fail().",
                 0, false, create_config_discipline});
  out.push_back({"describe-valid", "describe is a well-typed object with FINGERPRINT, and answers the same twice.",
                 0, false, describe_valid});
  out.push_back({"describe-consistency", "Declared capabilities and non-NULL slots agree, both ways.", 0, false,
                 describe_consistency});
}

}  // namespace tether::conformance
