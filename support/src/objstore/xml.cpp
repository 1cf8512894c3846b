#include "xml.hpp"

#include <expat.h>

#include <memory>

namespace tether::support::objstore {

const XmlElement* XmlElement::child(std::string_view n) const {
  for (const auto& c : children)
    if (c.name == n) return &c;
  return nullptr;
}

std::string XmlElement::child_text(std::string_view n) const {
  const XmlElement* c = child(n);
  return c ? c->text : std::string();
}

namespace {

constexpr std::size_t kMaxDepth = 32;
constexpr std::size_t kMaxElements = 4'000'000;
constexpr std::size_t kMaxText = 1 << 20;  // one element's text

struct Builder {
  XML_Parser parser = nullptr;
  XmlElement root;
  std::vector<XmlElement*> stack;
  std::size_t elements = 0;
  bool have_root = false;
  std::string error;

  void fail(std::string why) {
    if (error.empty()) error = std::move(why);
    XML_StopParser(parser, XML_FALSE);
  }
};

std::string local_name(const char* name) {
  std::string_view n(name);
  auto colon = n.rfind(':');
  return std::string(colon == std::string_view::npos ? n : n.substr(colon + 1));
}

void on_start(void* data, const char* name, const char**) {
  auto* b = static_cast<Builder*>(data);
  if (++b->elements > kMaxElements) return b->fail("too many elements");
  if (b->stack.size() >= kMaxDepth) return b->fail("nested too deeply");
  if (b->stack.empty()) {
    if (b->have_root) return b->fail("more than one root element");
    b->have_root = true;
    b->root.name = local_name(name);
    b->stack.push_back(&b->root);
    return;
  }
  XmlElement* parent = b->stack.back();
  parent->children.push_back(XmlElement{local_name(name), {}, {}});
  b->stack.push_back(&parent->children.back());
}

void on_end(void* data, const char*) {
  auto* b = static_cast<Builder*>(data);
  if (!b->stack.empty()) b->stack.pop_back();
}

void on_text(void* data, const char* s, int len) {
  auto* b = static_cast<Builder*>(data);
  if (b->stack.empty()) return;
  std::string& text = b->stack.back()->text;
  if (text.size() + static_cast<std::size_t>(len) > kMaxText) return b->fail("an element's text is too long");
  text.append(s, static_cast<std::size_t>(len));
}

// A document type declaration could define entities: object stores never send one.
void on_doctype(void* data, const char*, const char*, const char*, int) {
  static_cast<Builder*>(data)->fail("a document type declaration is not accepted");
}

void on_entity(void* data, const char*, int, const char*, int, const char*, const char*, const char*, const char*) {
  static_cast<Builder*>(data)->fail("entity declarations are not accepted");
}

}  // namespace

std::optional<XmlElement> parse_xml(std::string_view doc, std::string* why) {
  std::unique_ptr<std::remove_pointer_t<XML_Parser>, decltype(&XML_ParserFree)> p(XML_ParserCreate("UTF-8"),
                                                                                  &XML_ParserFree);
  if (!p) {
    if (why) *why = "cannot start the XML parser";
    return std::nullopt;
  }
  Builder b;
  b.parser = p.get();
  XML_SetUserData(p.get(), &b);
  XML_SetElementHandler(p.get(), on_start, on_end);
  XML_SetCharacterDataHandler(p.get(), on_text);
  XML_SetStartDoctypeDeclHandler(p.get(), on_doctype);
  XML_SetEntityDeclHandler(p.get(), on_entity);
  XML_SetParamEntityParsing(p.get(), XML_PARAM_ENTITY_PARSING_NEVER);
  // Parsed in slices: XML_Parse takes an int length.
  constexpr std::size_t kSlice = 1 << 24;
  std::size_t at = 0;
  bool ok = true;
  do {
    std::size_t n = std::min(kSlice, doc.size() - at);
    bool last = at + n == doc.size();
    if (XML_Parse(p.get(), doc.data() + at, static_cast<int>(n), last ? XML_TRUE : XML_FALSE) != XML_STATUS_OK) {
      ok = false;
      break;
    }
    at += n;
  } while (at < doc.size());
  if (!ok || !b.error.empty() || !b.have_root) {
    if (why) {
      if (!b.error.empty()) *why = b.error;
      else if (!b.have_root && ok) *why = "no document";
      else *why = XML_ErrorString(XML_GetErrorCode(p.get()));
    }
    return std::nullopt;
  }
  return std::move(b.root);
}

}  // namespace tether::support::objstore
