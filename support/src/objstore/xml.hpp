// A small XML tree for the answers of object stores (S3's ListBucketResult and Error, Azure's
// EnumerationResults), parsed with expat. The answer is someone else's bytes: depth, element
// count and text size are bounded, DTDs and entities other than the predefined five are
// refused, and a malformed document is an error, never a partial tree.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tether::support::objstore {

struct XmlElement {
  std::string name;  // the local name (any namespace prefix removed)
  std::string text;  // the character data directly inside it
  std::vector<XmlElement> children;

  const XmlElement* child(std::string_view name) const;
  // The text of the first child of that name; "" when there is none.
  std::string child_text(std::string_view name) const;
};

// Parses `doc`; nullopt (and `why`) when it is not well-formed or exceeds the limits.
std::optional<XmlElement> parse_xml(std::string_view doc, std::string* why = nullptr);

}  // namespace tether::support::objstore
