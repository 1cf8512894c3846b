// model/gitignore.cpp: ensure_ignored.
#include "tether/model/gitignore.hpp"

#include <set>
#include <string>

#include "tether/model/checkout.hpp"

namespace tether::model {
namespace fs = std::filesystem;

bool ensure_ignored(const CheckoutPath& tether_dir, bool only_present) {
  const CheckoutPath file = tether_dir / ".gitignore";
  std::string text = read_checkout_file(file).value_or(std::string());
  std::set<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(start, nl - start);
    const auto b = line.find_first_not_of(" \t\r");
    line = b == std::string::npos ? std::string() : line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
    lines.insert(line);
    start = nl + 1;
  }
  std::string missing;
  for (auto name : kIgnoredNames) {
    const std::string entry = "/" + std::string(name);
    if (lines.count(entry)) continue;
    if (only_present && !checkout_entry_exists(tether_dir / std::string(name))) continue;
    missing += entry + "\n";
  }
  if (missing.empty()) return false;
  if (!text.empty() && text.back() != '\n') text += '\n';
  write_checkout_file(file, text + missing);
  return true;
}

}  // namespace tether::model
